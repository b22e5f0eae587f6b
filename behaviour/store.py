"""The columnar position store: partitioned Parquet files, read through DuckDB.

Layout under `settings.AIS_STORE_DIR` (one directory per UTC day, one per load inside it):

    positions/day=2022-01-03/load=17/part-00000.parquet
    statics/day=2022-01-03/load=17/part-00000.parquet

Why this shape:
- A day directory is the unit of pruning (`prune_before` deletes whole days) and of reading (a window
  reads only its days' directories, listed here, never a glob over the whole store).
- A load directory makes a load atomic without a transaction across two systems: readers name the
  loads they read (the `committed` AisLoad rows), so the files of a load still running, or of one that
  failed, are never read; a failed load's directories are removed, and `orphans` finds any left by a
  process killed mid-load.
- Each part file holds one chunk sorted by (mmsi, ts), so Parquet's row-group statistics let DuckDB skip
  most of a file when one hull is asked for.

The same files serve production: a shared filesystem or an object-store mount under AIS_STORE_DIR
(DuckDB reads Parquet from either); the database keeps only summaries, links and events.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from django.conf import settings

from behaviour.ais.frames import POSITION_DTYPES, STATIC_DTYPES, AisChunk, conform, empty_positions, empty_statics

POSITIONS = "positions"
STATICS = "statics"
_DAY_DIR = re.compile(r"^day=(\d{4}-\d{2}-\d{2})$")
_LOAD_DIR = re.compile(r"^load=(\d+)$")
SECONDS_PER_DAY = 86_400


def store_root() -> Path:
    return Path(settings.AIS_STORE_DIR)


def day_of(ts: int) -> date:
    return datetime.fromtimestamp(ts - ts % SECONDS_PER_DAY, tz=UTC).date()


def _days_between(start_ts: int, end_ts: int) -> list[date]:
    first, last = day_of(start_ts), day_of(end_ts)
    return [first + timedelta(days=offset) for offset in range((last - first).days + 1)]


def _load_dir(root: Path, table: str, day: date, load_id: int) -> Path:
    return root / table / f"day={day.isoformat()}" / f"load={load_id}"


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    # A loader or a reader is one of many processes on a machine: keep DuckDB to the threads and memory
    # the operator allows (it spills to its temp directory past the limit).
    connection.execute(f"SET threads = {int(settings.AIS_DUCKDB_THREADS)}")
    connection.execute(f"SET memory_limit = '{settings.AIS_DUCKDB_MEMORY_LIMIT}'")
    return connection


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


@dataclass
class LoadWriter:
    """Writes one load's chunks into its own directories; nothing is served until the load commits."""

    load_id: int
    root: Path = field(default_factory=store_root)
    positions: int = 0
    statics: int = 0
    first_ts: int | None = None
    last_ts: int | None = None
    days: set[date] = field(default_factory=set)  # of its positions
    static_days: set[date] = field(default_factory=set)
    _parts: int = 0
    _connection: duckdb.DuckDBPyConnection | None = None

    def add(self, chunk: AisChunk) -> None:
        for table, frame in ((POSITIONS, chunk.positions), (STATICS, chunk.statics)):
            if frame.empty:
                continue
            day_numbers = frame["ts"].to_numpy() // SECONDS_PER_DAY
            for day_number in np.unique(day_numbers):
                part = frame[day_numbers == day_number]
                self._write(table, day_of(int(day_number) * SECONDS_PER_DAY), part)
        if not chunk.positions.empty:
            stamps = chunk.positions["ts"].to_numpy()
            low, high = int(stamps.min()), int(stamps.max())
            self.first_ts = low if self.first_ts is None else min(self.first_ts, low)
            self.last_ts = high if self.last_ts is None else max(self.last_ts, high)
            self.positions += len(chunk.positions)
        self.statics += len(chunk.statics)

    def _write(self, table: str, day: date, frame: pd.DataFrame) -> None:
        (self.days if table == POSITIONS else self.static_days).add(day)
        target = _load_dir(self.root, table, day, self.load_id)
        target.mkdir(parents=True, exist_ok=True)
        path = target / f"part-{self._parts:05d}.parquet"
        self._parts += 1
        if self._connection is None:
            self._connection = _connection()
        self._connection.register("chunk_frame", frame)
        try:
            self._connection.execute(
                f"COPY (SELECT * FROM chunk_frame ORDER BY mmsi, ts) TO {_quoted(path)} "
                "(FORMAT parquet, COMPRESSION zstd)"
            )
        finally:
            self._connection.unregister("chunk_frame")

    def _rows(self, table: str, days: set[date], select: str) -> list[tuple]:
        """`select`, its FROM clause written as {files}, over this load's part files of `table`."""
        files = _files(self.root, table, sorted(days), [self.load_id])
        if not files:
            return []
        connection = _connection()
        try:
            source = "read_parquet([" + ", ".join(_quoted(Path(name)) for name in files) + "])"
            return connection.execute(select.format(files=source)).fetchall()
        finally:
            connection.close()

    def daily_summaries(self) -> list[tuple]:
        """(mmsi, day number, positions, first ts, last ts, min lat, max lat, min lon, max lon, longest gap in
        seconds) per ship and UTC day of this load's positions."""
        return self._rows(
            POSITIONS,
            self.days,
            "SELECT mmsi, ts // 86400 AS day_number, count(*), min(ts), max(ts), min(lat), max(lat), "
            "min(lon), max(lon), coalesce(max(gap), 0) FROM ("
            "  SELECT mmsi, ts, lat, lon, ts - lag(ts) OVER (PARTITION BY mmsi ORDER BY ts) AS gap FROM {files}"
            ") GROUP BY mmsi, day_number ORDER BY mmsi, day_number",
        )

    def transmitted_imos(self) -> list[tuple]:
        """(mmsi, imo, first ts, last ts, reports, names) of every IMO a ship of this load transmitted (as sent:
        the check digit is the caller's to judge)."""
        return self._rows(
            STATICS,
            self.static_days,
            "SELECT mmsi, imo, min(ts), max(ts_last), sum(reports), list(DISTINCT name) FROM {files} "
            "WHERE imo > 0 GROUP BY mmsi, imo ORDER BY mmsi, imo",
        )

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def discard(self) -> None:
        """Remove every file this load wrote (it failed, or was refused)."""
        self.close()
        discard_load(self.load_id, self.root)


def discard_load(load_id: int, root: Path | None = None) -> int:
    """Delete a load's directories from every day; how many were removed."""
    root = root or store_root()
    removed = 0
    for table in (POSITIONS, STATICS):
        for day_dir in (root / table).glob("day=*"):
            target = day_dir / f"load={load_id}"
            if target.is_dir():
                shutil.rmtree(target)
                removed += 1
            if day_dir.is_dir() and not any(day_dir.iterdir()):
                day_dir.rmdir()
    return removed


def _files(root: Path, table: str, days: Iterable[date], loads: Iterable[int]) -> list[str]:
    wanted = set(loads)
    found: list[str] = []
    for day in days:
        day_dir = root / table / f"day={day.isoformat()}"
        if not day_dir.is_dir():
            continue
        for load_dir in sorted(day_dir.iterdir()):
            matched = _LOAD_DIR.match(load_dir.name)
            if matched and int(matched.group(1)) in wanted:
                found.extend(str(path) for path in sorted(load_dir.glob("part-*.parquet")))
    return found


def _read(
    table: str,
    dtypes: dict[str, str],
    loads: Iterable[int],
    start_ts: int,
    end_ts: int,
    mmsis: Iterable[int] | None,
    root: Path | None,
) -> pd.DataFrame:
    root = root or store_root()
    files = _files(root, table, _days_between(start_ts, end_ts), loads)
    if not files:
        return empty_positions() if table == POSITIONS else empty_statics()
    conditions = [f"ts BETWEEN {int(start_ts)} AND {int(end_ts)}"]
    if mmsis is not None:
        wanted = sorted({int(mmsi) for mmsi in mmsis})
        if not wanted:
            return empty_positions() if table == POSITIONS else empty_statics()
        conditions.append(f"mmsi IN ({', '.join(str(mmsi) for mmsi in wanted)})")
    columns = ", ".join(dtypes)
    source = "read_parquet([" + ", ".join(_quoted(Path(name)) for name in files) + "])"
    query = f"SELECT {columns} FROM {source} WHERE {' AND '.join(conditions)} ORDER BY mmsi, ts"
    connection = _connection()
    try:
        frame = connection.execute(query).df()
    finally:
        connection.close()
    return conform(frame, dtypes)


def read_positions(
    loads: Iterable[int], start_ts: int, end_ts: int, mmsis: Iterable[int] | None = None, root: Path | None = None
) -> pd.DataFrame:
    """Positions of `loads` between two instants (inclusive), sorted by (mmsi, ts); a report heard by two
    receivers (two loads) appears once."""
    frame = _read(POSITIONS, POSITION_DTYPES, loads, start_ts, end_ts, mmsis, root)
    return frame.drop_duplicates(subset=["mmsi", "ts", "lat", "lon"], ignore_index=True)


def read_statics(
    loads: Iterable[int], start_ts: int, end_ts: int, mmsis: Iterable[int] | None = None, root: Path | None = None
) -> pd.DataFrame:
    """Static reports of `loads` first heard between two instants, sorted by (mmsi, ts)."""
    return _read(STATICS, STATIC_DTYPES, loads, start_ts, end_ts, mmsis, root)


def load_ids_on_disk(root: Path | None = None) -> Iterator[tuple[str, date, int, Path]]:
    """Every (table, day, load id, directory) in the store."""
    root = root or store_root()
    for table in (POSITIONS, STATICS):
        for day_dir in sorted((root / table).glob("day=*")):
            day_match = _DAY_DIR.match(day_dir.name)
            if not day_match:
                continue
            for load_dir in sorted(day_dir.iterdir()):
                load_match = _LOAD_DIR.match(load_dir.name)
                if load_match:
                    yield table, date.fromisoformat(day_match.group(1)), int(load_match.group(1)), load_dir


def prune_before(cutoff: date, root: Path | None = None) -> list[date]:
    """Delete whole days older than `cutoff` from the store; the days removed."""
    root = root or store_root()
    removed: set[date] = set()
    for table in (POSITIONS, STATICS):
        for day_dir in sorted((root / table).glob("day=*")):
            matched = _DAY_DIR.match(day_dir.name)
            if matched and date.fromisoformat(matched.group(1)) < cutoff:
                shutil.rmtree(day_dir)
                removed.add(date.fromisoformat(matched.group(1)))
    return sorted(removed)
