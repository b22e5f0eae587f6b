"""Risk layers on routes given as coordinates: geometry, listed areas, EEZ, piracy, weather, scoring."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from voyages.layers import geo
from voyages.layers.eez import EezLayer
from voyages.layers.piracy import PiracyLayer, parse_asam_csv, parse_asam_position, parse_imb_csv
from voyages.layers.weather import climatology_signal, fetch_forecast
from voyages.layers_state import LayerSet
from voyages.scoring import assess_route_risk, risk_level_for

NORTH_SEA = [(4.0, 52.0), (5.0, 53.0), (6.5, 53.8), (8.0, 54.0)]
GULF_OF_ADEN = [(46.5, 12.3), (48.0, 12.8), (50.0, 13.0), (52.0, 12.5)]
PACIFIC = [(170.0, 40.0), (175.0, 41.0), (180.5, 42.0), (190.0, 43.0)]  # unwrapped past 180


def route(coords, origin="", dest=""):
    from voyages.routing import densify, haversine_nm

    points = densify(coords)
    distance = sum(haversine_nm(a, b) for a, b in zip(points, points[1:], strict=False))
    return geo.RouteInput(coordinates=points, distance_nm=distance, origin_country=origin, dest_country=dest)


@pytest.fixture(scope="module")
def layers():
    return LayerSet(
        version=None,
        piracy=PiracyLayer([]),
        piracy_loaded_at=None,
        piracy_latest_event_at=None,
        eez=EezLayer.from_ports(),
        eez_loaded_at=None,
        indicators={},
    )


def test_a_route_across_the_antimeridian_splits_into_pieces_inside_the_map():
    pieces = geo.split_at_antimeridian(PACIFIC)
    assert len(pieces) == 2
    for piece in pieces:
        assert all(-180 <= lon <= 180 for lon, _ in piece.coords)


def test_fractions_stay_between_zero_and_one_across_the_antimeridian(layers):
    result = assess_route_risk(route(PACIFIC), as_of=datetime(2026, 7, 1, tzinfo=UTC), layers=layers, forecast=None)
    assert result.jwc_intersected_areas == []
    assert all(0 <= row["route_fraction"] <= 1 for row in result.eez_transit)


def test_drivers_weights_sum_to_100_and_the_unfloored_score_reproduces(layers):
    result = assess_route_risk(
        route(NORTH_SEA, "NL", "DE"), as_of=datetime(2026, 7, 1, tzinfo=UTC), layers=layers, forecast=None
    )
    assert result.score_floor is None
    assert sum(d["weight_pct"] for d in result.drivers) == 100
    assert result.score == round(sum(d["weight_pct"] * d["signal_score"] for d in result.drivers) / 100)
    assert sorted(d["relative_rank"] for d in result.drivers) == [1, 2, 3, 4, 5]
    assert "weather_forecast" in result.missing_sources and result.confidence < 1


def test_the_gulf_of_aden_is_a_listed_area_with_piracy_above_the_north_sea(layers):
    aden = assess_route_risk(route(GULF_OF_ADEN), as_of=datetime(2026, 7, 1, tzinfo=UTC), layers=layers, forecast=None)
    sea = assess_route_risk(route(NORTH_SEA), as_of=datetime(2026, 7, 1, tzinfo=UTC), layers=layers, forecast=None)
    piracy = {r: next(d for d in x.drivers if d["source"] == "piracy") for r, x in (("aden", aden), ("sea", sea))}
    assert piracy["aden"]["signal_score"] > piracy["sea"]["signal_score"]
    assert any(a["id"] == "jwla-gulf-of-aden-somalia" for a in aden.jwc_intersected_areas)
    assert aden.score >= 60  # the listed-area floor, or a weighted score above it


def test_a_loaded_incident_file_drives_piracy_by_events_near_the_route(shared_data):
    incidents = parse_imb_csv((shared_data / "piracy" / "pirate-attacks-1993-2020.csv").read_bytes())
    layer = PiracyLayer(incidents)
    aden_signal, aden_events, _ = layer.assess(route(GULF_OF_ADEN))
    sea_signal, sea_events, _ = layer.assess(route(NORTH_SEA))
    assert aden_events > 50 and sea_events == 0
    assert aden_signal > sea_signal


def test_asam_positions_parse_from_degree_minute_text(shared_data):
    assert parse_asam_position("13°43'00\"N \n121°02'00\"E") == pytest.approx((121.0333, 13.7167), abs=1e-3)
    incidents = parse_asam_csv((shared_data / "piracy" / "asam-to-2022-04.csv").read_bytes())
    assert len(incidents) >= 8500
    assert max(i.day for i in incidents).isoformat() == "2022-04-28"


def test_imb_file_parses_every_row(shared_data):
    assert len(parse_imb_csv((shared_data / "piracy" / "pirate-attacks-1993-2020.csv").read_bytes())) == 7511


def test_the_typhoon_season_raises_the_weather_signal():
    south_china_sea = route([(110.0, 15.0), (120.0, 20.0), (130.0, 25.0)])
    assert climatology_signal(south_china_sea, 9)[0] > climatology_signal(south_china_sea, 2)[0]


class _Slow(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        time.sleep(1.5)
        self.send_response(200)
        self.end_headers()


def test_an_unanswering_forecast_service_is_missing_not_evidence(settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = True  # the forecast service here is served on 127.0.0.1
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert fetch_forecast(route(NORTH_SEA), 0.3, f"http://127.0.0.1:{server.server_address[1]}/") is None
    finally:
        server.shutdown()
    assert fetch_forecast(route(NORTH_SEA), 0.3, "") is None


def test_risk_levels_are_banded():
    assert [risk_level_for(s) for s in (0, 19, 20, 59, 60, 80, 100)] == [
        "low",
        "low",
        "moderate",
        "elevated",
        "high",
        "severe",
        "severe",
    ]


def test_crossing_a_listed_area_without_hostilities_floors_at_listed_area_transit(layers):
    off_venezuela = route([(-68.0, 12.5), (-66.0, 11.4), (-64.0, 12.2)], "CW", "GD")
    result = assess_route_risk(off_venezuela, as_of=datetime(2026, 3, 1, tzinfo=UTC), layers=layers, forecast=None)
    assert result.score_floor["basis"] == "listed_area_transit"
    assert result.score == 60 and result.score_floor["weighted_score"] < 60
    assert next(d for d in result.drivers if d["source"] == "jwc_listed_areas")["sets_floor"] is True


def test_a_port_call_in_a_named_country_floors_at_70(layers):
    from_tripoli = route([(13.19, 32.9), (13.5, 33.6), (14.5, 35.8)], "LY", "MT")
    result = assess_route_risk(from_tripoli, as_of=datetime(2026, 3, 1, tzinfo=UTC), layers=layers, forecast=None)
    assert result.score_floor["basis"] == "named_country_port_call"
    assert result.score == 70


# JWC listed areas: the published boundary coordinates of the circular (voyages/layers/jwc.py).

LISTED_BY_THE_CIRCULAR = {
    "Black Sea north of the JWLA-032 line, south of 44°N": ((35.0, 43.6), "jwla-ukraine-russia-black-sea"),
    "Arabian Sea west of the 10°48'N 60°15'E - 6°45'S 48°45'E line": ((59.0, 10.0), "jwla-gulf-of-aden-somalia"),
    "Somali basin south of 2°S": ((47.0, -4.5), "jwla-gulf-of-aden-somalia"),
    "Gulf of Oman east of 58°E, west of the Cape al-Hadd line": ((59.0, 24.0), "jwla-persian-gulf"),
    "Gulf of Guinea south of 3°N, north of 0°40'S": ((5.0, 1.0), "jwla-gulf-of-guinea"),
    "Red Sea at 17°N": ((40.0, 17.0), "jwla-southern-red-sea-yemen"),
    "Cabo Delgado territorial sea": ((40.6, -11.0), "jwla-cabo-delgado"),
    # Named countries of JWLA-032 whose 12 nm bands are drawn by us.
    "off Gwadar, within Pakistan's 12 nm": ((62.3, 25.0), "jwla-pakistan"),
    "Karachi approaches": ((66.9, 24.75), "jwla-pakistan"),
    "off Beirut, within Lebanon's 12 nm": ((35.45, 33.92), "jwla-lebanon"),
    "off Tripoli (Lebanon)": ((35.75, 34.48), "jwla-lebanon"),
}
NOT_LISTED_BY_THE_CIRCULAR = {
    "Romanian waters off Constanta": (28.9, 44.17),
    "Arabian Sea north-east of the 14°55'N 53°50'E - 10°48'N 60°15'E line": (57.0, 14.5),
    "Red Sea north of 18°N off Jeddah": (39.0, 21.5),
    "Arabian Sea 60 nm off Pakistan, east of the Iran-Pakistan border": (62.3, 24.0),
    "Eastern Mediterranean 40 nm off Beirut": (34.7, 34.0),
    "off Mumbai": (72.7, 18.9),
}


@pytest.mark.parametrize("place", sorted(LISTED_BY_THE_CIRCULAR))
def test_waters_inside_the_circulars_boundaries_are_in_their_listed_area(place):
    from shapely import Point

    from voyages.layers.jwc import LISTED_AREAS

    point, area_id = LISTED_BY_THE_CIRCULAR[place]
    assert [a.id for a in LISTED_AREAS if a.polygon.contains(Point(point))] == [area_id]


@pytest.mark.parametrize("place", sorted(NOT_LISTED_BY_THE_CIRCULAR))
def test_waters_outside_the_circulars_boundaries_are_in_no_listed_area(place):
    from shapely import Point

    from voyages.layers.jwc import LISTED_AREAS

    assert not [a.id for a in LISTED_AREAS if a.polygon.contains(Point(NOT_LISTED_BY_THE_CIRCULAR[place]))]


def test_the_published_points_are_written_as_printed_and_lie_on_the_area_boundaries():
    from shapely import Point

    from voyages.layers import jwc

    # 45°10.858'N 29°45.929'E, the Ukraine-Romania border point, and 10°48'N 60°15'E.
    assert jwc.BLACK_SEA_LINE[0] == pytest.approx((29 + 45.929 / 60, 45 + 10.858 / 60))
    assert (60.25, 10.8) in [pytest.approx(p) for p in jwc.INDIAN_OCEAN_LINE]
    with_points = [a for a in jwc.LISTED_AREAS if a.published_points]
    assert {a.id for a in with_points} >= {
        "jwla-ukraine-russia-black-sea",
        "jwla-gulf-of-aden-somalia",
        "jwla-persian-gulf",
        "jwla-gulf-of-guinea",
        "jwla-cabo-delgado",
    }
    for area in with_points:
        for point in area.published_points:
            assert area.polygon.boundary.distance(Point(point)) < 1e-6, (area.id, point)
        assert area.polygon.is_valid


def test_the_edition_is_named_with_its_date():
    from voyages.layers import jwc

    assert "JWLA-032" in jwc.EDITION and "18 December 2023" in jwc.EDITION
    assert jwc.EDITION_DATE == "2023-12-18"
    # The 3 March 2026 revision is known only from reports (no coordinates): named as not applied.
    date, summary = jwc.LATER_REVISION_NOT_APPLIED
    assert date > jwc.EDITION_DATE and "not published" in summary


def test_the_named_countries_of_the_circular_are_all_listed_for_port_calls():
    from voyages.layers import jwc

    # JWLA-032's named countries with coasts a route can call at (Guyana, offshore only, is not modelled).
    assert {"UA", "YE", "ER", "IL", "LB", "SO", "IR", "LY", "SY", "SD", "PK", "VE", "NG", "BJ", "TG"} <= set(
        jwc.FULLY_LISTED_COUNTRIES
    )


def test_a_call_at_karachi_or_beirut_floors_at_the_named_country_port_call(layers):
    from_karachi = route([(66.98, 24.8), (66.0, 23.5), (63.0, 22.0)], "PK", "OM")
    to_beirut = route([(33.0, 34.6), (34.5, 34.2), (35.5, 33.9)], "CY", "LB")
    for call in (from_karachi, to_beirut):
        result = assess_route_risk(call, as_of=datetime(2026, 3, 1, tzinfo=UTC), layers=layers, forecast=None)
        assert result.score_floor["basis"] == "named_country_port_call"
        assert result.score >= 70


def test_a_black_sea_crossing_south_of_44n_counts_its_share_in_the_listed_area(layers):
    crossing = route([(29.0, 43.9), (33.0, 43.6), (38.5, 43.6)], "RO", "RU")
    result = assess_route_risk(crossing, as_of=datetime(2026, 3, 1, tzinfo=UTC), layers=layers, forecast=None)
    share = {a["id"]: a["route_fraction"] for a in result.jwc_intersected_areas}
    assert 0.6 < share["jwla-ukraine-russia-black-sea"] < 1  # west of 31°20'E the line runs round Romanian waters
    assert result.score_floor["basis"] == "listed_area_active_hostility"
