"""Unknown input is refused with 422 validation_failed naming it, never dropped (issue 30): a
misspelt body field (`vesel_name`), nested ones included, and an unknown list query parameter
(`?stauts=RED`). A refusal writes and charges nothing, and the same Idempotency-Key then takes
the corrected body. The OpenAPI document publishes the rule (additionalProperties: false)."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from core.api.strict_input import StrictInputSerializer, close_request_bodies, refuse_unknown_fields
from metering.models import QuotaCounter
from screening import demo
from screening.models import Fleet, Screening, ScreeningBatch

pytestmark = pytest.mark.django_db
_keys = itertools.count()


@pytest.fixture
def key(issue_key):
    return issue_key("test")


@pytest.fixture
def post(client, keyed, key):
    def send(path: str, body: Any, *, idempotency_key: str | None = None, method: str = "post"):
        return getattr(client, method)(
            path,
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=idempotency_key or f"unknown-input-{next(_keys)}",
            **keyed(key),
        )

    return send


def _named(response, field: str) -> dict:
    """The 422 body, asserting it is validation_failed naming `field` in its violations (and in its
    message, but for a batch none of whose items is valid, whose message counts them)."""
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "validation_failed"
    assert field in body["message"] or "of the batch is valid" in body["message"]
    fields = [violation["field"] for violation in body["field_violations"]]
    assert field in fields, fields
    return body


def _units(environment: str = "test") -> int:
    return sum(QuotaCounter.objects.filter(environment=environment).values_list("used", flat=True))


# --- request bodies --------------------------------------------------------------------------


def test_a_misspelt_screening_field_is_refused_naming_it_and_suggesting_the_known_one(demo_world, post):
    response = post("/api/v1/screenings", {"imo": demo.GREEN_CLEAN, "vesel_name": "Nordic Star"})
    body = _named(response, "vesel_name")
    violation = next(v for v in body["field_violations"] if v["field"] == "vesel_name")
    assert "unknown field vesel_name" in violation["message"]
    assert "did you mean vessel_name?" in violation["message"]
    assert "resend POST /api/v1/screenings" in violation["message"]


def test_a_refused_screening_writes_and_charges_nothing_and_its_key_takes_the_corrected_body(demo_world, post):
    refused = post("/api/v1/screenings", {"imo": demo.GREEN_CLEAN, "vesel_name": "X"}, idempotency_key="retry-me")
    _named(refused, "vesel_name")
    assert Screening.objects.count() == 0 and _units() == 0

    corrected = post("/api/v1/screenings", {"imo": demo.GREEN_CLEAN, "vessel_name": "X"}, idempotency_key="retry-me")
    assert corrected.status_code == 201, corrected.content
    assert Screening.objects.count() == 1 and _units() == 1


def test_an_unknown_field_is_named_alongside_the_bodys_other_violations(demo_world, post):
    body = _named(post("/api/v1/screenings", {"imo": 12, "colour": "red"}), "colour")
    assert {v["field"] for v in body["field_violations"]} == {"imo", "colour"}


def test_unknown_fields_of_nested_cargo_objects_are_named_by_their_path(demo_world, post):
    cargo = {
        "commodity": {"hs_code": "8471", "description": "laptops", "colour": "grey"},
        "origin_country": "NL",
        "destination_country": "SG",
        "parties": [{"name": "Acme Trading", "role": "shipper"}, {"name": "Beta Ltd", "role": "consignee", "x": 1}],
        "vessel": {"imo": demo.GREEN_CLEAN, "flag": "PA"},
    }
    body = _named(post("/api/v1/cargo-screenings", cargo), "commodity.colour")
    assert {v["field"] for v in body["field_violations"]} == {"commodity.colour", "parties[1].x", "vessel.flag"}
    assert _units() == 0


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/fleets", {"name": "Tankers", "imos": [demo.GREEN_CLEAN], "imo": demo.RED_OFAC}, "imo"),
        (
            "/api/v1/screening-batches",
            {"items": [{"imo": demo.GREEN_CLEAN}], "include_veting": False},
            "include_veting",
        ),
        ("/api/v1/vessel-monitors", {"imo": demo.GREEN_CLEAN, "mode": "simulation", "modes": "x"}, "modes"),
        ("/api/v1/webhook-endpoints", {"url": "https://hooks.example.com/in", "enable": False}, "enable"),
        ("/api/v1/exports", {"resource": "screenings", "format": "csv", "filter": {"status": "RED"}}, "filter"),
        (
            "/api/v1/match-decisions",
            {
                "imo": demo.GREEN_CLEAN,
                "source": "ofac_sdn",
                "source_record_id": "1",
                "outcome": "cleared",
                "reason": "r",
                "reviewer": "a",
                "reviwer": "b",
            },
            "reviwer",
        ),
        ("/api/v1/voyage-assessments", {"route": {"origin": "NLRTM", "destination": "SGSIN"}, "ref": "x"}, "ref"),
        (
            "/api/v1/voyage-assessments",
            {"route": {"origin": "NLRTM", "destination": "SGSIN", "spede_knots": 12}},
            "route.spede_knots",
        ),
        (
            "/api/v1/voyage-assessments",
            {"route": {"origin": {"locode": "NLRTM", "name": "Rotterdam"}, "destination": "SGSIN"}},
            "route.origin.name",
        ),
        (
            "/api/v1/voyage-assessment-batches",
            {"routes": [{"route": {"origin": "NLRTM", "destination": "SGSIN"}}], "customer_ref": "x"},
            "customer_ref",
        ),
    ],
)
def test_every_json_body_refuses_an_unknown_field_naming_it(demo_world, post, path, body, field):
    _named(post(path, body), field)
    assert _units() == 0


def test_a_fleet_update_refuses_an_unknown_field_and_changes_nothing(demo_world, post):
    created = post("/api/v1/fleets", {"name": "Tankers", "imos": [demo.GREEN_CLEAN]})
    assert created.status_code == 201, created.content
    fleet_id = created.json()["id"]
    refused = post(f"/api/v1/fleets/{fleet_id}", {"name": "Renamed", "add_imo": [demo.RED_OFAC]}, method="patch")
    _named(refused, "add_imo")
    assert Fleet.objects.get(pk=fleet_id).name == "Tankers"


def test_a_batch_hull_with_an_unknown_field_is_rejected_and_the_others_run(demo_world, post):
    response = post(
        "/api/v1/screening-batches",
        {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.RED_OFAC, "vesel_name": "X"}]},
    )
    assert response.status_code == 202, response.content
    batch = ScreeningBatch.objects.get(pk=response.json()["id"])
    rejected = [item for item in batch.items.all() if item.error]
    assert [violation["field"] for item in rejected for violation in item.error["field_violations"]] == [
        "items[1].vesel_name"
    ]


def test_a_batch_whose_only_hull_has_an_unknown_field_is_refused_naming_it(demo_world, post):
    _named(post("/api/v1/screening-batches", {"items": [{"imo": demo.GREEN_CLEAN, "vesel": "X"}]}), "items[0].vesel")
    assert ScreeningBatch.objects.count() == 0 and _units() == 0


def test_a_voyage_batch_route_with_an_unknown_field_is_named_by_its_index(demo_world, post):
    routes = [{"route": {"origin": "NLRTM", "destination": "SGSIN", "via_points": []}}]
    _named(post("/api/v1/voyage-assessment-batches", {"routes": routes}), "routes[0].route.via_points")


def test_a_strict_serializer_refuses_unknown_members_of_nested_serializers():
    class Inner(StrictInputSerializer):
        a = serializers.IntegerField()

    class Outer(StrictInputSerializer):
        inner = Inner()
        many = Inner(many=True)

    form = Outer(data={"inner": {"a": 1, "b": 2}, "many": [{"a": 1}, {"a": 2, "c": 3}], "d": 4})
    assert not form.is_valid()
    assert set(form.errors) == {"inner", "many", "d"}
    assert "b" in form.errors["inner"] and "c" in form.errors["many"][1]
    with pytest.raises(serializers.ValidationError) as refused:
        refuse_unknown_fields(Outer, {"inner": {"a": 1, "b": 2}, "many": [{"a": 1}, {"c": 3}], "d": 4})
    detail = refused.value.detail
    assert set(detail) == {"inner", "many", "d"}
    assert set(detail["inner"]) == {"b"} and detail["many"][0] == {} and set(detail["many"][1]) == {"c"}


# --- query parameters ------------------------------------------------------------------------


def test_an_unknown_list_query_parameter_is_refused_naming_it(client, keyed, key):
    response = client.get("/api/v1/screenings?stauts=RED", **keyed(key))
    body = _named(response, "stauts")
    violation = next(v for v in body["field_violations"] if v["field"] == "stauts")
    assert "unknown query parameter stauts" in violation["message"] and "did you mean status?" in violation["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/fleets?nmae=x",
        "/api/v1/webhook-deliveries?stat=failed",
        "/api/v1/access-log?sinse=2026-01-01T00:00:00Z",
        "/api/v1/exports?limt=5",
        "/api/v1/match-decisions?imo=9074729&src=ofac_sdn",
        "/api/v1/cargo-screenings?created_afterr=2026-01-01T00:00:00Z",
    ],
)
def test_every_list_refuses_an_unknown_query_parameter(client, keyed, key, path):
    name = path.rsplit("&", 1)[-1].split("?")[-1].split("=")[0]
    _named(client.get(path, **keyed(key)), name)


def test_the_lists_known_parameters_and_format_are_still_taken(client, keyed, key):
    response = client.get("/api/v1/screenings?status=RED&limit=5&format=json", **keyed(key))
    assert response.status_code == 200, response.content
    assert response.json()["screenings"] == []


def _keyed_get_operations(client) -> list[tuple[str, dict]]:
    """Every GET of the published document that takes a key, its path parameters filled with an id no
    object has (the query is read before the object is looked up)."""
    document = client.get("/api/v1/openapi.json").json()
    operations = []
    for template, item in document["paths"].items():
        operation = item.get("get")
        if operation and {"BearerKey": []} in (operation.get("security") or []):
            operations.append((re.sub(r"\{[^}]+\}", "nosuchid", template), operation))
    assert len(operations) > 25, [path for path, _ in operations]
    return operations


@pytest.fixture
def live_key(issue_key):
    return issue_key("live")  # a live key reaches the live-only operations (corridor monitors) too


def test_every_keyed_get_of_the_published_document_refuses_an_unknown_query_parameter(client, keyed, live_key):
    accepted = {}
    for path, _ in _keyed_get_operations(client):
        response = client.get(f"{path}?bogus=1", **keyed(live_key))
        if response.status_code != 422 or "unknown query parameter bogus" not in response.content.decode():
            accepted[path] = response.status_code
    assert accepted == {}


def test_every_query_parameter_a_keyed_get_publishes_is_taken_as_known(client, keyed, live_key):
    refused = {}
    for path, operation in _keyed_get_operations(client):
        for parameter in operation.get("parameters") or []:
            if parameter["in"] != "query":
                continue
            response = client.get(f"{path}?{parameter['name']}=x", **keyed(live_key))
            if "unknown query parameter" in response.content.decode():
                refused[f"{path}?{parameter['name']}"] = response.status_code
    assert refused == {}


def test_a_detail_get_refuses_an_unknown_query_parameter_and_takes_format(demo_world, client, keyed, key, post):
    screening = post("/api/v1/screenings", {"imo": demo.GREEN_CLEAN})
    assert screening.status_code == 201, screening.content
    path = f"/api/v1/screenings/{screening.json()['id']}"
    body = _named(client.get(f"{path}?bogus=1", **keyed(key)), "bogus")
    assert "this request takes no query parameter" in body["field_violations"][0]["message"]
    assert client.get(f"{path}?format=json", **keyed(key)).status_code == 200
    assert client.get(path, **keyed(key)).status_code == 200


def test_the_port_lookup_refuses_an_unknown_query_parameter(client):
    body = _named(client.get("/api/v1/ports?query=Rotterdam&lmit=3"), "lmit")
    assert "did you mean limit?" in body["field_violations"][0]["message"]
    assert client.get("/api/v1/ports?query=Rotterdam&limit=3").status_code == 200


# --- the published rule ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def document() -> dict:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return close_request_bodies(schema, None, None, True)


def test_request_bodies_are_published_closed_with_their_nested_objects(document):
    schemas = document["components"]["schemas"]
    for name in (
        "ScreeningInputRequest",
        "CargoScreeningInputRequest",
        "CommodityInputRequest",
        "PatchedFleetUpdateInputRequest",
    ):
        assert schemas[name]["additionalProperties"] is False, name
    body = document["paths"]["/api/v1/screenings"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ScreeningInputRequest"}


def test_response_objects_stay_open(document):
    assert "additionalProperties" not in document["components"]["schemas"]["ScreeningRecordSchema"]
