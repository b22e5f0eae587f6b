"""The export job kind: one item that writes the file on a worker, streaming rows from the database.

Rows are read in chunks (`iterator`) and written as they come, so memory stays flat whatever the
row count; the file is written under a temporary name and renamed when complete. Progress
(`rows_written`) is saved every PROGRESS_EVERY rows. A worker killed mid-file leaves the item to the
jobs sweep, which runs it again from the start.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.api.errors import ApiError
from core.api.filters import read_filters
from exports import resources
from exports.models import Export, ExportItem
from exports.selectors import export_document
from jobs import kinds
from jobs.flow import ItemRun
from jobs.models import Job

PROGRESS_EVERY = 5000
CHUNK_ROWS = 2000


def _write(export: Export, target: Path) -> int:
    exportable = resources.get(export.resource)
    filters = read_filters(exportable.filter_class, export.filters)
    rows = exportable.rows(export, filters).order_by("id")
    Export.objects.filter(pk=export.pk).update(row_count=rows.count(), rows_written=0)
    if export.format == Export.Format.ZIP:
        return _write_zip(export, exportable, rows, target)
    written = 0
    with open(target, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle) if export.format == Export.Format.CSV else None
        if writer is not None:
            writer.writerow(exportable.columns)
        for row in rows.iterator(chunk_size=CHUNK_ROWS):
            document = exportable.document(row)
            if writer is not None:
                writer.writerow([resources.csv_safe(resources.cell(document, c)) for c in exportable.columns])
            else:
                handle.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")
            written += 1
            if written % PROGRESS_EVERY == 0:
                Export.objects.filter(pk=export.pk).update(rows_written=written)
    return written


def _write_zip(export: Export, exportable: resources.Exportable, rows: Any, target: Path) -> int:
    """One `<record id>.json` member per record, written as it comes."""
    written = 0
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for row in rows.iterator(chunk_size=CHUNK_ROWS):
            document = exportable.document(row)
            archive.writestr(f"{row.pk}.json", json.dumps(document, ensure_ascii=False, indent=1))
            written += 1
            if written % PROGRESS_EVERY == 0:
                Export.objects.filter(pk=export.pk).update(rows_written=written)
    return written


def run_export(run: ItemRun[Export, ExportItem]) -> None:
    export = run.job
    folder = Path(settings.EXPORT_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{export.id}.{export.format}"
    partial = folder / f".{name}.{run.attempt}.part"
    try:
        written = _write(export, partial)
    except ApiError:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, folder / name)
    now = timezone.now()
    with transaction.atomic():
        run.succeeded(charged=False)
        Export.objects.filter(pk=export.pk).update(
            file_name=name,
            rows_written=written,
            size_bytes=(folder / name).stat().st_size,
            expires_at=now + timedelta(hours=settings.EXPORT_RETENTION_HOURS),
        )


def _render(job: Job) -> dict:
    return export_document(Export.objects.get(pk=job.pk))


def _event_data(export: Export) -> dict[str, Any]:
    return {"resource": export.resource, "format": export.format}


KIND = kinds.register(
    kinds.JobKind(
        name="export",
        job_model=Export,
        item_model=ExportItem,
        quota_kind=None,
        run_item=run_export,
        render=_render,
        settings_prefix="EXPORT",
        event_data=_event_data,
        job_noun="export",
        item_noun="file",
    )
)


def csv_header(resource: str) -> str:
    """The CSV header line of a resource (documentation and tests)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(resources.get(resource).columns)
    return buffer.getvalue()
