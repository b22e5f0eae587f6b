from django.urls import path

from screening.api.keyless_views import VesselCheckView
from screening.api.views import ScreeningCollectionView, ScreeningDetailView

urlpatterns = [
    path("screenings", ScreeningCollectionView.as_view(), name="screenings"),
    path("screenings/<str:screening_id>", ScreeningDetailView.as_view(), name="screening-detail"),
    path("vessels/<path:imo>/check", VesselCheckView.as_view(), name="vessel-check"),
]
