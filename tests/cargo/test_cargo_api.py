"""POST/GET /api/v1/cargo-screenings: bad input, tenancy, idempotency, scope, metering and the list."""

from __future__ import annotations

from datetime import date

import pytest

from accounts.models import Account
from cargo.models import CargoScreening
from metering.models import MeteringEvent, QuotaCounter
from screening import demo
from screening.models import Screening
from tests.cargo.conftest import cargo_body

pytestmark = pytest.mark.django_db


def used() -> int:
    return sum(QuotaCounter.objects.filter(kind="screening").values_list("used", flat=True))


BAD_INPUT = [
    ({"commodity": {"hs_code": "84713", "description": "x"}}, "commodity.hs_code"),
    ({"commodity": {"hs_code": "8471.30", "description": "x"}}, "commodity.hs_code"),
    ({"commodity": {"hs_code": "7701", "description": "x"}}, "commodity.hs_code"),
    ({"commodity": {"hs_code": 8471, "description": "x"}}, "commodity.hs_code"),
    ({"commodity": {"hs_code": "8471"}}, "commodity.description"),
    ({"commodity": "8471"}, "commodity"),
    ({"origin_country": "nl"}, "origin_country"),
    ({"destination_country": "ZZ"}, "destination_country"),
    ({"destination_country": "Singapore"}, "destination_country"),
    ({"load_port": "NLXXX"}, "load_port"),
    ({"discharge_port": "Singapore"}, "discharge_port"),
    ({"parties": []}, "parties"),
    ({"parties": [{"name": f"Party {n}", "role": "shipper"} for n in range(21)]}, "parties"),
    ({"parties": [{"name": "Demo Fjord Exporters AS", "role": "buyer"}]}, "parties[0].role"),
    ({"parties": [{"name": "--", "role": "shipper"}]}, "parties[0].name"),
    ({"vessel": {"imo": "12345"}}, "vessel.imo"),
    ({"vessel": {"imo": "93001161"}}, "vessel.imo"),
]


@pytest.mark.parametrize(("change", "field"), BAD_INPUT)
def test_bad_input_is_422_naming_the_field_with_nothing_stored_or_charged(demo_world, key, screen_cargo, change, field):
    response = screen_cargo(key, cargo_body(**change))
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "validation_failed"
    fields = [v["field"] for v in body["field_violations"]]
    assert field in fields
    assert all("POST /api/v1/cargo-screenings" in v["message"] for v in body["field_violations"])
    assert CargoScreening.objects.count() == 0 and Screening.objects.count() == 0
    assert used() == 0 and MeteringEvent.objects.count() == 0


def test_a_missing_field_is_named_too(demo_world, key, screen_cargo):
    body = cargo_body()
    del body["origin_country"], body["parties"]
    fields = {v["field"] for v in screen_cargo(key, body).json()["field_violations"]}
    assert fields == {"origin_country", "parties"}


def test_a_hint_names_the_value_meant(demo_world, key, screen_cargo):
    messages = {
        v["field"]: v["message"]
        for v in screen_cargo(
            key, cargo_body(origin_country="nl", commodity={"hs_code": "8471.30", "description": "x"})
        ).json()["field_violations"]
    }
    assert "did you mean NL?" in messages["origin_country"]
    assert "did you mean 847130?" in messages["commodity.hs_code"]


def test_another_account_or_environment_never_sees_a_cargo_screening(demo_world, key, issue_key, client, keyed,
                                                                     screen_cargo):  # fmt: skip
    created = screen_cargo(key, cargo_body()).json()
    other = issue_key("test")
    live_same_account = issue_key("live", email="user1@example.com")
    for raw in (other, live_same_account):
        assert client.get(f"/api/v1/cargo-screenings/{created['id']}", **keyed(raw)).status_code == 404
        assert client.get("/api/v1/cargo-screenings", **keyed(raw)).json()["cargo_screenings"] == []
    mine = client.get(f"/api/v1/cargo-screenings/{created['id']}", **keyed(key))
    assert mine.status_code == 200 and mine.json() == created


def test_an_unknown_id_is_404_not_found(demo_world, key, client, keyed):
    response = client.get("/api/v1/cargo-screenings/cgs_unknown", **keyed(key))
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_get_returns_the_stored_bytes(demo_world, key, client, keyed, screen_cargo):
    created = screen_cargo(key, cargo_body(vessel={"imo": demo.GREEN_CLEAN}))
    fetched = client.get(f"/api/v1/cargo-screenings/{created.json()['id']}", **keyed(key))
    assert fetched.content == created.content


def test_an_idempotent_replay_answers_the_same_record_and_charges_once(demo_world, key, screen_cargo):
    body = cargo_body(vessel={"imo": demo.GREEN_CLEAN})
    first = screen_cargo(key, body, key="cargo-replay")
    again = screen_cargo(key, body, key="cargo-replay")
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again["X-Service-Idempotent-Replay"] == "true"
    assert again["X-Service-Quota-Remaining"] == first["X-Service-Quota-Remaining"] == "499"
    assert used() == 1 and CargoScreening.objects.count() == 1 and Screening.objects.count() == 1
    conflict = screen_cargo(key, cargo_body(origin_country="DE"), key="cargo-replay")
    assert conflict.status_code == 409 and conflict.json()["code"] == "idempotency_conflict"


def test_a_missing_idempotency_key_is_400(demo_world, key, client, keyed):
    response = client.post("/api/v1/cargo-screenings", data=cargo_body(), content_type="application/json", **keyed(key))
    assert response.status_code == 400 and response.json()["code"] == "missing_idempotency_key"


def test_a_key_without_cargo_screen_is_403_naming_the_scope(demo_world, issue_key, client, keyed, screen_cargo):
    raw = issue_key("test", scopes=["vessel:screen"])
    for response in (
        screen_cargo(raw, cargo_body()),
        client.get("/api/v1/cargo-screenings", **keyed(raw)),
        client.get("/api/v1/cargo-screenings/cgs_any", **keyed(raw)),
    ):
        assert response.status_code == 403
        assert response.json()["code"] == "insufficient_scope" and "cargo:screen" in response.json()["message"]
    assert CargoScreening.objects.count() == 0 and used() == 0


def test_an_exhausted_allowance_is_402_and_nothing_runs(demo_world, issue_key, screen_cargo):
    raw = issue_key("live", email="spent@example.com", opened_on=date(2026, 11, 1), plan="paid")
    account_id = Account.objects.get(email="spent@example.com").pk
    QuotaCounter.objects.create(account_id=account_id, environment="live", kind="screening", period="once", used=2000)
    response = screen_cargo(raw, cargo_body(vessel={"imo": demo.GREEN_CLEAN}))
    assert response.status_code == 402 and response.json()["code"] == "quota_exhausted"
    assert response["X-Service-Quota-Remaining"] == "0"
    assert CargoScreening.objects.count() == 0 and Screening.objects.count() == 0


def test_the_list_pages_newest_first_and_filters(demo_world, key, client, keyed, screen_cargo):
    green = screen_cargo(key, cargo_body()).json()
    red = screen_cargo(key, cargo_body(destination_country="IR", discharge_port=None)).json()
    arms = screen_cargo(
        key, cargo_body(commodity={"hs_code": "9301", "description": "Arms"}, vessel={"imo": demo.GREEN_CLEAN})
    ).json()

    def listed(query: str = "") -> list[str]:
        response = client.get(f"/api/v1/cargo-screenings{query}", **keyed(key))
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["cargo_screenings"]]

    assert listed() == [arms["id"], red["id"], green["id"]]
    first = client.get("/api/v1/cargo-screenings?limit=2", **keyed(key)).json()
    assert len(first["cargo_screenings"]) == 2 and first["next_cursor"]
    assert listed(f"?limit=2&cursor={first['next_cursor']}") == [green["id"]]
    assert listed("?status=RED") == [red["id"]]
    assert listed("?hs_chapter=93") == [arms["id"]]
    assert listed(f"?vessel_imo={demo.GREEN_CLEAN}") == [arms["id"]]
    assert len(listed("?created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z")) == 3
    assert listed("?created_after=2100-01-01T00:00:00Z") == []
    for query, field in (("?status=BLUE", "status"), ("?created_after=yesterday", "created_after"),
                         ("?limit=0", "limit")):  # fmt: skip
        response = client.get(f"/api/v1/cargo-screenings{query}", **keyed(key))
        assert response.status_code == 422 and response.json()["field_violations"][0]["field"] == field


def test_the_embedded_hull_record_is_a_screening_of_origin_cargo(demo_world, key, client, keyed, screen_cargo):
    body = screen_cargo(key, cargo_body(vessel={"imo": demo.RED_OFAC}, customer_reference="PO-9")).json()
    hull = client.get(f"/api/v1/screenings/{body['vessel']['screening_id']}", **keyed(key)).json()
    assert hull["sanctions"]["status"] == "RED" and hull["customer_reference"] == "PO-9" and hull["notices"] == []
