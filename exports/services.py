"""Exports: create (a job with one item, the file), delete, and remove the files past retention."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.api.errors import FieldViolation
from core.api.responses import to_json_bytes
from exports import resources
from exports.models import Export
from exports.production import KIND
from exports.selectors import file_path, owned_export, scope_refused
from jobs import flow
from metering.auth import KeyContext


@dataclass(frozen=True)
class Deleted:
    body: bytes
    quota: Any = None


def _checked_filters(exportable: resources.Exportable, given: Any) -> dict[str, Any]:
    if given in (None, ""):
        return {}
    if not isinstance(given, dict):
        raise FieldViolation([{"field": "filters", "message": "must be an object of the list's filters"}])
    known = exportable.filter_names
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise FieldViolation(
            [
                {
                    "field": f"filters.{name}",
                    "message": f"the {exportable.name} list takes no filter {name!r}; it takes {', '.join(known)}",
                }
                for name in unknown
            ]
        )
    try:
        as_query = {name: value if isinstance(value, str) else _query_text(value) for name, value in given.items()}
    except TypeError:
        raise FieldViolation(
            [
                {"field": f"filters.{name}", "message": "must be a single value (text, number or true/false)"}
                for name, value in given.items()
                if isinstance(value, dict | list)
            ]
        ) from None
    form = exportable.filter_class(data=as_query)
    if not form.is_valid():
        raise FieldViolation(
            [
                {"field": f"filters.{name}", "message": "; ".join(str(message) for message in messages)}
                for name, messages in form.errors.items()
            ]
        )
    return as_query


def _query_text(value: Any) -> str:
    """A filter value as the list's query string would carry it; an object or a list is no filter value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        raise TypeError
    return str(value)


def create_export(
    context: KeyContext, values: dict, *, in_transaction: Callable[[flow.CreatedJob], None] | None = None
) -> flow.CreatedJob:
    """Queue the file of every `resource` record matching `filters` (202); needs the resource's scope."""
    exportable = resources.get(values["resource"])
    if exportable.scope not in context.scopes:
        raise scope_refused(exportable.scope)
    if values["format"] not in exportable.formats:
        raise FieldViolation(
            [
                {
                    "field": "format",
                    "message": f"{exportable.name} exports as {' or '.join(exportable.formats)}; "
                    "correct it and resend POST /api/v1/exports.",
                }
            ]
        )
    filters = _checked_filters(exportable, values.get("filters"))
    return flow.create(
        KIND,
        context.account,
        context.environment,
        [flow.ItemSpec(request={})],
        job_fields={
            "resource": exportable.name,
            "format": values["format"],
            "filters": filters,
            "scope": exportable.scope,
        },
        in_transaction=in_transaction,
    )


def delete_export(
    context: KeyContext, export_id: str, *, in_transaction: Callable[[Deleted], None] | None = None
) -> Deleted:
    """Remove the export and its file (a file still being written is dropped when its worker ends)."""
    with transaction.atomic():
        export = owned_export(context, export_id, for_update=True)
        path = file_path(export) if export.file_name else None
        deleted = Deleted(to_json_bytes({"id": export.id, "deleted": True}))
        export.delete()
        if in_transaction is not None:
            in_transaction(deleted)
    if path is not None:
        path.unlink(missing_ok=True)
    return deleted


def remove_expired_files(now: Any = None) -> int:
    """Delete the files of exports past their retention; their records stay, status expired."""
    now = now or timezone.now()
    removed = 0
    for export in Export.objects.filter(expires_at__lte=now, file_removed_at__isnull=True):
        if export.file_name:
            file_path(export).unlink(missing_ok=True)
        Export.objects.filter(pk=export.pk).update(file_removed_at=now)
        removed += 1
    return removed
