"""POST /api/v1/cargo-screenings, GET /api/v1/cargo-screenings, GET /api/v1/cargo-screenings/{id}."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema

from cargo import selectors, services
from cargo.api.schema import (
    OPERATION_DESCRIPTION,
    CargoScreeningInput,
    CargoScreeningListSchema,
    CargoScreeningSchema,
    cargo_request,
)
from cargo.selectors import CargoScreeningFilter
from core.api.filters import read_filters
from core.api.openapi import creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent


class CargoScreeningCollectionView(KeyedAPIView):
    required_scope = "cargo:screen"

    @extend_schema(description=OPERATION_DESCRIPTION)
    @creating_operation(
        operation_id="create_cargo_screening",
        summary="Screen a cargo: parties, countries, ports, commodity and vessel",
        request=CargoScreeningInput,
        responses={
            201: OpenApiResponse(CargoScreeningSchema, description="The cargo screening (quota headers attached).")
        },
        metered=True,
        error_notes={422: "validation_failed naming the field (HS code, country, UN/LOCODE, party, vessel IMO)"},
    )
    @idempotent
    def post(self, request):
        data = CargoScreeningInput(data=request.data)
        data.is_valid(raise_exception=True)
        context = request.auth
        issued = services.screen_cargo(
            context.account,
            context.environment,
            cargo_request(data.validated_data),
            in_transaction=claim_of(request).completes(201),
        )
        context.units_charged = issued.units_charged
        context.quota_headers = issued.quota.headers()
        return json_bytes_response(issued.body, status=201, headers=context.quota_headers)

    @extend_schema(
        operation_id="list_cargo_screenings",
        summary="List cargo screenings (newest first)",
        parameters=[CargoScreeningFilter],
        responses={200: CargoScreeningListSchema},
    )
    def get(self, request):
        filters = read_filters(CargoScreeningFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.cargo_screening_list(request.auth, filters)))


class CargoScreeningDetailView(KeyedAPIView):
    required_scope = "cargo:screen"

    @extend_schema(
        operation_id="get_cargo_screening",
        summary="A cargo screening as issued",
        responses={200: CargoScreeningSchema},
    )
    def get(self, request, cargo_screening_id: str):
        return json_bytes_response(selectors.cargo_screening_body(request.auth, cargo_screening_id))
