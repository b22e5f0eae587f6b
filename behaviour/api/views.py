"""GET /api/v1/vessels/{imo}/behaviour: what a hull's AIS shows over a window."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from behaviour import selectors, services
from behaviour.api.schema import BehaviourReportSchema
from core.api.errors import FieldViolation
from core.api.filters import ListFilter, QueryLimitField, QueryTimestampField, read_filters
from core.api.responses import json_bytes_response, to_json_bytes
from metering.api.base import KeyedAPIView
from screening.imo import imo_check_digit_valid

DEFAULT_EVENTS_PAGE = 100
MAX_EVENTS_PAGE = 500


class BehaviourQuery(ListFilter):
    limit = QueryLimitField(default_size=DEFAULT_EVENTS_PAGE, maximum=MAX_EVENTS_PAGE)
    to = QueryTimestampField(help_text="End of the window (default: now).")


# `from` is a Python keyword, so it is declared outside the class body.
BehaviourQuery._declared_fields["from"] = QueryTimestampField(
    help_text=f"Start of the window (default: {selectors.FREE_WINDOW_DAYS} days before `to`)."
)


def _imo_from_path(imo: str) -> str:
    if len(imo) != 7 or not imo.isascii() or not imo.isdigit():
        raise FieldViolation([{"field": "imo", "message": "must be a 7-digit IMO ship number, e.g. 9074729."}])
    if not imo_check_digit_valid(imo):
        raise FieldViolation(
            [{"field": "imo", "message": f"{imo} fails the IMO check digit; check the number and resend."}]
        )
    return imo


class VesselBehaviourView(KeyedAPIView):
    required_scope = "vessel:screen"

    @extend_schema(
        operation_id="get_vessel_behaviour",
        summary="What a hull's AIS shows: dark periods, ship-to-ship meetings, identity changes, spoofing, "
        "port calls, draught changes at sea",
        description="The events the detectors found on the MMSIs linked to the hull (by the IMO its static "
        "messages carried, or by a register), with the evidence a reviewer checks, a summary, and what AIS "
        f"the window is based on. Free for windows of up to {selectors.FREE_WINDOW_DAYS} days of history; a "
        f"longer window (up to {selectors.MAX_WINDOW_DAYS} days) is charged one screening unit. "
        "`observed: false` means no AIS of the hull is held for the window: no events is then no evidence. "
        "The thresholds and the advisory each detector answers are in the README (Vessel behaviour).",
        parameters=[
            BehaviourQuery,
            OpenApiParameter("imo", str, OpenApiParameter.PATH, pattern=r"^[0-9]{7}$", description="7-digit IMO"),
        ],
        responses={
            200: OpenApiResponse(BehaviourReportSchema, description="The behaviour report."),
        },
    )
    def get(self, request, imo: str):
        imo = _imo_from_path(imo)
        query = read_filters(BehaviourQuery, request.query_params)
        end = query.get("to") or timezone.now()
        start = query.get("from") or end - timedelta(days=selectors.FREE_WINDOW_DAYS)
        if start >= end:
            raise FieldViolation([{"field": "from", "message": "must be before `to`."}])
        if selectors.window_days(start, end) > selectors.MAX_WINDOW_DAYS:
            raise FieldViolation(
                [{"field": "from", "message": f"the window may span at most {selectors.MAX_WINDOW_DAYS} days."}]
            )
        report = selectors.behaviour_report(imo, start, end, limit=query["limit"], after=query.get("cursor"))
        context = request.auth
        if selectors.window_days(start, end) > selectors.FREE_WINDOW_DAYS:
            state = services.charge_long_history(context.account, context.environment, imo)
            context.units_charged = 1
            context.quota_headers = state.headers()
        return json_bytes_response(to_json_bytes(report), headers=context.quota_headers or None)
