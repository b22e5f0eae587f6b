"""IMO input rules (4.3), field validation, notices tied to the request, and reads."""

import pytest

from accounts.models import Account
from metering.models import QuotaCounter
from screening import demo

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="input@example.com")


@pytest.mark.parametrize(
    "sent", [demo.GREEN_CLEAN, f"IMO{demo.GREEN_CLEAN}", f"IMO {demo.GREEN_CLEAN}", f"imo{demo.GREEN_CLEAN}"]
)
def test_accepted_imo_shapes(demo_world, key, screen, sent):
    response = screen(key, sent)
    assert response.status_code == 201
    assert response.json()["imo"] == demo.GREEN_CLEAN


@pytest.mark.parametrize(
    "sent", ["", "123456", "12345678901", "9074729 9187629", "IMO", "-9074729", "٩٠٧٤٧٢٩", "x" * 60]
)
def test_values_without_one_seven_digit_core_are_422_and_uncharged(demo_world, key, screen, sent):
    response = screen(key, sent)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_failed"
    assert body["field_violations"][0]["field"] == "imo"
    assert not QuotaCounter.objects.filter(used__gt=0).exists()


def test_an_eight_digit_value_with_one_valid_reading_names_it(demo_world, key, screen):
    response = screen(key, demo.GREEN_CLEAN + "5")
    message = response.json()["field_violations"][0]["message"]
    assert response.status_code == 422 and demo.GREEN_CLEAN in message


def test_the_appended_digit_correction_applies_only_to_enabled_accounts(demo_world, key, screen):
    Account.objects.filter(email="input@example.com").update(appended_digit_correction=True)
    sent = demo.GREEN_CLEAN + "5"
    assert not __import__("screening.imo", fromlist=["x"]).imo_check_digit_valid(sent[1:])
    body = screen(key, sent).json()
    assert body["imo"] == demo.GREEN_CLEAN
    assert body["imo_normalized_from"] == sent
    assert body["notices"][0]["code"] == "imo_normalized"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("imo", 9074729),
        ("include_vetting", "yes"),
        ("vessel_name", ""),
        ("vessel_name", "BAD\x00NAME"),
        ("vessel_name", "N" * 201),
        ("customer_reference", 5),
    ],
)
def test_wrong_types_and_bad_names_are_422_naming_the_field(demo_world, key, screen, field, value):
    body = {"imo": demo.GREEN_CLEAN, field: value}
    response = screen(key, **body)
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == field


def test_unknown_fields_are_refused_naming_them(demo_world, key, screen):
    response = screen(key, demo.GREEN_CLEAN, colour="blue")
    assert response.status_code == 422 and response.json()["code"] == "validation_failed"
    assert [v["field"] for v in response.json()["field_violations"]] == ["colour"]


def test_repeat_screening_notice_names_the_earlier_record(demo_world, key, screen):
    first = screen(key, demo.GREEN_CLEAN).json()
    second = screen(key, demo.GREEN_CLEAN).json()
    notice = next(n for n in second["notices"] if n["code"] == "repeat_screening")
    assert notice["previous_screening_id"] == first["id"]
    assert notice["previous_status"] == "GREEN"
    assert "Idempotency-Key" in notice["remedy"]


def test_an_incomplete_repeat_names_the_last_complete_answer_without_key_advice(db, key, screen):
    from django.core.management import call_command

    from screening import datastate

    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    first = screen(key, demo.GREEN_CLEAN).json()
    call_command("seed_demo", "--omit-source", "ofac_sdn", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    second = screen(key, demo.GREEN_CLEAN).json()
    assert second["sanctions"]["status"] == "INCOMPLETE"
    notice = next(n for n in second["notices"] if n["code"] == "repeat_screening")
    assert notice["previous_screening_id"] == first["id"]
    assert "Idempotency-Key" not in notice["remedy"]
    third = screen(key, demo.GREEN_CLEAN).json()
    assert "repeat_screening" not in [n["code"] for n in third["notices"]]


def test_quota_warning_fires_at_eighty_percent_of_a_live_one_time_allowance(demo_world, issue_key, screen):
    from datetime import date

    live = issue_key("live", email="warn@example.com", opened_on=date(2026, 11, 1))
    account = Account.objects.get(email="warn@example.com")
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=1599)
    body = screen(live, demo.GREEN_CLEAN).json()
    notice = next(n for n in body["notices"] if n["code"] == "quota_warning")
    assert notice["quota"]["resets_at"] is None and notice["quota"]["used"] == 1600


def test_a_replay_returns_the_record_as_issued(demo_world, key, screen):
    first = screen(key, demo.RED_OFAC, key="same")
    again = screen(key, demo.RED_OFAC, key="same")
    assert again.content == first.content
    assert again["X-Service-Idempotent-Replay"] == "true"


def test_get_by_id_of_another_environment_is_404(demo_world, issue_key, screen, client, keyed):
    test_key = issue_key("test", email="iso@example.com")
    live_key = issue_key("live", email="iso@example.com")
    record = screen(test_key, demo.GREEN_CLEAN).json()
    assert client.get(f"/api/v1/screenings/{record['id']}", **keyed(test_key)).status_code == 200
    assert client.get(f"/api/v1/screenings/{record['id']}", **keyed(live_key)).status_code == 404
    assert client.get("/api/v1/screenings", **keyed(live_key)).json()["screenings"] == []


def test_reads_work_while_the_allowance_is_exhausted(demo_world, key, screen, client, keyed):
    record = screen(key, demo.GREEN_CLEAN).json()
    QuotaCounter.objects.update(used=500)
    assert screen(key, demo.GREEN_CLEAN).status_code == 402
    assert client.get(f"/api/v1/screenings/{record['id']}", **keyed(key)).status_code == 200
