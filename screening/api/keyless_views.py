"""GET /api/v1/vessels/{imo}/check — the keyless vessel check (no credentials)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.api.clientip import client_ip
from core.api.errors import request_id_of
from core.api.openapi import KEYLESS_ERROR
from core.api.responses import json_bytes_response
from metering import ratelimit
from metering.api.base import KeylessAPIView
from screening import keyless
from screening.imo import InvalidImoPath, parse_keyless_imo
from screening.verdict import Verdict

_CHECK = inline_serializer(
    name="VesselCheck",
    fields={
        "imo": serializers.CharField(),
        "vesselName": serializers.CharField(),
        "alsoRecordedAs": serializers.ListField(child=serializers.CharField()),
        "identityBasis": serializers.ChoiceField(choices=["sources", "user", "none"]),
        "checkDigitValid": serializers.BooleanField(),
        "sanctions": inline_serializer(
            name="VesselCheckSanctions",
            fields={
                "status": serializers.ChoiceField(choices=Verdict.values),
                "detail": serializers.CharField(),
                "coverageComplete": serializers.BooleanField(),
                "coverageGaps": serializers.ListField(child=serializers.CharField()),
            },
        ),
        "ownership": inline_serializer(
            name="VesselCheckOwnership",
            fields={
                "opacity": serializers.ChoiceField(choices=["LOW", "MEDIUM", "HIGH"], allow_null=True),
                "score": serializers.IntegerField(allow_null=True),
            },
        ),
        "ownershipFactors": inline_serializer(
            name="OwnershipFactor",
            many=True,
            allow_null=True,
            required=False,
            fields={"label": serializers.CharField(), "points": serializers.IntegerField()},
        ),
        "vetting": inline_serializer(
            name="VesselCheckVetting",
            fields={
                "grade": serializers.ChoiceField(choices=["A", "B", "C", "D", "E"], allow_null=True),
                "score": serializers.IntegerField(allow_null=True),
                "status": serializers.CharField(),
            },
        ),
        "assessed": serializers.BooleanField(),
        "currentContext": inline_serializer(
            name="VesselCheckContext",
            fields={
                "coverage": serializers.ChoiceField(choices=["fresh", "refreshing", "stale", "unavailable"]),
            },
        ),
        "checkedAt": serializers.DateTimeField(),
        "fullReport": serializers.URLField(),
    },
)


# Exactly one run of seven ASCII digits, any other digit runs shorter or longer (parse_keyless_imo):
# "9074729", "IMO9074729", "IMO 9074729 (ex 12)". Anything else is 400 invalid_imo.
_OTHER_DIGIT_RUN = "(?:[0-9]{1,6}|[0-9]{8,})"
KEYLESS_IMO_PATTERN = f"^[^0-9]*(?:{_OTHER_DIGIT_RUN}[^0-9]+)*[0-9]{{7}}(?:[^0-9]+{_OTHER_DIGIT_RUN})*[^0-9]*$"


class VesselCheckView(KeylessAPIView):
    @extend_schema(
        operation_id="check_vessel",
        summary="Keyless vessel check by IMO (100 per hour per address)",
        auth=[],
        parameters=[
            OpenApiParameter(
                "imo",
                {"type": "string", "pattern": KEYLESS_IMO_PATTERN},
                OpenApiParameter.PATH,
                description="A value holding exactly one 7-digit number, e.g. 9074729 or IMO9074729",
            )
        ],
        responses={
            200: _CHECK,
            400: OpenApiResponse(
                KEYLESS_ERROR, description="invalid_imo: not exactly one 7-digit number (not counted)"
            ),
            429: OpenApiResponse(
                KEYLESS_ERROR, description="rate_limit_exceeded (hourly, burst or monthly sample) or concurrency_limit"
            ),
            503: OpenApiResponse(KEYLESS_ERROR, description="keyless_busy (not counted) or keyless_paused"),
        },
    )
    def get(self, request, imo: str):
        ip = client_ip(request._request)
        request_id = request_id_of(request)
        try:
            try:
                parsed = parse_keyless_imo(imo)
            except InvalidImoPath as exc:
                rate = ratelimit.peek(keyless.HOURLY_SPEC, "keyless", ip)
                raise keyless.error(400, "invalid_imo", str(exc), request_id, rate, rate.headers()) from None
            outcome = keyless.run_check(parsed, ip, request_id)
        except keyless.KeylessRefused as refused:
            request._request.error_code = refused.code
            return json_bytes_response(refused.body, status=refused.status, headers=refused.headers)
        request._request.error_code = ""
        return json_bytes_response(outcome.body, status=outcome.status, headers=outcome.headers)
