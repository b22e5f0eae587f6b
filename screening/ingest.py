"""Atomic ingestion: a parsed file becomes the serving snapshot of its source, or nothing.

A load that fails (parse error, validation, database error mid-load) leaves the previous
snapshot serving and is recorded as a failed snapshot with its reason.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.db import connection, transaction
from django.utils import timezone

from screening.models import InspectionEntry, ListedEntry, RegisterEntry, SourceSnapshot
from screening.records import Inspection, ListedRecord, ParsedSnapshot, RegisterRecord

BULK_BATCH = 2000


class IngestError(Exception):
    """The file cannot become a snapshot; the previous one keeps serving."""


@dataclass(frozen=True)
class IngestResult:
    snapshot: SourceSnapshot
    added: int
    removed: int
    warnings: list[str]


def checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_to_json(record: object) -> dict:
    """Plain JSON for a record dataclass (dates as ISO strings, tuples as lists)."""
    out = {}
    for item in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, item.name)
        if isinstance(value, (date, datetime)):
            value = value.isoformat()
        elif isinstance(value, tuple):
            value = list(value)
        out[item.name] = value
    return out


def _identity_key(record: object) -> str:
    if isinstance(record, ListedRecord):
        return f"{record.source_record_id or ''}|{record.imo or ''}|{record.name}"
    if isinstance(record, RegisterRecord):
        return f"{record.register}|{record.imo}"
    if isinstance(record, Inspection):
        return f"{record.register}|{record.imo}|{record.inspected_on}|{record.port}"
    return repr(record)


def _previous_keys(previous: SourceSnapshot | None) -> set[str]:
    if previous is None:
        return set()
    keys: set[str] = set()
    for rows, model in ((previous.listed, ListedRecord), (previous.register_rows, RegisterRecord)):
        for payload in rows.values_list("record", flat=True).iterator():
            keys.add(_identity_key(record_from_json(model, payload)))
    return keys


def record_from_json(model: type, payload: dict) -> object:
    values = dict(payload)
    for item in dataclasses.fields(model):
        value = values.get(item.name)
        if isinstance(value, list):
            values[item.name] = tuple(value)
    if model is Inspection and isinstance(values.get("inspected_on"), str):
        values["inspected_on"] = date.fromisoformat(values["inspected_on"])
    if model is RegisterRecord and isinstance(values.get("as_of"), str):
        values["as_of"] = date.fromisoformat(values["as_of"])
    known = {item.name for item in dataclasses.fields(model)}
    return model(**{k: v for k, v in values.items() if k in known})


def record_failure(source: str, reason: str, *, origin: str = "", edition: str = "") -> SourceSnapshot:
    return SourceSnapshot.objects.create(
        source=source, edition=edition, status=SourceSnapshot.STATUS_FAILED, origin=origin[:500], message=reason[:500]
    )


def active_snapshot(source: str, edition: str = "") -> SourceSnapshot | None:
    return (
        SourceSnapshot.objects.filter(source=source, edition=edition, status=SourceSnapshot.STATUS_ACTIVE)
        .order_by("-retrieved_at", "-id")
        .first()
    )


def _bulk(model: type, rows: Iterable[object]) -> None:
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BULK_BATCH:
            model.objects.bulk_create(batch)
            batch = []
    if batch:
        model.objects.bulk_create(batch)


def load_snapshot(
    parsed: ParsedSnapshot,
    *,
    data_checksum: str,
    origin: str = "",
    is_demo: bool = False,
    message: str = "",
    edition: str | None = None,
) -> IngestResult:
    """Make `parsed` the serving snapshot of its source, atomically."""
    source = parsed.source
    edition = edition if edition is not None else (parsed.list_edition_label or "")
    if not parsed.records:
        record_failure(source, "the file holds no usable records", origin=origin, edition=edition)
        raise IngestError(f"{source}: the file holds no usable records; the previous snapshot keeps serving")
    previous = active_snapshot(source, edition)
    previous_keys = _previous_keys(previous)
    new_keys = {_identity_key(record) for record in parsed.records}
    try:
        with transaction.atomic():
            snapshot = SourceSnapshot.objects.create(
                source=source,
                edition=edition,
                status=SourceSnapshot.STATUS_ACTIVE,
                checksum=data_checksum,
                row_count=len(parsed.records),
                published_at=parsed.published_at,
                retrieved_at=timezone.now(),
                origin=origin[:500],
                is_demo=is_demo,
                message=message[:500],
                added=len(new_keys - previous_keys),
                removed=len(previous_keys - new_keys) if previous else 0,
            )
            _bulk(
                ListedEntry,
                (
                    ListedEntry(snapshot=snapshot, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, ListedRecord)
                ),
            )
            _bulk(
                RegisterEntry,
                (
                    RegisterEntry(snapshot=snapshot, register=r.register, imo=r.imo, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, RegisterRecord)
                ),
            )
            _bulk(
                InspectionEntry,
                (
                    InspectionEntry(snapshot=snapshot, register=r.register, imo=r.imo, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, Inspection)
                ),
            )
            superseded = SourceSnapshot.objects.filter(
                source=source, edition=edition, status=SourceSnapshot.STATUS_ACTIVE
            ).exclude(pk=snapshot.pk)
            old_ids = list(superseded.values_list("pk", flat=True))
            superseded.update(status=SourceSnapshot.STATUS_SUPERSEDED)
            # Superseded copies are provenance only; their rows would just cost space.
            for model in (ListedEntry, RegisterEntry, InspectionEntry):
                model.objects.filter(snapshot_id__in=old_ids).delete()
    except Exception as exc:
        record_failure(source, f"load failed: {type(exc).__name__}: {exc}", origin=origin, edition=edition)
        raise IngestError(f"{source}: load failed ({exc}); the previous snapshot keeps serving") from exc
    _refresh_planner_statistics(parsed)
    return IngestResult(snapshot, snapshot.added, snapshot.removed, list(parsed.warnings))


def _refresh_planner_statistics(parsed: ParsedSnapshot) -> None:
    """After a bulk load PostgreSQL's planner still sees the old row counts until autovacuum runs;
    with them it picks a join over whole tables for the per-IMO lookups (about 5x slower)."""
    if connection.vendor != "postgresql":
        return
    kinds = {type(record) for record in parsed.records}
    tables = {
        model._meta.db_table
        for model, kind in ((ListedEntry, ListedRecord), (RegisterEntry, RegisterRecord), (InspectionEntry, Inspection))
        if kind in kinds
    }
    with connection.cursor() as cursor:
        for table in sorted(tables):
            cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
