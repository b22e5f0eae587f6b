"""GET /api/v1/usage and GET /api/v1/access-log."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers

from core.api.filters import read_filters
from core.api.responses import json_bytes_response
from metering import concurrency, quota, selectors
from metering.api.base import KeyedAPIView
from metering.ratelimit import KEY_RATE
from metering.selectors import AccessLogFilter


class UsageCounter(serializers.Serializer):
    """One allowance: used, limit, remaining, whether it is one-time and when it resets."""

    used = serializers.IntegerField()
    limit = serializers.IntegerField()
    remaining = serializers.IntegerField()
    one_time = serializers.BooleanField()
    resets_at = serializers.DateTimeField(allow_null=True)


def _counter() -> UsageCounter:
    """A fresh field each time (one serializer instance bound under two names publishes only one); one
    class, so the document has one UsageCounter component."""
    return UsageCounter()


class UsageView(KeyedAPIView):
    required_scope = "usage:read"

    @extend_schema(
        operation_id="get_usage",
        summary="Entitlement limits and current consumption for the key's environment",
        responses={
            200: inline_serializer(
                name="Usage",
                fields={
                    "environment": serializers.ChoiceField(choices=["test", "live"]),
                    "plan": serializers.CharField(),
                    "quota": inline_serializer(
                        name="UsageQuota", fields={"screenings": _counter(), "voyage_assessments": _counter()}
                    ),
                    "limits": inline_serializer(
                        name="UsageLimits",
                        fields={
                            "rate_limit_per_minute": serializers.IntegerField(),
                            "in_flight_screenings": serializers.IntegerField(),
                            "in_flight_assessments": serializers.IntegerField(),
                            "screening_batch_max_items": serializers.IntegerField(),
                            "test_max_routes": serializers.IntegerField(),
                            "live_max_routes": serializers.IntegerField(),
                        },
                    ),
                    "paused": serializers.BooleanField(),
                    "paused_reason": serializers.CharField(allow_null=True),
                },
            )
        },
    )
    def get(self, request):
        context = request.auth
        account = context.account
        # quota.usage_states, the read the pause message (metering.pace.paused_error) states: the same numbers.
        states = quota.current_states(account, context.environment, (quota.KIND_SCREENING, quota.KIND_ASSESSMENT))
        screenings, assessments = states[quota.KIND_SCREENING], states[quota.KIND_ASSESSMENT]
        body = {
            "environment": context.environment,
            "plan": account.plan,
            "quota": {"screenings": screenings.as_dict(), "voyage_assessments": assessments.as_dict()},
            "limits": {
                "rate_limit_per_minute": int(KEY_RATE.split("/")[0]),
                "in_flight_screenings": concurrency.SCREENING_SLOTS,
                "in_flight_assessments": concurrency.ASSESSMENT_SLOTS,
                "screening_batch_max_items": 50,
                "test_max_routes": quota.TEST_MAX_ROUTES,
                "live_max_routes": quota.LIVE_MAX_ROUTES,
            },
            "paused": account.is_paused,
            "paused_reason": account.paused_reason or None,
        }
        return json_bytes_response(body)


class AccessLogView(KeyedAPIView):
    required_scope = "logs:read"

    @extend_schema(
        operation_id="list_access_log",
        summary="The account's API access log for the key's environment",
        parameters=[AccessLogFilter],
        responses={
            200: inline_serializer(
                name="AccessLogPage",
                fields={
                    "entries": inline_serializer(
                        name="AccessLogEntry",
                        many=True,
                        fields={
                            "id": serializers.CharField(),
                            "at": serializers.DateTimeField(),
                            "method": serializers.CharField(),
                            "path": serializers.CharField(),
                            "status": serializers.IntegerField(),
                            "code": serializers.CharField(allow_null=True),
                            "request_id": serializers.CharField(),
                            "key_prefix": serializers.CharField(),
                            "client_ip": serializers.CharField(allow_null=True),
                            "duration_ms": serializers.FloatField(),
                            "units_charged": serializers.IntegerField(),
                        },
                    ),
                    "next_cursor": serializers.CharField(allow_null=True),
                },
            )
        },
    )
    def get(self, request):
        filters = read_filters(AccessLogFilter, request.query_params)
        return json_bytes_response(selectors.access_log_page(request.auth, filters))
