from django.urls import path

from exports.api import views

urlpatterns = [
    path("exports", views.ExportCollectionView.as_view(), name="exports"),
    path("exports/<str:export_id>", views.ExportDetailView.as_view(), name="export"),
    path("exports/<str:export_id>/download", views.ExportDownloadView.as_view(), name="export-download"),
]
