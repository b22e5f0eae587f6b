"""Vectorised helpers the detectors share: distances, per-vessel group boundaries, speeds, evidence."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd

from behaviour import thresholds as th


def haversine_km(lat1: np.ndarray, lon1: np.ndarray, lat2: np.ndarray, lon2: np.ndarray) -> np.ndarray:
    """Great-circle distance in km, element-wise (arrays in degrees)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dlat = p2 - p1
    dlon = np.radians(np.asarray(lon2) - np.asarray(lon1))
    h = np.sin(dlat / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlon / 2) ** 2
    return np.asarray(2 * th.EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, np.sqrt(h))), dtype="float64")


def destination(
    lat: float | np.ndarray, lon: float | np.ndarray, bearing_deg: np.ndarray, distance_km: float
) -> tuple[np.ndarray, np.ndarray]:
    """Points `distance_km` from (lat, lon) along each bearing (spherical Earth; arrays broadcast)."""
    delta = distance_km / th.EARTH_RADIUS_KM
    theta = np.radians(bearing_deg)
    p1, l1 = np.radians(lat), np.radians(lon)
    p2 = np.arcsin(np.sin(p1) * np.cos(delta) + np.cos(p1) * np.sin(delta) * np.cos(theta))
    l2 = l1 + np.arctan2(np.sin(theta) * np.sin(delta) * np.cos(p1), np.cos(delta) - np.sin(p1) * np.sin(p2))
    lon2 = (np.degrees(l2) + 540.0) % 360.0 - 180.0
    return np.degrees(p2), lon2


class Track:
    """The positions frame as numpy arrays, with each row's step from the previous row of the same
    vessel (`same[i]` = row i-1 is the same vessel; the step arrays hold 0 where it is not)."""

    def __init__(self, positions: pd.DataFrame) -> None:
        self.mmsi = positions["mmsi"].to_numpy(dtype="int64")
        self.ts = positions["ts"].to_numpy(dtype="int64")
        self.lat = positions["lat"].to_numpy(dtype="float64")
        self.lon = positions["lon"].to_numpy(dtype="float64")
        self.sog = positions["sog"].to_numpy(dtype="float64")
        n = len(self.mmsi)
        self.n = n
        self.same = np.zeros(n, dtype=bool)
        if n > 1:
            self.same[1:] = self.mmsi[1:] == self.mmsi[:-1]
        self.dt = np.zeros(n, dtype="int64")
        self.dist_km = np.zeros(n, dtype="float64")
        if n > 1:
            self.dt[1:] = np.where(self.same[1:], self.ts[1:] - self.ts[:-1], 0)
            d = haversine_km(self.lat[:-1], self.lon[:-1], self.lat[1:], self.lon[1:])
            self.dist_km[1:] = np.where(self.same[1:], d, 0.0)
        # Implied speed of the step into each row (knots), the 1-s timestamp resolution as the floor.
        self.step_kn = self.dist_km / np.maximum(self.dt, 1) * 3600.0 / th.KNOT_KM_H
        # Same, with GPS noise taken off the distance first: a moored ship reads ~0, not noise / dt.
        moved = np.maximum(self.dist_km - th.POSITION_NOISE_KM, 0.0)
        implied = moved / np.maximum(self.dt, 1) * 3600.0 / th.KNOT_KM_H
        # The first row of a vessel has no step in: use the step out of it instead.
        if n > 1:
            first = ~self.same
            nxt = np.zeros(n, dtype="float64")
            nxt[:-1] = np.where(self.same[1:], implied[1:], np.nan)
            implied = np.where(first, nxt, implied)
        # Speed to judge "stopped / under way" by: SOG where transmitted, else the implied speed.
        self.speed_kn = np.where(np.isnan(self.sog), implied, self.sog)
        self.starts = np.flatnonzero(~self.same) if n else np.zeros(0, dtype="int64")


def rfc3339(ts: int | np.integer) -> str:
    return datetime.fromtimestamp(int(ts), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def position(lat: float, lon: float) -> dict[str, float]:
    return {"lat": round(float(lat), 5), "lon": round(float(lon), 5)}


def fmt_latlon(lat: float, lon: float) -> str:
    return f"{abs(lat):.3f}°{'N' if lat >= 0 else 'S'} {abs(lon):.3f}°{'E' if lon >= 0 else 'W'}"


def hours(seconds: int | float | np.integer) -> float:
    return round(float(seconds) / 3600.0, 2)


def runs(mask: np.ndarray, breaks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first, last) row indices of each run of True in `mask`; a run also ends before any row where
    `breaks` is True (e.g. a new vessel)."""
    m = np.asarray(mask, dtype=bool)
    if not m.size:
        return np.zeros(0, dtype="int64"), np.zeros(0, dtype="int64")
    start = m.copy()
    start[1:] &= ~m[:-1] | (breaks[1:] if breaks is not None else False)
    end = m.copy()
    end[:-1] &= ~m[1:] | (breaks[1:] if breaks is not None else False)
    return np.flatnonzero(start), np.flatnonzero(end)


def unit_xyz_km(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    """Points on the sphere as (n, 3) Cartesian km: straight-line distance ~ great-circle distance at
    the scales compared here (< 100 km), and no seam at the antimeridian or the poles."""
    p, lam = np.radians(lat), np.radians(lon)
    c = np.cos(p)
    return np.column_stack([c * np.cos(lam), c * np.sin(lam), np.sin(p)]) * th.EARTH_RADIUS_KM


_AXIS_BITS = 15  # cells per axis up to 2 * 16,384: enough for 0.5 km cells on a 6,371 km sphere
_AXIS_OFFSET = 1 << (_AXIS_BITS - 1)
_SLOT_BITS = 63 - 3 * _AXIS_BITS
_OFFSETS = np.array([(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)], dtype="int64")


def _encode(slot: np.ndarray, cells: np.ndarray) -> np.ndarray:
    c = cells + _AXIS_OFFSET
    return (
        (slot.astype("int64") << (3 * _AXIS_BITS)) | (c[:, 0] << (2 * _AXIS_BITS)) | (c[:, 1] << _AXIS_BITS) | c[:, 2]
    )


def neighbour_pairs(
    xyz_a: np.ndarray, slot_a: np.ndarray, xyz_b: np.ndarray, slot_b: np.ndarray, cell_km: float
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs (index into a, index into b) in the same slot whose 3D grid cells of `cell_km` touch:
    every pair closer than `cell_km` is among them. Hash-join by sorted keys, 27 neighbour cells,
    no per-row Python."""
    if not len(xyz_a) or not len(xyz_b):
        return np.zeros(0, dtype="int64"), np.zeros(0, dtype="int64")
    base = min(int(slot_a.min()), int(slot_b.min()))
    sa, sb = slot_a.astype("int64") - base, slot_b.astype("int64") - base
    if max(int(sa.max()), int(sb.max())) >= (1 << _SLOT_BITS):
        raise ValueError("too many time slots in one call")
    cells_a = np.floor(xyz_a / cell_km).astype("int64")
    cells_b = np.floor(xyz_b / cell_km).astype("int64")
    code_b = _encode(sb, cells_b)
    order = np.argsort(code_b, kind="stable")
    sorted_b = code_b[order]
    found_a, found_b = [], []
    for offset in _OFFSETS:
        code = _encode(sa, cells_a + offset)
        left = np.searchsorted(sorted_b, code, side="left")
        right = np.searchsorted(sorted_b, code, side="right")
        counts = right - left
        total = int(counts.sum())
        if not total:
            continue
        ia = np.repeat(np.arange(len(code)), counts)
        within = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        found_a.append(ia)
        found_b.append(order[np.repeat(left, counts) + within])
    if not found_a:
        return np.zeros(0, dtype="int64"), np.zeros(0, dtype="int64")
    return np.concatenate(found_a), np.concatenate(found_b)


def positions_at(track: Track, mmsi: np.ndarray, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each (mmsi, ts) query, the vessel's report nearest in time: (lat, lon, report ts); NaN / -1
    when the vessel has no report in the frame."""
    mmsi = np.asarray(mmsi, dtype="int64")
    ts = np.asarray(ts, dtype="int64")
    n = len(mmsi)
    lat = np.full(n, np.nan)
    lon = np.full(n, np.nan)
    when = np.full(n, -1, dtype="int64")
    if not n or not track.n:
        return lat, lon, when
    vessels = track.mmsi[track.starts]
    v = np.searchsorted(vessels, mmsi)
    v_ok = (v < len(vessels)) & (vessels[np.minimum(v, len(vessels) - 1)] == mmsi)
    ends = np.append(track.starts[1:], track.n)
    for q in np.flatnonzero(v_ok):  # one binary search per query (statics changes: few)
        lo, hi = int(track.starts[v[q]]), int(ends[v[q]])
        k = lo + int(np.searchsorted(track.ts[lo:hi], ts[q]))
        candidates = [i for i in (k - 1, k) if lo <= i < hi]
        best = min(candidates, key=lambda i: abs(int(track.ts[i]) - int(ts[q])))
        lat[q], lon[q], when[q] = track.lat[best], track.lon[best], track.ts[best]
    return lat, lon, when
