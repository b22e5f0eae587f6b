"""Fleets: POST/GET /api/v1/fleets, GET/PATCH/DELETE /{id}, GET /{id}/exposure, GET /{id}/changes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers

from core.api.filters import read_filters
from core.api.openapi import DeletedSchema, creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer, refuse_unknown_fields
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from screening import fleet_selectors as selectors
from screening import fleet_services as services
from screening.api.schema import ImoTextField
from screening.fleet_selectors import ChangesFilter, ExposureFilter, FleetFilter
from screening.verdict import Verdict

SCOPE = "vessel:screen"
IMO_LIST_HELP = (
    "7-digit IMO numbers (IMO9074729 and 'IMO 9074729' are read too; no appended-digit correction; the check "
    "digit must hold; each hull once). A refused entry is named by its index."
)


@extend_schema_field(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": services.MAX_NAME_LENGTH,
        "pattern": "\\S",
        "description": f"1 to {services.MAX_NAME_LENGTH} characters, not all blank (stored trimmed).",
    }
)
class _FleetNameField(serializers.CharField):
    """What fleet_services._read_name accepts: a string that is not all blank, at most MAX_NAME_LENGTH long."""


class FleetCreateInput(StrictInputSerializer):
    name = _FleetNameField(max_length=services.MAX_NAME_LENGTH)
    imos = serializers.ListField(
        child=ImoTextField(),
        required=False,
        max_length=services.FLEET_MAX_HULLS,
        help_text=f"Up to {services.FLEET_MAX_HULLS:,} hulls. {IMO_LIST_HELP}",
    )


class FleetUpdateInput(StrictInputSerializer):
    """Send at least one of name, imos, add_imos, remove_imos; imos replaces the list and is not sent with
    add_imos or remove_imos."""

    name = _FleetNameField(required=False, max_length=services.MAX_NAME_LENGTH)
    imos = serializers.ListField(
        child=ImoTextField(),
        required=False,
        max_length=services.FLEET_MAX_HULLS,
        help_text="Replaces the whole list (not with add_imos or remove_imos). " + IMO_LIST_HELP,
    )
    add_imos = serializers.ListField(
        child=ImoTextField(), required=False, help_text="Hulls to add (a member already: no change)"
    )
    remove_imos = serializers.ListField(
        child=ImoTextField(), required=False, help_text="Hulls to remove (not a member: no change)"
    )


class _FleetUpdateInputExtension(OpenApiSerializerExtension):
    """fleet_services.update_fleet's rules on the whole body, which no field states on its own."""

    target_class = FleetUpdateInput

    def map_serializer(self, auto_schema: Any, direction: str) -> dict:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["anyOf"] = [{"required": [name]} for name in ("name", *services.MEMBERSHIP_FIELDS)]
        schema["not"] = {"anyOf": [{"required": ["imos", other]} for other in ("add_imos", "remove_imos")]}
        return schema


class FleetSchema(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    hull_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    exposure_url = serializers.CharField()
    changes_url = serializers.CharField()
    imos = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Sorted; on create, update and GET by id"
    )


class FleetListSchema(serializers.Serializer):
    fleets = FleetSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class FleetStatusCountsSchema(serializers.Serializer):
    RED = serializers.IntegerField()
    AMBER = serializers.IntegerField()
    INCOMPLETE = serializers.IntegerField()
    GREEN = serializers.IntegerField()


class FleetGradeCountsSchema(serializers.Serializer):
    A = serializers.IntegerField()
    B = serializers.IntegerField()
    C = serializers.IntegerField()
    D = serializers.IntegerField()
    E = serializers.IntegerField()
    not_assessed = serializers.IntegerField()


class FleetOpacityCountsSchema(serializers.Serializer):
    LOW = serializers.IntegerField()
    MEDIUM = serializers.IntegerField()
    HIGH = serializers.IntegerField()
    not_assessed = serializers.IntegerField()


class FleetDistributionsSchema(serializers.Serializer):
    sanctions_status = FleetStatusCountsSchema()
    vetting_grade = FleetGradeCountsSchema()
    ownership_opacity = FleetOpacityCountsSchema()


class FleetHullSetSchema(serializers.Serializer):
    count = serializers.IntegerField()
    imos = serializers.ListField(child=serializers.CharField())


class FleetCoverageSchema(serializers.Serializer):
    screened = serializers.IntegerField(help_text="Hulls with at least one record")
    never_screened = FleetHullSetSchema()
    incomplete = FleetHullSetSchema(help_text="Hulls whose latest record is INCOMPLETE")
    expired = FleetHullSetSchema(help_text="Hulls whose latest record is past its expires_at: re-screen them")


class FleetExposureHullSchema(serializers.Serializer):
    imo = serializers.CharField()
    vessel_name = serializers.CharField(allow_null=True)
    sanctions_status = serializers.ChoiceField(choices=Verdict.values)
    coverage_complete = serializers.BooleanField(allow_null=True)
    vetting_grade = serializers.ChoiceField(choices=["A", "B", "C", "D", "E"], allow_null=True)
    ownership_opacity = serializers.ChoiceField(choices=["LOW", "MEDIUM", "HIGH"], allow_null=True)
    screening_id = serializers.CharField(help_text="The hull's latest record")
    screened_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    expired = serializers.BooleanField()


class FleetExposureSchema(serializers.Serializer):
    fleet_id = serializers.CharField()
    name = serializers.CharField()
    hull_count = serializers.IntegerField()
    as_of = serializers.DateTimeField()
    distributions = FleetDistributionsSchema(help_text="Over the screened hulls' latest records")
    coverage = FleetCoverageSchema()
    hulls = FleetExposureHullSchema(
        many=True,
        help_text="Screened hulls worst first: RED, AMBER, INCOMPLETE, GREEN; then vetting grade E to A, not "
        "assessed last; then ownership opacity HIGH to LOW; then IMO. ?limit= rows (default 100, up to 5,000).",
    )


class FleetVerdictSchema(serializers.Serializer):
    sanctions_status = serializers.ChoiceField(
        choices=Verdict.values, help_text="GREEN, AMBER or RED: an INCOMPLETE record moves nothing"
    )
    vetting_grade = serializers.ChoiceField(choices=["A", "B", "C", "D", "E"], allow_null=True)
    ownership_opacity = serializers.ChoiceField(choices=["LOW", "MEDIUM", "HIGH"], allow_null=True)


class FleetChangeSchema(serializers.Serializer):
    imo = serializers.CharField()
    changed_at = serializers.DateTimeField(help_text="screened_at of the record that moved the hull")
    screening_id = serializers.CharField(help_text="The record that moved the hull")
    previous_screening_id = serializers.CharField(allow_null=True, help_text="The hull's verdict before it")
    changed = serializers.ListField(
        child=serializers.ChoiceField(choices=["sanctions_status", "vetting_grade", "ownership_opacity"])
    )
    previous = FleetVerdictSchema(allow_null=True, help_text="null on the hull's first verdict")
    current = FleetVerdictSchema()


class FleetChangesSchema(serializers.Serializer):
    changes = FleetChangeSchema(many=True)
    next_cursor = serializers.CharField(help_text="Always present: the place to resume from")
    has_more = serializers.BooleanField(help_text="true: call again at once with next_cursor; false: call later")


class FleetCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="create_fleet",
        summary=f"Create a fleet: a name and up to {services.FLEET_MAX_HULLS:,} hulls by IMO",
        request=FleetCreateInput,
        responses={201: OpenApiResponse(FleetSchema)},
        error_notes={422: "validation_failed naming each refused IMO by index (imos[3]), duplicates included"},
    )
    @idempotent
    def post(self, request):
        refuse_unknown_fields(FleetCreateInput, request.data)
        saved = services.create_fleet(request.auth, request.data, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_fleets",
        summary="The environment's fleets, newest first (without their IMOs)",
        parameters=[FleetFilter],
        responses={200: FleetListSchema},
    )
    def get(self, request):
        filters = read_filters(FleetFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.fleet_list(request.auth, filters)))


class FleetDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(operation_id="get_fleet", summary="A fleet with its IMOs", responses={200: FleetSchema})
    def get(self, request, fleet_id: str):
        return json_bytes_response(to_json_bytes(selectors.fleet_detail(request.auth, fleet_id)))

    @creating_operation(
        operation_id="update_fleet",
        summary="Rename a fleet, replace its hulls (imos), or add and remove hulls (add_imos, remove_imos)",
        request=FleetUpdateInput,
        responses={200: FleetSchema},
    )
    @idempotent
    def patch(self, request, fleet_id: str):
        refuse_unknown_fields(FleetUpdateInput, request.data)
        saved = services.update_fleet(
            request.auth, fleet_id, request.data, in_transaction=claim_of(request).completes(200)
        )
        return json_bytes_response(saved.body)

    @creating_operation(
        operation_id="delete_fleet",
        summary="Delete a fleet (the screening records of its hulls stay)",
        request=None,
        responses={200: DeletedSchema},
    )
    @idempotent
    def delete(self, request, fleet_id: str):
        saved = services.delete_fleet(request.auth, fleet_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(saved.body)


class FleetExposureView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="get_fleet_exposure",
        summary="Each hull's latest record (never a new screening): distributions, coverage, worst hulls first",
        parameters=[ExposureFilter],
        responses={200: FleetExposureSchema},
    )
    def get(self, request, fleet_id: str):
        filters = read_filters(ExposureFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.fleet_exposure(request.auth, fleet_id, filters)))


class FleetChangesView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="list_fleet_changes",
        summary="Verdict moves of the fleet's hulls after the cursor, oldest first (a resumable feed)",
        parameters=[ChangesFilter],
        responses={200: FleetChangesSchema},
    )
    def get(self, request, fleet_id: str):
        filters = read_filters(ChangesFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.fleet_changes(request.auth, fleet_id, filters)))
