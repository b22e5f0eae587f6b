"""DARK_PERIOD on real tracks: the unmodified days, then gaps cut out of under-way tracks."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from behaviour import thresholds as th
from behaviour.detectors.base import EventKind, Severity
from behaviour.detectors.common import Track
from behaviour.detectors.dark import detect_dark_periods
from tests.behaviour import real_tracks as rt

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

# The NY Harbor week as it is: ten gaps of >= 12 h after which the ship reappeared >= 1 nm away,
# verified by looking: harbour tugs and ferries whose last reports were manoeuvres near a berth. Eight
# start and end within 10 km of a catalogued port (LOW); two end farther out (MEDIUM).
NY_WEEK_DARK = {
    (366999422, "2020-12-03T20:34:06Z", "low"),
    (367013070, "2020-12-02T17:52:54Z", "low"),
    (367013070, "2020-12-03T18:47:27Z", "low"),
    (367013070, "2020-12-04T18:27:34Z", "low"),
    (367073680, "2020-12-01T12:01:15Z", "low"),
    (367448070, "2020-12-02T12:02:09Z", "low"),
    (367639070, "2020-12-04T22:13:41Z", "medium"),
    (367669920, "2020-12-04T19:30:30Z", "low"),
    (367798420, "2020-12-05T00:56:53Z", "low"),
    (368111920, "2020-12-02T20:22:09Z", "medium"),
}


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


def cut(frame: pd.DataFrame, mmsi: int, t0: int, seconds: int) -> pd.DataFrame:
    """Remove `mmsi`'s reports in (t0, t0 + seconds): a transmission gap."""
    drop = (frame["mmsi"] == mmsi) & (frame["ts"] > t0) & (frame["ts"] < t0 + seconds)
    return frame[~drop].reset_index(drop=True)


def under_way_starts(frame: pd.DataFrame, gap_s: int, after_s: int) -> pd.DataFrame:
    """Reports at which the ship was under way (implied speed 3-30 kn, at most 5 min since the previous
    report) with at least gap_s + after_s of its track after them and no 12 h gap in the window."""
    t = Track(frame)
    ends = np.append(t.starts[1:], t.n) - 1
    vessel_end = np.repeat(t.ts[ends], np.diff(np.append(t.starts, t.n)))
    ok = t.same & (t.step_kn >= 3) & (t.step_kn <= 30) & (t.dt <= 300) & (vessel_end - t.ts >= gap_s + after_s)
    rows = pd.DataFrame({"mmsi": t.mmsi, "ts": t.ts, "ok": ok})
    big = frame.assign(dt=t.dt)
    big = big[big["dt"] >= th.DARK_GAP_HOURS * 3600]
    keep = []
    for mmsi, ts in rows[rows["ok"]][["mmsi", "ts"]].itertuples(index=False):
        gaps = big[big["mmsi"] == mmsi]["ts"]
        if not ((gaps > ts) & (gaps <= ts + gap_s + after_s)).any():
            keep.append((mmsi, ts))
    return pd.DataFrame(keep, columns=["mmsi", "ts"])


def test_unmodified_real_tracks_give_the_verified_baseline(ctx):
    ny = detect_dark_periods(rt.ny_week(), rt.empty_statics(), ctx)
    assert {(e.mmsi, e.evidence["last_seen_at"], str(e.severity)) for e in ny} == NY_WEEK_DARK
    assert detect_dark_periods(rt.us_coastal(), rt.empty_statics(), ctx) == []
    positions, statics = rt.ny_hour()
    assert detect_dark_periods(positions, statics, ctx) == []


def test_a_14_hour_gap_cut_out_of_an_under_way_track_at_sea_is_found_exactly(ctx):
    us = rt.us_coastal()
    # 367120020 sails off Long Island from 01:27; cut 14 h out of its track at 03:00 UTC.
    mmsi = 367120020
    track = rt.vessel(us, mmsi)
    t0 = int(track["ts"][track["ts"] <= 1593486000].iloc[-1])  # last report at or before 03:00
    modified = cut(us, mmsi, t0, 14 * 3600)
    events = rt.new_events(
        detect_dark_periods(us, rt.empty_statics(), ctx), detect_dark_periods(modified, rt.empty_statics(), ctx)
    )
    assert len(events) == 1
    event = events[0]
    after = int(track["ts"][track["ts"] >= t0 + 14 * 3600].iloc[0])
    assert (event.kind, event.mmsi, event.started_at, event.ended_at) == (EventKind.DARK_PERIOD, mmsi, t0, after)
    assert event.severity == Severity.MEDIUM  # at sea, not in a high-risk area
    assert event.evidence["gap_hours"] >= 14
    assert RFC3339.match(event.evidence["last_seen_at"]) and RFC3339.match(event.evidence["reappeared_at"])
    assert event.evidence["last_position"] == {"lat": round(event.lat, 5), "lon": round(event.lon, 5)}
    assert event.evidence["speed_before_gap_kn"] >= th.DARK_SPEED_BEFORE_KN
    assert event.evidence["thresholds"]["DARK_GAP_HOURS"] == th.DARK_GAP_HOURS
    assert "AIS silent for" in event.summary and event.summary.endswith(".")


def test_a_gap_starting_in_a_high_risk_area_is_high(ctx):
    us = rt.us_coastal()
    mmsi = 367120020
    track = rt.vessel(us, mmsi)
    t0 = int(track["ts"][track["ts"] <= 1593486000].iloc[-1])
    row = track[track["ts"] == t0].iloc[0]
    fake = rt.FakeContext(areas=[("Test listed area", float(row["lat"]), float(row["lon"]), 5.0)])
    events = detect_dark_periods(cut(us, mmsi, t0, 14 * 3600), rt.empty_statics(), fake)
    assert [(e.mmsi, e.severity, e.evidence["high_risk_area_at_start"]) for e in events] == [
        (mmsi, Severity.HIGH, "Test listed area")
    ]
    assert "in Test listed area" in events[0].summary


def test_gaps_below_the_threshold_or_while_moored_are_not_dark(ctx):
    ny = rt.ny_week()
    base = detect_dark_periods(ny, rt.empty_statics(), ctx)
    # An 11 h cut from an under-way report, where the resulting gap stays under DARK_GAP_HOURS.
    tried = 0
    for mmsi, t0 in under_way_starts(ny, 11 * 3600, 1800).itertuples(index=False):
        modified = cut(ny, int(mmsi), int(t0), 11 * 3600)
        track = rt.vessel(modified, int(mmsi))
        if np.diff(track["ts"].to_numpy()).max() >= th.DARK_GAP_HOURS * 3600:
            continue
        assert rt.new_events(base, detect_dark_periods(modified, rt.empty_statics(), ctx)) == []
        tried += 1
        if tried == 3:
            break
    assert tried == 3
    # A moored ship (a real stopped stretch) silent for 13 h, reappearing where it was.
    mmsi2, s0, s1 = rt.slow_segments(ny, hours=14)[0]
    moored = cut(ny, mmsi2, s0 + 60, 13 * 3600)
    assert rt.new_events(base, detect_dark_periods(moored, rt.empty_statics(), ctx)) == []


def test_recall_over_20_gaps_cut_at_random_under_way_points():
    """20 gaps of 14 h cut at random under-way reports of 20 different NY-week vessels (seed 31)."""
    ctx = rt.real_context()
    ny = rt.ny_week()
    gap = 14 * 3600
    candidates = under_way_starts(ny, gap, 1800)
    rng = np.random.default_rng(31)
    vessels = rng.permutation(candidates["mmsi"].unique())[:20]
    assert len(vessels) == 20
    modified = ny
    cuts = {}
    for mmsi in vessels:
        options = candidates[candidates["mmsi"] == mmsi]["ts"].to_numpy()
        t0 = int(options[rng.integers(len(options))])
        cuts[int(mmsi)] = t0
        modified = cut(modified, int(mmsi), t0, gap)
    found = rt.new_events(
        detect_dark_periods(ny, rt.empty_statics(), ctx), detect_dark_periods(modified, rt.empty_statics(), ctx)
    )
    hits = {e.mmsi for e in found if e.mmsi in cuts and e.started_at == cuts[e.mmsi]}
    false_positives = [e for e in found if e.mmsi not in cuts or e.started_at != cuts[e.mmsi]]
    recall = len(hits) / len(cuts)
    print(f"dark periods: recall {len(hits)}/{len(cuts)}, false positives {len(false_positives)}")
    assert false_positives == []
    assert recall >= 0.9
