"""PORT_CALL: stopped (< PORT_STOP_SPEED_KN) for at least PORT_MIN_STOP_HOURS within PORT_RADIUS_KM of a
catalogued port. Severity HIGH, the regime named, when the port's country (or region) is under a
sanctions regime; INFO otherwise.

Stops are runs of consecutive slow reports of one vessel, found for the whole frame at once; a stop
continues across a reception gap when the ship reappears where it was (the implied speed across the
gap is then below the stop speed, so the run is not broken). Stops at the same port less than
PORT_CALL_MERGE_HOURS apart (anchorage then berth, a shift of berth) are one call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, PortHit, Severity
from behaviour.detectors.common import Track, hours, position, rfc3339, runs


def country_name(code: str) -> str:
    """The country's common English name (ISO 3166 via pycountry), else the code itself."""
    import pycountry

    country = pycountry.countries.get(alpha_2=code)
    if country is None:
        return code
    return str(getattr(country, "common_name", None) or country.name)


def _stops(track: Track) -> tuple[np.ndarray, np.ndarray]:
    """(first, last) rows of each stop of at least PORT_MIN_STOP_HOURS."""
    speed = np.where(np.isnan(track.speed_kn), np.inf, track.speed_kn)
    slow = speed < th.PORT_STOP_SPEED_KN
    first, last = runs(slow, ~track.same)
    long_enough = (track.ts[last] - track.ts[first]) >= th.PORT_MIN_STOP_HOURS * 3600
    return first[long_enough], last[long_enough]


def detect_port_calls(positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext) -> list[DetectedEvent]:
    track = Track(positions)
    first, last = _stops(track)
    if not first.size:
        return []
    # Where each stop was: its median report (robust to the drift of the first/last reports).
    mid = (first + last) // 2
    hits = context.nearest_ports(track.lat[mid], track.lon[mid])
    calls: list[tuple[int, int, PortHit]] = []  # (first row, last row, port), in frame order
    for f, la, hit in zip(first, last, hits, strict=True):
        if hit is None or hit.distance_km > th.PORT_RADIUS_KM:
            continue
        f, la = int(f), int(la)
        if calls:
            pf, pl, phit = calls[-1]
            same_vessel = track.mmsi[pf] == track.mmsi[f]
            close = track.ts[f] - track.ts[pl] < th.PORT_CALL_MERGE_HOURS * 3600
            if same_vessel and close and phit.locode == hit.locode:
                calls[-1] = (pf, la, phit if phit.distance_km <= hit.distance_km else hit)
                continue
        calls.append((f, la, hit))
    events = []
    for f, la, hit in calls:
        mmsi = int(track.mmsi[f])
        stay = int(track.ts[la] - track.ts[f])
        country = country_name(hit.country_code)
        if hit.sanctioned:
            regimes = "; ".join(hit.regimes) or "a sanctions regime"
            sanction_text = f", sanctioned: {regimes}"
        else:
            sanction_text = ""
        summary = (
            f"Port call at {hit.name} ({hit.locode}, {country}{sanction_text}): stopped "
            f"{hours(stay):.1f} h from {rfc3339(track.ts[f])} to {rfc3339(track.ts[la])}, "
            f"{hit.distance_km:.1f} km from the port's position."
        )
        mid_row = (f + la) // 2
        events.append(
            DetectedEvent(
                kind=EventKind.PORT_CALL,
                mmsi=mmsi,
                started_at=int(track.ts[f]),
                ended_at=int(track.ts[la]),
                lat=round(float(track.lat[mid_row]), 5),
                lon=round(float(track.lon[mid_row]), 5),
                severity=Severity.HIGH if hit.sanctioned else Severity.INFO,
                summary=summary,
                evidence={
                    "arrived_at": rfc3339(track.ts[f]),
                    "departed_at": rfc3339(track.ts[la]),
                    "stay_hours": hours(stay),
                    "position": position(track.lat[mid_row], track.lon[mid_row]),
                    "reports": la - f + 1,
                    "port": {
                        "locode": hit.locode,
                        "name": hit.name,
                        "country_code": hit.country_code,
                        "country": country,
                        "distance_km": round(hit.distance_km, 2),
                    },
                    "sanctioned": hit.sanctioned,
                    "regimes": list(hit.regimes),
                    "thresholds": {
                        "PORT_STOP_SPEED_KN": th.PORT_STOP_SPEED_KN,
                        "PORT_MIN_STOP_HOURS": th.PORT_MIN_STOP_HOURS,
                        "PORT_RADIUS_KM": th.PORT_RADIUS_KM,
                        "PORT_CALL_MERGE_HOURS": th.PORT_CALL_MERGE_HOURS,
                    },
                    "detector_version": th.DETECTOR_VERSION,
                },
            )
        )
    return events
