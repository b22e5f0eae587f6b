"""From a new list edition to the monitored hulls it can touch, re-screened out of cycle.

A loaded edition that changed listings (screening/editions.py) arrives here as its snapshot id. The
hulls it can affect are found without re-screening anybody:
- by identifier: every IMO and MMSI on a listing added, removed or changed (both sides of a change);
- by name: the matcher run the other way round. The names of every live-monitored hull (the name the
  customer gave, the registers' names and former names, names live registers returned) are held in an
  index of the same kind a screening searches (screening/index.py, the one definition of a name's
  score), and each name on the changed listings is searched in it with the thresholds a screening uses
  (VESSEL_NAME_CUTOFF on a vessel record, the higher ENTITY_NAME_CUTOFF on a company or person). The
  index skips no blocking key as too common, so it finds a superset of what a forward screening of each
  hull would match: a hull it finds that the screening then does not match simply reads unchanged.

Each affected live monitor gets one out-of-cycle run for this edition (trigger list_update; its slot is
the edition's retrieval time, so a redelivered message finds the runs it opened). The run is an ordinary
monitor run (monitoring/vessels.py): one screening through the one screening path, a confirming
re-screen when it moved, `vessel_risk.changed` exactly as a daily run would, but no unit charged (the
service's initiative) and the daily slot is not moved. Hulls the diff cannot touch are not re-screened.

Every (account, environment) with an endpoint receiving `sanctions_list.updated` is told about the
edition: source, edition, publication time, counts, and how many of its monitored hulls were queued.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from core.api.timefmt import rfc3339
from core.versioned_state import VersionedState
from monitoring import runs, vessels
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from screening import editions
from screening.index import INDEX_FORMAT, NameIndex
from screening.ingest import record_from_json
from screening.models import LiveRegisterName, RegisterEntry, SourceSnapshot
from screening.name_rules import ENTITY_NAME_CUTOFF, RULES_VERSION, VESSEL_NAME_CUTOFF
from screening.records import RECORD_VESSEL, ListedRecord, RegisterRecord
from screening.sources.catalog import REGISTER_STORES
from webhooks.events import emit
from webhooks.models import WebhookEndpoint

logger = logging.getLogger("service.list_updates")

LIST_UPDATED = "sanctions_list.updated"
INDEX_CHECK_SECONDS = 30.0


def _live_monitors():
    return VesselMonitor.objects.filter(mode=VesselMonitor.Mode.LIVE, environment="live")


# -- the monitored-names index ----------------------------------------------------------------------


def _index_version() -> tuple:
    monitors = _live_monitors().aggregate(count=Count("id"), newest=Max("id"))
    registers = tuple(
        SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE, source__in=REGISTER_STORES)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    live_names = LiveRegisterName.objects.aggregate(newest=Max("id"), count=Count("id"), fetched=Max("fetched_at"))
    return (
        monitors["count"],
        monitors["newest"],
        registers,
        live_names["newest"],
        live_names["count"],
        str(live_names["fetched"]),
    )


def _hull_names() -> tuple[dict[str, list[str]], dict[str, str]]:
    """Names (and an MMSI) the registers and live registers hold for the live-monitored IMOs."""
    names: dict[str, list[str]] = defaultdict(list)
    mmsis: dict[str, str] = {}
    monitored = _live_monitors().values("imo")
    rows = RegisterEntry.objects.filter(snapshot__status=SourceSnapshot.Status.ACTIVE, imo__in=monitored)
    for imo, payload in rows.values_list("imo", "record").iterator(chunk_size=5000):
        record = record_from_json(RegisterRecord, payload)
        assert isinstance(record, RegisterRecord)
        names[imo].extend(n for n in (record.name, *record.former_names) if n)
        if record.mmsi and imo not in mmsis:
            mmsis[imo] = record.mmsi
    live = LiveRegisterName.objects.filter(imo__in=monitored).exclude(name="").values_list("imo", "name")
    for imo, name in live.iterator(chunk_size=5000):
        names[imo].append(name)
    return names, mmsis


def _monitored_hulls(held: dict[str, list[str]]) -> Iterator[tuple[str, list[str]]]:
    """(IMO, every name known for it) for each live-monitored hull, ascending by IMO, streamed: the
    names customers gave (distinct per hull, in the database) and the registers' `held` names."""
    rows = _live_monitors().order_by("imo").values_list("imo", "vessel_name").distinct()
    current, names = "", list[str]()
    for imo, vessel_name in rows.iterator(chunk_size=20000):
        if imo != current:
            if current:
                yield current, [*names, *held.get(current, ())]
            current, names = imo, []
        if vessel_name:
            names.append(vessel_name)
    if current:
        yield current, [*names, *held.get(current, ())]


class MonitoredHulls:
    """Every live-monitored hull by IMO, MMSI and names, lean enough for a million hulls: IMOs as one
    sorted integer array, the names in a NameIndex whose entries point back into it."""

    def __init__(self, names: NameIndex, imos: np.ndarray, by_mmsi: dict[str, str], version: str) -> None:
        self.names = names
        self.imos = imos
        self._by_mmsi = by_mmsi
        self.version = version

    @classmethod
    def build(cls, hulls: Iterable[tuple[str, list[str]]], mmsis: dict[str, str], version: str) -> MonitoredHulls:
        """`hulls`: (IMO, names) ascending by IMO (IMOs are seven digits: text order is number order)."""
        imos: list[int] = []

        def owned_names() -> Iterator[tuple[int, str]]:
            for imo, names in hulls:
                imos.append(int(imo))
                for name in dict.fromkeys(n for n in names if n):
                    yield len(imos) - 1, name

        names = NameIndex(owned_names(), keep_listed=False, stop_key_share=None, portable=True)
        return cls(names, np.asarray(imos, dtype=np.int32), {mmsi: imo for imo, mmsi in mmsis.items()}, version)

    def save(self, folder: Path) -> None:
        (folder / "names").mkdir()
        self.names.save(folder / "names")
        np.save(folder / "imos.npy", self.imos)
        (folder / "mmsis.json").write_text(json.dumps(self._by_mmsi))

    @classmethod
    def load(cls, folder: Path, version: str) -> MonitoredHulls:
        return cls(
            NameIndex.load(folder / "names"),
            np.load(folder / "imos.npy", mmap_mode="r"),
            json.loads((folder / "mmsis.json").read_text()),
            version,
        )

    def __len__(self) -> int:
        return len(self.imos)

    def has_imo(self, imo: str) -> bool:
        if not imo.isdigit():
            return False
        position = int(np.searchsorted(self.imos, int(imo)))
        return position < len(self.imos) and int(self.imos[position]) == int(imo)

    def imo_of_mmsi(self, mmsi: str) -> str | None:
        return self._by_mmsi.get(mmsi)

    def imos_named(self, name: str, *, cutoff: float) -> set[str]:
        return {
            f"{int(self.imos[self.names.owners[entry]]):07d}" for entry, _, _ in self.names.search(name, cutoff=cutoff)
        }


# Written once per version under VAR_DIR and mapped by every process that needs it: a worker process
# that handles its first edition loads the index in a moment instead of building it (about a minute for
# a million monitors), and the processes of a host share its pages instead of each holding a copy.
INDEX_FOLDER = "indexes"
STALE_INDEX_SECONDS = 3600


def _folder_for(version: tuple) -> Path:
    database = settings.DATABASES["default"]
    stamp = repr(
        (database.get("HOST"), database.get("PORT"), database.get("NAME"), RULES_VERSION, INDEX_FORMAT, version)
    )
    return Path(settings.VAR_DIR) / INDEX_FOLDER / f"monitored-{hashlib.sha256(stamp.encode()).hexdigest()[:20]}"


def _build_index(version: tuple) -> MonitoredHulls:
    folder = _folder_for(version)
    if (folder / "COMPLETE").exists():
        return MonitoredHulls.load(folder, repr(version))
    held, mmsis = _hull_names()
    built = MonitoredHulls.build(_monitored_hulls(held), mmsis, repr(version))
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        built.save(scratch)
        (scratch / "COMPLETE").touch()
        try:
            scratch.rename(folder)
        except OSError:  # another process wrote the same version meanwhile: use theirs
            pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _forget_old_indexes(folder)
    return MonitoredHulls.load(folder, repr(version)) if (folder / "COMPLETE").exists() else built


def _forget_old_indexes(current: Path) -> None:
    """Remove other versions not touched for an hour (a process still mapping one keeps its pages)."""
    cutoff = time.time() - STALE_INDEX_SECONDS
    for folder in current.parent.iterdir():
        if folder != current and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)


_index: VersionedState[MonitoredHulls] = VersionedState(_index_version, _build_index, INDEX_CHECK_SECONDS)


def monitored_index(*, recheck: bool = False) -> MonitoredHulls:
    """This process's index of the live-monitored hulls' names and identifiers; `recheck` compares its
    stamp with the database now (a hull watched a second ago counts) instead of within INDEX_CHECK_SECONDS."""
    if recheck:
        _index.invalidate()
    return _index.current()


# -- which hulls an edition can touch --------------------------------------------------------------


def _listings(diff: dict) -> Iterable[ListedRecord]:
    payloads = [*diff.get("added", ()), *diff.get("removed", ())]
    for change in diff.get("changed", ()):
        payloads.extend((change["before"], change["after"]))
    for payload in payloads:
        record = record_from_json(ListedRecord, payload)
        assert isinstance(record, ListedRecord)
        yield record


@dataclass(frozen=True)
class Affected:
    imo: str
    basis: str  # imo | mmsi | name


def affected_hulls(diff: dict, index: MonitoredHulls | None = None) -> dict[str, Affected]:
    """IMO -> why, for every live-monitored hull a listing of the diff can match."""
    index = index or monitored_index()
    found: dict[str, Affected] = {}
    for listing in _listings(diff):
        if listing.imo and listing.record_type == RECORD_VESSEL and index.has_imo(listing.imo):
            found.setdefault(listing.imo, Affected(listing.imo, "imo"))
        hull = index.imo_of_mmsi(listing.mmsi) if listing.mmsi else None
        if hull is not None:
            found.setdefault(hull, Affected(hull, "mmsi"))
        cutoff = VESSEL_NAME_CUTOFF if listing.record_type == RECORD_VESSEL else ENTITY_NAME_CUTOFF
        for name in dict.fromkeys(n for n in (listing.name, *listing.aliases) if n):
            for imo in index.imos_named(name, cutoff=cutoff):
                found.setdefault(imo, Affected(imo, "name"))
    return found


# -- re-screening them ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EditionReport:
    snapshot_id: str
    affected_hulls: int
    runs_opened: int
    runs_sent: int
    accounts_told: int


def _edition_data(snapshot: SourceSnapshot, rescreened: int) -> dict:
    return {
        "source": snapshot.source,
        "edition": snapshot.edition or None,
        "list_snapshot_id": snapshot.pk,
        "published": rfc3339(snapshot.published_at),
        "retrieved_at": rfc3339(snapshot.retrieved_at),
        **editions.diff_counts(snapshot),
        "monitored_hulls_rescreened": rescreened,
    }


def _tell_subscribers(snapshot: SourceSnapshot, queued_by_owner: dict[tuple[str, str], int]) -> int:
    owners = {
        (account_id, environment)
        for account_id, environment, types in WebhookEndpoint.objects.filter(enabled=True).values_list(
            "account_id", "environment", "event_types"
        )
        if not types or LIST_UPDATED in types
    }
    for account_id, environment in sorted(owners):
        rescreened = queued_by_owner.get((account_id, environment), 0)
        emit(account_id, environment, LIST_UPDATED, _edition_data(snapshot, rescreened))
    return len(owners)


def rescreen_for_edition(snapshot_id: str, now: datetime | None = None) -> EditionReport:
    """Open (once) and send an out-of-cycle run for every live monitor of a hull the edition can touch,
    and tell the subscribers (once: a redelivered message re-sends what is still queued, nothing more)."""
    now = now or timezone.now()
    snapshot = SourceSnapshot.objects.get(pk=snapshot_id)
    affected = affected_hulls(snapshot.diff or {}, monitored_index(recheck=True))
    slot = snapshot.retrieved_at
    opened: list[int] = []
    to_send: list[int] = []
    queued_by_owner: dict[tuple[str, str], int] = defaultdict(int)
    monitors = _live_monitors().filter(imo__in=list(affected)).only("id", "account_id", "environment", "imo")
    with transaction.atomic():
        for monitor in monitors.iterator(chunk_size=2000):
            run, created = runs.open_run(
                vessels.KIND, monitor, slot, trigger=VesselMonitorRun.Trigger.LIST_UPDATE, list_snapshot=snapshot
            )
            queued_by_owner[(monitor.account_id, monitor.environment)] += 1
            if created:
                opened.append(run.pk)
            if run.status == RunStatus.QUEUED:
                to_send.append(run.pk)
        first = SourceSnapshot.objects.filter(pk=snapshot.pk, rescreened_at__isnull=True).update(rescreened_at=now)
        told = _tell_subscribers(snapshot, queued_by_owner) if first else 0
    sent = runs.dispatch(vessels.KIND, to_send) if to_send else 0
    logger.info(
        "edition %s (%s): %d hull(s) affected, %d run(s) opened, %d sent, %d account(s) told",
        snapshot.pk, snapshot.source, len(affected), len(opened), sent, told,
    )  # fmt: skip
    return EditionReport(snapshot.pk, len(affected), len(opened), sent, told)
