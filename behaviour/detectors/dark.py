"""DARK_PERIOD: an AIS transmission gap of at least DARK_GAP_HOURS while the ship was under way."""

from __future__ import annotations

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, PortHit, Severity
from behaviour.detectors.common import Track, fmt_latlon, haversine_km, hours, position, rfc3339


def _speed_before(track: Track, rows: np.ndarray) -> np.ndarray:
    """Each gap's speed before it: the last report's SOG, else the implied speed over the last few
    reports of the same vessel (one report's step is too noisy for a ship reporting every few seconds)."""
    sog = track.sog[rows]
    back = np.maximum(rows - (th.DARK_SPEED_WINDOW_REPORTS - 1), 0)
    # Do not reach back into the previous vessel: clamp to the vessel's first row.
    first_of_vessel = track.starts[np.searchsorted(track.starts, rows, side="right") - 1]
    back = np.maximum(back, first_of_vessel)
    moved = np.maximum(
        haversine_km(track.lat[back], track.lon[back], track.lat[rows], track.lon[rows]) - th.POSITION_NOISE_KM, 0.0
    )
    span = track.ts[rows] - track.ts[back]
    implied = np.where(span > 0, moved / np.maximum(span, 1) * 3600.0 / th.KNOT_KM_H, np.nan)
    return np.where(np.isnan(sog), implied, sog)


def _port(hit: PortHit) -> dict[str, object]:
    return {
        "locode": hit.locode,
        "name": hit.name,
        "country_code": hit.country_code,
        "distance_km": round(hit.distance_km, 2),
    }


def detect_dark_periods(
    positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext
) -> list[DetectedEvent]:
    track = Track(positions)
    gap_s = th.DARK_GAP_HOURS * 3600.0
    after = np.flatnonzero(track.same & (track.dt >= gap_s))  # the first report after each gap
    if not after.size:
        return []
    before = after - 1
    speed_before = _speed_before(track, before)
    across_km = track.dist_km[after]
    across_kn = across_km / track.dt[after] * 3600.0 / th.KNOT_KM_H
    under_way = (
        (np.nan_to_num(speed_before, nan=0.0) >= th.DARK_SPEED_BEFORE_KN) & (across_km >= th.DARK_MIN_DISPLACEMENT_KM)
    ) | (across_kn >= th.DARK_IMPLIED_SPEED_KN)
    before, after = before[under_way], after[under_way]
    speed_before, across_km, across_kn = speed_before[under_way], across_km[under_way], across_kn[under_way]
    if not before.size:
        return []
    # Both ends against the high-risk areas (one call for all ends).
    areas = context.high_risk_areas(
        np.concatenate([track.lat[before], track.lat[after]]), np.concatenate([track.lon[before], track.lon[after]])
    )
    k = len(before)
    ports = context.nearest_ports(
        np.concatenate([track.lat[before], track.lat[after]]), np.concatenate([track.lon[before], track.lon[after]])
    )
    events = []
    for j in range(k):  # one iteration per reported gap (few), not per position
        b, a = int(before[j]), int(after[j])
        start_area, end_area = areas[j], areas[k + j]
        risky = start_area or end_area
        port_start, port_end = ports[j], ports[k + j]
        in_port = (
            port_start is not None
            and port_end is not None
            and port_start.distance_km <= th.PORT_RADIUS_KM
            and port_end.distance_km <= th.PORT_RADIUS_KM
        )
        severity = Severity.HIGH if risky else Severity(th.DARK_IN_PORT_SEVERITY) if in_port else Severity.MEDIUM
        gap = int(track.ts[a] - track.ts[b])
        where = f" in {risky}" if risky else f" near {port_start.name}" if in_port and port_start else ""
        summary = (
            f"AIS silent for {hours(gap):.1f} h from {rfc3339(track.ts[b])} at "
            f"{fmt_latlon(track.lat[b], track.lon[b])} while under way, reappearing "
            f"{across_km[j] / th.KNOT_KM_H:.1f} nm away{where}."
        )
        sb = speed_before[j]
        events.append(
            DetectedEvent(
                kind=EventKind.DARK_PERIOD,
                mmsi=int(track.mmsi[b]),
                started_at=int(track.ts[b]),
                ended_at=int(track.ts[a]),
                lat=round(float(track.lat[b]), 5),
                lon=round(float(track.lon[b]), 5),
                severity=severity,
                summary=summary,
                evidence={
                    "last_seen_at": rfc3339(track.ts[b]),
                    "last_position": position(track.lat[b], track.lon[b]),
                    "reappeared_at": rfc3339(track.ts[a]),
                    "reappeared_position": position(track.lat[a], track.lon[a]),
                    "gap_hours": hours(gap),
                    "distance_across_gap_nm": round(float(across_km[j]) / th.KNOT_KM_H, 2),
                    "implied_speed_across_gap_kn": round(float(across_kn[j]), 2),
                    "speed_before_gap_kn": None if np.isnan(sb) else round(float(sb), 2),
                    "speed_before_source": "sog" if not np.isnan(track.sog[b]) else "implied",
                    "high_risk_area_at_start": start_area,
                    "high_risk_area_at_end": end_area,
                    "port_at_start": None if port_start is None else _port(port_start),
                    "port_at_end": None if port_end is None else _port(port_end),
                    "both_ends_in_port": in_port,
                    "thresholds": {
                        "DARK_GAP_HOURS": th.DARK_GAP_HOURS,
                        "DARK_SPEED_BEFORE_KN": th.DARK_SPEED_BEFORE_KN,
                        "DARK_MIN_DISPLACEMENT_KM": round(th.DARK_MIN_DISPLACEMENT_KM, 3),
                        "DARK_IMPLIED_SPEED_KN": th.DARK_IMPLIED_SPEED_KN,
                        "PORT_RADIUS_KM": th.PORT_RADIUS_KM,
                    },
                    "detector_version": th.DETECTOR_VERSION,
                },
            )
        )
    return events
