"""Corridor monitors (voyage:monitor, live keys only): create, list, get, delete, and the run history.

The definitions the runs follow (material change, degradation, recovery, deferral, events) are in
monitoring/corridors.py and in the descriptions below.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from core.api.filters import read_filters
from core.api.openapi import creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from monitoring import corridor_selectors as selectors
from monitoring import corridor_services as services
from monitoring.api.corridor_events import CorridorChangeSchema, CorridorComparedSchema
from monitoring.corridor_selectors import CorridorMonitorFilter, CorridorRunFilter
from monitoring.corridors import SCORE_THRESHOLD
from monitoring.models import RunStatus
from voyages.api.schema import AssessmentRequestSchema

SCOPE = "voyage:monitor"

DEFINITIONS = (
    "Each run assesses the route as POST /voyage-assessments does and draws one unit of the live voyage "
    "allowance. The first run sets the baseline (no event). A material change from the baseline — the risk "
    f"level changed, the score moved {SCORE_THRESHOLD} points or more, a score floor applied, lifted or changed "
    "basis, or a JWC listed area entered or left — emits corridor_risk.changed and becomes the new baseline. A "
    "run lacking a source the baseline had (absent from sources, or newly in missing_sources) emits "
    "corridor_data.degraded once, keeps the baseline and reports no change; the first run with its sources "
    "back emits corridor_data.recovered. While the allowance is used a run is deferred to the reset "
    "(corridor_monitor.deferred, nothing charged) and runs then."
)


class CorridorReadingSchema(CorridorComparedSchema):
    sources = serializers.ListField(child=serializers.CharField(), help_text="Sources that answered (status ok)")
    missing_sources = serializers.ListField(child=serializers.CharField())
    confidence = serializers.FloatField(allow_null=True)


class CorridorRunSummarySchema(CorridorReadingSchema):
    outcome = serializers.ChoiceField(choices=["baseline", "unchanged", "changed", "degraded"])
    recovered = serializers.BooleanField(help_text="This run's sources came back after a degraded run")
    degraded_sources = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="On a degraded run: the sources it lacked"
    )


class CorridorRunSchema(serializers.Serializer):
    slot = serializers.DateTimeField(help_text="The scheduled instant this run stands for (one run per slot)")
    status = serializers.ChoiceField(choices=RunStatus.values)
    attempts = serializers.IntegerField(help_text="Workers that took it (a deferral is not an attempt)")
    deferred_until = serializers.DateTimeField(allow_null=True, help_text="While deferred: the allowance's reset")
    assessment_id = serializers.CharField(allow_null=True)
    summary = CorridorRunSummarySchema(allow_null=True)
    changes = CorridorChangeSchema(many=True)
    event_ids = serializers.ListField(child=serializers.CharField())
    error = serializers.DictField(
        allow_null=True, help_text="{code, message}: why it failed, is deferred, or was superseded by a later slot"
    )
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


class CorridorMonitorSchema(serializers.Serializer):
    id = serializers.CharField()
    customer_reference = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=["active"])
    route = serializers.DictField(help_text="The route each run assesses, as an assessment's route takes it")
    cadence_hours = serializers.IntegerField()
    baseline = CorridorReadingSchema(allow_null=True, help_text="What the next run is compared against")
    degraded = serializers.BooleanField()
    run_count = serializers.IntegerField()
    last_run_at = serializers.DateTimeField(allow_null=True)
    next_run_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    runs_url = serializers.CharField()


class CorridorMonitorDetailSchema(CorridorMonitorSchema):
    latest_run = CorridorRunSchema(required=False)


class CorridorMonitorListSchema(serializers.Serializer):
    corridor_monitors = CorridorMonitorSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class CorridorRunListSchema(serializers.Serializer):
    runs = CorridorRunSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class DeletedCorridorMonitorSchema(serializers.Serializer):
    id = serializers.CharField()
    deleted = serializers.BooleanField()


class CorridorMonitorCollectionView(KeyedAPIView):
    required_scope = SCOPE
    live_only = True

    @creating_operation(
        operation_id="create_corridor_monitor",
        summary="Watch a route: recomputed every 6 hours, one live voyage unit per run",
        request=AssessmentRequestSchema,
        responses={201: OpenApiResponse(CorridorMonitorSchema, description=DEFINITIONS)},
        error_notes={
            403: "environment_not_allowed on a test key; insufficient_scope without voyage:monitor",
            422: "validation_failed (as an assessment), route_not_found, or monitor_limit_reached (10 per live key)",
        },
    )
    @idempotent
    def post(self, request):
        saved = services.create_monitor(request.auth, request.data, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_corridor_monitors",
        summary="The live corridor monitors (newest first)",
        parameters=[CorridorMonitorFilter],
        responses={200: CorridorMonitorListSchema},
    )
    def get(self, request):
        filters = read_filters(CorridorMonitorFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.monitor_list(request.auth, filters)))


class CorridorMonitorDetailView(KeyedAPIView):
    required_scope = SCOPE
    live_only = True

    @extend_schema(
        operation_id="get_corridor_monitor",
        summary="One corridor monitor with its baseline and latest run",
        responses={200: CorridorMonitorDetailSchema},
    )
    def get(self, request, monitor_id: str):
        return json_bytes_response(to_json_bytes(selectors.monitor_detail(request.auth, monitor_id)))

    @creating_operation(
        operation_id="delete_corridor_monitor",
        summary="Stop watching a route (its run history goes with it)",
        request=None,
        responses={200: DeletedCorridorMonitorSchema},
    )
    @idempotent
    def delete(self, request, monitor_id: str):
        saved = services.delete_monitor(request.auth, monitor_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(saved.body)


class CorridorMonitorRunsView(KeyedAPIView):
    required_scope = SCOPE
    live_only = True

    @extend_schema(
        operation_id="list_corridor_monitor_runs",
        summary="The monitor's runs, newest slot first",
        description=DEFINITIONS,
        parameters=[CorridorRunFilter],
        responses={200: CorridorRunListSchema},
    )
    def get(self, request, monitor_id: str):
        filters = read_filters(CorridorRunFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.run_list(request.auth, monitor_id, filters)))
