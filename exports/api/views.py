"""Exports (the exported resource's own scope): create (202), list, get, download (streamed), delete."""

from __future__ import annotations

import copy
from typing import Any

from django.http import FileResponse
from drf_spectacular.drainage import set_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema, extend_schema_field
from rest_framework import serializers

from core.api.errors import ApiError
from core.api.filters import QueryBooleanField, read_filters
from core.api.openapi import NOT_BLANK, ClosedSerializer, DeletedSchema, creating_operation, error_response
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer
from exports import resources, selectors, services
from exports.models import Export
from exports.selectors import ExportFilter, file_path, owned_export, status_of
from jobs.models import Job
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent

STATUSES = [*Job.Status.values, selectors.STATUS_EXPIRED]
FORMAT_HELP = {
    "csv": "csv",
    "jsonl": "jsonl (JSON Lines)",
    "zip": "zip (one <screening id>.json evidence pack per record, as GET /api/v1/screenings/{id}/evidence)",
}
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "zip": "application/zip",
}


class ExportInput(StrictInputSerializer):
    """What the view reads first; each filter is then checked against the resource's list filters
    (exports.services). The document publishes the body per resource instead (`_published_request`)."""

    resource = serializers.ChoiceField(
        choices=resources.names(),
        help_text="screenings or screening_evidence (scope vessel:screen), cargo_screenings (cargo:screen) or "
        "access_log (logs:read); the key needs that scope",
    )
    format = serializers.ChoiceField(
        choices=Export.Format.values,
        help_text="csv or jsonl (JSON Lines); zip (one JSON evidence pack per record) for screening_evidence",
    )
    filters = serializers.DictField(
        required=False,
        help_text="The resource's list filters, as its list endpoint takes them (less limit and cursor), e.g. "
        '{"status": "INCOMPLETE", "superseded": "false"} for screenings, {"since": "2026-11-01T00:00:00Z"} for '
        "the access log",
    )


# The published body: one schema per resource (oneOf on `resource`), whose `filters` lists exactly that
# resource's list filters (Exportable.filter_names, what exports.services accepts; any other member is
# 422 naming it), each with the schema its list endpoint publishes for the parameter. A value may also
# be given as the list's query text: a flag as "true" or "false".
# (Overrides are set in __init__ or on the class: a serializer deep-copies its fields by re-creating them.)


@extend_schema_field({"anyOf": [{"type": "boolean"}, {"type": "string", "enum": ["true", "false"]}]})
class _FilterFlag(QueryBooleanField):
    """A list's flag in an export's filters: true or false, or its query text "true" or "false"."""


class _FilterText(serializers.CharField):
    """A list's trimmed text filter in an export's filters: refused when blank once trimmed, so at least
    one character that is not white space."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        schema: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": NOT_BLANK}
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        set_override(self, "field", schema)


class _ResourceName(serializers.CharField):
    """`resource` in the schema of one resource's export: that resource's name only."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        set_override(self, "field", {"type": "string", "const": name})


def _filter_member(field: serializers.Field) -> serializers.Field:
    """A list filter as a member of an export's `filters`."""
    # Field.__new__ keeps each field's constructor arguments as _args/_kwargs (DRF re-creates fields from
    # them when copying); the DRF stubs do not declare these attributes.
    if isinstance(field, QueryBooleanField):
        return _FilterFlag(*field._args, **field._kwargs)  # type: ignore[attr-defined]
    if type(field) is serializers.CharField and field.trim_whitespace and not field.allow_blank:
        return _FilterText(*field._args, **field._kwargs)  # type: ignore[attr-defined]
    return copy.deepcopy(field)


def _title(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _resource_request(exportable: resources.Exportable) -> type[serializers.Serializer]:
    declared = exportable.filter_class._declared_fields
    filters = type(
        f"{_title(exportable.name)}ExportFilters",
        (ClosedSerializer,),
        {
            "__doc__": f"The {exportable.name} list's filters, less limit and cursor: no other member is taken.",
            **{name: _filter_member(declared[name]) for name in exportable.filter_names},
        },
    )
    return type(
        f"{_title(exportable.name)}ExportInput",
        (serializers.Serializer,),
        {
            "resource": _ResourceName(
                exportable.name, help_text=f"{exportable.name} (the key needs scope {exportable.scope})"
            ),
            "format": serializers.ChoiceField(
                choices=list(exportable.formats),
                help_text=" or ".join(FORMAT_HELP[name] for name in exportable.formats),
            ),
            "filters": filters(
                required=False,
                help_text=f"The {exportable.name} list's filters, as its list endpoint takes them (less limit and "
                "cursor); any other member is 422 validation_failed naming it",
            ),
        },
    )


def _published_request() -> PolymorphicProxySerializer:
    def members() -> dict[str, serializers.Serializer | type[serializers.Serializer]]:
        return {name: _resource_request(resources.get(name)) for name in resources.names()}

    return PolymorphicProxySerializer(
        component_name="ExportInput",
        serializers=members,
        resource_type_field_name="resource",
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
        request=_published_request(),
        responses={202: OpenApiResponse(ExportSchema)},
        error_notes={
            422: "validation_failed: an unknown resource or format, or a filter the resource's list does "
            "not take (each named filters.<name>)"
        },
    )
    @idempotent
    def post(self, request):
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
    def get(self, request):
        filters = read_filters(ExportFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.export_list(request.auth, filters)))


class ExportDetailView(KeyedAPIView):
    required_scope = None

    @extend_schema(operation_id="get_export", summary="An export's status and progress", responses={200: ExportSchema})
    def get(self, request, export_id: str):
        return json_bytes_response(to_json_bytes(selectors.export_detail(request.auth, export_id)))

    @creating_operation(
        operation_id="delete_export", summary="Delete an export and its file", request=None,
        responses={200: DeletedSchema},
    )  # fmt: skip
    @idempotent
    def delete(self, request, export_id: str):
        deleted = services.delete_export(request.auth, export_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(deleted.body)


class ExportDownloadView(KeyedAPIView):
    required_scope = None

    @extend_schema(
        operation_id="download_export",
        summary="The export's file, streamed (text/csv, application/x-ndjson or application/zip)",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The CSV file"),
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="The JSON Lines file"),
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The evidence packs, one <screening id>.json each"
            ),
            409: error_response(409, "export_not_ready: the export is not completed yet; poll GET /exports/{id}."),
            410: error_response(410, "export_expired: the file was removed after its retention; export again."),
        },
    )
    def get(self, request, export_id: str):
        export = owned_export(request.auth, export_id)
        status = status_of(export)
        if status == selectors.STATUS_EXPIRED:
            raise ApiError(410, "export_expired", "This export's file was removed after its retention; export again.")
        if status != Export.Status.COMPLETED:
            raise ApiError(409, "export_not_ready", f"This export is {status}; download it once it is completed.")
        return FileResponse(
            open(file_path(export), "rb"),  # noqa: SIM115  (FileResponse closes it)
            as_attachment=True,
            filename=export.file_name,
            content_type=CONTENT_TYPES[export.format],
        )
