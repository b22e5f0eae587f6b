"""Writes of the behaviour app: an AIS file from queued to committed (or failed), in one fenced step.

run_load() streams the file through its reader into the load's own store directories, then summarises
it per hull and day, links MMSIs to hulls, re-runs the detectors over the days it touched, and commits
all of it in one transaction that also turns the load `committed` (fenced by its lease: a loader whose
claim was taken over writes nothing). Until that commit nothing of the load is visible; on any failure
its files are removed and the row says why.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import django.dispatch
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Account
from behaviour import store, thresholds
from behaviour.ais.formats import AisFormat
from behaviour.ais.frames import AisFormatError
from behaviour.ais.readers import read_file
from behaviour.detectors.base import DetectedEvent
from behaviour.detectors.context import LayerContext
from behaviour.detectors.run import detect_all
from behaviour.models import AisLink, AisLoad, AisVesselDay, BehaviourEvent, DetectionLock
from core.api.ids import new_id
from core.leases import Lease, LeaseLost
from metering import quota
from screening.imo import imo_check_digit_valid

logger = logging.getLogger("service.behaviour")

# Sent inside the transaction that commits a load, with the events that load's detection found and
# that were not held before (`new_events`, saved BehaviourEvent rows). Features above this app (vessel
# monitors) connect to it, so their own events commit with the load or not at all.
events_detected = django.dispatch.Signal()


def _lease_seconds() -> float:
    return float(settings.AIS_LOAD_LEASE_SECONDS)


LEASE = Lease(AisLoad, AisLoad.Status.LOADING, _lease_seconds, fence="claims")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def epoch_to_datetime(ts: int) -> datetime:
    return datetime.fromtimestamp(int(ts), tz=UTC)


@dataclass
class Queued:
    load: AisLoad
    already_loaded: AisLoad | None = None  # a committed load of the same bytes: nothing to do


def queue_load(path: Path, origin: str = AisLoad.Origin.COMMAND) -> Queued:
    """A queued AisLoad for the file, unless the same bytes are already committed (then that load)."""
    checksum = file_sha256(path)
    earlier = AisLoad.objects.filter(file_sha256=checksum, status=AisLoad.Status.COMMITTED).first()
    if earlier is not None:
        return Queued(earlier, already_loaded=earlier)
    load = AisLoad.objects.create(
        file_name=path.name,
        file_path=str(path),
        file_sha256=checksum,
        file_size=path.stat().st_size,
        origin=origin,
    )
    return Queued(load)


def committed_load_ids() -> list[int]:
    return list(AisLoad.objects.filter(status=AisLoad.Status.COMMITTED).values_list("pk", flat=True))


@dataclass
class LoadOutcome:
    load: AisLoad
    events: int = 0
    new_events: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


class LoadRefused(Exception):
    """The file cannot be loaded (wrong format, no usable position); the load is marked failed."""


def run_load(
    load_id: int,
    fmt: AisFormat | None = None,
    *,
    default_ts: int | None = None,
    now: datetime | None = None,
) -> LoadOutcome:
    """Claim a queued load, ingest it and commit it (or fail it). Raises LoadRefused for bad input
    (after marking the load failed), LeaseLost when another loader took the claim over."""
    started = timezone.now()
    now = now or started
    if not LEASE.claim(Q(pk=load_id, status=AisLoad.Status.QUEUED), now):
        raise LeaseLost(load_id)
    load = AisLoad.objects.get(pk=load_id)
    fence = load.claims
    writer = store.LoadWriter(load.pk)
    try:
        chosen, chunks = read_file(Path(load.file_path), fmt, default_ts=default_ts)
        read: Counter[str] = Counter()
        for chunk in chunks:
            writer.add(chunk)
            read.update(chunk.counts)
        writer.close()
        counts = {reason: int(count) for reason, count in read.items()}
        if writer.positions == 0:
            raise LoadRefused(
                f"{load.file_name}: no position report of a ship was left after cleaning "
                f"({_describe(counts)}); nothing was loaded"
            )
        outcome = _commit(load, fence, chosen, writer, counts)
    except AisFormatError as error:
        _fail(load, fence, writer, str(error))
        raise LoadRefused(str(error)) from error
    except LoadRefused as error:
        _fail(load, fence, writer, str(error))
        raise
    except LeaseLost:
        writer.discard()
        raise
    except Exception as error:
        logger.exception("AIS load %s failed", load.pk)
        _fail(load, fence, writer, f"{type(error).__name__}: {error}")
        raise
    outcome.seconds = (timezone.now() - started).total_seconds()
    return outcome


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in sorted(counts.items())) or "no rows"


def _fail(load: AisLoad, fence: int, writer: store.LoadWriter, message: str) -> None:
    writer.discard()
    try:
        with transaction.atomic():
            LEASE.settle(load.pk, fence, status=AisLoad.Status.FAILED, error=message[:4000], finished_at=timezone.now())
    except LeaseLost:
        logger.warning("AIS load %s: the claim was taken over before its failure was recorded", load.pk)
    load.status, load.error = AisLoad.Status.FAILED, message


def _summaries(load: AisLoad, writer: store.LoadWriter) -> list[AisVesselDay]:
    """One row per (mmsi, day) of this load: counts, first/last report, bounding box, longest gap."""
    rows = writer.daily_summaries()
    return [
        AisVesselDay(
            load=load,
            mmsi=int(mmsi),
            day=store.day_of(int(day_number) * store.SECONDS_PER_DAY),
            positions=int(count),
            first_position_at=epoch_to_datetime(first),
            last_position_at=epoch_to_datetime(last),
            min_lat=float(min_lat),
            max_lat=float(max_lat),
            min_lon=float(min_lon),
            max_lon=float(max_lon),
            longest_gap_seconds=int(gap),
        )
        for mmsi, day_number, count, first, last, min_lat, max_lat, min_lon, max_lon, gap in rows
    ]


@dataclass(frozen=True)
class StaticLink:
    mmsi: int
    imo: str
    first_ts: int
    last_ts: int
    reports: int
    names: tuple[str, ...]


def _static_links(load: AisLoad, writer: store.LoadWriter, counts: dict[str, int]) -> list[StaticLink]:
    """(MMSI, IMO) pairs the ships transmitted in this load; an IMO failing its check digit never links."""
    rows = writer.transmitted_imos()
    links = []
    for mmsi, imo, first, last, reports, names in rows:
        text = f"{int(imo):07d}"
        if not imo_check_digit_valid(text):
            counts["imo_check_digit_failed"] = counts.get("imo_check_digit_failed", 0) + int(reports)
            continue
        links.append(
            StaticLink(int(mmsi), text, int(first), int(last), int(reports), tuple(sorted(n for n in names if n)))
        )
    return links


def _save_links(load: AisLoad, links: list[StaticLink]) -> None:
    for link in links:
        first, last = epoch_to_datetime(link.first_ts), epoch_to_datetime(link.last_ts)
        row, created = AisLink.objects.get_or_create(
            mmsi=link.mmsi,
            imo=link.imo,
            basis=AisLink.Basis.STATIC_IMO,
            defaults={
                "first_seen_at": first,
                "last_seen_at": last,
                "reports": link.reports,
                "names": list(link.names),
                "load": load,
            },
        )
        if not created:
            row.first_seen_at = min(filter(None, (row.first_seen_at, first)))
            row.last_seen_at = max(filter(None, (row.last_seen_at, last)))
            row.reports += link.reports
            row.names = sorted({*row.names, *link.names})
            row.load = load
            row.save(update_fields=["first_seen_at", "last_seen_at", "reports", "names", "load"])


@dataclass(frozen=True)
class DetectionWindow:
    """The days whose events a load re-detects (`core`), and the wider span read for their context."""

    core_start: int
    core_end: int  # exclusive
    read_start: int
    read_end: int

    @classmethod
    def around(cls, days: set[date]) -> DetectionWindow:
        first, last = min(days), max(days)
        core_start = int(datetime.combine(first, datetime.min.time(), tzinfo=UTC).timestamp())
        core_end = int(datetime.combine(last + timedelta(days=1), datetime.min.time(), tzinfo=UTC).timestamp())
        margin = int(settings.AIS_DETECTION_MARGIN_HOURS * 3600)
        return cls(core_start, core_end, core_start - margin, core_end + margin)


def detect(load_ids: list[int], window: DetectionWindow) -> list[DetectedEvent]:
    """Every detector over the window's positions and statics (all hulls: a meeting needs both)."""
    positions = store.read_positions(load_ids, window.read_start, window.read_end - 1)
    statics = store.read_statics(load_ids, window.read_start, window.read_end - 1)
    events = detect_all(positions, statics, LayerContext())
    return [event for event in events if window.core_start <= event.started_at < window.core_end]


def _imo_by_mmsi(mmsis: set[int]) -> dict[int, str]:
    """The IMO each MMSI transmitted most (static messages), for naming the hull on its events."""
    best: dict[int, tuple[int, str]] = {}
    rows = AisLink.objects.filter(mmsi__in=mmsis, basis=AisLink.Basis.STATIC_IMO).values_list("mmsi", "imo", "reports")
    for mmsi, imo, reports in rows:
        if mmsi not in best or reports > best[mmsi][0]:
            best[mmsi] = (reports, imo)
    return {mmsi: imo for mmsi, (_, imo) in best.items()}


def _event_key(kind: str, mmsi: int, started_at: datetime, other_mmsi: int | None) -> tuple:
    return (kind, mmsi, started_at, other_mmsi)


def _replace_events(load: AisLoad, window: DetectionWindow, detected: list[DetectedEvent]) -> list[BehaviourEvent]:
    """Replace the window's events with `detected`; the saved rows that are new (not held before)."""
    core = Q(started_at__gte=epoch_to_datetime(window.core_start), started_at__lt=epoch_to_datetime(window.core_end))
    held = {
        _event_key(kind, mmsi, started_at, other): (event_id, detected_at)
        for event_id, kind, mmsi, started_at, other, detected_at in BehaviourEvent.objects.filter(core).values_list(
            "id", "kind", "mmsi", "started_at", "other_mmsi", "detected_at"
        )
    }
    BehaviourEvent.objects.filter(core).delete()
    imos = _imo_by_mmsi({event.mmsi for event in detected} | {e.other_mmsi for e in detected if e.other_mmsi})
    now = timezone.now()
    rows, new = [], []
    for event in detected:
        started = epoch_to_datetime(event.started_at)
        kept = held.get(_event_key(event.kind.value, event.mmsi, started, event.other_mmsi))
        row = BehaviourEvent(
            id=kept[0] if kept else new_id("bev"),
            kind=event.kind.value,
            severity=event.severity.value,
            mmsi=event.mmsi,
            imo=imos.get(event.mmsi, ""),
            other_mmsi=event.other_mmsi,
            other_imo=imos.get(event.other_mmsi, "") if event.other_mmsi else "",
            started_at=started,
            ended_at=epoch_to_datetime(event.ended_at),
            lat=event.lat,
            lon=event.lon,
            summary=event.summary,
            evidence=event.evidence,
            detector_version=_detector_version(),
            detected_at=kept[1] if kept else now,
            load=load,
        )
        rows.append(row)
        if kept is None:
            new.append(row)
    BehaviourEvent.objects.bulk_create(rows, batch_size=1000)
    return new


def _detector_version() -> str:
    return str(thresholds.DETECTOR_VERSION)


def _hold_detection_lock() -> None:
    """Take the detection lock until the transaction ends: an UPDATE of its one row (a row lock on
    PostgreSQL, the database's write lock on SQLite)."""
    now = timezone.now()
    if not DetectionLock.objects.filter(pk=DetectionLock.SINGLETON).update(taken_at=now):
        DetectionLock.objects.get_or_create(pk=DetectionLock.SINGLETON)
        DetectionLock.objects.filter(pk=DetectionLock.SINGLETON).update(taken_at=now)


def _commit(load: AisLoad, fence: int, fmt: AisFormat, writer: store.LoadWriter, counts: dict[str, int]) -> LoadOutcome:
    summaries = _summaries(load, writer)
    links = _static_links(load, writer, counts)
    window = DetectionWindow.around(writer.days)
    assert writer.first_ts is not None and writer.last_ts is not None
    with transaction.atomic():
        # One load at a time detects and replaces events, cluster-wide, and reads the committed loads only
        # once it holds the lock: a load committed meanwhile is in its reading, so no event is lost to a
        # replacement computed without it, and no meeting between two files goes unseen.
        _hold_detection_lock()
        detected = detect([*committed_load_ids(), load.pk], window)
        AisVesselDay.objects.bulk_create(summaries, batch_size=2000)
        _save_links(load, links)
        new_events = _replace_events(load, window, detected)
        LEASE.settle(
            load.pk,
            fence,
            status=AisLoad.Status.COMMITTED,
            format=fmt.value,
            positions=writer.positions,
            statics=writer.statics,
            mmsis=len({row.mmsi for row in summaries}),
            first_position_at=epoch_to_datetime(writer.first_ts),
            last_position_at=epoch_to_datetime(writer.last_ts),
            days=[day.isoformat() for day in sorted(writer.days)],
            counts=counts,
            events=len(detected),
            finished_at=timezone.now(),
        )
        events_detected.send(sender=AisLoad, load=load, new_events=new_events)
    load.refresh_from_db()
    return LoadOutcome(load, events=len(detected), new_events=len(new_events), counts=counts)


def discard_orphans() -> list[int]:
    """Remove store directories of loads that never committed (a loader killed mid-file)."""
    committed = set(committed_load_ids())
    running = set(
        AisLoad.objects.filter(status__in=[AisLoad.Status.QUEUED, AisLoad.Status.LOADING]).values_list("pk", flat=True)
    )
    removed = sorted({load_id for _, _, load_id, _ in store.load_ids_on_disk()} - committed - running)
    for load_id in removed:
        store.discard_load(load_id)
    return removed


def charge_long_history(account: Account, environment: str, imo: str) -> quota.QuotaState:
    """One screening unit for a behaviour report over more than the free window (402 when none is left)."""
    with transaction.atomic():
        return quota.charge(account, environment, quota.KIND_SCREENING, 1, imo=imo)


DROP_PROCESSING = "processing"
DROP_LOADED = "loaded"
DROP_FAILED = "failed"
# A file younger than this may still be being written into the drop folder.
DROP_SETTLE_SECONDS = 30.0


@dataclass
class DropFolderReport:
    loaded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # the same bytes were loaded before
    failed: list[str] = field(default_factory=list)
    lapsed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"loaded": self.loaded, "skipped": self.skipped, "failed": self.failed, "lapsed": self.lapsed}


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    if target.exists():
        target = folder / f"{path.stem}-{int(time.time())}{path.suffix}"
    return Path(shutil.move(str(path), str(target)))


LAPSED_ERROR = "the loader stopped before the file was committed (its lease ran out)"
# A dropped file whose loader stopped this many times is given up (moved to failed/), not tried again:
# a file that kills its loader (memory) would otherwise be retried for ever.
DROP_MAX_LAPSES = 2


def fail_lapsed_loads(now: datetime | None = None) -> int:
    """Loads whose loader stopped (lease ran out): their files are removed and the row says so. A dropped
    file still in processing/ goes back to the drop folder for another try, or to failed/ once it has
    stopped its loader DROP_MAX_LAPSES times."""
    now = now or timezone.now()
    count = 0
    for load in LEASE.lapsed(now):
        store.discard_load(load.pk)
        if not AisLoad.objects.filter(pk=load.pk, status=AisLoad.Status.LOADING, claims=load.claims).update(
            status=AisLoad.Status.FAILED, lease_expires_at=None, error=LAPSED_ERROR, finished_at=now
        ):
            continue
        count += 1
        taken = Path(load.file_path)
        if load.origin == AisLoad.Origin.DROP_FOLDER and taken.parent.name == DROP_PROCESSING and taken.is_file():
            lapses = AisLoad.objects.filter(file_sha256=load.file_sha256, error=LAPSED_ERROR).count()
            if lapses < DROP_MAX_LAPSES:
                _move(taken, taken.parent.parent)
            else:
                failed = _move(taken, taken.parent.parent / DROP_FAILED)
                failed.with_name(failed.name + ".error.txt").write_text(
                    f"{LAPSED_ERROR}, {lapses} times: given up (is the worker short of memory?)\n"
                )
    return count


def load_drop_folder(now: datetime | None = None) -> DropFolderReport:
    """Load every settled file of AIS_DROP_DIR, one at a time, and move it to loaded/ or failed/.

    A file is taken by renaming it into processing/ (atomic on one filesystem), so two workers never load
    the same file; the load itself is fenced by its lease like any other."""
    report = DropFolderReport(lapsed=fail_lapsed_loads(now))
    if not settings.AIS_DROP_DIR:
        return report
    root = Path(settings.AIS_DROP_DIR)
    if not root.is_dir():
        return report
    settled_before = time.time() - DROP_SETTLE_SECONDS
    for path in sorted(root.iterdir()):
        if not path.is_file() or path.name.startswith(".") or path.stat().st_mtime > settled_before:
            continue
        try:
            taken = _move(path, root / DROP_PROCESSING)
        except FileNotFoundError:
            continue  # another worker took it
        queued = queue_load(taken, AisLoad.Origin.DROP_FOLDER)
        if queued.already_loaded is not None:
            _move(taken, root / DROP_LOADED)
            report.skipped.append(path.name)
            continue
        try:
            run_load(queued.load.pk)
        except LeaseLost:
            continue
        except Exception as error:
            failed = _move(taken, root / DROP_FAILED)
            failed.with_name(failed.name + ".error.txt").write_text(f"{error}\n")
            report.failed.append(path.name)
            continue
        moved = _move(taken, root / DROP_LOADED)
        AisLoad.objects.filter(pk=queued.load.pk).update(file_path=str(moved))
        report.loaded.append(path.name)
    return report


def prune_positions(today: date | None = None) -> list[date]:
    """Delete the store's day partitions older than AIS_POSITION_RETENTION_DAYS (summaries and events stay)."""
    if not settings.AIS_POSITION_RETENTION_DAYS:
        return []
    today = today or timezone.now().date()
    discard_orphans()
    return store.prune_before(today - timedelta(days=int(settings.AIS_POSITION_RETENTION_DAYS)))
