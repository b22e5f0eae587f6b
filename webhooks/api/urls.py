from django.urls import path

from webhooks.api.views import WebhookEndpointCollectionView, WebhookEndpointDetailView

urlpatterns = [
    path("webhook-endpoints", WebhookEndpointCollectionView.as_view(), name="webhook-endpoints"),
    path("webhook-endpoints/<str:endpoint_id>", WebhookEndpointDetailView.as_view(), name="webhook-endpoint"),
]
