"""Real AIS tracks as the positions/statics frames of `behaviour.ais.frames`, for the detector tests.

Sources (all public):
- tracktable-data's `python_example_data/*.traj`: tracktable's text trajectory format, one
  trajectory per line: `*T*,<uuid>,<domain>,<points>,<track properties>` then the point header
  `*P*,<domain>,<coordinates>,<has object id>,<has timestamp>,<point properties>` then, per point,
  `<object id>,<YYYY-MM-DD HH:MM:SS>,<lon>,<lat>` (these files carry no point properties, so the
  frames have no SOG/COG: NaN). Tracktable splits a vessel's day into several trajectories at
  gaps; we join them back per MMSI.
- tracktable-data's `NYHarbor_2020_06_30_first_hour.csv` and the shared MarineCadastre extract,
  both in MarineCadastre's column layout (with SOG, status, names, IMO, draught).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from behaviour.ais.frames import POSITION_DTYPES, STATIC_DTYPES, conform, empty_statics, epoch_seconds

__all__ = ["empty_statics"]

EXAMPLES = Path(__import__("tracktable_data").__file__).resolve().parent / "python_example_data"
NY_WEEK = EXAMPLES / "NYHarbor_2020_12_first_week.traj"
US_COASTAL = EXAMPLES / "US_coastal_2020_06_30.traj"
NY_HOUR_CSV = EXAMPLES / "NYHarbor_2020_06_30_first_hour.csv"
SHARED_CADASTRE = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "ais" / ("marinecadastre-AIS_2022_01_03-first99999.csv")
)


def _positions_frame(
    mmsi: np.ndarray, ts: np.ndarray, lat: np.ndarray, lon: np.ndarray, sog=None, cog=None, heading=None, status=None
) -> pd.DataFrame:
    n = len(mmsi)
    nan = np.full(n, np.nan, dtype="float32")
    frame = pd.DataFrame(
        {
            "mmsi": mmsi,
            "ts": ts,
            "lat": lat,
            "lon": lon,
            "sog": nan if sog is None else sog,
            "cog": nan if cog is None else cog,
            "heading": nan if heading is None else heading,
            "nav_status": np.full(n, -1, dtype="int8") if status is None else status,
        }
    )
    return sort_positions(conform(frame, POSITION_DTYPES))


def sort_positions(frame: pd.DataFrame) -> pd.DataFrame:
    """Sorted by mmsi then ts, one row per (mmsi, ts) (the frames' contract)."""
    frame = frame.sort_values(["mmsi", "ts"], kind="stable")
    frame = frame.drop_duplicates(["mmsi", "ts"], keep="first")
    return frame.reset_index(drop=True)


@lru_cache(maxsize=4)
def _read_traj(path: Path) -> pd.DataFrame:
    mmsis: list[str] = []
    times: list[str] = []
    lons: list[str] = []
    lats: list[str] = []
    with path.open() as handle:
        for line in handle:
            fields = line.rstrip("\n").split(",")
            if fields[0] != "*T*" or fields[5] != "*P*":
                raise ValueError(f"{path.name}: not a tracktable trajectory line")
            n_points, dims, n_props = int(fields[3]), int(fields[7]), int(fields[10])
            if dims != 2 or n_props != 0 or fields[8] != "1" or fields[9] != "1":
                raise ValueError(f"{path.name}: unexpected point layout {fields[6:11]}")
            body = fields[11:]
            if len(body) != 4 * n_points:
                raise ValueError(f"{path.name}: {len(body)} fields for {n_points} points")
            mmsis.extend(body[0::4])
            times.extend(body[1::4])
            lons.extend(body[2::4])
            lats.extend(body[3::4])
    return _positions_frame(
        np.array(mmsis, dtype="int64"),
        epoch_seconds(pd.Series(times), format="%Y-%m-%d %H:%M:%S"),
        np.array(lats, dtype="float64"),
        np.array(lons, dtype="float64"),
    )


def traj_positions(path: Path) -> pd.DataFrame:
    """A .traj file's points as a positions frame (a fresh copy each call: tests modify it)."""
    return _read_traj(path).copy()


def ny_week() -> pd.DataFrame:
    return traj_positions(NY_WEEK)


def us_coastal() -> pd.DataFrame:
    return traj_positions(US_COASTAL)


def _cadastre(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    raw.columns = [c.strip() for c in raw.columns]
    # The 2020 files say TranscieverClass, the 2022 ones TransceiverClass; keep Class A (the
    # service's positions frame is Class A ships).
    klass = raw.get("TransceiverClass", raw.get("TranscieverClass"))
    if klass is not None:
        raw = raw[klass.str.strip() == "A"]
    ts = epoch_seconds(raw["BaseDateTime"])

    def num(column: str) -> np.ndarray:
        return pd.to_numeric(raw[column], errors="coerce").to_numpy(dtype="float64", copy=True)

    heading = num("Heading")
    heading[heading >= 360] = np.nan
    cog = num("COG")
    cog[(cog < 0) | (cog >= 360)] = np.nan
    sog = num("SOG")
    sog[sog > 102.2] = np.nan
    status = num("Status")
    status = np.where(np.isnan(status), -1, status).astype("int8")
    positions = _positions_frame(num("MMSI").astype("int64"), ts, num("LAT"), num("LON"), sog, cog, heading, status)
    imo = raw["IMO"].str.replace("IMO", "", regex=False).str.strip()
    draught = num("Draft")
    draught[draught <= 0] = np.nan
    ship_type = num("VesselType")
    statics = pd.DataFrame(
        {
            "mmsi": num("MMSI").astype("int64"),
            "ts": ts,
            "imo": pd.to_numeric(imo, errors="coerce").fillna(0).astype("int64"),
            "name": raw["VesselName"].str.strip().str.upper().to_numpy(),
            "callsign": raw["CallSign"].str.strip().str.upper().to_numpy(),
            "ship_type": np.where(np.isnan(ship_type), -1, ship_type).astype("int16"),
            "draught": draught.astype("float32"),
            "destination": "",
        }
    )
    statics = collapse_statics(statics)
    return positions, statics


def collapse_statics(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct static report per MMSI, first/last heard and count (the frame's contract)."""
    keys = ["mmsi", "imo", "name", "callsign", "ship_type", "draught", "destination"]
    rows = rows.assign(draught=rows["draught"].fillna(-1.0))
    grouped = rows.groupby(keys, sort=False, dropna=False)["ts"].agg(["min", "max", "count"]).reset_index()
    grouped = grouped.rename(columns={"min": "ts", "max": "ts_last", "count": "reports"})
    grouped["draught"] = grouped["draught"].where(grouped["draught"] >= 0, np.nan)
    grouped = grouped.sort_values(["mmsi", "ts"], kind="stable").reset_index(drop=True)
    return conform(grouped, STATIC_DTYPES)


@lru_cache(maxsize=2)
def _cadastre_cached(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return _cadastre(path)


def ny_hour() -> tuple[pd.DataFrame, pd.DataFrame]:
    positions, statics = _cadastre_cached(NY_HOUR_CSV)
    return positions.copy(), statics.copy()


def shared_cadastre() -> tuple[pd.DataFrame, pd.DataFrame]:
    if not SHARED_CADASTRE.is_file():
        pytest.skip(f"{SHARED_CADASTRE} is not present")
    positions, statics = _cadastre_cached(SHARED_CADASTRE)
    return positions.copy(), statics.copy()


def synthetic_day(copies: int) -> pd.DataFrame:
    """US_coastal's day repeated `copies` times with shifted MMSIs (and a small position offset so the
    copies do not sit on top of one another): a realistic fleet-size day for timing."""
    base = us_coastal()
    frames = []
    for k in range(copies):
        copy = base.copy()
        copy["mmsi"] = copy["mmsi"] + k * 1_000_000_000
        copy["lat"] = copy["lat"] + 0.05 * k
        frames.append(copy)
    return sort_positions(pd.concat(frames, ignore_index=True))


class FakeContext:
    """A tiny DetectionContext: circles for high-risk areas, a short port list, land by a callable
    (default: nothing is land). Keeps detector tests free of the database and the layers."""

    def __init__(
        self,
        areas: list[tuple[str, float, float, float]] | None = None,  # (name, lat, lon, radius km)
        ports: list[tuple[str, str, str, float, float, bool]] | None = None,  # locode, name, cc, lat, lon, sanctioned
        land=None,
    ) -> None:
        self.areas = areas or []
        self.ports = ports or []
        self.land = land

    def high_risk_areas(self, lats, lons):
        from behaviour.detectors.common import haversine_km

        out = [None] * len(lats)
        for name, lat, lon, radius in self.areas:
            inside = (
                haversine_km(np.asarray(lats), np.asarray(lons), np.full(len(lats), lat), np.full(len(lats), lon))
                <= radius
            )
            for i in np.flatnonzero(inside):
                out[i] = out[i] or name
        return out

    def nearest_ports(self, lats, lons):
        from behaviour import thresholds as th
        from behaviour.detectors.base import PortHit
        from behaviour.detectors.common import haversine_km

        out = []
        for la, lo in zip(lats, lons, strict=True):
            best = None
            for locode, name, cc, plat, plon, sanctioned in self.ports:
                d = float(haversine_km(np.array([la]), np.array([lo]), np.array([plat]), np.array([plon]))[0])
                if d <= th.PORT_SEARCH_KM and (best is None or d < best.distance_km):
                    best = PortHit(locode, name, cc, d, sanctioned, ("Test regime",) if sanctioned else ())
            out.append(best)
        return out

    def on_land(self, lats, lons):
        if self.land is None:
            return np.zeros(len(lats), dtype=bool)
        return self.land(np.asarray(lats), np.asarray(lons))


@lru_cache(maxsize=1)
def _real_geography():
    from behaviour.detectors.context import LayerContext
    from voyages.layers.eez import EezLayer
    from voyages.ports import build_catalogue

    return LayerContext(ports=build_catalogue([]).ports, eez=EezLayer.from_ports())


def real_context():
    """LayerContext over the real port catalogue, JWC areas, STS hubs and land mask, with the
    port-based EEZ approximation (no database needed)."""
    return _real_geography()


def new_events(baseline, modified, kind=None):
    """Events of `modified` absent from `baseline` (same kind, mmsi, start, other vessel)."""

    def key(e):
        return (str(e.kind), e.mmsi, e.started_at, e.other_mmsi)

    seen = {key(e) for e in baseline if kind is None or e.kind == kind}
    return [e for e in modified if (kind is None or e.kind == kind) and key(e) not in seen]


def vessel(frame: pd.DataFrame, mmsi: int) -> pd.DataFrame:
    return frame[frame["mmsi"] == mmsi].reset_index(drop=True)


def slow_segments(frame: pd.DataFrame, hours: float, max_kn: float = 0.5) -> list[tuple[int, int, int]]:
    """(mmsi, first ts, last ts) of stretches of at least `hours` in which a vessel stayed slow (implied
    speed between reports <= max_kn, reports <= 15 min apart): real 'stopped' tracks to move about."""
    from behaviour.detectors.common import Track, runs

    t = Track(frame)
    slow = t.same & (t.step_kn <= max_kn) & (t.dt <= 900)
    first, last = runs(slow, ~t.same)
    out = []
    for f, la in zip(first, last, strict=True):
        f = int(f) - 1  # the run's first step starts at the report before
        if t.ts[la] - t.ts[f] >= hours * 3600:
            out.append((int(t.mmsi[f]), int(t.ts[f]), int(t.ts[la])))
    return out


def move_segment(frame: pd.DataFrame, mmsi: int, t0: int, t1: int, new_mmsi: int, new_t0: int, lat: float, lon: float):
    """The reports of `mmsi` in [t0, t1] as vessel `new_mmsi`, shifted so they start at `new_t0` and their
    first report sits at (lat, lon) (a flat translation: fine over the few km a stopped ship drifts)."""
    seg = frame[(frame["mmsi"] == mmsi) & (frame["ts"] >= t0) & (frame["ts"] <= t1)].copy()
    seg["mmsi"] = new_mmsi
    seg["ts"] = seg["ts"] - t0 + new_t0
    seg["lat"] = seg["lat"] - seg["lat"].iloc[0] + lat
    seg["lon"] = seg["lon"] - seg["lon"].iloc[0] + lon
    return seg
