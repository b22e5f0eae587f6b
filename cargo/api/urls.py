from django.urls import path

from cargo.api.views import CargoScreeningCollectionView, CargoScreeningDetailView

urlpatterns = [
    path("cargo-screenings", CargoScreeningCollectionView.as_view(), name="cargo-screenings"),
    path("cargo-screenings/<str:cargo_screening_id>", CargoScreeningDetailView.as_view(), name="cargo-screening"),
]
