"""Atomic ingestion: a parsed file becomes the serving snapshot of its source, or nothing.

A load that fails (parse error, validation, database error mid-load) leaves the previous
snapshot serving and is recorded as a failed snapshot with its reason.

Shrink guard: a load that would remove more than MAX_REMOVED_SHARE (a fifth) of the records
of the serving real (non-demo) copy of its source and edition, or that shares no record with
it at all (another list in the same format), is refused the same way: a truncated download or
the wrong file never replaces a list. An operator who knows the edition is right loads it
with `allow_shrink=True` (`refresh_sources --allow-shrink`). A demo copy is replaced freely.
Every load logs how many records it added and removed (logger `service.ingest`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TypeVar

from django.db import connection, models, transaction
from django.utils import timezone

from screening.models import InspectionEntry, ListedEntry, RegisterEntry, SourceSnapshot
from screening.records import Inspection, ListedRecord, ParsedSnapshot, RegisterRecord, listing_content

BULK_BATCH = 2000
# A normal edition of any list drops far fewer records than this (OFAC, UN, EU: well under 1%).
MAX_REMOVED_SHARE = 0.20
logger = logging.getLogger("service.ingest")


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


def files_checksum(files: dict[str, bytes]) -> str:
    """One checksum for a source's file set (its parts in name order)."""
    return checksum(b"\0".join(files[part] for part in sorted(files)))


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


def _previous_records(previous: SourceSnapshot | None) -> list[object]:
    if previous is None:
        return []
    records: list[object] = []
    for rows, model in (
        (previous.listed, ListedRecord),
        (previous.register_rows, RegisterRecord),
        (previous.inspections, Inspection),
    ):
        records.extend(record_from_json(model, payload) for payload in rows.values_list("record", flat=True).iterator())
    return records


def _diff_key(record: ListedRecord) -> str:
    """A listing across editions: the source's own id when it gives one (a renamed hull keeps it)."""
    return f"id:{record.source_record_id}" if record.source_record_id else f"imo:{record.imo or ''}|{record.name}"


def edition_diff(previous: Iterable[object], current: Iterable[object]) -> dict:
    """The listings added, removed and changed (names, identifiers, programmes) between two editions."""
    before = {_diff_key(r): r for r in previous if isinstance(r, ListedRecord)}
    after = {_diff_key(r): r for r in current if isinstance(r, ListedRecord)}
    changed = [
        {"before": record_to_json(before[key]), "after": record_to_json(after[key])}
        for key in sorted(before.keys() & after.keys())
        if listing_content(before[key]) != listing_content(after[key])
    ]
    return {
        "added": [record_to_json(after[key]) for key in sorted(after.keys() - before.keys())],
        "removed": [record_to_json(before[key]) for key in sorted(before.keys() - after.keys())],
        "changed": changed,
    }


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
        source=source, edition=edition, status=SourceSnapshot.Status.FAILED, origin=origin[:500], message=reason[:500]
    )


def active_snapshot(source: str, edition: str = "") -> SourceSnapshot | None:
    return (
        SourceSnapshot.objects.filter(source=source, edition=edition, status=SourceSnapshot.Status.ACTIVE)
        .order_by("-retrieved_at", "-id")
        .first()
    )


_RowModel = TypeVar("_RowModel", bound=models.Model)


def _bulk(manager: models.Manager[_RowModel], rows: Iterable[_RowModel]) -> None:
    batch: list[_RowModel] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BULK_BATCH:
            manager.bulk_create(batch)
            batch = []
    if batch:
        manager.bulk_create(batch)


def load_snapshot(
    parsed: ParsedSnapshot,
    *,
    data_checksum: str,
    origin: str = "",
    is_demo: bool = False,
    message: str = "",
    edition: str | None = None,
    allow_shrink: bool = False,
) -> IngestResult:
    """Make `parsed` the serving snapshot of its source, atomically (refused by the shrink guard, see above)."""
    source = parsed.source
    edition = edition if edition is not None else (parsed.list_edition_label or "")
    if not parsed.records:
        record_failure(source, "the file holds no usable records", origin=origin, edition=edition)
        raise IngestError(f"{source}: the file holds no usable records; the previous snapshot keeps serving")
    previous = active_snapshot(source, edition)
    previous_records = _previous_records(previous)
    previous_keys = {_identity_key(record) for record in previous_records}
    new_keys = {_identity_key(record) for record in parsed.records}
    refusal = None if allow_shrink or previous is None or previous.is_demo else shrink_refusal(previous_keys, new_keys)
    if refusal:
        label = f"{source}/{edition}" if edition else source
        record_failure(source, f"refused: {refusal}", origin=origin, edition=edition)
        logger.warning("load of %s refused: %s", label, refusal)
        raise IngestError(
            f"{label}: refused: {refusal}. Nothing changed; the previous snapshot keeps serving. If this edition "
            "is right, load it again with --allow-shrink."
        )
    # A first edition, or one replacing demo data, has nothing real to be compared with.
    diff = edition_diff(previous_records, parsed.records) if previous is not None and not previous.is_demo else None
    try:
        with transaction.atomic():
            snapshot = SourceSnapshot.objects.create(
                source=source,
                edition=edition,
                status=SourceSnapshot.Status.ACTIVE,
                checksum=data_checksum,
                row_count=len(parsed.records),
                published_at=parsed.published_at,
                retrieved_at=timezone.now(),
                origin=origin[:500],
                is_demo=is_demo,
                message=message[:500],
                # A listing's counts follow its diff (a renamed listing is changed, not removed and added).
                added=len(diff["added"]) if diff else len(new_keys - previous_keys),
                removed=len(diff["removed"]) if diff else (len(previous_keys - new_keys) if previous else 0),
                changed=len(diff["changed"]) if diff else 0,
                diff=diff,
            )
            _bulk(
                ListedEntry.objects,
                (
                    ListedEntry(snapshot=snapshot, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, ListedRecord)
                ),
            )
            _bulk(
                RegisterEntry.objects,
                (
                    RegisterEntry(snapshot=snapshot, register=r.register, imo=r.imo, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, RegisterRecord)
                ),
            )
            _bulk(
                InspectionEntry.objects,
                (
                    InspectionEntry(snapshot=snapshot, register=r.register, imo=r.imo, record=record_to_json(r))
                    for r in parsed.records
                    if isinstance(r, Inspection)
                ),
            )
            superseded = SourceSnapshot.objects.filter(
                source=source, edition=edition, status=SourceSnapshot.Status.ACTIVE
            ).exclude(pk=snapshot.pk)
            old_ids = list(superseded.values_list("pk", flat=True))
            superseded.update(status=SourceSnapshot.Status.SUPERSEDED)
            # Superseded copies are provenance only; their rows would just cost space.
            for model in (ListedEntry, RegisterEntry, InspectionEntry):
                model.objects.filter(snapshot_id__in=old_ids).delete()
    except Exception as exc:
        record_failure(source, f"load failed: {type(exc).__name__}: {exc}", origin=origin, edition=edition)
        raise IngestError(f"{source}: load failed ({exc}); the previous snapshot keeps serving") from exc
    logger.info(
        "loaded %s%s: %d records (+%d added / -%d removed / ~%d changed)%s",
        source,
        f"/{edition}" if edition else "",
        snapshot.row_count,
        snapshot.added,
        snapshot.removed,
        snapshot.changed,
        " (demo)" if is_demo else "",
    )
    _refresh_planner_statistics(parsed)
    return IngestResult(snapshot, snapshot.added, snapshot.removed, list(parsed.warnings))


def shrink_refusal(previous_keys: set[str], new_keys: set[str]) -> str | None:
    """Why replacing a copy holding `previous_keys` by one holding `new_keys` looks wrong; None if it does not."""
    if not previous_keys:
        return None
    kept = len(previous_keys & new_keys)
    removed = len(previous_keys) - kept
    if kept == 0:
        return (
            f"the file shares none of the {len(previous_keys)} records of the serving copy "
            "(another list in the same format?)"
        )
    share = removed / len(previous_keys)
    if share > MAX_REMOVED_SHARE:
        return (
            f"the file would remove {removed} of the {len(previous_keys)} records of the serving copy "
            f"({share:.0%}; an edition may remove at most {MAX_REMOVED_SHARE:.0%}): a truncated file or another list?"
        )
    return None


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
