"""Voyage assessments and voyage assessment batches, and the keyless port lookup."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema

from core.api.openapi import creating_operation
from core.api.responses import json_bytes_response
from core.api.strict_input import refuse_unknown_fields
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from voyages import batches, selectors, services
from voyages.api.schema import (
    AssessmentRequestSchema,
    AssessmentSchema,
    BatchItemsSchema,
    BatchRequestSchema,
    BatchSchema,
)


class VoyageAssessmentCollectionView(KeyedAPIView):
    required_scope = "voyage:score"

    @creating_operation(
        operation_id="create_voyage_assessment",
        summary="Assess the risk of a voyage between two ports",
        request=AssessmentRequestSchema,
        responses={201: OpenApiResponse(AssessmentSchema, description="The assessment (quota headers attached).")},
        metered=True,
        error_notes={422: "validation_failed (unknown LOCODE, bad via point, …) or route_not_found"},
    )
    @idempotent
    def post(self, request):
        context = request.auth
        issued = services.assess(
            context.account, context.environment, request.data, in_transaction=claim_of(request).completes(201)
        )
        context.units_charged = 1
        context.quota_headers = issued.quota.headers()
        return json_bytes_response(issued.body, status=201, headers=context.quota_headers)


class VoyageAssessmentDetailView(KeyedAPIView):
    required_scope = "voyage:score"

    @extend_schema(
        operation_id="get_voyage_assessment",
        summary="The stored assessment, byte-for-byte, until expires_at",
        responses={200: AssessmentSchema},
    )
    def get(self, request, assessment_id: str):
        return json_bytes_response(selectors.assessment_body(request.auth, assessment_id))


class VoyageBatchCollectionView(KeyedAPIView):
    required_scope = "voyage:score"

    @creating_operation(
        operation_id="create_voyage_assessment_batch",
        summary="Assess up to 10 routes asynchronously",
        request=BatchRequestSchema,
        responses={
            202: OpenApiResponse(
                BatchSchema,
                description="The batch (quota headers attached: each accepted route reserved one unit; a route "
                "that fails is refunded).",
            )
        },
        metered=True,
        error_notes={
            422: "validation_failed: no routes, more than the key's cap, or no valid route (each named "
            "routes[i].field); nothing is written or reserved"
        },
    )
    @idempotent
    def post(self, request):
        refuse_unknown_fields(BatchRequestSchema, request.data)  # each route's own members: judged per route
        context = request.auth
        created = batches.create_batch(
            context.account, context.environment, request.data, in_transaction=claim_of(request).completes(202)
        )
        context.quota_headers = created.quota.headers()
        return json_bytes_response(created.body, status=202, headers=context.quota_headers)


class VoyageBatchDetailView(KeyedAPIView):
    required_scope = "voyage:score"

    @extend_schema(
        operation_id="get_voyage_assessment_batch",
        summary="Poll a batch until completed, partial or failed",
        responses={200: BatchSchema},
    )
    def get(self, request, batch_id: str):
        return json_bytes_response(selectors.batch_detail(request.auth, batch_id))


class VoyageBatchItemsView(KeyedAPIView):
    required_scope = "voyage:score"

    @extend_schema(
        operation_id="list_voyage_assessment_batch_items",
        summary="The batch's items and results",
        responses={200: BatchItemsSchema},
    )
    def get(self, request, batch_id: str):
        return json_bytes_response(selectors.batch_items(request.auth, batch_id))
