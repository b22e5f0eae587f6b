"""STS_MEETING on real tracks: the unmodified days, then real stopped tracks brought together at sea."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from behaviour import thresholds as th
from behaviour.detectors.base import EventKind, Severity
from behaviour.detectors.sts import detect_sts_meetings
from tests.behaviour import real_tracks as rt

DAY = 1593475200  # 2020-06-30T00:00:00Z, US_coastal's day

# US_coastal as it is: four meetings by the rule, verified by looking. Each is two small craft
# moored side by side for hours at an anchorage or marina the port catalogue does not hold
# (Santa Cruz Island; Jupiter, Florida, twice; Madeline Island, Lake Superior). Buoys and other
# non-ship MMSIs near a research vessel off Cape Hatteras are excluded by the ship-MMSI rule.
US_COASTAL_MEETINGS = {
    (338140283, 338140285, "2020-06-30T15:18:55Z", "2020-06-30T19:48:33Z"),
    (338184299, 368056880, "2020-06-30T14:23:10Z", "2020-06-30T18:57:45Z"),
    (338184299, 368056880, "2020-06-30T19:43:40Z", "2020-06-30T22:36:09Z"),
    (338333789, 367527870, "2020-06-30T14:49:40Z", "2020-06-30T17:49:39Z"),
}

# Open water in the Gulf of Mexico, > 250 km from any catalogued port, outside every high-risk area.
OFFSHORE = (26.0, -88.0)


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


@pytest.fixture(scope="module")
def segments():
    """Real stopped stretches of >= 3 h (US_coastal and the NY week; <= 0.2 kn between reports), as
    (frame, mmsi, t0, t1)."""
    out = []
    for frame in (rt.us_coastal(), rt.ny_week()):
        out.extend((frame, m, a, b) for m, a, b in rt.slow_segments(frame, hours=3.0, max_kn=0.2))
    return out


def meeting(
    segments,
    i: int,
    j: int,
    mmsi_a: int,
    mmsi_b: int,
    t0: int,
    lat: float,
    lon: float,
    hours: float = 3.0,
    offset_km: float = 0.1,
) -> pd.DataFrame:
    """Segments i and j (each a real stopped ship) moved to (lat, lon) at t0, `offset_km` apart, for `hours`."""
    fa, ma, a0, _ = segments[i]
    fb, mb, b0, _ = segments[j]
    seconds = int(hours * 3600)
    a = rt.move_segment(fa, ma, a0, a0 + seconds, mmsi_a, t0, lat, lon)
    b = rt.move_segment(fb, mb, b0, b0 + seconds, mmsi_b, t0, lat + offset_km / 111.2, lon)
    return pd.concat([a, b], ignore_index=True)


def with_rows(frame: pd.DataFrame, *extra: pd.DataFrame) -> pd.DataFrame:
    return rt.sort_positions(pd.concat([frame, *extra], ignore_index=True))


def pairs(events):
    return {
        (e.mmsi, e.other_mmsi, e.evidence["started_at"], e.evidence["ended_at"])
        for e in events
        if e.mmsi < e.other_mmsi
    }


def test_unmodified_real_tracks_give_the_verified_baseline(ctx):
    us = detect_sts_meetings(rt.us_coastal(), rt.empty_statics(), ctx)
    assert pairs(us) == US_COASTAL_MEETINGS
    assert len(us) == 2 * len(US_COASTAL_MEETINGS)  # one event per vessel, each naming the other
    # NY Harbor: hundreds of ships alongside one another, all within 10 km of a port.
    assert detect_sts_meetings(rt.ny_week(), rt.empty_statics(), ctx) == []


def test_two_real_stopped_tracks_brought_together_for_3_hours_are_found_exactly(ctx, segments):
    us = rt.us_coastal()
    t0 = DAY + 6 * 3600
    built = meeting(segments, 0, 1, 636099001, 636099002, t0, *OFFSHORE)
    found = rt.new_events(
        detect_sts_meetings(us, rt.empty_statics(), ctx),
        detect_sts_meetings(with_rows(us, built), rt.empty_statics(), ctx),
    )
    assert sorted((e.kind, e.mmsi, e.other_mmsi) for e in found) == [
        (EventKind.STS_MEETING, 636099001, 636099002),
        (EventKind.STS_MEETING, 636099002, 636099001),
    ]
    for e in found:
        assert abs(e.started_at - t0) <= th.STS_SLOT_SECONDS
        assert abs(e.ended_at - (t0 + 3 * 3600)) <= th.STS_SLOT_SECONDS
        assert e.severity == Severity.MEDIUM
        assert abs(e.lat - OFFSHORE[0]) < 0.05 and abs(e.lon - OFFSHORE[1]) < 0.05
        assert e.evidence["min_distance_m"] <= 500
        assert e.evidence["nearest_port"] is None
        assert e.evidence["thresholds"]["STS_MIN_HOURS"] == th.STS_MIN_HOURS
        assert f"Met MMSI {e.other_mmsi}" in e.summary


@pytest.mark.parametrize(
    ("hours", "offset_km", "why"),
    [(1.5, 0.2, "shorter than 2 h"), (3.0, 2.0, "2 km apart")],
)
def test_meetings_short_or_apart_are_not_found(ctx, segments, hours, offset_km, why):
    us = rt.us_coastal()
    built = meeting(segments, 0, 1, 636099001, 636099002, DAY + 6 * 3600, *OFFSHORE, hours=hours, offset_km=offset_km)
    assert (
        rt.new_events(
            detect_sts_meetings(us, rt.empty_statics(), ctx),
            detect_sts_meetings(with_rows(us, built), rt.empty_statics(), ctx),
        )
        == []
    ), why


def test_a_meeting_near_a_port_is_not_an_encounter_and_one_in_a_hub_is_high(segments):
    built = meeting(segments, 0, 1, 636099001, 636099002, DAY + 6 * 3600, *OFFSHORE)
    near_port = rt.FakeContext(ports=[("XXPRT", "Test port", "XX", OFFSHORE[0] + 0.05, OFFSHORE[1], False)])
    assert detect_sts_meetings(built, rt.empty_statics(), near_port) == []  # 5.6 km from the port
    hub = rt.FakeContext(areas=[("STS hub: test", OFFSHORE[0], OFFSHORE[1], 20.0)])
    events = detect_sts_meetings(built, rt.empty_statics(), hub)
    assert [e.severity for e in events] == [Severity.HIGH, Severity.HIGH]
    assert all(e.evidence["high_risk_area"] == "STS hub: test" for e in events)


def test_recall_over_20_constructed_meetings(ctx, segments):
    """20 meetings built from 40 different real stopped stretches (seed 31), at 20 offshore points, the
    second ship placed 100 m from the first. Real stopped ships still drift and swing at anchor, so
    a built pair can drift beyond 500 m: such a pair is no meeting by the definition, and a miss."""
    rng = np.random.default_rng(31)
    order = rng.permutation(len(segments))[:40]
    assert len(order) == 40
    us = rt.us_coastal()
    built, expected = [], {}
    for k in range(20):
        a, b = 636098000 + 2 * k, 636098001 + 2 * k
        t0 = DAY + int(rng.integers(0, 18 * 3600))
        lat, lon = 25.0 + 0.5 * (k % 5), -92.0 + 1.0 * (k // 5)  # a grid of open-water points, 50+ km apart
        built.append(meeting(segments, int(order[2 * k]), int(order[2 * k + 1]), a, b, t0, lat, lon))
        expected[(a, b)] = t0
    found = rt.new_events(
        detect_sts_meetings(us, rt.empty_statics(), ctx),
        detect_sts_meetings(with_rows(us, *built), rt.empty_statics(), ctx),
    )
    hits = {
        (e.mmsi, e.other_mmsi)
        for e in found
        if (e.mmsi, e.other_mmsi) in expected
        and abs(e.started_at - expected[(e.mmsi, e.other_mmsi)]) <= th.STS_SLOT_SECONDS
    }
    false_positives = [e for e in found if e.mmsi < e.other_mmsi and (e.mmsi, e.other_mmsi) not in hits]
    print(f"STS meetings: recall {len(hits)}/20, false positives {len(false_positives)}")
    assert false_positives == []
    assert len(hits) >= 18
