"""Screening as of a past instant: the lists as they stood then, rebuilt from the editions kept.

Every loaded edition's file set is kept, content-addressed by its sha256 and compressed
(`EditionFile`, written by `keep_edition` when a load succeeds). `state_as_of(at)` finds the copy of
each sanctions source file in force at `at` (screening/evidence.py `editions_in_force`), unpacks and
parses each again with the parser of its source, and builds a data state of the same shape the engine
reads every day: the sanctions index over those records, the sources with those editions. Register
stores are read as they stand now (the identity of a hull is not replayed; the record says so).

A source with no edition held at `at` is simply absent from the state, so the engine reports it in
`coverage_gaps` and a core list missing makes the answer INCOMPLETE, never a GREEN. A demo edition is
rebuilt from the project's demo generator (screening/demo.py), which is what it was loaded from.

Unpacking the OFAC SDN file takes a second or two; the states of the last few instants asked are kept
in this process, keyed by the set of editions they are built from, so a replay against editions
already unpacked costs about a normal screening.
"""

from __future__ import annotations

import io
import threading
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from screening import datastate, demo
from screening.datastate import DataState, EditionInfo, SourceInfo
from screening.evidence import editions_in_force
from screening.index import SanctionsIndex
from screening.models import EditionFile, SourceSnapshot
from screening.records import ListedRecord
from screening.sources.catalog import SANCTIONS_SOURCES

CACHED_STATES = 4
_cache: OrderedDict[tuple[str, ...], DataState] = OrderedDict()
_lock = threading.Lock()
_SANCTIONS_NAMES = frozenset(source.name for source in SANCTIONS_SOURCES)


def keep_edition(source: str, edition: str, checksum: str, files: dict[str, bytes]) -> None:
    """Keep a loaded edition's file set (once per checksum)."""
    if EditionFile.objects.filter(pk=checksum).exists():
        return
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for part in sorted(files):
            archive.writestr(part, files[part])
    EditionFile.objects.get_or_create(
        checksum=checksum,
        defaults={
            "source": source,
            "edition": edition,
            "parts": sorted(files),
            "data": buffer.getvalue(),
            "size": sum(len(data) for data in files.values()),
        },
    )


def kept_files(checksum: str) -> dict[str, bytes] | None:
    kept = EditionFile.objects.filter(pk=checksum).first()
    if kept is None:
        return None
    with zipfile.ZipFile(io.BytesIO(bytes(kept.data))) as archive:
        return {part: archive.read(part) for part in archive.namelist()}


@dataclass(frozen=True)
class Replayed:
    state: DataState
    editions: list[dict]  # the editions the state is built from, as evidence names them (a file not kept: absent)


def _records_of(load: SourceSnapshot) -> list[ListedRecord] | None:
    if load.is_demo:
        for parsed in demo.sanctions_snapshots():
            if parsed.source == load.source and (parsed.list_edition_label or "") == load.edition:
                return [r for r in parsed.records if isinstance(r, ListedRecord)]
        return None
    files = kept_files(load.checksum) if load.checksum else None
    if files is None:
        return None
    source = next((s for s in SANCTIONS_SOURCES if s.name == load.source and s.edition == load.edition), None)
    if source is None:
        return None
    parsed = source.parse(files)
    return [r for r in parsed.records if isinstance(r, ListedRecord)]


_in_force: OrderedDict[tuple[datetime, str], list[dict]] = OrderedDict()


def _sanctions_in_force(at: datetime) -> list[dict]:
    """The sanctions editions in force at `at`, remembered while no load changed the lists (the data
    state's version moves with every load and refusal)."""
    key = (at, datastate.current().version)
    with _lock:
        known = _in_force.get(key)
    if known is None:
        known = [edition for edition in editions_in_force(at) if edition["source"] in _SANCTIONS_NAMES]
        with _lock:
            _in_force[key] = known
            while len(_in_force) > 64:
                _in_force.popitem(last=False)
    return known


def state_as_of(at: datetime) -> Replayed:
    """The engine's data state as the sanctions lists stood at `at` (registers as they stand now)."""
    in_force = _sanctions_in_force(at)
    key = tuple(sorted(edition["snapshot_id"] for edition in in_force))
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
    if cached is None:
        loads = {load.pk: load for load in SourceSnapshot.objects.filter(pk__in=key)}
        records: list[ListedRecord] = []
        editions: dict[str, dict[str, EditionInfo]] = {}
        for snapshot_id in key:
            load = loads[snapshot_id]
            held = _records_of(load)
            if held is None:  # its file is not kept: the source is a coverage gap
                continue
            records.extend(held)
            editions.setdefault(load.source, {})[load.edition] = EditionInfo(
                load.edition, load.published_at, load.retrieved_at, load.is_demo, load.message, load.row_count
            )
        current = datastate.current()
        sources = {name: info for name, info in current.sources.items() if name not in _SANCTIONS_NAMES}
        sources.update({name: SourceInfo(name, by_edition, None, None) for name, by_edition in editions.items()})
        version = f"as-of:{','.join(key)}"
        cached = DataState(version=version, sanctions=SanctionsIndex.build(records, version=version), sources=sources)
        with _lock:
            _cache[key] = cached
            while len(_cache) > CACHED_STATES:
                _cache.popitem(last=False)

    named = [edition for edition in in_force if edition["source"] in cached.sources]
    return Replayed(cached, named)
