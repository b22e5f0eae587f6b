from django.urls import path

from monitoring.api import corridors, vessels

urlpatterns = [
    path("vessel-monitors", vessels.VesselMonitorCollectionView.as_view(), name="vessel-monitors"),
    path("vessel-monitors/<str:monitor_id>", vessels.VesselMonitorDetailView.as_view(), name="vessel-monitor"),
    path("vessel-monitors/<str:monitor_id>/runs", vessels.VesselMonitorRunsView.as_view(), name="vessel-monitor-runs"),
    path(
        "vessel-monitors/<str:monitor_id>/simulate",
        vessels.VesselMonitorSimulateView.as_view(),
        name="vessel-monitor-simulate",
    ),
    path("corridor-monitors", corridors.CorridorMonitorCollectionView.as_view(), name="corridor-monitors"),
    path("corridor-monitors/<str:monitor_id>", corridors.CorridorMonitorDetailView.as_view(), name="corridor-monitor"),
    path(
        "corridor-monitors/<str:monitor_id>/runs",
        corridors.CorridorMonitorRunsView.as_view(),
        name="corridor-monitor-runs",
    ),
]
