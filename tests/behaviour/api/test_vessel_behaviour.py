"""GET /api/v1/vessels/{imo}/behaviour: a hull's AIS identities, coverage, summary and events."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from behaviour import store
from behaviour.models import AisLink, AisLoad
from metering.models import QuotaCounter
from tests.support.published_schema import Published

pytestmark = pytest.mark.django_db

PATH = "/api/v1/vessels/{imo}/behaviour"
NY_DAY = "from=2020-06-29T00:00:00Z&to=2020-07-01T00:00:00Z"
# The container ship LAURA MAERSK transmits IMO 9190731 from MMSI 219947000 (Class A) in the NY file.
SHIP_IMO, SHIP_MMSI = "9190731", 219947000


@pytest.fixture
def loaded_ny_harbor(ais_store, ny_harbor_hour) -> AisLoad:
    call_command("load_ais", str(ny_harbor_hour), stdout=io.StringIO())
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.COMMITTED, load.error
    return load


def _get(client, keyed, raw, imo: str, query: str = ""):  # type: ignore[no-untyped-def]
    return client.get(PATH.format(imo=imo) + (f"?{query}" if query else ""), **keyed(raw))


def test_a_hull_with_ais_shows_the_mmsi_it_transmitted_its_imo_from_and_what_the_window_holds(
    client, keyed, issue_key, loaded_ny_harbor
):
    raw = issue_key("test")
    response = _get(client, keyed, raw, SHIP_IMO, NY_DAY)
    published = Published.served_by(client)
    body = published.check(PATH, "get", response)
    assert not published.failures, published.failures
    assert response.status_code == 200
    assert body["observed"] is True
    assert body["identities"][0]["mmsi"] == str(SHIP_MMSI)
    assert body["identities"][0]["basis"] == AisLink.Basis.STATIC_IMO
    assert "LAURA MAERSK" in body["identities"][0]["names"]
    ferry = store.read_positions([loaded_ny_harbor.pk], 1_593_475_200, 1_593_561_599, mmsis=[SHIP_MMSI])
    assert body["coverage"]["positions"] == len(ferry) > 0
    assert body["coverage"]["days_with_positions"] == 1
    assert body["coverage"]["files"][0]["file_name"] == loaded_ny_harbor.file_name
    assert set(body["summary"]["by_kind"]) >= {"dark_period", "sts_meeting", "identity_change", "port_call"}
    assert body["from"] == "2020-06-29T00:00:00Z" and body["to"] == "2020-07-01T00:00:00Z"


def test_a_hull_without_ais_is_not_observed_and_says_so(client, keyed, issue_key, ais_store):
    response = _get(client, keyed, issue_key("test"), "9074729")
    body = response.json()
    assert response.status_code == 200
    assert body["observed"] is False
    assert body["identities"] == [] and body["events"] == []
    assert body["summary"]["events"] == 0 and body["summary"]["highest_severity"] is None


def test_a_window_outside_the_positions_is_not_observed(client, keyed, issue_key, loaded_ny_harbor):
    body = _get(client, keyed, issue_key("test"), SHIP_IMO, "from=2021-01-01T00:00:00Z&to=2021-01-10T00:00:00Z").json()
    assert body["observed"] is False
    assert body["identities"][0]["mmsi"] == str(SHIP_MMSI)


def test_thirty_days_of_history_are_free_and_a_longer_window_costs_one_screening_unit(
    client, keyed, issue_key, ais_store
):
    raw = issue_key("test", email="history@example.com")
    free = _get(client, keyed, raw, "9074729", "from=2026-01-01T00:00:00Z&to=2026-01-31T00:00:00Z")
    assert free.status_code == 200
    assert "X-Service-Quota-Remaining" not in free
    assert not QuotaCounter.objects.filter(used__gt=0).exists()
    charged = _get(client, keyed, raw, "9074729", "from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z")
    assert charged.status_code == 200
    assert QuotaCounter.objects.get(kind="screening").used == 1
    assert charged["X-Service-Quota-Remaining"] == str(int(charged["X-Service-Quota-Limit"]) - 1)


@pytest.mark.parametrize(
    ("imo", "query", "field"),
    [
        ("907472", "", "imo"),
        ("9074728", "", "imo"),  # check digit
        ("9074729", "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"),
        ("9074729", "from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"),  # over a year
        ("9074729", "from=yesterday", "from"),
        ("9074729", "limit=0", "limit"),
        ("9074729", "form=2026-01-01T00:00:00Z", "form"),  # a misspelt parameter is refused, never ignored
    ],
)
def test_bad_input_is_a_422_naming_the_field(client, keyed, issue_key, ais_store, imo, query, field):
    response = _get(client, keyed, issue_key("test"), imo, query)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_failed"
    assert [violation["field"] for violation in body["field_violations"]] == [field]
    assert not QuotaCounter.objects.filter(used__gt=0).exists()


def test_the_behaviour_report_needs_a_key_with_the_screening_scope(client, keyed, issue_key, ais_store):
    assert client.get(PATH.format(imo="9074729")).status_code == 401
    raw = issue_key("test", scopes=["voyage:score"])
    assert _get(client, keyed, raw, "9074729").status_code == 403
