"""POST /api/v1/screenings, GET /api/v1/screenings, GET /api/v1/screenings/{id}, GET /{id}/evidence."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers

from core.api.fields import StrictBooleanField, StrictStringField
from core.api.filters import read_filters
from core.api.openapi import creating_operation
from core.api.renderers import PdfRenderer, ServiceJSONRenderer
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer
from core.api.timefmt import parse_rfc3339, rfc3339
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from screening import evidence, selectors, services
from screening.api.schema import EvidencePackSchema, ImoInputField, ScreeningListSchema, ScreeningRecordSchema
from screening.selectors import ScreeningFilter


@extend_schema_field(
    {
        "oneOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}],
        "description": "Screen against the sanctions lists as they stood at this past instant: an RFC 3339 timestamp, "
        "or a date (the end of that day, UTC). The record says as_of and names the editions it read; a list of "
        "which no edition was held then is a coverage gap (a core one makes the answer INCOMPLETE, never GREEN). "
        "Register particulars are read as they stand now. Charged like any screening; never drives fleets or "
        "follow-ups. A future value is 422.",
    }
)
class AsOfField(serializers.Field):
    default_error_messages = {"invalid": "must be a date (YYYY-MM-DD) or an RFC 3339 timestamp in the past"}

    def to_internal_value(self, data: object) -> datetime:
        if isinstance(data, str) and DATE_ONLY.match(data):
            try:
                day = date.fromisoformat(data)
            except ValueError:
                self.fail("invalid")
            return datetime.combine(day, time.max, tzinfo=UTC)
        try:
            return parse_rfc3339(str(data)) if isinstance(data, str) else self.fail("invalid")
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value: datetime) -> str:
        return rfc3339(value) or ""


DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ScreeningInput(StrictInputSerializer):
    imo = ImoInputField(max_length=64, trim_whitespace=False)
    vessel_name = StrictStringField(required=False, max_length=200, allow_blank=False)
    customer_reference = StrictStringField(required=False, max_length=200, allow_blank=True)
    include_vetting = StrictBooleanField(required=False, default=True)
    as_of = AsOfField(required=False)
    include_behaviour = StrictBooleanField(
        required=False,
        default=False,
        help_text="true adds `behaviour`: what the hull's AIS showed over the 90 days before the screening "
        "(counts by kind, the strongest events). Never changes the verdict or the grade; no extra unit.",
    )


class ScreeningCollectionView(KeyedAPIView):
    required_scope = "vessel:screen"

    @creating_operation(
        operation_id="create_screening",
        summary="Screen a hull by IMO number",
        request=ScreeningInput,
        responses={
            201: OpenApiResponse(ScreeningRecordSchema, description="The screening record (quota headers attached).")
        },
        metered=True,
    )
    @idempotent
    def post(self, request):
        data = ScreeningInput(data=request.data)
        data.is_valid(raise_exception=True)
        context = request.auth
        issued = services.screen(
            context.account,
            context.environment,
            services.CallerInput(**data.validated_data),
            in_transaction=claim_of(request).completes(201),
        )
        context.units_charged = issued.units_charged
        context.quota_headers = issued.quota_headers
        return json_bytes_response(issued.body, status=201, headers=context.quota_headers)

    @extend_schema(
        operation_id="list_screenings",
        summary="List screening records (newest first)",
        parameters=[ScreeningFilter],
        responses={200: ScreeningListSchema},
    )
    def get(self, request):
        filters = read_filters(ScreeningFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.screening_list(request.auth, filters)))


class ScreeningDetailView(KeyedAPIView):
    required_scope = "vessel:screen"

    @extend_schema(
        operation_id="get_screening",
        summary="A screening record with superseded_by and the live resolution",
        responses={200: ScreeningRecordSchema},
    )
    def get(self, request, screening_id: str):
        return json_bytes_response(selectors.screening_detail(request.auth, screening_id))


class ScreeningEvidenceView(KeyedAPIView):
    required_scope = "vessel:screen"
    renderer_classes = [ServiceJSONRenderer, PdfRenderer]

    @extend_schema(
        operation_id="get_screening_evidence",
        summary="The evidence pack of a screening: the record as issued, the editions in force, the decisions",
        description="The stored record exactly as issued (and the sha256 of its bytes), every list and register "
        "edition in force at screened_at (publisher's date, retrieval time, sha256 of the file set as loaded, "
        "record count), engine and methodology versions, the matching thresholds, and the decisions the record "
        "shows. `sha256` is taken over the pack's canonical JSON without that field (keys sorted, no "
        "insignificant whitespace, UTF-8). With `Accept: application/pdf`: the same content laid out for a case "
        "file, the hash printed on every page. Free.",
        responses={
            (200, "application/json"): EvidencePackSchema,
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The pack as a PDF"),
        },
    )
    def get(self, request, screening_id: str):
        pack = evidence.evidence_pack(request.auth, screening_id)
        if request.accepted_renderer.media_type == PdfRenderer.media_type:
            response = HttpResponse(evidence.evidence_pdf(pack), content_type=PdfRenderer.media_type)
            response["Content-Disposition"] = f'inline; filename="evidence-{pack["screening_id"]}.pdf"'
            return response
        return json_bytes_response(to_json_bytes(pack))
