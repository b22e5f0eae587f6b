"""POSITION_JUMP (isolated implausible jumps), POSITION_ON_LAND (reports clearly on land) and
SHARED_MMSI (one MMSI transmitted by two ships at once: repeated jumps between two interleaved tracks).

A "bad step" is a step between consecutive reports of one MMSI at an implied speed above
JUMP_SPEED_KN over more than JUMP_MIN_DISTANCE_KM. An MMSI with at least SHARED_MIN_JUMPS bad steps
whose reports split into two plausible interleaved tracks is a shared MMSI (its jumps are not
reported one by one); otherwise each bad step is a position jump, a spike out and straight back
counting once. A jump landing clearly on land is reported as POSITION_ON_LAND (with the jump in
its evidence), not twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, Severity
from behaviour.detectors.common import Track, fmt_latlon, haversine_km, hours, position, rfc3339, runs


def _bad_steps(track: Track) -> np.ndarray:
    """bad[i]: the step from row i-1 into row i (same vessel) is implausible."""
    return track.same & (track.dist_km > th.JUMP_MIN_DISTANCE_KM) & (track.step_kn > th.JUMP_SPEED_KN)


@dataclass
class SharedSplit:
    labels: np.ndarray  # 0/1 per report of the MMSI
    alternations: int  # implausible steps between the two tracks (set by the caller)
    jumps_within: tuple[int, int]


def _plausible(km: float, seconds: float) -> bool:
    return km <= th.JUMP_MIN_DISTANCE_KM or km / max(seconds, 1.0) * 3600.0 / th.KNOT_KM_H <= th.JUMP_SPEED_KN


def split_two_tracks(ts: np.ndarray, lat: np.ndarray, lon: np.ndarray) -> SharedSplit:
    """Assign each report to one of two tracks, greedily: a report joins the track it can be reached
    from at a plausible speed (the nearer one if both). Only run for the few MMSIs with repeated
    jumps, so a Python loop over their reports is fine."""
    n = len(ts)
    labels = np.zeros(n, dtype="int8")
    heads: list[int | None] = [0, None]
    jumps = [0, 0]
    for i in range(1, n):
        options = []
        for t, head in enumerate(heads):
            if head is None:
                continue
            km = float(haversine_km(lat[head : head + 1], lon[head : head + 1], lat[i : i + 1], lon[i : i + 1])[0])
            options.append((not _plausible(km, float(ts[i] - ts[head])), km, t))
        implausible, _km, chosen = min(options)
        if implausible and heads[1] is None:
            chosen, implausible = 1, False  # the first implausible jump opens the second track
        if implausible:
            jumps[chosen] += 1
        labels[i] = chosen
        heads[chosen] = i
    return SharedSplit(labels, 0, (jumps[0], jumps[1]))


def _common_evidence() -> dict[str, object]:
    return {
        "thresholds": {
            "JUMP_SPEED_KN": th.JUMP_SPEED_KN,
            "JUMP_MIN_DISTANCE_KM": th.JUMP_MIN_DISTANCE_KM,
            "SHARED_MIN_JUMPS": th.SHARED_MIN_JUMPS,
            "ON_LAND_RING_KM": th.ON_LAND_RING_KM,
            "ON_LAND_PORT_EXEMPT_KM": round(th.ON_LAND_PORT_EXEMPT_KM, 2),
        },
        "detector_version": th.DETECTOR_VERSION,
    }


def _shared_event(
    mmsi: int, ts: np.ndarray, lat: np.ndarray, lon: np.ndarray, split: SharedSplit, bad: int
) -> DetectedEvent:
    tracks = []
    for label in (0, 1):
        rows = np.flatnonzero(split.labels == label)
        tracks.append(
            {
                "reports": int(len(rows)),
                "first_at": rfc3339(ts[rows[0]]),
                "last_at": rfc3339(ts[rows[-1]]),
                "first_position": position(lat[rows[0]], lon[rows[0]]),
                "last_position": position(lat[rows[-1]], lon[rows[-1]]),
                "implausible_steps_within": split.jumps_within[label],
            }
        )
    # How far apart the two ships were: distance between consecutive reports that switch track.
    switch = np.flatnonzero(np.diff(split.labels) != 0)
    apart = haversine_km(lat[switch], lon[switch], lat[switch + 1], lon[switch + 1])
    median_nm = float(np.median(apart)) / th.KNOT_KM_H if len(apart) else 0.0
    summary = (
        f"MMSI {mmsi} was transmitted by two ships at once from {rfc3339(ts[0])} to {rfc3339(ts[-1])}: "
        f"{bad} implausible jumps alternating between two tracks about {median_nm:.0f} nm apart."
    )
    return DetectedEvent(
        kind=EventKind.SHARED_MMSI,
        mmsi=mmsi,
        started_at=int(ts[0]),
        ended_at=int(ts[-1]),
        lat=round(float(lat[0]), 5),
        lon=round(float(lon[0]), 5),
        severity=Severity.HIGH,
        summary=summary,
        evidence={
            "implausible_steps": bad,
            "alternations": split.alternations,
            "median_distance_between_tracks_nm": round(median_nm, 2),
            "tracks": tracks,
            **_common_evidence(),
        },
        other_mmsi=None,
    )


def detect_spoofing(positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext) -> list[DetectedEvent]:
    track = Track(positions)
    if not track.n:
        return []
    bad = _bad_steps(track)
    events: list[DetectedEvent] = []

    # --- shared MMSIs: vessels with repeated jumps whose reports split into two plausible tracks ---
    ends = np.append(track.starts[1:], track.n)
    per_vessel = np.add.reduceat(bad.astype("int64"), track.starts)
    shared_rows = np.zeros(track.n, dtype=bool)
    for v in np.flatnonzero(per_vessel >= th.SHARED_MIN_JUMPS):
        lo, hi = int(track.starts[v]), int(ends[v])
        ts, lat, lon = track.ts[lo:hi], track.lat[lo:hi], track.lon[lo:hi]
        split = split_two_tracks(ts, lat, lon)
        # Alternations that count: implausible steps the split explains (they cross between the tracks).
        split.alternations = int(np.count_nonzero(bad[lo + 1 : hi] & (np.diff(split.labels) != 0)))
        sizes = np.bincount(split.labels, minlength=2)
        fractions = [split.jumps_within[k] / max(int(sizes[k]) - 1, 1) for k in (0, 1)]
        if (
            sizes.min() >= th.SHARED_MIN_POINTS_PER_TRACK
            and split.alternations >= th.SHARED_MIN_ALTERNATIONS
            and max(fractions) <= th.SHARED_MAX_JUMP_FRACTION_WITHIN
        ):
            events.append(_shared_event(int(track.mmsi[lo]), ts, lat, lon, split, int(per_vessel[v])))
            shared_rows[lo:hi] = True

    # --- isolated jumps: a spike (out and straight back) counts once, at its outlying report ---
    bad &= ~shared_rows
    nxt_bad = np.zeros(track.n, dtype=bool)
    nxt_bad[:-1] = bad[1:]
    # Row i is a spike when the steps into and out of it are both bad and i-1 -> i+1 is plausible.
    spike = np.zeros(track.n, dtype=bool)
    cand = np.flatnonzero(bad & nxt_bad)
    if cand.size:
        km = haversine_km(track.lat[cand - 1], track.lon[cand - 1], track.lat[cand + 1], track.lon[cand + 1])
        dt = np.maximum(track.ts[cand + 1] - track.ts[cand - 1], 1)
        ok = (km <= th.JUMP_MIN_DISTANCE_KM) | (km / dt * 3600.0 / th.KNOT_KM_H <= th.JUMP_SPEED_KN)
        spike[cand[ok]] = True
    return_leg = np.zeros(track.n, dtype=bool)
    return_leg[1:] = spike[:-1]
    jump_rows = np.flatnonzero(bad & ~return_leg)

    # --- on land: clearly on land, reached or left by an implausible jump, away from ports ---
    # The 1 km mask fills lakes (the Great Lakes included), rivers and dredged channels as land, and
    # ships sail there every day: measured on the real tracks, "clearly on land" alone flags 99
    # vessels of US_coastal's 1,185 and 385 of the MarineCadastre extract's, nearly all barges and
    # lakers. A ship cannot sail onto land, so a run of on-land reports is reported only when the
    # ship got there (or left) by an implausible jump; runs entered by plausible movement are taken
    # as inland waters the mask cannot see. Runs within ON_LAND_PORT_EXEMPT_KM of a port are left to
    # the jump rule (river ports: the mask cannot tell a channel from land there).
    # Only vessels with at least one implausible step can have such a run: ask about their reports only.
    vessel_of_row = np.cumsum(~track.same) - 1
    jumpy = np.flatnonzero(np.add.reduceat(bad.astype("int64"), track.starts) > 0)
    ask = np.isin(vessel_of_row, jumpy) & ~shared_rows
    land = np.zeros(track.n, dtype=bool)
    if ask.any():
        land[ask] = np.asarray(context.on_land(track.lat[ask], track.lon[ask]), dtype=bool)
    starts, stops = runs(land, ~track.same)
    out_bad = np.zeros(track.n, dtype=bool)
    out_bad[:-1] = bad[1:]
    jumped = bad[starts] | out_bad[stops]
    starts, stops = starts[jumped], stops[jumped]
    if starts.size:
        hits = context.nearest_ports(track.lat[starts], track.lon[starts])
        far = np.array([h is None or h.distance_km > th.ON_LAND_PORT_EXEMPT_KM for h in hits], dtype=bool)
        starts, stops = starts[far], stops[far]
    landed_by_jump: set[int] = set()
    for s, e in zip(starts, stops, strict=True):
        s, e = int(s), int(e)
        jump_in = s if bad[s] else None
        # The jumps into and out of the run are this event's evidence, not separate jump events.
        landed_by_jump.update(i for i in (s, e + 1) if i < track.n and bad[i])
        mmsi = int(track.mmsi[s])
        n_reports = e - s + 1
        how = (
            f" after a jump of {track.dist_km[s]:.0f} km at an implied {track.step_kn[s]:.0f} kn"
            if jump_in is not None
            else ""
        )
        summary = (
            f"{n_reports} report(s) clearly on land from {rfc3339(track.ts[s])} to {rfc3339(track.ts[e])} "
            f"at {fmt_latlon(track.lat[s], track.lon[s])}{how}."
        )
        evidence: dict[str, object] = {
            "first_at": rfc3339(track.ts[s]),
            "last_at": rfc3339(track.ts[e]),
            "reports": n_reports,
            "first_position": position(track.lat[s], track.lon[s]),
            "last_position": position(track.lat[e], track.lon[e]),
            "duration_hours": hours(track.ts[e] - track.ts[s]),
            "rule": (
                f"land-mask land at the report and at {th.ON_LAND_RING_BEARINGS} points {th.ON_LAND_RING_KM:g} km "
                f"around it, reached or left by an implausible jump, and no catalogued port within "
                f"{th.ON_LAND_PORT_EXEMPT_KM:.1f} km"
            ),
            **_common_evidence(),
        }
        if jump_in is not None:
            evidence["jump_in"] = {
                "from_position": position(track.lat[s - 1], track.lon[s - 1]),
                "from_at": rfc3339(track.ts[s - 1]),
                "distance_km": round(float(track.dist_km[s]), 3),
                "implied_speed_kn": round(float(track.step_kn[s]), 1),
            }
        events.append(
            DetectedEvent(
                kind=EventKind.POSITION_ON_LAND,
                mmsi=mmsi,
                started_at=int(track.ts[s]),
                ended_at=int(track.ts[e]),
                lat=round(float(track.lat[s]), 5),
                lon=round(float(track.lon[s]), 5),
                severity=Severity.HIGH,
                summary=summary,
                evidence=evidence,
            )
        )

    for i in jump_rows.tolist():
        if i in landed_by_jump:
            continue
        is_spike = bool(spike[i])
        back = i + 1 if is_spike else None
        kind_text = "jumped out and straight back" if is_spike else "jumped"
        summary = (
            f"Position {kind_text}: {track.dist_km[i]:.1f} km in {int(track.dt[i])} s "
            f"(implied {track.step_kn[i]:.0f} kn) at {rfc3339(track.ts[i])} "
            f"to {fmt_latlon(track.lat[i], track.lon[i])}."
        )
        evidence = {
            "from_at": rfc3339(track.ts[i - 1]),
            "from_position": position(track.lat[i - 1], track.lon[i - 1]),
            "to_at": rfc3339(track.ts[i]),
            "to_position": position(track.lat[i], track.lon[i]),
            "distance_km": round(float(track.dist_km[i]), 3),
            "seconds": int(track.dt[i]),
            "implied_speed_kn": round(float(track.step_kn[i]), 1),
            "returned": is_spike,
            **_common_evidence(),
        }
        if back is not None:
            evidence["returned_at"] = rfc3339(track.ts[back])
            evidence["returned_position"] = position(track.lat[back], track.lon[back])
        events.append(
            DetectedEvent(
                kind=EventKind.POSITION_JUMP,
                mmsi=int(track.mmsi[i]),
                started_at=int(track.ts[i - 1]),
                ended_at=int(track.ts[back] if back is not None else track.ts[i]),
                lat=round(float(track.lat[i]), 5),
                lon=round(float(track.lon[i]), 5),
                severity=Severity.MEDIUM,
                summary=summary,
                evidence=evidence,
            )
        )
    return events
