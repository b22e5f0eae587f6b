from django.urls import path

from screening.pages.views import vessel_report

urlpatterns = [
    path("vessels/<path:imo>/report", vessel_report, name="vessel-report"),
]
