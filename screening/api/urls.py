from django.urls import path

from screening.api.batch_views import (
    ScreeningBatchCollectionView,
    ScreeningBatchDetailView,
    ScreeningBatchItemsView,
)
from screening.api.decision_views import (
    MatchDecisionCollectionView,
    MatchDecisionDetailView,
    MatchDecisionRevokeView,
)
from screening.api.fleet_views import (
    FleetChangesView,
    FleetCollectionView,
    FleetDetailView,
    FleetExposureView,
)
from screening.api.keyless_views import VesselCheckView
from screening.api.views import ScreeningCollectionView, ScreeningDetailView, ScreeningEvidenceView

urlpatterns = [
    path("screenings", ScreeningCollectionView.as_view(), name="screenings"),
    path("screenings/<str:screening_id>", ScreeningDetailView.as_view(), name="screening-detail"),
    path("screenings/<str:screening_id>/evidence", ScreeningEvidenceView.as_view(), name="screening-evidence"),
    path("screening-batches", ScreeningBatchCollectionView.as_view(), name="screening-batches"),
    path("screening-batches/<str:batch_id>", ScreeningBatchDetailView.as_view(), name="screening-batch"),
    path("screening-batches/<str:batch_id>/items", ScreeningBatchItemsView.as_view(), name="screening-batch-items"),
    path("fleets", FleetCollectionView.as_view(), name="fleets"),
    path("fleets/<str:fleet_id>", FleetDetailView.as_view(), name="fleet"),
    path("fleets/<str:fleet_id>/exposure", FleetExposureView.as_view(), name="fleet-exposure"),
    path("fleets/<str:fleet_id>/changes", FleetChangesView.as_view(), name="fleet-changes"),
    path("match-decisions", MatchDecisionCollectionView.as_view(), name="match-decisions"),
    path("match-decisions/<str:decision_id>", MatchDecisionDetailView.as_view(), name="match-decision"),
    path("match-decisions/<str:decision_id>/revoke", MatchDecisionRevokeView.as_view(), name="match-decision-revoke"),
    path("vessels/<path:imo>/check", VesselCheckView.as_view(), name="vessel-check"),
]
