"""Vessel monitors (vessel:monitor): create, list, get, delete, the run history, and simulate."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers

from core.api.fields import StrictBooleanField, StrictStringField
from core.api.filters import read_body, read_filters
from core.api.openapi import DeletedSchema, creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from monitoring import vessel_selectors as selectors
from monitoring import vessel_services as services
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from monitoring.vessel_selectors import RunFilter, VesselMonitorFilter
from screening.api.schema import ImoInputField
from screening.verdict import Verdict

SCOPE = "vessel:monitor"
OPACITY_BANDS = ["LOW", "MEDIUM", "HIGH"]
GRADES = ["A", "B", "C", "D", "E"]


class MonitorInput(StrictInputSerializer):
    imo = ImoInputField(max_length=40, help_text="The hull's IMO number (7 digits; the check digit must hold)")
    vessel_name = StrictStringField(required=False, max_length=200, allow_blank=True)
    customer_reference = StrictStringField(required=False, max_length=200, allow_blank=True)
    mode = serializers.ChoiceField(
        choices=VesselMonitor.Mode.values,
        required=False,
        help_text="live (default on a live key): re-screened every 24 hours, one unit per run. simulation (any "
        "key, the only mode on a test key): never scheduled; fed verdicts through .../simulate",
    )


class SimulateInput(StrictInputSerializer):
    sanctions_status = serializers.ChoiceField(choices=Verdict.values)
    ownership_opacity = serializers.ChoiceField(choices=OPACITY_BANDS, required=False, allow_null=True)
    vetting_grade = serializers.ChoiceField(choices=GRADES, required=False, allow_null=True)
    coverage_complete = StrictBooleanField(required=False, help_text="Default: true unless the status is INCOMPLETE")
    coverage_gaps = serializers.ListField(child=StrictStringField(max_length=60), required=False, max_length=20)
    confirmed = StrictBooleanField(
        required=False,
        default=True,
        help_text="Whether the re-screen of a move agrees with it (false plays a single reading: nothing is emitted)",
    )


class SanctionsVerdictSchema(serializers.Serializer):
    status = serializers.ChoiceField(choices=Verdict.values)
    coverage_complete = serializers.BooleanField()
    coverage_gaps = serializers.ListField(child=serializers.CharField())


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": Verdict.values},
            "coverage_complete": {"type": "boolean"},
            "coverage_gaps": {"type": "array", "items": {"type": "string"}},
            "coverageComplete": {
                "type": "boolean",
                "deprecated": True,
                "description": "Duplicate of coverage_complete; removed 2026-12-23",
            },
            "coverageGaps": {
                "type": "array",
                "items": {"type": "string"},
                "deprecated": True,
                "description": "Duplicate of coverage_gaps; removed 2026-12-23",
            },
        },
        "required": ["status", "coverage_complete", "coverage_gaps"],
    }
)
class RowSanctionsField(serializers.JSONField):
    pass


class VerdictSchema(serializers.Serializer):
    screening_id = serializers.CharField(allow_null=True)
    screened_at = serializers.DateTimeField(allow_null=True)
    sanctions = RowSanctionsField()
    ownership_opacity = serializers.ChoiceField(choices=OPACITY_BANDS, allow_null=True)
    vetting_grade = serializers.ChoiceField(choices=GRADES, allow_null=True)


class MonitorSchema(serializers.Serializer):
    id = serializers.CharField()
    imo = serializers.CharField()
    vessel_name = serializers.CharField(allow_null=True)
    customer_reference = serializers.CharField(allow_null=True)
    mode = serializers.ChoiceField(choices=VesselMonitor.Mode.values)
    status = serializers.ChoiceField(choices=VesselMonitor.Status.values)
    baseline_verdict = VerdictSchema(allow_null=True)
    previous_verdict = VerdictSchema(allow_null=True, help_text="The baseline before the last change")
    last_run_at = serializers.DateTimeField(allow_null=True)
    next_run_at = serializers.DateTimeField(allow_null=True)
    run_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class MonitorListSchema(serializers.Serializer):
    vessel_monitors = MonitorSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class ChangeSchema(serializers.Serializer):
    # A declared field named like Field.label: the serializer metaclass pops it out of the class body, so
    # nothing is overridden, but the DRF stubs read it as replacing the str attribute.
    label = serializers.ChoiceField(choices=["Sanctions status", "Ownership opacity", "Vetting grade"])  # type: ignore[assignment]
    previous = serializers.CharField(allow_null=True)
    current = serializers.CharField(allow_null=True)
    severity = serializers.ChoiceField(choices=["critical", "high", "low"])


class RunSchema(serializers.Serializer):
    id = serializers.CharField()
    vessel_monitor_id = serializers.CharField()
    slot = serializers.DateTimeField()
    simulated = serializers.BooleanField()
    trigger = serializers.ChoiceField(
        choices=VesselMonitorRun.Trigger.values,
        help_text="schedule: the daily slot (or a simulation). list_update: out of cycle, because a new edition of a "
        "sanctions list changed a listing this hull can match; such a run charges no unit and leaves the daily "
        "slot where it was.",
    )
    list_snapshot_id = serializers.CharField(
        allow_null=True, help_text="The list edition (snp_…) that triggered a list_update run; null otherwise"
    )
    status = serializers.ChoiceField(choices=RunStatus.values)
    outcome = serializers.ChoiceField(choices=VesselMonitorRun.Outcome.values, allow_null=True)
    screening_id = serializers.CharField(allow_null=True)
    verdict = VerdictSchema(allow_null=True)
    changes = ChangeSchema(many=True)
    event_ids = serializers.ListField(child=serializers.CharField())
    error = serializers.DictField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)


class RunListSchema(serializers.Serializer):
    runs = RunSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class VesselMonitorCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="create_vessel_monitor",
        summary="Watch one hull: re-screened every 24 hours (live keys), or a simulation monitor (any key)",
        request=MonitorInput,
        responses={201: OpenApiResponse(MonitorSchema)},
        error_notes={409: "The hull is already watched in this mode (monitor_exists)"},
    )
    @idempotent
    def post(self, request):
        values = read_body(MonitorInput, request.data)
        saved = services.create_monitor(request.auth, values, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_vessel_monitors",
        summary="The environment's vessel monitors, newest first",
        parameters=[VesselMonitorFilter],
        responses={200: MonitorListSchema},
    )
    def get(self, request):
        filters = read_filters(VesselMonitorFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.monitor_list(request.auth, filters)))


class VesselMonitorDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(operation_id="get_vessel_monitor", summary="One vessel monitor", responses={200: MonitorSchema})
    def get(self, request, monitor_id: str):
        return json_bytes_response(to_json_bytes(selectors.monitor_detail(request.auth, monitor_id)))

    @creating_operation(
        operation_id="delete_vessel_monitor",
        summary="Stop watching the hull (its run history goes with it)",
        request=None,
        responses={200: DeletedSchema},
    )
    @idempotent
    def delete(self, request, monitor_id: str):
        saved = services.delete_monitor(request.auth, monitor_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(saved.body)


class VesselMonitorRunsView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="list_vessel_monitor_runs",
        summary="The monitor's runs (its history), newest first",
        parameters=[RunFilter],
        responses={200: RunListSchema},
    )
    def get(self, request, monitor_id: str):
        filters = read_filters(RunFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.run_list(request.auth, monitor_id, filters)))


class VesselMonitorSimulateView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="simulate_vessel_monitor",
        summary="Feed a hypothetical next verdict into the change detector of a simulation monitor",
        request=SimulateInput,
        responses={201: OpenApiResponse(RunSchema)},
        error_notes={409: "The monitor is a live one (monitor_not_simulated)"},
    )
    @idempotent
    def post(self, request, monitor_id: str):
        values = read_body(SimulateInput, request.data)
        saved = services.simulate_run(request.auth, monitor_id, values, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)
