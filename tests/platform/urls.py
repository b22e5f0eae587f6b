"""Test-only routes: a POST view to exercise parsing and validation, and one that fails."""

from django.urls import include, path
from rest_framework import serializers

from core.api.responses import json_bytes_response
from metering.api.base import KeylessAPIView


class _EchoInput(serializers.Serializer):
    name = serializers.CharField(max_length=10)
    count = serializers.IntegerField(min_value=0)
    route = serializers.DictField(required=False)


class EchoView(KeylessAPIView):
    def post(self, request):  # type: ignore[no-untyped-def]
        data = _EchoInput(data=request.data)
        data.is_valid(raise_exception=True)
        return json_bytes_response(dict(data.validated_data), status=201)


class BoomView(KeylessAPIView):
    def get(self, request):  # type: ignore[no-untyped-def]
        raise RuntimeError("deliberate failure")


urlpatterns = [
    path("api/v1/_test/echo", EchoView.as_view()),
    path("api/v1/_test/boom", BoomView.as_view()),
    path("", include("config.urls")),
]
