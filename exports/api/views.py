"""Exports (the exported resource's own scope): create (202), list, get, download (streamed), delete."""

from __future__ import annotations

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from accounts.api.base import KeyedAPIView
from config.api.errors import ApiError
from config.api.filters import read_filters
from config.api.openapi import DeletedSchema, creating_operation, error_response
from config.api.responses import json_bytes_response, to_json_bytes
from exports import resources, selectors, services
from exports.models import Export
from exports.selectors import ExportFilter, file_path, owned_export, status_of
from jobs.models import Job
from metering.idempotency import claim_of, idempotent

STATUSES = [*Job.Status.values, selectors.STATUS_EXPIRED]


class ExportInput(serializers.Serializer):
    resource = serializers.ChoiceField(
        choices=resources.names(),
        help_text="screenings (scope vessel:screen), cargo_screenings (cargo:screen) or access_log (logs:read); "
        "the key needs that scope",
    )
    format = serializers.ChoiceField(choices=Export.Format.values, help_text="csv or jsonl (JSON Lines)")
    filters = serializers.DictField(
        required=False,
        help_text="The resource's list filters, as its list endpoint takes them (less limit and cursor), e.g. "
        '{"status": "INCOMPLETE", "superseded": "false"} for screenings, {"since": "2026-11-01T00:00:00Z"} for '
        "the access log",
    )


class ExportSchema(serializers.Serializer):
    id = serializers.CharField()
    resource = serializers.ChoiceField(choices=resources.names())
    format = serializers.ChoiceField(choices=Export.Format.values)
    filters = serializers.DictField()
    status = serializers.ChoiceField(choices=STATUSES)
    row_count = serializers.IntegerField(allow_null=True)
    rows_written = serializers.IntegerField()
    progress = serializers.FloatField(allow_null=True, help_text="0 to 1, once the rows are counted")
    size_bytes = serializers.IntegerField(allow_null=True)
    download_url = serializers.CharField(allow_null=True)
    error = serializers.DictField(allow_null=True)
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When the file is removed")


class ExportListSchema(serializers.Serializer):
    exports = ExportSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class ExportCollectionView(KeyedAPIView):
    required_scope = None  # the exported resource's own scope, checked per export

    @creating_operation(
        operation_id="create_export",
        summary="Export every record of a resource matching its list filters, as CSV or JSON Lines (202)",
        request=ExportInput,
        responses={202: OpenApiResponse(ExportSchema)},
    )
    @idempotent
    def post(self, request):  # type: ignore[no-untyped-def]
        form = ExportInput(data=request.data)
        form.is_valid(raise_exception=True)
        created = services.create_export(
            request.auth, dict(form.validated_data), in_transaction=claim_of(request).completes(202)
        )
        return json_bytes_response(created.body, status=202)

    @extend_schema(
        operation_id="list_exports",
        summary="This environment's exports of resources the key may read, newest first",
        parameters=[ExportFilter],
        responses={200: ExportListSchema},
    )
    def get(self, request):  # type: ignore[no-untyped-def]
        filters = read_filters(ExportFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.export_list(request.auth, filters)))


class ExportDetailView(KeyedAPIView):
    required_scope = None

    @extend_schema(operation_id="get_export", summary="An export's status and progress", responses={200: ExportSchema})
    def get(self, request, export_id: str):  # type: ignore[no-untyped-def]
        return json_bytes_response(to_json_bytes(selectors.export_detail(request.auth, export_id)))

    @creating_operation(
        operation_id="delete_export", summary="Delete an export and its file", request=None,
        responses={200: DeletedSchema},
    )  # fmt: skip
    @idempotent
    def delete(self, request, export_id: str):  # type: ignore[no-untyped-def]
        deleted = services.delete_export(request.auth, export_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(deleted.body)


class ExportDownloadView(KeyedAPIView):
    required_scope = None

    @extend_schema(
        operation_id="download_export",
        summary="The export's file, streamed (text/csv or application/x-ndjson)",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The CSV file"),
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="The JSON Lines file"),
            409: error_response(409, "export_not_ready: the export is not completed yet; poll GET /exports/{id}."),
            410: error_response(410, "export_expired: the file was removed after its retention; export again."),
        },
    )
    def get(self, request, export_id: str):  # type: ignore[no-untyped-def]
        export = owned_export(request.auth, export_id)
        status = status_of(export)
        if status == selectors.STATUS_EXPIRED:
            raise ApiError(410, "export_expired", "This export's file was removed after its retention; export again.")
        if status != Export.Status.COMPLETED:
            raise ApiError(409, "export_not_ready", f"This export is {status}; download it once it is completed.")
        content_type = "text/csv" if export.format == Export.Format.CSV else "application/x-ndjson"
        return FileResponse(
            open(file_path(export), "rb"),  # noqa: SIM115  (FileResponse closes it)
            as_attachment=True,
            filename=export.file_name,
            content_type=f"{content_type}; charset=utf-8",
        )
