from django.urls import path

from metering.api.views import AccessLogView, UsageView

urlpatterns = [
    path("usage", UsageView.as_view(), name="usage"),
    path("access-log", AccessLogView.as_view(), name="access-log"),
]
