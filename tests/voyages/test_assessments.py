"""POST/GET /api/v1/voyage-assessments: the 2.10 document, metering, validation and floors."""

from __future__ import annotations

import itertools
import math

import pytest

from metering.models import QuotaCounter

pytestmark = pytest.mark.django_db
_keys = itertools.count()


@pytest.fixture
def key(issue_key):
    return issue_key("test")


@pytest.fixture
def assess(client, keyed):
    def post(raw_key: str, route: dict, **body):
        return client.post(
            "/api/v1/voyage-assessments",
            data={"route": route, **body},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"v{next(_keys)}",
            **keyed(raw_key),
        )

    return post


def test_an_assessment_carries_every_field_of_the_contract(key, assess, client, keyed):
    response = assess(key, {"origin": "NLRTM", "destination": {"locode": "SGSIN"}}, customer_reference="lane-7")
    assert response.status_code == 201
    body = response.json()
    assert body["id"].startswith("vas_") and body["customer_reference"] == "lane-7"
    route = body["route"]
    assert route["origin_locode"] == "NLRTM" and route["dest_locode"] == "SGSIN"
    assert abs(route["distance_nm"] - 8300) / 8300 < 0.03
    geometry = route["geometry"]
    assert geometry["type"] == "Feature" and geometry["geometry"]["type"] == "LineString"
    assert len(geometry["geometry"]["coordinates"]) >= 200
    for name in (
        "score",
        "risk_level",
        "drivers",
        "jwc_intersected_areas",
        "eez_transit",
        "confidence",
        "missing_sources",
        "sources",
        "source_status",
        "methodology_version",
        "assessed_at",
        "expires_at",
        "disclaimer",
    ):
        assert name in body, name
    assert body["methodology_version"] == "voyage_risk_external_v1"
    assert {d["source"] for d in body["drivers"]} == {"jwc_listed_areas", "sanctions", "piracy", "weather", "cii"}
    assert sum(d["weight_pct"] for d in body["drivers"]) == 100
    assert {s["source"] for s in body["sources"]} >= {"sanctions", "piracy", "weather", "cii"}
    cii = next(s for s in body["sources"] if s["source"] == "cii")
    assert cii["basis"] == "unknown" and cii["checked_at"] is None
    assert response["X-Service-Quota-Limit"] == "1000" and response["X-Service-Quota-Remaining"] == "999"
    again = client.get(f"/api/v1/voyage-assessments/{body['id']}", **keyed(key))
    assert again.status_code == 200 and again.content == response.content


def test_the_red_sea_passage_is_floored_for_active_hostilities(key, assess):
    body = assess(key, {"origin": "NLRTM", "destination": "SGSIN"}).json()
    areas = {a["id"]: a for a in body["jwc_intersected_areas"]}
    assert "jwla-southern-red-sea-yemen" in areas
    assert 0 < areas["jwla-southern-red-sea-yemen"]["route_fraction"] < 1
    assert body["score_floor"]["basis"] == "listed_area_active_hostility"
    assert body["score"] == 80 and body["score_floor"]["weighted_score"] < 80
    assert any(d["sets_floor"] for d in body["drivers"] if d["source"] == "jwc_listed_areas")


def test_a_lane_through_iranian_waters_is_floored_as_sanctioned_eez_transit(key, assess):
    body = assess(key, {"origin": "INBOM", "destination": "AEJEA"}).json()
    iran = next(r for r in body["eez_transit"] if r["country_code"] == "IR")
    assert iran["sanctions"]["is_sanctioned"] is True and iran["sanctions"]["regimes"]
    assert "UN Security Council 1737 (Iran)" in iran["sanctions"]["regimes"]  # reinstated 27 September 2025
    assert body["score_floor"]["basis"] == "sanctioned_eez_transit"


def test_a_port_call_in_a_named_country_sets_its_floor(key, assess):
    body = assess(key, {"origin": "GHTEM", "destination": "NGLOS"}).json()
    assert body["score_floor"]["basis"] in {"named_country_port_call", "listed_area_transit"}
    assert body["score"] >= 70


def test_a_north_sea_hop_is_low_risk_with_no_floor(key, assess):
    body = assess(key, {"origin": "NLRTM", "destination": "DEHAM"}).json()
    assert body["jwc_intersected_areas"] == [] and "score_floor" not in body
    assert body["risk_level"] in {"low", "moderate"}
    weighted = round(sum(d["weight_pct"] * d["signal_score"] for d in body["drivers"]) / 100)
    assert body["score"] == weighted


def test_the_carbon_block_appears_with_vessel_particulars(key, assess):
    body = assess(
        key,
        {
            "origin": "NLRTM",
            "destination": "SGSIN",
            "vessel_type": "bulk_carrier",
            "dwt_tonnes": 82000,
            "speed_knots": 13,
            "bunker_price_usd_per_tonne": 600,
        },
    ).json()
    carbon = body["carbon_intensity"]
    assert carbon["cii_rating"] in "ABCDE" and carbon["co2_tonnes"] > 0 and carbon["fuel_cost_usd"] > 0


def _violation(response):
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "validation_failed"
    return [v["field"] for v in body["field_violations"]]


@pytest.mark.parametrize(
    ("route", "field"),
    [
        ({"origin": "ZZZZZ", "destination": "SGSIN"}, "route.origin"),
        ({"origin": "NLRTM", "destination": "XXQQQ"}, "route.destination"),
        ({"origin": "nlrtm", "destination": "SGSIN"}, "route.origin"),
        ({"origin": "Rotterdam", "destination": "SGSIN"}, "route.origin"),
        ({"origin": {"code": "NLRTM"}, "destination": "SGSIN"}, "route.origin"),
        ({"origin": "NLRTM", "destination": "SGSIN", "speed_knots": -3}, "route.speed_knots"),
        ({"origin": "NLRTM", "destination": "SGSIN", "dwt_tonnes": -1}, "route.dwt_tonnes"),
        ({"origin": "NLRTM", "destination": "SGSIN", "via": [[200, 10]]}, "route.via[0]"),
        ({"origin": "NLRTM", "destination": "SGSIN", "via": [[10, "x"]]}, "route.via[0]"),
        ({"origin": "NLRTM", "destination": "SGSIN", "via": [[-20, 40]] * 21}, "route.via"),
    ],
)
def test_bad_routes_are_422_naming_the_field_and_cost_nothing(key, assess, route, field):
    fields = _violation(assess(key, route))
    assert any(f.startswith(field) for f in fields), fields
    assert not QuotaCounter.objects.filter(used__gt=0).exists()


def test_origin_equal_to_destination_is_refused(key, assess):
    fields = _violation(assess(key, {"origin": "NLRTM", "destination": "NLRTM"}))
    assert "route.destination" in fields


def test_nan_is_not_json_and_is_refused(key, client, keyed):
    response = client.post(
        "/api/v1/voyage-assessments",
        data='{"route": {"origin": "NLRTM", "destination": "SGSIN", "via": [[NaN, 1]]}}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="nan",
        **keyed(key),
    )
    assert response.status_code in {400, 422}
    assert not QuotaCounter.objects.filter(used__gt=0).exists()


def test_a_via_point_on_land_is_refused_with_its_index(key, assess):
    fields = _violation(assess(key, {"origin": "NLRTM", "destination": "USNYC", "via": [[-20.0, 40.0], [2.35, 48.85]]}))
    assert "route.via[1]" in fields


def test_via_points_change_the_route(key, assess):
    direct = assess(key, {"origin": "NLRTM", "destination": "USNYC"}).json()
    bent = assess(key, {"origin": "NLRTM", "destination": "USNYC", "via": [[-25.0, 38.5]]}).json()
    assert bent["route"]["distance_nm"] > direct["route"]["distance_nm"]
    assert len(bent["route"]["via_waypoints"]) == 1


def test_an_antimeridian_route_is_continuous_and_valid(key, assess):
    body = assess(key, {"origin": "JPYOK", "destination": "USSEA"}).json()
    coords = body["route"]["geometry"]["geometry"]["coordinates"]
    assert max(abs(b[0] - a[0]) for a, b in zip(coords, coords[1:], strict=False)) < 5
    assert all(0 <= r["route_fraction"] <= 1 for r in body["eez_transit"])
    assert not math.isnan(body["confidence"])


def test_a_test_key_cannot_read_a_live_assessment(issue_key, assess, client, keyed):
    live = issue_key("live", email="both@example.com")
    test = issue_key("test", email="both@example.com")
    made = assess(live, {"origin": "NLRTM", "destination": "DEHAM"}).json()
    assert client.get(f"/api/v1/voyage-assessments/{made['id']}", **keyed(test)).status_code == 404


def test_the_report_link_opens_a_page_with_the_map(key, assess, client):
    body = assess(key, {"origin": "NLRTM", "destination": "SGSIN"}).json()
    path = body["report_url"].split("://", 1)[1].split("/", 1)[1]
    page = client.get(f"/{path}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<svg" in html and "polyline" in html and body["disclaimer"][:40] in html
    assert client.get(f"/voyage-assessments/{body['id']}:forged/report").status_code == 404


def test_closed_passages_reroute_the_corridor(key, assess):
    open_lane = assess(key, {"origin": "NLRTM", "destination": "SGSIN"}).json()
    cape = assess(
        key, {"origin": "NLRTM", "destination": "SGSIN", "closed_passages": ["suez", "babalmandab", "northwest"]}
    ).json()
    assert cape["route"]["distance_nm"] > open_lane["route"]["distance_nm"] + 2000
    assert "suez" not in cape["route"]["geometry"]["properties"]["passages"]
    assert not any(a["id"] == "jwla-southern-red-sea-yemen" for a in cape["jwc_intersected_areas"])


def test_unknown_passages_are_refused(key, assess):
    fields = _violation(assess(key, {"origin": "NLRTM", "destination": "SGSIN", "closed_passages": ["kiel"]}))
    assert fields == ["route.closed_passages"]


def test_syrian_waters_are_listed_but_no_longer_floored_as_a_sanctioned_state(key, assess):
    """The US, UK and EU lifted their country-wide Syria measures in 2025; arms, security and
    targeted measures remain, and the JWC still lists Syria's 12 nm band."""
    body = assess(key, {"origin": "TRMER", "destination": "SYLTK"}).json()
    syria = next(r for r in body["eez_transit"] if r["country_code"] == "SY")
    assert syria["risk_category"] == "listed_area"
    assert syria["sanctions"]["is_sanctioned"] is True
    assert not any("comprehensive" in regime.lower() for regime in syria["sanctions"]["regimes"])
    assert body["score_floor"]["basis"] != "sanctioned_eez_transit"
