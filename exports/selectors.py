"""Reads of exports, scoped to the caller: its environment's exports of resources its key may read."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.utils import timezone

from core.api.errors import ApiError
from core.api.filters import ListFilter
from core.api.pagination import paginate
from core.api.timefmt import rfc3339
from exports.models import Export, ExportItem
from metering.auth import KeyContext

STATUS_EXPIRED = "expired"


class ExportFilter(ListFilter):
    pass


def scope_refused(scope: str) -> ApiError:
    return ApiError(403, "insufficient_scope", f"This key lacks the scope {scope}. Create a key that carries it.")


def status_of(export: Export) -> str:
    if export.file_removed_at is not None or (export.expires_at is not None and export.expires_at <= timezone.now()):
        return STATUS_EXPIRED
    return export.status


def file_path(export: Export) -> Path:
    return Path(settings.EXPORT_DIR) / export.file_name


def export_document(export: Export) -> dict:
    status = status_of(export)
    progress = None
    if export.row_count is not None:
        progress = 1.0 if export.row_count == 0 else round(min(1.0, export.rows_written / export.row_count), 4)
    return {
        "id": export.id,
        "resource": export.resource,
        "format": export.format,
        "filters": dict(export.filters),
        "status": status,
        "row_count": export.row_count,
        "rows_written": export.rows_written,
        "progress": progress,
        "size_bytes": export.size_bytes,
        "download_url": f"/api/v1/exports/{export.id}/download" if status == Export.Status.COMPLETED else None,
        # cast: an export is created with its one item in the same transaction (jobs.flow.create).
        "error": (cast(ExportItem, export.items.first()).error if status == Export.Status.FAILED else None),
        "created_at": rfc3339(export.created_at),
        "completed_at": rfc3339(export.completed_at),
        "expires_at": rfc3339(export.expires_at),
    }


def owned_export(context: KeyContext, export_id: str, *, for_update: bool = False) -> Export:
    """The caller's export; 403 naming the scope when the key may not read its resource."""
    export: Export = Export.objects.owned_one(context, export_id, for_update=for_update)
    if export.scope not in context.scopes:
        raise scope_refused(export.scope)
    return export


def export_list(context: KeyContext, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first: the exports of resources this key may read."""
    exports = Export.objects.owned_by(context).filter(scope__in=list(context.scopes))
    return paginate(exports, filters, plural="exports", render=export_document)


def export_detail(context: KeyContext, export_id: str) -> dict:
    return export_document(owned_export(context, export_id))
