"""Screening batches: POST /api/v1/screening-batches, GET /{id}, GET /{id}/items."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers

from core.api.filters import ListFilter, QueryLimitField, read_filters
from core.api.openapi import creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer, refuse_unknown_fields
from jobs.models import Job, JobItem
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from screening import batches
from screening.api.schema import ImoTextField, ScreeningRecordSchema

SCOPE = "vessel:screen"


class ScreeningBatchItemInput(StrictInputSerializer):
    imo = ImoTextField(help_text="The hull's IMO number, as POST /api/v1/screenings takes it")
    vessel_name = serializers.CharField(
        required=False, max_length=200, help_text="Used only when the service's own sources hold no name"
    )
    customer_reference = serializers.CharField(
        required=False, max_length=200, help_text="Echoed on the hull's screening record"
    )


@extend_schema_field(
    {
        "description": "A hull {imo, vessel_name?, customer_reference?}, each field as POST /api/v1/screenings "
        "takes it. Any value is accepted here: each item is judged on its own, an invalid one (a member it does "
        "not take included) rejected with its violation in the batch's items."
    }
)
class _JudgedHull(serializers.JSONField):
    pass


class ScreeningBatchRequestSchema(StrictInputSerializer):
    items = serializers.ListField(
        child=_JudgedHull(),
        min_length=1,
        max_length=batches.MAX_HULLS,
        help_text=f"1 to {batches.MAX_HULLS} hulls. An invalid hull is rejected with its violation and the "
        "others run; when none is valid the batch is 422 (naming each item's violations) and nothing is reserved.",
    )
    include_vetting = serializers.BooleanField(required=False, default=True, help_text="Applies to every hull")
    include_behaviour = serializers.BooleanField(
        required=False, default=False, help_text="Every record carries `behaviour`, as POST /screenings gives it"
    )
    customer_reference = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=200)


class ScreeningBatchProgressSchema(serializers.Serializer):
    finished = serializers.IntegerField(help_text="Accepted hulls that succeeded or failed")
    total = serializers.IntegerField(help_text="Accepted hulls")
    percent = serializers.IntegerField()


class ScreeningBatchVerdictsSchema(serializers.Serializer):
    GREEN = serializers.IntegerField()
    AMBER = serializers.IntegerField()
    RED = serializers.IntegerField()
    INCOMPLETE = serializers.IntegerField()


class ScreeningBatchSchema(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(
        choices=Job.Status.values, help_text="completed, partial and failed are terminal: poll until one"
    )
    customer_reference = serializers.CharField(allow_null=True)
    include_vetting = serializers.BooleanField()
    include_behaviour = serializers.BooleanField()
    item_count = serializers.IntegerField()
    accepted_count = serializers.IntegerField(help_text="Hulls accepted (each reserved one screening unit)")
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Items by status")
    progress = ScreeningBatchProgressSchema()
    verdicts = ScreeningBatchVerdictsSchema(help_text="Screened hulls by sanctions status")
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)
    items_url = serializers.CharField()


class ScreeningBatchItemSchema(serializers.Serializer):
    id = serializers.CharField()
    position = serializers.IntegerField()
    status = serializers.ChoiceField(choices=JobItem.Status.values)
    imo = serializers.CharField(allow_null=True, help_text="The IMO screened; null on a rejected item")
    customer_reference = serializers.CharField(allow_null=True)
    screening = ScreeningRecordSchema(required=False, help_text="The hull's screening record, once screened")
    error = serializers.JSONField(
        required=False, help_text="{code, message | field_violations} of a rejected or failed item"
    )


class ScreeningBatchItemsSchema(serializers.Serializer):
    items = ScreeningBatchItemSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class ScreeningBatchItemFilter(ListFilter):
    limit = QueryLimitField(default_size=batches.MAX_HULLS, maximum=batches.MAX_HULLS)


class ScreeningBatchCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="create_screening_batch",
        summary=f"Screen up to {batches.MAX_HULLS} hulls asynchronously",
        request=ScreeningBatchRequestSchema,
        responses={
            202: OpenApiResponse(
                ScreeningBatchSchema,
                description="The batch (quota headers attached: each accepted hull reserved one unit; "
                "a hull that comes back INCOMPLETE is refunded).",
            )
        },
        metered=True,
        error_notes={422: "validation_failed: no items, more than 50, or no valid hull (each named items[i].field)"},
    )
    @idempotent
    def post(self, request):
        refuse_unknown_fields(ScreeningBatchRequestSchema, request.data)
        context = request.auth
        created = batches.create_batch(
            context.account, context.environment, request.data, in_transaction=claim_of(request).completes(202)
        )
        context.quota_headers = created.quota.headers()
        return json_bytes_response(created.body, status=202, headers=context.quota_headers)


class ScreeningBatchDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="get_screening_batch",
        summary="Poll a screening batch until completed, partial or failed",
        responses={200: ScreeningBatchSchema},
    )
    def get(self, request, batch_id: str):
        return json_bytes_response(to_json_bytes(batches.batch_detail(request.auth, batch_id)))


class ScreeningBatchItemsView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="list_screening_batch_items",
        summary="The batch's hulls in position order, each with its screening record",
        parameters=[ScreeningBatchItemFilter],
        responses={200: ScreeningBatchItemsSchema},
    )
    def get(self, request, batch_id: str):
        filters = read_filters(ScreeningBatchItemFilter, request.query_params)
        return json_bytes_response(to_json_bytes(batches.batch_items(request.auth, batch_id, filters)))
