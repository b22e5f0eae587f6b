from django.urls import path

from monitoring.api import vessels

urlpatterns = [
    path("vessel-monitors", vessels.VesselMonitorCollectionView.as_view(), name="vessel-monitors"),
    path("vessel-monitors/<str:monitor_id>", vessels.VesselMonitorDetailView.as_view(), name="vessel-monitor"),
    path("vessel-monitors/<str:monitor_id>/runs", vessels.VesselMonitorRunsView.as_view(), name="vessel-monitor-runs"),
    path(
        "vessel-monitors/<str:monitor_id>/simulate",
        vessels.VesselMonitorSimulateView.as_view(),
        name="vessel-monitor-simulate",
    ),
]
