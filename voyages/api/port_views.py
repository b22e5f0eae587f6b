"""GET /api/v1/ports?query=&limit= — the keyless port lookup (contract 2.2, 4.2)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.api.clientip import client_ip
from core.api.errors import request_id_of
from core.api.openapi import KEYLESS_ERROR
from core.api.responses import json_bytes_response
from core.api.strict_input import unknown_parameters
from metering.api.base import KeylessAPIView
from screening import keyless
from voyages.ports import DEFAULT_LIMIT, MAX_LIMIT, get_catalogue

_PORT = inline_serializer(
    name="Port",
    fields={
        "locode": serializers.CharField(help_text="Uppercase 5-character UN/LOCODE; always routable"),
        "name": serializers.CharField(),
        "country": serializers.CharField(),
        "country_code": serializers.CharField(),
        "lat": serializers.FloatField(),
        "lon": serializers.FloatField(),
        "match_score": serializers.IntegerField(help_text="0-100, best first"),
        "match_type": serializers.ChoiceField(
            choices=["exact_locode", "exact_name", "prefix", "word", "similar"],
            help_text="Only exact_locode and exact_name may be auto-selected; weaker matches are shown to a person.",
        ),
    },
)


MAX_QUERY_LENGTH = 100
# The query as the view reads it: trimmed of blanks, then 1 to MAX_QUERY_LENGTH characters.
QUERY_PATTERN = rf"^\s*(\S|\S[\s\S]{{0,{MAX_QUERY_LENGTH - 2}}}\S)\s*$"


def _violation(
    field: str, message: str, request_id: str, ip: str, *, more: dict[str, str] | None = None
) -> tuple[dict, dict[str, str]]:
    """The keyless 422 naming `field` (and each field of `more`, name → message)."""
    rate = keyless.peek_hourly(ip)
    refusal = keyless.error(422, "validation_failed", message, request_id, rate, rate.headers())
    violations = {field: message, **(more or {})}
    refusal.body["field_violations"] = [{"field": name, "message": text} for name, text in violations.items()]
    return refusal.body, refusal.headers


class PortLookupView(KeylessAPIView):
    @extend_schema(
        operation_id="find_port",
        summary="Resolve a port name or UN/LOCODE to routable ports (keyless, 100 per hour per address)",
        auth=[],
        parameters=[
            OpenApiParameter(
                "query",
                {"type": "string", "pattern": QUERY_PATTERN},
                required=True,
                description=f"A port name (any language form) or UN/LOCODE: 1 to {MAX_QUERY_LENGTH} characters "
                "once leading and trailing blanks are trimmed",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
                required=False,
                description=f"1 to {MAX_LIMIT}; default {DEFAULT_LIMIT}",
            ),
        ],
        responses={
            200: inline_serializer(name="PortList", fields={"ports": serializers.ListField(child=_PORT)}),
            422: OpenApiResponse(
                KEYLESS_ERROR,
                description="validation_failed: empty query, bad limit or an unknown parameter (not counted)",
            ),
            429: OpenApiResponse(KEYLESS_ERROR, description="rate_limit_exceeded (hourly or burst)"),
            503: OpenApiResponse(KEYLESS_ERROR, description="keyless_paused"),
        },
    )
    def get(self, request):
        ip = client_ip(request._request)
        request_id = request_id_of(request)
        query = (request.query_params.get("query") or "").strip()
        raw_limit = request.query_params.get("limit")
        unknown = unknown_parameters(request.query_params, ("query", "limit"))
        if unknown:
            named = {name: f"{message}; correct it and resend" for name, message in unknown.items()}
            first = next(iter(named))
            body, headers = _violation(first, named.pop(first), request_id, ip, more=named)
            return json_bytes_response(body, status=422, headers=headers)
        if not query:
            body, headers = _violation(
                "query",
                "query is required: send a port name or UN/LOCODE, e.g. /api/v1/ports?query=Rotterdam",
                request_id,
                ip,
            )
            return json_bytes_response(body, status=422, headers=headers)
        if len(query) > MAX_QUERY_LENGTH:
            message = f"query is longer than {MAX_QUERY_LENGTH} characters; shorten it"
            body, headers = _violation("query", message, request_id, ip)
            return json_bytes_response(body, status=422, headers=headers)
        limit = DEFAULT_LIMIT
        if raw_limit is not None:
            # isascii: str.isdigit() also holds for "²", which int() refuses.
            if not (raw_limit.isascii() and raw_limit.isdigit()) or not 1 <= int(raw_limit) <= MAX_LIMIT:
                body, headers = _violation(
                    "limit", f"limit must be a whole number from 1 to {MAX_LIMIT}", request_id, ip
                )
                return json_bytes_response(body, status=422, headers=headers)
            limit = int(raw_limit)
        try:
            keyless.admit(ip, request_id)
        except keyless.KeylessRefused as refused:
            request._request.error_code = refused.code
            return json_bytes_response(refused.body, status=refused.status, headers=refused.headers)
        matches = get_catalogue().search(query, limit)
        counted = keyless.count_call(ip)
        ports = [{**m.port.as_dict(), "match_score": m.match_score, "match_type": m.match_type} for m in matches]
        return json_bytes_response({"ports": ports}, headers=counted.headers())
