"""STS_MEETING: two vessels within STS_DISTANCE_KM, both slower than STS_MAX_SPEED_KN, for at least
STS_MIN_HOURS, at least STS_MIN_PORT_DISTANCE_KM from a port (Miller et al. 2018 encounters).

Vectorised over the whole frame: each vessel's slow reports are reduced to one per 10-minute slot,
the slot positions are hashed into 3D grid cells of STS_DISTANCE_KM, and only neighbouring cells in
the same slot are compared; runs of close slots per pair become meetings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, Severity
from behaviour.detectors.common import Track, fmt_latlon, hours, neighbour_pairs, position, rfc3339, unit_xyz_km


def _ship(mmsi: np.ndarray) -> np.ndarray:
    return (mmsi >= th.SHIP_MMSI_MIN) & (mmsi <= th.SHIP_MMSI_MAX)


def _slot_reports(track: Track) -> dict[str, np.ndarray]:
    """One row per (vessel, slot) in which every report was slow: its last report's position and time,
    and the slot's highest speed."""
    slot = track.ts // th.STS_SLOT_SECONDS
    new_group = np.ones(track.n, dtype=bool)
    new_group[1:] = (track.mmsi[1:] != track.mmsi[:-1]) | (slot[1:] != slot[:-1])
    starts = np.flatnonzero(new_group)
    if not starts.size:
        return {}
    ends = np.append(starts[1:], track.n) - 1
    speed = np.where(np.isnan(track.speed_kn), np.inf, track.speed_kn)  # unknown speed is not "slow"
    top = np.maximum.reduceat(speed, starts)
    slow = top < th.STS_MAX_SPEED_KN
    ends, top = ends[slow], top[slow]
    return {
        "mmsi": track.mmsi[ends],
        "slot": slot[ends],
        "ts": track.ts[ends],
        "lat": track.lat[ends],
        "lon": track.lon[ends],
        "speed": top,
    }


def detect_sts_meetings(
    positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext
) -> list[DetectedEvent]:
    track = Track(positions)
    slots = _slot_reports(track)
    if not slots or not len(slots["mmsi"]):
        return []
    xyz = unit_xyz_km(slots["lat"], slots["lon"])
    ia, ib = neighbour_pairs(xyz, slots["slot"], xyz, slots["slot"], th.STS_DISTANCE_KM)
    # Each pair once, never a vessel with itself, and ships only: a ship station's MMSI carries a MID
    # (ITU-R M.585); buoys, aids to navigation, SAR aircraft and craft-associated stations do not meet.
    mmsi_a, mmsi_b = slots["mmsi"][ia], slots["mmsi"][ib]
    keep = (mmsi_a < mmsi_b) & _ship(mmsi_a) & _ship(mmsi_b)
    ia, ib = ia[keep], ib[keep]
    chord = np.linalg.norm(xyz[ia] - xyz[ib], axis=1)
    keep = chord <= th.STS_DISTANCE_KM
    ia, ib, dist_km = ia[keep], ib[keep], chord[keep]
    if not ia.size:
        return []
    ma, mb, sl = slots["mmsi"][ia], slots["mmsi"][ib], slots["slot"][ia]
    order = np.lexsort((sl, mb, ma))
    ia, ib, dist_km, ma, mb, sl = ia[order], ib[order], dist_km[order], ma[order], mb[order], sl[order]
    # A meeting is a run of close slots of one pair, broken by a new pair or too many missing slots.
    brk = np.ones(len(ia), dtype=bool)
    brk[1:] = (ma[1:] != ma[:-1]) | (mb[1:] != mb[:-1]) | (sl[1:] - sl[:-1] > 1 + th.STS_MAX_MISSING_SLOTS)
    first = np.flatnonzero(brk)
    last = np.append(first[1:], len(ia)) - 1
    ts_a, ts_b = slots["ts"][ia], slots["ts"][ib]
    begin = np.minimum(ts_a[first], ts_b[first])
    end = np.maximum(ts_a[last], ts_b[last])
    long_enough = (end - begin) >= th.STS_MIN_HOURS * 3600
    first, last, begin, end = first[long_enough], last[long_enough], begin[long_enough], end[long_enough]
    if not first.size:
        return []
    # Centre of each meeting: the mean of both vessels' slot positions over the run, averaged in 3D so
    # it is safe across the antimeridian. One small sum per kept meeting (few).
    counts = last - first + 1
    mid_xyz = (xyz[ia] + xyz[ib]) / 2.0
    sums = np.vstack([mid_xyz[a : z + 1].sum(axis=0) for a, z in zip(first, last, strict=True)])
    centre = sums / np.linalg.norm(sums, axis=1, keepdims=True)
    clat = np.degrees(np.arcsin(np.clip(centre[:, 2], -1, 1)))
    clon = np.degrees(np.arctan2(centre[:, 1], centre[:, 0]))
    ports = context.nearest_ports(clat, clon)
    areas = context.high_risk_areas(clat, clon)
    events: list[DetectedEvent] = []
    for j in range(len(first)):  # one iteration per meeting found (few)
        port = ports[j]
        if port is not None and port.distance_km < th.STS_MIN_PORT_DISTANCE_KM:
            continue  # alongside in port or at its anchorage: not an encounter
        f, la = int(first[j]), int(last[j])
        run_dist = dist_km[f : la + 1]
        a, b = int(ma[f]), int(mb[f])
        speed_a = float(slots["speed"][ia[f : la + 1]].max())
        speed_b = float(slots["speed"][ib[f : la + 1]].max())
        area = areas[j]
        duration = int(end[j] - begin[j])
        lat, lon = round(float(clat[j]), 5), round(float(clon[j]), 5)
        nearest_port = (
            None
            if port is None
            else {"locode": port.locode, "name": port.name, "distance_km": round(port.distance_km, 2)}
        )
        evidence = {
            "started_at": rfc3339(begin[j]),
            "ended_at": rfc3339(end[j]),
            "duration_hours": hours(duration),
            "centre": position(lat, lon),
            "joint_slots": int(counts[j]),
            "slot_minutes": th.STS_SLOT_SECONDS // 60,
            "min_distance_m": round(float(run_dist.min()) * 1000.0, 1),
            "median_distance_m": round(float(np.median(run_dist)) * 1000.0, 1),
            "nearest_port": nearest_port,
            "nearest_port_distance_km": None if port is None else round(port.distance_km, 2),
            "high_risk_area": area,
            "thresholds": {
                "STS_DISTANCE_KM": th.STS_DISTANCE_KM,
                "STS_MAX_SPEED_KN": th.STS_MAX_SPEED_KN,
                "STS_MIN_HOURS": th.STS_MIN_HOURS,
                "STS_MIN_PORT_DISTANCE_KM": th.STS_MIN_PORT_DISTANCE_KM,
            },
            "detector_version": th.DETECTOR_VERSION,
        }
        where = f" in {area}" if area else ""
        for me, other, my_speed, other_speed in ((a, b, speed_a, speed_b), (b, a, speed_b, speed_a)):
            summary = (
                f"Met MMSI {other} within {th.STS_DISTANCE_KM * 1000:.0f} m for {hours(duration):.1f} h from "
                f"{rfc3339(begin[j])} at {fmt_latlon(lat, lon)}{where}, both under {th.STS_MAX_SPEED_KN:g} kn."
            )
            events.append(
                DetectedEvent(
                    kind=EventKind.STS_MEETING,
                    mmsi=me,
                    started_at=int(begin[j]),
                    ended_at=int(end[j]),
                    lat=lat,
                    lon=lon,
                    severity=Severity.HIGH if area else Severity.MEDIUM,
                    summary=summary,
                    evidence={
                        **evidence,
                        "max_speed_kn": round(my_speed, 2),
                        "other_max_speed_kn": round(other_speed, 2),
                    },
                    other_mmsi=other,
                )
            )
    return events
