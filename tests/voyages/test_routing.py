"""Sea routing over the bundled marine network: distances, passages, closures, via points, antimeridian."""

from __future__ import annotations

import pytest
from global_land_mask import globe

from voyages import routing
from voyages.ports import build_catalogue


@pytest.fixture(scope="module")
def ports():
    catalogue = build_catalogue()
    return catalogue.get_port


@pytest.mark.parametrize(
    ("origin", "destination", "expected_nm"),
    [
        ("NLRTM", "SGSIN", 8300),  # via Suez
        ("CNSHA", "USLAX", 5700),  # trans-Pacific great-circle lane
        ("NLRTM", "USHOU", 5030),  # across the Atlantic, through the Florida Strait
    ],
)
def test_known_distances_are_within_three_percent(ports, origin, destination, expected_nm):
    route = routing.compute_route(ports(origin), ports(destination))
    assert abs(route.distance_nm - expected_nm) / expected_nm < 0.03


def test_rotterdam_singapore_runs_through_suez_and_bab_el_mandeb(ports):
    route = routing.compute_route(ports("NLRTM"), ports("SGSIN"))
    assert {"suez", "babalmandab", "gibraltar"} <= set(route.passages)


def test_closing_suez_reroutes_round_the_cape_and_lengthens_the_voyage(ports):
    open_route = routing.compute_route(ports("NLRTM"), ports("SGSIN"))
    closed = routing.compute_route(ports("NLRTM"), ports("SGSIN"), closed_passages=frozenset({"suez", "northwest"}))
    assert "suez" not in closed.passages
    assert closed.distance_nm > open_route.distance_nm + 2000
    assert min(lat for _, lat in closed.coordinates) < -30  # round the Cape of Good Hope


def test_unknown_passage_names_are_refused():
    with pytest.raises(ValueError, match="unknown passage"):
        routing.compute_route(None, None, closed_passages=frozenset({"kiel"}))


def test_the_line_has_hundreds_of_points_and_no_segment_runs_far_over_land(ports):
    route = routing.compute_route(ports("NLRTM"), ports("SGSIN"))
    assert len(route.coordinates) >= 200
    inland = [p for p in route.coordinates if globe.is_land(p[1], ((p[0] + 180) % 360) - 180)]
    # Canals, rivers and harbour approaches are land to a 1 km mask; the open sea path is not.
    assert len(inland) / len(route.coordinates) < 0.05


def test_a_transpacific_route_is_continuous_across_the_antimeridian(ports):
    route = routing.compute_route(ports("JPYOK"), ports("USSEA"))
    steps = [abs(b[0] - a[0]) for a, b in zip(route.coordinates, route.coordinates[1:], strict=False)]
    assert max(steps) < 5  # no 360-degree jump
    assert any(abs(lon) > 180 for lon, _ in route.coordinates) or any(lon > 170 for lon, _ in route.coordinates)
    assert 4000 < route.distance_nm < 4600


def test_via_points_are_visited_and_reported_where_they_join_the_network(ports):
    direct = routing.compute_route(ports("NLRTM"), ports("USNYC"))
    via = routing.compute_route(ports("NLRTM"), ports("USNYC"), via=[(-25.0, 38.5)])  # near the Azores
    assert via.distance_nm > direct.distance_nm
    ((lon, lat),) = via.via_waypoints
    assert routing.haversine_nm((lon, lat), (-25.0, 38.5)) < routing.MAX_VIA_SNAP_NM


def test_a_via_point_on_land_is_refused_with_its_index(ports):
    with pytest.raises(routing.ViaPointError) as refused:
        routing.compute_route(ports("NLRTM"), ports("USNYC"), via=[(-20.0, 40.0), (2.35, 48.85)])  # Paris
    assert refused.value.index == 1
    assert "on land" in refused.value.message


def test_closures_that_cut_a_sea_off_leave_no_route(ports):
    with pytest.raises(routing.RouteNotFound):
        routing.compute_route(ports("ROCND"), ports("NLRTM"), closed_passages=frozenset({"bosporus", "northwest"}))


def test_the_caspian_is_reached_through_the_volga_don_link_the_network_carries(ports):
    route = routing.compute_route(ports("AZBAK"), ports("NLRTM"))
    assert "bosporus" in route.passages
