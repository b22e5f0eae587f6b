"""detect_all: every detector over real tracks, ordering, and the time over a fleet-size day."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from behaviour.detectors.base import EventKind
from behaviour.detectors.run import detect_all
from tests.behaviour import real_tracks as rt


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


def test_detect_all_is_sorted_and_runs_every_detector(ctx):
    events = detect_all(rt.us_coastal(), rt.empty_statics(), ctx)
    keys = [(e.mmsi, e.started_at, str(e.kind)) for e in events]
    assert keys == sorted(keys)
    kinds = Counter(e.kind for e in events)
    assert kinds[EventKind.PORT_CALL] == 194
    assert kinds[EventKind.STS_MEETING] == 8
    assert kinds[EventKind.SHARED_MMSI] == 11
    assert kinds[EventKind.POSITION_JUMP] == 116
    for e in events:
        assert e.summary.endswith(".") and e.evidence["detector_version"]


@pytest.mark.slow
def test_a_day_of_ten_thousand_vessels_takes_under_30_seconds(ctx):
    """US_coastal's day repeated 10 times with shifted MMSIs: 11,850 vessels, 2.36 million reports."""
    positions = rt.synthetic_day(10)
    assert len(positions) > 2_000_000
    start = time.perf_counter()
    events = detect_all(positions, rt.empty_statics(), ctx)
    elapsed = time.perf_counter() - start
    print(f"detect_all over {len(positions):,} reports of {positions['mmsi'].nunique():,} vessels: {elapsed:.1f} s")
    assert events
    assert elapsed <= 30.0


def test_every_event_is_json_ready_with_rfc3339_times_and_rounded_positions(ctx):
    import json
    import math
    import re

    positions, statics = rt.ny_hour()
    frames = [(rt.us_coastal(), rt.empty_statics()), (rt.ny_week(), rt.empty_statics()), (positions, statics)]
    if rt.SHARED_CADASTRE.is_file():
        frames.append(rt.shared_cadastre())
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
    seen = set()
    for p, s in frames:
        for e in detect_all(p, s, ctx):
            seen.add(e.kind)
            text = json.dumps(e.evidence, allow_nan=False)  # plain JSON: no numpy types, no NaN
            assert stamp.search(text), e.kind
            assert math.isfinite(e.lat) and math.isfinite(e.lon)
            assert round(e.lat, 5) == e.lat and round(e.lon, 5) == e.lon
            assert "thresholds" in e.evidence or "rule" in e.evidence
    assert {
        EventKind.PORT_CALL,
        EventKind.STS_MEETING,
        EventKind.DARK_PERIOD,
        EventKind.POSITION_JUMP,
        EventKind.SHARED_MMSI,
    } <= seen
