"""DRAUGHT_CHANGE_AT_SEA on real tracks: the unmodified statics, then draught changes written into
the reports of ships under way at sea, in port, and across a ship-to-ship meeting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from behaviour import thresholds as th
from behaviour.ais.frames import STATIC_DTYPES, conform
from behaviour.detectors.base import DetectedEvent, EventKind, Severity
from behaviour.detectors.common import rfc3339
from behaviour.detectors.draught import detect_draught_changes
from behaviour.detectors.port_calls import detect_port_calls
from behaviour.detectors.sts import detect_sts_meetings
from tests.behaviour import real_tracks as rt

DAY = 1593475200  # 2020-06-30T00:00:00Z
AT_SEA = 367120020  # under way off Long Island, 01:27-09:02 and 20:47-22:08


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


def statics_for(rows: list[tuple[int, int, int, float]]) -> pd.DataFrame:
    """Static reports (mmsi, first heard, last heard, draught) of an otherwise constant identity."""
    frame = pd.DataFrame(
        {
            "mmsi": [r[0] for r in rows],
            "ts": [r[1] for r in rows],
            "ts_last": [r[2] for r in rows],
            "imo": 0,
            "name": "TEST TANKER",
            "callsign": "",
            "ship_type": 80,
            "draught": [r[3] for r in rows],
            "destination": "",
            "reports": 5,
        }
    ).sort_values(["mmsi", "ts"], kind="stable")
    return conform(frame.reset_index(drop=True), STATIC_DTYPES)


def test_unmodified_real_statics(ctx):
    positions, statics = rt.ny_hour()
    calls = detect_port_calls(positions, statics, ctx)
    assert detect_draught_changes(positions, statics, ctx, port_calls=calls) == []


@pytest.mark.shared_data
def test_unmodified_marinecadastre_extract(ctx):
    positions, statics = rt.shared_cadastre()
    calls = detect_port_calls(positions, statics, ctx)
    events = detect_draught_changes(positions, statics, ctx, port_calls=calls)
    # SEALAND ILLINOIS, 12.2 m -> 14.0 m at 00:15 off Georges Bank, verified by looking. (Two other
    # changes are not events: CHEMICAL ATLANTIK's at a Houston berth, and GARDEN STATE's two values
    # heard alternately, from two installations.)
    assert [(e.mmsi, e.evidence["draught_before_m"], e.evidence["draught_after_m"]) for e in events] == [
        (477318700, 12.2, 14.0)
    ]


def test_a_draught_change_at_sea_is_found_exactly(ctx):
    us = rt.us_coastal()
    t1, t2 = DAY + 3 * 3600, DAY + 5 * 3600
    statics = statics_for([(AT_SEA, DAY + 3600, t1, 9.0), (AT_SEA, t2, DAY + 8 * 3600, 11.5)])
    events = detect_draught_changes(us, statics, ctx, port_calls=detect_port_calls(us, statics, ctx))
    assert [(e.kind, e.mmsi, e.started_at, e.ended_at, e.severity) for e in events] == [
        (EventKind.DRAUGHT_CHANGE_AT_SEA, AT_SEA, t1, t2, Severity.MEDIUM)
    ]
    e = events[0]
    assert (e.evidence["draught_before_m"], e.evidence["draught_after_m"], e.evidence["change_m"]) == (9.0, 11.5, 2.5)
    assert e.evidence["before_last_reported_at"] == rfc3339(t1)
    assert e.evidence["after_first_reported_at"] == rfc3339(t2)
    assert e.evidence["position_after"] == {"lat": e.lat, "lon": e.lon}
    assert e.evidence["sts_meetings_in_window"] == []
    assert "9.0 m to 11.5 m" in e.summary


def test_small_alternating_or_in_port_changes_are_not_events(ctx):
    us = rt.us_coastal()
    t1, t2 = DAY + 3 * 3600, DAY + 5 * 3600
    small = statics_for([(AT_SEA, DAY + 3600, t1, 9.0), (AT_SEA, t2, DAY + 8 * 3600, 9.4)])
    assert detect_draught_changes(us, small, ctx) == []
    # Two values heard alternately (overlapping times): two installations disagreeing.
    alternating = statics_for([(AT_SEA, DAY + 3600, t2, 9.0), (AT_SEA, t1, DAY + 8 * 3600, 11.5)])
    assert detect_draught_changes(us, alternating, ctx) == []
    # A port call between the two reports (or ending within the grace time before): not at sea.
    in_port = DetectedEvent(EventKind.PORT_CALL, AT_SEA, t1 - 4 * 3600, t1 - 3600, 0.0, 0.0, Severity.INFO, "call")
    statics = statics_for([(AT_SEA, DAY + 3600, t1, 9.0), (AT_SEA, t2, DAY + 8 * 3600, 11.5)])
    assert detect_draught_changes(us, statics, ctx, port_calls=[in_port]) == []
    long_ago = DetectedEvent(
        EventKind.PORT_CALL, AT_SEA, t1 - 30 * 3600, t1 - 20 * 3600, 0.0, 0.0, Severity.INFO, "call"
    )
    assert len(detect_draught_changes(us, statics, ctx, port_calls=[long_ago])) == 1


def test_a_real_stop_at_a_port_between_the_reports_suppresses_the_change():
    """The ship's reports between the two draughts replaced by a real 3 h stop at a (fake) port."""
    us = rt.us_coastal()
    t1, t2 = DAY + 3 * 3600, DAY + 8 * 3600
    m, a, _ = rt.slow_segments(rt.ny_week(), hours=3.0, max_kn=0.2)[0]
    stop = rt.move_segment(rt.ny_week(), m, a, a + 3 * 3600, AT_SEA, t1 + 1800, 39.5, -72.5)
    track = us[(us["mmsi"] != AT_SEA) | (us["ts"] < t1) | (us["ts"] > t1 + 5 * 3600)]
    positions = rt.sort_positions(pd.concat([track, stop], ignore_index=True))
    fake = rt.FakeContext(ports=[("XXTST", "Test port", "XX", 39.5, -72.5, False)])
    statics = statics_for([(AT_SEA, DAY + 3600, t1, 9.0), (AT_SEA, t2, DAY + 22 * 3600, 11.5)])
    calls = [e for e in detect_port_calls(positions, statics, fake) if e.mmsi == AT_SEA]
    assert [c.evidence["port"]["locode"] for c in calls] == ["XXTST"]
    assert detect_draught_changes(positions, statics, fake, port_calls=calls) == []
    assert len(detect_draught_changes(positions, statics, fake, port_calls=[])) == 1  # the call is what suppresses it


def test_a_change_across_an_sts_meeting_is_high_and_names_the_other_ship(ctx):
    stops = rt.slow_segments(rt.us_coastal(), hours=3.0, max_kn=0.2) + rt.slow_segments(
        rt.ny_week(), hours=3.0, max_kn=0.2
    )
    frames = {m: f for f in (rt.us_coastal(), rt.ny_week()) for m in f["mmsi"].unique()}
    t0 = DAY + 6 * 3600
    (ma, a0, _), (mb, b0, _) = stops[0], stops[1]
    a = rt.move_segment(frames[ma], ma, a0, a0 + 3 * 3600, 636095001, t0, 26.0, -88.0)
    b = rt.move_segment(frames[mb], mb, b0, b0 + 3 * 3600, 636095002, t0, 26.0 + 0.1 / 111.2, -88.0)
    positions = rt.sort_positions(pd.concat([a, b], ignore_index=True))
    meetings = detect_sts_meetings(positions, rt.empty_statics(), ctx)
    assert len(meetings) == 2
    statics = statics_for([(636095001, t0, t0 + 600, 6.0), (636095001, t0 + 2 * 3600, t0 + 3 * 3600, 12.0)])
    events = detect_draught_changes(positions, statics, ctx, port_calls=[], meetings=meetings)
    assert [(e.mmsi, e.other_mmsi, e.severity) for e in events] == [(636095001, 636095002, Severity.HIGH)]
    assert [m["other_mmsi"] for m in events[0].evidence["sts_meetings_in_window"]] == [636095002]
    assert "after meeting MMSI 636095002" in events[0].summary


def test_recall_over_20_draught_changes_at_sea(ctx):
    """20 US_coastal vessels under way > 10 km from any port at two times 2 h apart (seed 31), each
    given a draught change of 0.5-5 m between those times."""
    us = rt.us_coastal()
    rng = np.random.default_rng(31)
    rows = us.sample(n=4000, random_state=31)
    rows = rows[(rows["ts"] > DAY + 3600) & (rows["ts"] < DAY + 20 * 3600)]
    calls = detect_port_calls(us, rt.empty_statics(), ctx)
    statics_rows, expected = [], {}
    for mmsi, t in rows[["mmsi", "ts"]].itertuples(index=False):
        if mmsi in expected or not 200_000_000 <= mmsi < 800_000_000:
            continue
        track = rt.vessel(us, int(mmsi))
        before = track[(track["ts"] <= t) & (track["ts"] >= t - 600)]
        after = track[(track["ts"] >= t + 7200) & (track["ts"] <= t + 7800)]
        if before.empty or after.empty:
            continue
        lat = np.array([before["lat"].iloc[-1], after["lat"].iloc[0]])
        lon = np.array([before["lon"].iloc[-1], after["lon"].iloc[0]])
        if any(h is not None and h.distance_km <= th.PORT_RADIUS_KM for h in ctx.nearest_ports(lat, lon)):
            continue
        t1, t2 = int(before["ts"].iloc[-1]), int(after["ts"].iloc[0])
        if any(
            c.mmsi == mmsi and c.started_at <= t2 and c.ended_at + th.DRAUGHT_PORT_GRACE_HOURS * 3600 >= t1
            for c in calls
        ):
            continue
        d0 = float(np.round(rng.uniform(4, 12), 1))
        d1 = float(np.round(d0 + rng.choice([-1, 1]) * rng.uniform(0.5, 5), 1))
        statics_rows += [(int(mmsi), t1 - 3600, t1, d0), (int(mmsi), t2, t2 + 3600, d1)]
        expected[int(mmsi)] = (t1, t2)
        if len(expected) == 20:
            break
    assert len(expected) == 20
    events = detect_draught_changes(us, statics_for(statics_rows), ctx, port_calls=calls)
    hits = {e.mmsi for e in events if expected.get(e.mmsi) == (e.started_at, e.ended_at)}
    false_positives = [e for e in events if e.mmsi not in hits]
    print(f"draught changes at sea: recall {len(hits)}/20, false positives {len(false_positives)}")
    assert false_positives == [] and len(hits) == 20
