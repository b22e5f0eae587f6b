"""DRAUGHT_CHANGE_AT_SEA: the reported draught changing by at least DRAUGHT_CHANGE_M between two
observations with no port call between them (nor one ending within DRAUGHT_PORT_GRACE_HOURS before:
crews often type the new draught in after sailing), and neither observation within PORT_RADIUS_KM of
a catalogued port. A ship with no position in the frame cannot be placed and is not reported.

The statics frame holds one row per distinct static report (first and last heard); a change is a
new draught value first heard after the previous value was last heard. When two values are heard
in overlapping times (two installations disagreeing, the MarineCadastre extract has one), nothing
changed at sea and no event is raised. Evidence cites any STS meeting of the ship in the window,
which raises the severity to HIGH.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, Severity
from behaviour.detectors.common import Track, fmt_latlon, hours, position, positions_at, rfc3339


def _draught_runs(statics: pd.DataFrame) -> pd.DataFrame:
    """Per MMSI, consecutive reports of one draught merged: mmsi, draught, first, last."""
    rows = statics[statics["draught"].notna()].sort_values(["mmsi", "ts"], kind="stable")
    if not len(rows):
        return pd.DataFrame(columns=["mmsi", "draught", "first", "last"])
    mmsi = rows["mmsi"].to_numpy()
    value = np.round(rows["draught"].to_numpy(dtype="float64"), 1)
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (mmsi[1:] != mmsi[:-1]) | (value[1:] != value[:-1])
    group = np.cumsum(new) - 1
    frame = pd.DataFrame(
        {"g": group, "mmsi": mmsi, "draught": value, "ts": rows["ts"].to_numpy(), "ts_last": rows["ts_last"].to_numpy()}
    )
    return frame.groupby("g", sort=True).agg(
        mmsi=("mmsi", "first"), draught=("draught", "first"), first=("ts", "min"), last=("ts_last", "max")
    )


def detect_draught_changes(
    positions: pd.DataFrame,
    statics: pd.DataFrame,
    context: DetectionContext,
    port_calls: list[DetectedEvent] | None = None,
    meetings: list[DetectedEvent] | None = None,
) -> list[DetectedEvent]:
    if statics is None or not len(statics):
        return []
    runs = _draught_runs(statics)
    if len(runs) < 2:
        return []
    mmsi = runs["mmsi"].to_numpy(dtype="int64")
    value = runs["draught"].to_numpy(dtype="float64")
    first = runs["first"].to_numpy(dtype="int64")
    last = runs["last"].to_numpy(dtype="int64")
    same = mmsi[1:] == mmsi[:-1]
    delta = value[1:] - value[:-1]
    clean = last[:-1] < first[1:]  # the old value stopped before the new one started
    idx = np.flatnonzero(same & clean & (np.abs(delta) >= th.DRAUGHT_CHANGE_M - 1e-6)) + 1
    if not idx.size:
        return []
    calls: dict[int, list[tuple[int, int]]] = {}
    for call in port_calls or []:
        calls.setdefault(call.mmsi, []).append((call.started_at, call.ended_at))
    sts: dict[int, list[DetectedEvent]] = {}
    for meeting in meetings or []:
        sts.setdefault(meeting.mmsi, []).append(meeting)
    track = Track(positions)
    q_mmsi = mmsi[idx]
    lat_b, lon_b, _ = positions_at(track, q_mmsi, last[idx - 1])
    lat_a, lon_a, _ = positions_at(track, q_mmsi, first[idx])
    placed = np.isfinite(lat_a) & np.isfinite(lat_b)
    idx, lat_a, lon_a, lat_b, lon_b = idx[placed], lat_a[placed], lon_a[placed], lat_b[placed], lon_b[placed]
    # Within PORT_RADIUS_KM of a port at either end: in port, even when too few reports were heard to
    # make a port call of it (the MarineCadastre extract has such a change at a Houston berth).
    near = context.nearest_ports(lat_b, lon_b) + context.nearest_ports(lat_a, lon_a)
    k = len(idx)
    grace = th.DRAUGHT_PORT_GRACE_HOURS * 3600
    events = []
    for j, i in enumerate(idx):  # one iteration per candidate change (few)
        m, t0, t1 = int(mmsi[i]), int(last[i - 1]), int(first[i])
        if any(start <= t1 and end + grace >= t0 for start, end in calls.get(m, [])):
            continue  # loaded or discharged in port
        in_port = [h for h in (near[j], near[k + j]) if h is not None and h.distance_km <= th.PORT_RADIUS_KM]
        if in_port:
            continue
        met = [e for e in sts.get(m, []) if e.started_at <= t1 and e.ended_at >= t0]
        before, after = float(value[i - 1]), float(value[i])
        direction = "deeper (loaded)" if after > before else "shallower (discharged)"
        where_lat, where_lon = lat_a[j], lon_a[j]
        meeting_text = (
            f", after meeting MMSI {', '.join(str(e.other_mmsi) for e in met)}"
            if met
            else ", with no port call between"
        )
        place = f" near {fmt_latlon(where_lat, where_lon)}"
        summary = (
            f"Draught went from {before:.1f} m to {after:.1f} m ({direction}) between {rfc3339(t0)} and "
            f"{rfc3339(t1)}{place}{meeting_text}."
        )
        events.append(
            DetectedEvent(
                kind=EventKind.DRAUGHT_CHANGE_AT_SEA,
                mmsi=m,
                started_at=t0,
                ended_at=t1,
                lat=round(float(where_lat), 5),
                lon=round(float(where_lon), 5),
                severity=Severity.HIGH if met else Severity.MEDIUM,
                summary=summary,
                evidence={
                    "draught_before_m": round(before, 1),
                    "draught_after_m": round(after, 1),
                    "change_m": round(after - before, 1),
                    "before_last_reported_at": rfc3339(t0),
                    "after_first_reported_at": rfc3339(t1),
                    "window_hours": hours(t1 - t0),
                    "position_before": position(lat_b[j], lon_b[j]),
                    "position_after": position(lat_a[j], lon_a[j]),
                    "port_calls_considered": len(calls.get(m, [])),
                    "sts_meetings_in_window": [
                        {
                            "other_mmsi": e.other_mmsi,
                            "started_at": rfc3339(e.started_at),
                            "ended_at": rfc3339(e.ended_at),
                            "position": position(e.lat, e.lon),
                        }
                        for e in met
                    ],
                    "thresholds": {
                        "DRAUGHT_CHANGE_M": th.DRAUGHT_CHANGE_M,
                        "DRAUGHT_PORT_GRACE_HOURS": th.DRAUGHT_PORT_GRACE_HOURS,
                        "PORT_RADIUS_KM": th.PORT_RADIUS_KM,
                    },
                    "detector_version": th.DETECTOR_VERSION,
                },
                other_mmsi=met[0].other_mmsi if met else None,
            )
        )
    return events
