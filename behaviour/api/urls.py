from django.urls import path

from behaviour.api.views import VesselBehaviourView

urlpatterns = [
    path("vessels/<str:imo>/behaviour", VesselBehaviourView.as_view(), name="vessel-behaviour"),
]
