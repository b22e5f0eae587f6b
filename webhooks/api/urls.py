from django.urls import path

from webhooks.api import views

urlpatterns = [
    path("webhook-endpoints", views.WebhookEndpointCollectionView.as_view(), name="webhook-endpoints"),
    path("webhook-endpoints/<str:endpoint_id>", views.WebhookEndpointDetailView.as_view(), name="webhook-endpoint"),
    path("webhook-endpoints/<str:endpoint_id>/test", views.WebhookEndpointTestView.as_view(), name="webhook-test"),
    path(
        "webhook-endpoints/<str:endpoint_id>/rotate-secret",
        views.WebhookEndpointRotationView.as_view(),
        name="webhook-rotate-secret",
    ),
    path("webhook-deliveries", views.WebhookDeliveryCollectionView.as_view(), name="webhook-deliveries"),
    path("webhook-deliveries/<str:delivery_id>", views.WebhookDeliveryDetailView.as_view(), name="webhook-delivery"),
    path(
        "webhook-deliveries/<str:delivery_id>/redeliver",
        views.WebhookRedeliveryView.as_view(),
        name="webhook-redeliver",
    ),
]
