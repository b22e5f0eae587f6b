"""GET /api/v1/usage and GET /api/v1/access-log."""

from __future__ import annotations

from datetime import datetime

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers

from accounts import concurrency, quota
from accounts.api.base import KeyedAPIView
from accounts.models import AccessLogEntry
from accounts.ratelimit import KEY_RATE
from config.api.errors import FieldViolation
from config.api.pagination import paginate
from config.api.responses import json_bytes_response
from config.api.timefmt import parse_rfc3339, rfc3339

_COUNTER = inline_serializer(
    name="UsageCounter",
    fields={
        "used": serializers.IntegerField(),
        "limit": serializers.IntegerField(),
        "remaining": serializers.IntegerField(),
        "one_time": serializers.BooleanField(),
        "resets_at": serializers.DateTimeField(allow_null=True),
    },
)


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
                        name="UsageQuota", fields={"screenings": _COUNTER, "voyage_assessments": _COUNTER}
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
    def get(self, request):  # type: ignore[no-untyped-def]
        context = request.auth
        account = context.account
        screenings = quota.current_state(account, context.environment, quota.KIND_SCREENING)
        assessments = quota.current_state(account, context.environment, quota.KIND_ASSESSMENT)
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


def _entry(entry: AccessLogEntry) -> dict:
    return {
        "id": entry.id,
        "at": rfc3339(entry.at),
        "method": entry.method,
        "path": entry.path,
        "status": entry.status,
        "code": entry.code or None,
        "request_id": entry.request_id,
        "key_prefix": entry.key_prefix,
        "client_ip": entry.client_ip,
        "duration_ms": entry.duration_ms,
        "units_charged": entry.units_charged,
    }


def _time_param(params, name: str) -> datetime | None:  # type: ignore[no-untyped-def]
    raw = params.get(name)
    if not raw:
        return None
    try:
        return parse_rfc3339(raw)
    except ValueError:
        message = f"{name} must be an RFC 3339 timestamp; resend with e.g. 2026-11-01T00:00:00Z."
        raise FieldViolation([{"field": name, "message": message}]) from None


class AccessLogView(KeyedAPIView):
    required_scope = "logs:read"

    @extend_schema(
        operation_id="list_access_log",
        summary="The account's API access log for the key's environment",
        parameters=[
            OpenApiParameter("since", str, description="RFC 3339; entries at or after"),
            OpenApiParameter("until", str, description="RFC 3339; entries before"),
            OpenApiParameter("status", int, description="HTTP status to match"),
            OpenApiParameter("path", str, description="Path prefix to match, e.g. /api/v1/screenings"),
            OpenApiParameter("limit", int, description="1–200, default 50"),
            OpenApiParameter("cursor", str, description="next_cursor of the previous page"),
        ],
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
    def get(self, request):  # type: ignore[no-untyped-def]
        from accounts import access_log

        access_log.flush()
        context = request.auth
        params = request.query_params
        entries = AccessLogEntry.objects.filter(account_id=context.account_id, environment=context.environment)
        since, until = _time_param(params, "since"), _time_param(params, "until")
        if since:
            entries = entries.filter(at__gte=since)
        if until:
            entries = entries.filter(at__lt=until)
        status = params.get("status")
        if status:
            if not status.isdigit():
                message = "status must be an HTTP status code such as 429; resend with ?status=429."
                raise FieldViolation([{"field": "status", "message": message}])
            entries = entries.filter(status=int(status))
        if params.get("path"):
            entries = entries.filter(path__startswith=params["path"])
        return json_bytes_response(paginate(entries, params, plural="entries", render=_entry))
