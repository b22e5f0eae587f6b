"""POSITION_JUMP, POSITION_ON_LAND and SHARED_MMSI on real tracks: the unmodified days (with their
genuine receiver errors and shared MMSIs), then jumps, inland positions and shared MMSIs built in."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from behaviour import thresholds as th
from behaviour.detectors.base import EventKind
from behaviour.detectors.common import Track, destination, rfc3339
from behaviour.detectors.spoofing import detect_spoofing
from tests.behaviour import real_tracks as rt

# US_coastal's shared MMSIs, verified by looking at each split: two tracks, each plausible on its
# own, interleaved in time, 1-10 nm apart (tugs and barges or harbour craft sharing one MMSI;
# 368134280 is two stationary vessels 10 nm apart on the Illinois Waterway, 299 alternations).
US_COASTAL_SHARED = {
    316039006,
    366760710,
    366857070,
    366983530,
    367104080,
    367199310,
    367323360,
    367477280,
    367580930,
    367639990,
    368134280,
}
US_COASTAL_JUMPS = 116  # real receiver errors: spikes of 2-20 km out and back, many at 12:51 UTC in the Gulf
NY_WEEK_JUMPS = [
    (338029926, "2020-12-05T23:27:38Z"),
    (338029926, "2020-12-06T23:14:57Z"),
    (338029926, "2020-12-06T23:16:26Z"),
]
CADASTRE_JUMPS = 37

# Inland, > 40 nm from any catalogued port: the Mojave desert, 200 km from Los Angeles.
INLAND = (35.0, -116.5)


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


@pytest.fixture(scope="module")
def us_base(ctx):
    return detect_spoofing(rt.us_coastal(), rt.empty_statics(), ctx)


def quiet_vessels(frame: pd.DataFrame, events, min_reports: int = 100) -> list[int]:
    """Vessels with no spoofing event in the baseline and at least `min_reports` reports."""
    flagged = {e.mmsi for e in events}
    counts = frame.groupby("mmsi").size()
    return [int(m) for m in counts[counts >= min_reports].index if m not in flagged]


def spike_rows(frame: pd.DataFrame, mmsi: int) -> np.ndarray:
    """Rows of `mmsi` with neighbours <= 5 min either side (a displaced report there is implausible)."""
    t = Track(frame)
    rows = np.flatnonzero(t.mmsi == mmsi)
    inner = rows[1:-1]
    return inner[(t.dt[inner] <= 300) & (t.dt[inner + 1] <= 300) & t.same[inner + 1]]


def test_unmodified_real_tracks_give_the_verified_baseline(ctx, us_base):
    kinds = Counter(e.kind for e in us_base)
    assert {e.mmsi for e in us_base if e.kind == EventKind.SHARED_MMSI} == US_COASTAL_SHARED
    assert kinds[EventKind.POSITION_JUMP] == US_COASTAL_JUMPS
    # The on-land rule measured on real data: lakes, rivers and channels the 1 km mask fills as land
    # ("clearly on land" alone flags 99 US_coastal vessels, mostly Great Lakes and Mississippi traffic)
    # give no POSITION_ON_LAND.
    assert kinds[EventKind.POSITION_ON_LAND] == 0
    ny = detect_spoofing(rt.ny_week(), rt.empty_statics(), ctx)
    assert [(e.mmsi, e.evidence["to_at"]) for e in ny] == NY_WEEK_JUMPS
    positions, statics = rt.ny_hour()
    assert detect_spoofing(positions, statics, ctx) == []


@pytest.mark.shared_data
def test_marinecadastre_extract_baseline(ctx):
    positions, statics = rt.shared_cadastre()
    events = detect_spoofing(positions, statics, ctx)
    assert Counter(e.kind for e in events) == Counter({EventKind.POSITION_JUMP: CADASTRE_JUMPS})


def test_an_inserted_jump_is_found_exactly(ctx, us_base):
    us = rt.us_coastal()
    mmsi = 367120020  # under way off Long Island, no spoofing event of its own
    row = int(spike_rows(us, mmsi)[40])
    modified = us.copy()
    lat, lon = destination(float(us.at[row, "lat"]), float(us.at[row, "lon"]), np.array([135.0]), 30.0)  # seaward
    modified.loc[row, ["lat", "lon"]] = [float(lat[0]), float(lon[0])]
    found = rt.new_events(us_base, detect_spoofing(modified, rt.empty_statics(), ctx))
    assert [(e.kind, e.mmsi, e.started_at, e.ended_at) for e in found] == [
        (EventKind.POSITION_JUMP, mmsi, int(us.at[row - 1, "ts"]), int(us.at[row + 1, "ts"]))
    ]
    event = found[0]
    assert event.evidence["returned"] is True
    assert event.evidence["to_position"] == {"lat": round(float(lat[0]), 5), "lon": round(float(lon[0]), 5)}
    assert 29.5 < event.evidence["distance_km"] < 31
    assert event.evidence["implied_speed_kn"] > th.JUMP_SPEED_KN


def test_a_track_that_jumps_and_stays_is_one_jump(ctx, us_base):
    us = rt.us_coastal()
    mmsi = 367120020
    row = int(spike_rows(us, mmsi)[40])
    modified = us.copy()
    later = (modified["mmsi"] == mmsi) & (modified.index >= row)
    modified.loc[later, "lat"] = modified.loc[later, "lat"] - 0.4  # 44 km south, still at sea
    found = rt.new_events(us_base, detect_spoofing(modified, rt.empty_statics(), ctx))
    assert [(e.kind, e.mmsi, e.started_at) for e in found] == [
        (EventKind.POSITION_JUMP, mmsi, int(us.at[row - 1, "ts"]))
    ]
    assert found[0].evidence["returned"] is False


def test_a_position_inland_is_on_land_not_also_a_jump(ctx, us_base):
    us = rt.us_coastal()
    mmsi = 367120020
    row = int(spike_rows(us, mmsi)[40])
    modified = us.copy()
    modified.loc[row, ["lat", "lon"]] = list(INLAND)
    found = rt.new_events(us_base, detect_spoofing(modified, rt.empty_statics(), ctx))
    assert [(e.kind, e.mmsi, e.started_at, e.ended_at) for e in found] == [
        (EventKind.POSITION_ON_LAND, mmsi, int(us.at[row, "ts"]), int(us.at[row, "ts"]))
    ]
    assert found[0].evidence["first_position"] == {"lat": INLAND[0], "lon": INLAND[1]}
    assert found[0].evidence["jump_in"]["implied_speed_kn"] > th.JUMP_SPEED_KN


def test_two_real_ships_on_one_mmsi_are_one_shared_mmsi(ctx, us_base):
    us = rt.us_coastal()
    a = 367120020  # off Long Island from 01:27 to 22:08
    # b: a quiet Pacific-coast vessel heard over the same hours (the first by MMSI).
    quiet = set(quiet_vessels(us, us_base))
    spans = us.groupby("mmsi").agg(first=("ts", "min"), last=("ts", "max"), lon=("lon", "median"))
    west = spans[
        (spans["lon"] < -115) & (spans["first"] <= 1593475200 + 3 * 3600) & (spans["last"] >= 1593475200 + 20 * 3600)
    ]
    b = next(int(m) for m in west.index if int(m) in quiet)
    modified = us.copy()
    modified.loc[modified["mmsi"] == b, "mmsi"] = a
    modified = rt.sort_positions(modified)
    found = detect_spoofing(modified, rt.empty_statics(), ctx)
    mine = [e for e in found if e.mmsi == a]
    assert [e.kind for e in mine] == [EventKind.SHARED_MMSI]
    evidence = mine[0].evidence
    assert sorted(t["reports"] for t in evidence["tracks"]) == sorted(
        [int((us["mmsi"] == a).sum()), int((us["mmsi"] == b).sum())]
    )
    assert evidence["median_distance_between_tracks_nm"] > 1000
    # Everything else is unchanged (b's own baseline jumps now belong to the shared MMSI).
    others = [e for e in found if e.mmsi not in (a, b)]
    assert len(others) == len([e for e in us_base if e.mmsi not in (a, b)])


def test_recall_over_20_inserted_jumps_and_20_shared_mmsis(ctx, us_base):
    us = rt.us_coastal()
    rng = np.random.default_rng(31)
    quiet = quiet_vessels(us, us_base)
    # 20 spikes: one report of each of 20 quiet vessels moved 20-100 km in a random direction.
    modified = us.copy()
    expected = {}
    for mmsi in rng.permutation(quiet):
        rows = spike_rows(us, int(mmsi))
        if len(rows) < 3 or len(expected) == 20:
            continue
        row = int(rows[rng.integers(len(rows))])
        lat, lon = destination(
            float(us.at[row, "lat"]),
            float(us.at[row, "lon"]),
            np.array([rng.uniform(0, 360)]),
            float(rng.uniform(20, 100)),
        )
        modified.loc[row, ["lat", "lon"]] = [float(lat[0]), float(np.clip(lon[0], -180, 180))]
        expected[int(mmsi)] = int(us.at[row, "ts"])
    found = rt.new_events(us_base, detect_spoofing(modified, rt.empty_statics(), ctx))

    def at_spike(e) -> bool:
        if e.kind == EventKind.POSITION_ON_LAND:
            return e.started_at == expected[e.mmsi]
        return e.kind == EventKind.POSITION_JUMP and e.evidence["to_at"] == rfc3339(expected[e.mmsi])

    hits = {e.mmsi for e in found if e.mmsi in expected and at_spike(e)}
    false_positives = [e for e in found if e.mmsi not in hits]
    print(f"position jumps (incl. on land): recall {len(hits)}/20, false positives {len(false_positives)}")
    assert false_positives == []
    assert len(hits) >= 19

    # 20 shared MMSIs: 40 quiet vessels with long, overlapping days, paired and given one MMSI.
    t = Track(us)
    ends = np.append(t.starts[1:], t.n) - 1
    spans = pd.DataFrame({"mmsi": t.mmsi[t.starts], "first": t.ts[t.starts], "last": t.ts[ends]})
    day = 1593475200
    long_days = spans[(spans["first"] <= day + 8 * 3600) & (spans["last"] >= day + 16 * 3600)]
    pool = [m for m in rng.permutation(long_days["mmsi"].to_numpy()) if int(m) in set(quiet)][:40]
    assert len(pool) == 40
    shared = us.copy()
    pairs = {}
    for k in range(20):
        a, b = int(pool[2 * k]), int(pool[2 * k + 1])
        shared.loc[shared["mmsi"] == b, "mmsi"] = a
        pairs[a] = b
    shared = rt.sort_positions(shared)
    events = detect_spoofing(shared, rt.empty_statics(), ctx)
    base_keys = {(e.kind, e.mmsi, e.started_at) for e in us_base}
    new = [e for e in events if (e.kind, e.mmsi, e.started_at) not in base_keys]
    hits_shared = {e.mmsi for e in new if e.kind == EventKind.SHARED_MMSI and e.mmsi in pairs}
    false_shared = [e for e in new if e.mmsi not in pairs]
    missed = sorted(set(pairs) - hits_shared)
    print(f"shared MMSIs: recall {len(hits_shared)}/20, false positives {len(false_shared)}, missed {missed}")
    assert false_shared == []
    assert len(hits_shared) >= 16
