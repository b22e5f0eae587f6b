"""INCOMPLETE paths: identity, contested, check digit; enrolment and automatic resolution."""

from datetime import timedelta

import pytest
from django.utils import timezone

from metering.models import QuotaCounter
from screening import datastate, demo, services
from screening.ingest import load_snapshot
from screening.models import FollowUp, Screening
from screening.records import ParsedSnapshot, RegisterRecord
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="ops@example.com")


def test_a_hull_no_source_names_is_incomplete_enrolled_and_uncharged(demo_world, key, screen):
    response = screen(key, demo.INCOMPLETE_IDENTITY)
    body = response.json()
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert body["identity_basis"] == "none" and body["vessel_name"] is None
    assert body["unit_charged"] is False
    assert response["X-Service-Quota-Remaining"] == "500"
    codes = [n["code"] for n in body["notices"]]
    assert codes == ["identity_unresolved", "auto_resolution"]
    assert body["notices"][0]["retry_after"] == body["sanctions"]["retry_after"] is not None
    resolution = body["resolution"]
    assert resolution["status"] == "pending" and resolution["cause"] == "identity"
    assert resolution["max_attempts"] == 6 and resolution["webhook_event"] == "screening.resolved"
    assert resolution["next_attempt_at"] == body["sanctions"]["retry_after"]
    registers = [row["register"] for row in body["identity_sources"]]
    assert registers[:5] == [
        "service_vessel_register",
        "ais_registry",
        "tokyo_mou_psc",
        "paris_mou_thetis",
        "apcis_tokyo_mou_history",
    ]
    # No live register is configured in the test settings: none is consulted, so none has a row.
    assert len(body["identity_sources"]) == 5


def test_live_registers_are_not_read_when_a_store_names_the_hull(demo_world, key, screen):
    body = screen(key, demo.GREEN_CLEAN).json()
    assert len(body["identity_sources"]) == 5
    assert body["identity_basis"] == "sources"


def test_four_names_make_the_imo_contested(demo_world, key, screen):
    response = screen(key, demo.CONTESTED)
    body = response.json()
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert body["vessel_name"] is None
    assert [n["code"] for n in body["notices"]] == ["identity_contested"]
    assert "resolution" not in body
    assert body["unit_charged"] is False


def test_a_failing_check_digit_is_screened_as_a_bare_identifier(demo_world, key, screen):
    body = screen(key, demo.BAD_CHECK_DIGIT).json()
    assert body["imo_check_digit_valid"] is False
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert body["identity_sources"] == []
    assert body["sanctions"]["retry_after"] is None
    assert "resolution" not in body
    assert body["unit_charged"] is False


def test_the_callers_rescreen_with_a_name_resolves_the_open_question(demo_world, key, screen, client, keyed):
    original = screen(key, demo.INCOMPLETE_IDENTITY).json()
    answer = screen(key, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO NEW NAME").json()
    assert answer["sanctions"]["status"] == "GREEN"
    assert answer["supersedes"] == original["id"]
    again = client.get(f"/api/v1/screenings/{original['id']}", **keyed(key)).json()
    assert again["superseded_by"] == answer["id"]
    assert again["resolution"]["status"] == "resolved"
    assert again["resolution"]["resolved_screening_id"] == answer["id"]
    event = Event.objects.get(type="screening.resolved")
    assert event.data["screening_id"] == answer["id"]
    assert event.data["supersedes_screening_id"] == original["id"]
    assert event.data["unit_charged"] is True


def test_one_open_follow_up_per_hull_points_at_the_newest_record(demo_world, key, screen):
    first = screen(key, demo.INCOMPLETE_IDENTITY).json()
    second = screen(key, demo.INCOMPLETE_IDENTITY).json()
    assert FollowUp.objects.filter(status="pending").count() == 1
    assert FollowUp.objects.get().screening_id == second["id"]
    # A newer INCOMPLETE answers nothing: superseded_by waits for a verdict (issue 12 item 11).
    assert Screening.objects.get(pk=first["id"]).superseded_by_id is None


def test_open_questions_are_listed_with_status_and_superseded_filters(demo_world, key, screen, client, keyed):
    open_one = screen(key, demo.INCOMPLETE_IDENTITY).json()
    screen(key, demo.GREEN_CLEAN)
    listing = client.get("/api/v1/screenings?status=INCOMPLETE&superseded=false", **keyed(key)).json()
    assert [row["id"] for row in listing["screenings"]] == [open_one["id"]]
    assert listing["screenings"][0]["superseded_by"] is None


def _name_the_hull():
    load_snapshot(
        ParsedSnapshot(
            "ais_registry", records=[RegisterRecord("ais_registry", demo.INCOMPLETE_IDENTITY, "DEMO LATE ARRIVAL")]
        ),
        data_checksum="late",
    )
    datastate.invalidate()


def test_a_scheduled_attempt_that_finds_a_name_resolves_and_charges_one_unit(demo_world, key, screen):
    original = screen(key, demo.INCOMPLETE_IDENTITY).json()
    _name_the_hull()
    follow_up = FollowUp.objects.get()
    assert services.attempt_follow_up(follow_up) == "resolved"
    follow_up.refresh_from_db()
    assert follow_up.status == "resolved"
    answer = Screening.objects.get(pk=follow_up.resolved_screening_id)
    assert answer.supersedes_id == original["id"]
    assert answer.unit_charged and QuotaCounter.objects.get(environment="test").used == 1
    assert Event.objects.filter(type="screening.resolved").count() == 1


def test_attempts_that_stay_incomplete_end_unresolved_with_the_remedy(demo_world, key, screen):
    screen(key, demo.INCOMPLETE_IDENTITY)
    follow_up = FollowUp.objects.get()
    outcomes = [services.attempt_follow_up(FollowUp.objects.get(pk=follow_up.pk)) for _ in range(6)]
    assert outcomes[:5] == ["pending"] * 5 and outcomes[5] == "unresolved"
    event = Event.objects.get(type="screening.unresolved")
    assert "vessel_name" in event.data["remedy"]


def test_a_slot_due_while_the_allowance_is_exhausted_waits_and_does_not_count(demo_world, key, screen):
    screen(key, demo.INCOMPLETE_IDENTITY)
    follow_up = FollowUp.objects.get()
    QuotaCounter.objects.filter(environment="test").update(used=500)
    QuotaCounter.objects.get_or_create(
        account=follow_up.account,
        environment="test",
        kind="screening",
        period=timezone.now().strftime("%Y-%m"),
        defaults={"used": 500},
    )
    assert services.attempt_follow_up(follow_up) == "waiting"
    follow_up.refresh_from_db()
    assert follow_up.attempts == 0 and follow_up.next_attempt_at > timezone.now() + timedelta(minutes=1)
