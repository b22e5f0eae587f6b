"""GET /api/v1/ports: keyless port lookup over the routable catalogue (contract 2.2, 4.2)."""

from __future__ import annotations

import pytest

from voyages.ports import get_catalogue

pytestmark = pytest.mark.django_db


def lookup(client, query=None, limit=None, **extra):
    params = {}
    if query is not None:
        params["query"] = query
    if limit is not None:
        params["limit"] = limit
    return client.get("/api/v1/ports", params, **extra)


def test_an_exact_code_matches_itself_first(client):
    response = lookup(client, "NLRTM")
    assert response.status_code == 200
    first = response.json()["ports"][0]
    assert first["locode"] == "NLRTM" and first["match_type"] == "exact_locode" and first["match_score"] == 100
    assert set(first) == {"locode", "name", "country", "country_code", "lat", "lon", "match_score", "match_type"}


def test_codes_are_matched_in_any_case_and_with_a_space(client):
    assert lookup(client, "nl rtm").json()["ports"][0]["locode"] == "NLRTM"


@pytest.mark.parametrize("query", ["Port Said", "PortSaid", "port  said", "PORT-SAID"])
def test_an_exact_name_ignores_spacing_and_punctuation(client, query):
    first = lookup(client, query).json()["ports"][0]
    assert first["locode"] == "EGPSD" and first["match_type"] == "exact_name"


@pytest.mark.parametrize(
    ("query", "locode"),
    [("Tromsø", "NOTOS"), ("København", "DKCPH"), ("Århus", "DKAAR"), ("Göteborg", "SEGOT"), ("Bombay", "INBOM")],
)
def test_local_and_former_names_fold_their_letters_and_match(client, query, locode):
    first = lookup(client, query).json()["ports"][0]
    assert first["locode"] == locode and first["match_type"] == "exact_name"


def test_prefix_and_whole_word_matches_are_weaker_than_exact(client):
    ports = lookup(client, "Rotter").json()["ports"]
    assert ports[0]["locode"] == "NLRTM" and ports[0]["match_type"] == "prefix"
    santos = lookup(client, "Santos", limit=10).json()["ports"]
    assert santos[0]["match_type"] == "exact_name"
    assert any(p["match_type"] == "word" and p["name"] == "General Santos" for p in santos)
    assert [p["match_score"] for p in santos] == sorted((p["match_score"] for p in santos), reverse=True)


def test_every_returned_code_is_routable(client):
    from voyages import routing

    catalogue = get_catalogue()
    for port in lookup(client, "San", limit=20).json()["ports"]:
        routing.compute_route(catalogue.get_port(port["locode"]), catalogue.get_port("NLRTM"))


def test_limit_defaults_to_ten_and_is_capped(client):
    assert len(lookup(client, "Port").json()["ports"]) == 10
    assert len(lookup(client, "Port", limit=3).json()["ports"]) == 3
    refused = lookup(client, "Port", limit=51)
    assert refused.status_code == 422 and refused.json()["field_violations"][0]["field"] == "limit"


@pytest.mark.parametrize("query", [None, "", "   "])
def test_an_empty_or_missing_query_is_a_clear_422_that_is_not_counted(client, query):
    response = lookup(client, query)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_failed" and body["field_violations"][0]["field"] == "query"
    assert {"request_id", "usage", "example"} <= set(body)
    assert response["X-RateLimit-Remaining"] == "100"


def test_lookups_count_against_the_keyless_hourly_allowance(client):
    first = lookup(client, "Rotterdam")
    second = lookup(client, "Hamburg")
    assert int(first["X-RateLimit-Remaining"]) - 1 == int(second["X-RateLimit-Remaining"])
    assert first["X-RateLimit-Limit"] == "100"
