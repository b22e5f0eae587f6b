"""PORT_CALL on real tracks: the unmodified NY Harbor week, then real stops moved to other ports."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from behaviour import thresholds as th
from behaviour.detectors.base import EventKind, Severity
from behaviour.detectors.common import destination
from behaviour.detectors.port_calls import detect_port_calls
from tests.behaviour import real_tracks as rt

WEEK_START = 1606780800  # 2020-12-01T00:00:00Z


@pytest.fixture(scope="module")
def ctx():
    return rt.real_context()


@pytest.fixture(scope="module")
def stops():
    """Real stopped stretches of >= 3 h in the NY week (<= 0.2 kn between reports)."""
    return rt.slow_segments(rt.ny_week(), hours=3.0, max_kn=0.2)


def stop_at(stops, i: int, mmsi: int, lat: float, lon: float, hours: float = 3.0, t0: int = WEEK_START + 3600):
    m, a, _ = stops[i]
    return rt.move_segment(rt.ny_week(), m, a, a + int(hours * 3600), mmsi, t0, lat, lon)


def port(ctx, locode: str):
    return next(p for p in ctx.ports if p.locode == locode)


def test_unmodified_ny_week(ctx):
    events = detect_port_calls(rt.ny_week(), rt.empty_statics(), ctx)
    # 232 calls by 102 of the 140 vessels, all at ports of the New York area, none sanctioned.
    assert len(events) == 232
    assert len({e.mmsi for e in events}) == 102
    assert {e.severity for e in events} == {Severity.INFO}
    for e in events:
        assert e.ended_at - e.started_at >= th.PORT_MIN_STOP_HOURS * 3600
        assert e.evidence["port"]["distance_km"] <= th.PORT_RADIUS_KM
        assert abs(e.lat - 40.7) < 0.6 and abs(e.lon + 74.0) < 0.6
    assert Counter(e.evidence["port"]["locode"] for e in events).most_common(1) == [("USNYC", 121)]
    # Calls of one vessel never overlap.
    by_vessel: dict[int, list] = {}
    for e in events:
        by_vessel.setdefault(e.mmsi, []).append(e)
    for calls in by_vessel.values():
        calls.sort(key=lambda e: e.started_at)
        assert all(a.ended_at < b.started_at for a, b in zip(calls, calls[1:], strict=False))


@pytest.mark.parametrize(
    ("locode", "severity", "named"),
    [
        ("IRBND", Severity.HIGH, "Iran, sanctioned: US OFAC Iran (comprehensive)"),
        ("UASVP", Severity.HIGH, "US OFAC Crimea region (EO 13685, comprehensive)"),
        ("RUNVS", Severity.HIGH, "EU Russia sectoral"),
        ("NLRTM", Severity.INFO, None),
    ],
)
def test_a_real_stop_moved_to_a_port_is_one_call_named_by_its_sanctions(ctx, stops, locode, severity, named):
    p = port(ctx, locode)
    lat, lon = destination(p.lat, p.lon, np.array([200.0]), 2.0)  # 2 km off the port's position
    built = stop_at(stops, 0, 636097001, float(lat[0]), float(lon[0]))
    events = detect_port_calls(built, rt.empty_statics(), ctx)
    assert [(e.kind, e.mmsi, e.severity, e.evidence["port"]["locode"]) for e in events] == [
        (EventKind.PORT_CALL, 636097001, severity, locode)
    ]
    event = events[0]
    assert abs(event.started_at - (WEEK_START + 3600)) <= 600
    assert abs(event.ended_at - (WEEK_START + 3600 + 3 * 3600)) <= 600
    assert event.evidence["sanctioned"] is (severity == Severity.HIGH)
    if named:
        assert named in event.summary
    else:
        assert "sanction" not in event.summary and "Netherlands" in event.summary
    assert p.name in event.summary


def test_short_stops_and_stops_away_from_ports_are_not_calls(ctx, stops):
    p = port(ctx, "NLRTM")
    near = destination(p.lat, p.lon, np.array([200.0]), 2.0)
    far = destination(p.lat, p.lon, np.array([275.0]), 40.0)  # the North Sea off the Maas
    short = stop_at(stops, 0, 636097001, float(near[0][0]), float(near[1][0]), hours=0.8)
    away = stop_at(stops, 0, 636097002, float(far[0][0]), float(far[1][0]))
    hits = ctx.nearest_ports(np.array([far[0][0]]), np.array([far[1][0]]))
    assert hits[0] is None or hits[0].distance_km > th.PORT_RADIUS_KM
    assert detect_port_calls(pd.concat([short, away], ignore_index=True), rt.empty_statics(), ctx) == []


def test_recall_over_20_real_stops_moved_to_random_ports(ctx, stops):
    """20 real stops (seed 31) moved to 0.5-5 km from 20 random catalogued ports, added to the NY week."""
    rng = np.random.default_rng(31)
    ny = rt.ny_week()
    ports = [ctx.ports[int(i)] for i in rng.permutation(len(ctx.ports))[:20]]
    chosen = rng.permutation(len(stops))[:20]
    built, expected = [], {}
    for k, (p, i) in enumerate(zip(ports, chosen, strict=True)):
        lat, lon = destination(p.lat, p.lon, np.array([rng.uniform(0, 360)]), float(rng.uniform(0.5, 5.0)))
        mmsi = 636096000 + k
        built.append(stop_at(stops, int(i), mmsi, float(lat[0]), float(lon[0])))
        expected[mmsi] = ctx.nearest_ports(lat, lon)[0].locode  # the nearest port may be a neighbour of p
    base = detect_port_calls(ny, rt.empty_statics(), ctx)
    modified = rt.sort_positions(pd.concat([ny, *built], ignore_index=True))
    found = rt.new_events(base, detect_port_calls(modified, rt.empty_statics(), ctx))
    hits = {e.mmsi for e in found if expected.get(e.mmsi) == e.evidence["port"]["locode"]}
    false_positives = [e for e in found if e.mmsi not in hits]
    print(f"port calls: recall {len(hits)}/20, false positives {len(false_positives)}")
    assert false_positives == []
    assert len(hits) >= 19
