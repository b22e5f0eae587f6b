from django.urls import path

from voyages.api.port_views import PortLookupView
from voyages.api.views import (
    VoyageAssessmentCollectionView,
    VoyageAssessmentDetailView,
    VoyageBatchCollectionView,
    VoyageBatchDetailView,
    VoyageBatchItemsView,
)

urlpatterns = [
    path("ports", PortLookupView.as_view(), name="ports"),
    path("voyage-assessments", VoyageAssessmentCollectionView.as_view(), name="voyage-assessments"),
    path("voyage-assessments/<str:assessment_id>", VoyageAssessmentDetailView.as_view(), name="voyage-assessment"),
    path("voyage-assessment-batches", VoyageBatchCollectionView.as_view(), name="voyage-batches"),
    path("voyage-assessment-batches/<str:batch_id>", VoyageBatchDetailView.as_view(), name="voyage-batch"),
    path("voyage-assessment-batches/<str:batch_id>/items", VoyageBatchItemsView.as_view(), name="voyage-batch-items"),
]
