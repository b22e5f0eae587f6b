"""What the screening engine reads in memory: the sanctions index and source freshness.

Built from the active snapshots and stamped with a version (the newest snapshot id and
count). Every process checks the stamp at most every CHECK_SECONDS and rebuilds only when
it changed, so web and worker processes agree without rebuilding per request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max

from core.versioned_state import VersionedState
from screening.index import SanctionsIndex
from screening.ingest import record_from_json
from screening.models import ListedEntry, SourceSnapshot
from screening.records import ListedRecord

CHECK_SECONDS = 2.0


@dataclass(frozen=True)
class EditionInfo:
    edition: str
    published_at: datetime | None
    retrieved_at: datetime
    is_demo: bool
    message: str
    row_count: int


@dataclass(frozen=True)
class SourceInfo:
    source: str
    editions: dict[str, EditionInfo]
    last_failure: str | None  # reason of a refresh newer than the serving copy
    last_attempt_at: datetime | None

    @property
    def available(self) -> bool:
        return bool(self.editions)


@dataclass(frozen=True)
class DataState:
    version: str
    sanctions: SanctionsIndex
    sources: dict[str, SourceInfo] = field(default_factory=dict)

    def source(self, name: str) -> SourceInfo:
        return self.sources.get(name) or SourceInfo(name, {}, None, None)


def _version() -> str:
    # A publication date an operator gives an undated serving copy (refresh_sources --published) is
    # written in place: the count of dated copies and the newest date see it.
    active = SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE).aggregate(
        newest=Max("id"), count=Count("id"), dated=Count("published_at"), published=Max("published_at")
    )
    failed = SourceSnapshot.objects.filter(status=SourceSnapshot.Status.FAILED).aggregate(newest=Max("id"))
    return f"{active['newest']}:{active['count']}:{active['dated']}:{active['published']}:{failed['newest']}"


def _build(version: str) -> DataState:
    active = list(SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE))
    editions: dict[str, dict[str, EditionInfo]] = {}
    for snapshot in active:
        editions.setdefault(snapshot.source, {})[snapshot.edition] = EditionInfo(
            snapshot.edition,
            snapshot.published_at,
            snapshot.retrieved_at,
            snapshot.is_demo,
            snapshot.message,
            snapshot.row_count,
        )
    sources: dict[str, SourceInfo] = {}
    names = set(editions) | set(SourceSnapshot.objects.values_list("source", flat=True).distinct())
    for name in names:
        latest = SourceSnapshot.objects.filter(source=name).order_by("-retrieved_at", "-id").first()
        failure = latest.message if latest is not None and latest.status == SourceSnapshot.Status.FAILED else None
        sources[name] = SourceInfo(name, editions.get(name, {}), failure, latest.retrieved_at if latest else None)
    records: list[ListedRecord] = [
        record_from_json(ListedRecord, payload)  # type: ignore[misc]
        for payload in ListedEntry.objects.filter(snapshot__status=SourceSnapshot.Status.ACTIVE)
        .values_list("record", flat=True)
        .iterator(chunk_size=5000)
    ]
    return DataState(version=version, sanctions=SanctionsIndex.build(records, version=version), sources=sources)


_holder: VersionedState[DataState] = VersionedState(_version, _build, CHECK_SECONDS)


def current() -> DataState:
    """This process's data state, rebuilt only when what it is built from changed."""
    return _holder.current()


def invalidate() -> None:
    """Force the next current() to re-check (after a load in this process)."""
    _holder.invalidate()
