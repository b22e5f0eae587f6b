"""Test-only keyed endpoints that exercise the shared mechanisms (idempotency, quota, slots)."""

import threading

from django.db import transaction
from django.urls import include, path
from rest_framework import serializers

from core.api.ids import new_id
from core.api.responses import json_bytes_response
from metering import concurrency, quota
from metering.api.base import KeyedAPIView
from metering.idempotency import idempotent

release_slow = threading.Event()


class _Input(serializers.Serializer):
    imo = serializers.CharField()
    incomplete = serializers.BooleanField(default=False)
    slow = serializers.BooleanField(default=False)


class MeteredCreateView(KeyedAPIView):
    required_scope = "vessel:screen"

    @idempotent
    def post(self, request):  # type: ignore[no-untyped-def]
        data = _Input(data=request.data)
        data.is_valid(raise_exception=True)
        context = request.auth
        account = context.account
        quota.ensure_available(account, context.environment, quota.KIND_SCREENING)
        with concurrency.customer_slot("screening", account.pk, context.environment):
            if data.validated_data["slow"]:
                release_slow.wait(10)
            units = 0 if data.validated_data["incomplete"] else 1
            with transaction.atomic():
                state = quota.charge(
                    account, context.environment, quota.KIND_SCREENING, units, data.validated_data["imo"]
                )
        context.units_charged = units
        context.quota_headers = state.headers()
        return json_bytes_response({"id": new_id("tst"), "imo": data.validated_data["imo"], "charged": units}, 201)


class LiveOnlyView(KeyedAPIView):
    required_scope = "vessel:monitor"
    live_only = True

    def get(self, request):  # type: ignore[no-untyped-def]
        return json_bytes_response({"ok": True})


urlpatterns = [
    path("api/v1/_test/metered", MeteredCreateView.as_view()),
    path("api/v1/_test/live-only", LiveOnlyView.as_view()),
    path("", include("config.urls")),
]
