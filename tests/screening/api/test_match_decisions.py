"""Match decisions (issue 28 part 1): recorded, shown on later screenings, never changing the verdict,
lapsing when the listing changes or the decision expires, revoked as a new state; tenancy and refusals."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from monitoring import runs
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from monitoring.vessels import KIND
from screening import demo, refresh
from screening.models import MatchDecision, Screening
from webhooks.models import Event

pytestmark = pytest.mark.django_db
DECISIONS = "/api/v1/match-decisions"
SILVER_TIDE = "990002"  # the demo OFAC vessel listing AMBER_NAME_ONLY matches by name only
# Listings kept in every edition below (so an edition never looks truncated to the shrink guard).
STANDING = [
    f'{7000 + n},"STANDING TRADING CO {n}",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ' for n in range(20)
]


def _edition(programs: str = "SDGT") -> dict[str, bytes]:
    silver_tide = (
        f'{SILVER_TIDE},"DEMO SILVER TIDE","vessel","{programs}",-0- ,-0- ,"General Cargo",-0- ,-0- ,-0- ,-0- ,-0- '
    )
    return {"sdn": ("\n".join([*STANDING, silver_tide]) + "\n").encode()}


def _decide(send, key: str, imo: str = demo.AMBER_NAME_ONLY, **body):  # type: ignore[no-untyped-def]
    payload = {
        "imo": imo, "source": "ofac_sdn", "source_record_id": SILVER_TIDE, "outcome": "cleared",
        "reason": "Different hull: the listed SILVER TIDE is a 1990s general cargo ship flagged elsewhere.",
        "reviewer": "a.analyst", **body,
    }  # fmt: skip
    return send(key, "post", DECISIONS, payload)


def _silver_tide(document: dict) -> dict:
    (match,) = [m for m in document["sanctions"]["matches"] if m.get("source_record_id") == SILVER_TIDE]
    return match


def test_a_cleared_match_is_shown_on_the_next_screening_and_the_verdict_stays_the_engines(key, send, screen):
    before = screen(key, demo.AMBER_NAME_ONLY).json()
    assert before["sanctions"]["status"] == "AMBER" and before["sanctions"]["review"] == "none"
    assert _silver_tide(before)["drove_verdict"] is True and "decision" not in _silver_tide(before)

    created = _decide(send, key)
    assert created.status_code == 201, created.content
    decision = created.json()
    assert decision["state"] == "active" and decision["outcome"] == "cleared" and decision["revoked"] is None
    assert decision["record"]["name"] == "DEMO SILVER TIDE" and len(decision["record_fingerprint"]) == 64

    after = screen(key, demo.AMBER_NAME_ONLY).json()
    assert after["sanctions"]["status"] == "AMBER"  # a decision never moves the verdict
    assert after["sanctions"]["review"] == "all_cleared"
    assert _silver_tide(after)["decision"] == {
        "id": decision["id"], "outcome": "cleared", "reviewer": "a.analyst",
        "decided_at": decision["decided_at"], "expires_at": None,
    }  # fmt: skip
    assert not [n for n in after["notices"] if n["code"] == "decision_lapsed"]


def test_a_confirmed_match_reads_confirmed(key, send, screen):
    assert _decide(send, key, outcome="confirmed").status_code == 201
    assert screen(key, demo.AMBER_NAME_ONLY).json()["sanctions"]["review"] == "confirmed"


def test_a_decision_on_a_match_the_hull_does_not_have_is_422_and_stores_nothing(key, send):
    refused = _decide(send, key, imo=demo.GREEN_CLEAN)
    assert refused.status_code == 422 and refused.json()["field_violations"][0]["field"] == "source_record_id"
    unknown = _decide(send, key, source_record_id="no-such-record")
    assert unknown.status_code == 422
    bad_imo = _decide(send, key, imo="1234568")  # its check digit fails
    assert bad_imo.status_code == 422 and bad_imo.json()["field_violations"][0]["field"] == "imo"
    past = _decide(send, key, expires_at="2020-01-01T00:00:00Z")
    assert past.status_code == 422 and past.json()["field_violations"][0]["field"] == "expires_at"
    assert not MatchDecision.objects.exists()


def test_another_accounts_decision_is_404_and_a_second_standing_decision_is_409(key, send, issue_key):
    decision = _decide(send, key).json()
    other = issue_key("test", email="elsewhere@example.com")
    assert send(other, "get", f"{DECISIONS}/{decision['id']}").status_code == 404
    assert send(other, "post", f"{DECISIONS}/{decision['id']}/revoke", {"reviewer": "x"}).status_code == 404
    assert send(other, "get", DECISIONS).json()["match_decisions"] == []
    again = _decide(send, key, outcome="confirmed")
    assert again.status_code == 409 and again.json()["code"] == "decision_exists"


def test_revoking_is_a_new_state_with_who_and_when_and_the_match_shows_no_decision_after(key, send, screen):
    decision = _decide(send, key).json()
    revoked = send(key, "post", f"{DECISIONS}/{decision['id']}/revoke", {"reviewer": "b.lead", "reason": "re-opened"})
    assert revoked.status_code == 200, revoked.content
    body = revoked.json()
    assert body["state"] == "revoked" and body["revoked"]["by"] == "b.lead" and body["revoked"]["reason"] == "re-opened"
    assert body["reason"] == decision["reason"] and body["decided_at"] == decision["decided_at"]  # never rewritten
    twice = send(key, "post", f"{DECISIONS}/{decision['id']}/revoke", {"reviewer": "b.lead"})
    assert twice.status_code == 409 and twice.json()["code"] == "decision_revoked"
    after = screen(key, demo.AMBER_NAME_ONLY).json()
    assert "decision" not in _silver_tide(after) and after["sanctions"]["review"] == "none"
    assert _decide(send, key, outcome="confirmed").status_code == 201  # a new decision may follow


def test_the_list_filters_by_imo_source_outcome_and_active(key, send):
    cleared = _decide(send, key).json()
    send(key, "post", f"{DECISIONS}/{cleared['id']}/revoke", {"reviewer": "b.lead"})
    confirmed = _decide(send, key, outcome="confirmed").json()

    def ids(query: str) -> list[str]:
        response = send(key, "get", f"{DECISIONS}?{query}")
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["match_decisions"]]

    assert ids("") == [confirmed["id"], cleared["id"]]
    assert ids("active=true") == [confirmed["id"]] and ids("active=false") == [cleared["id"]]
    assert ids("outcome=cleared") == [cleared["id"]]
    assert ids(f"imo={demo.AMBER_NAME_ONLY}&source=ofac_sdn") == [confirmed["id"], cleared["id"]]
    assert ids(f"imo={demo.GREEN_CLEAN}") == []
    assert send(key, "get", f"{DECISIONS}?active=yes").status_code == 422


def test_a_decision_lapses_when_its_listing_changes_in_a_later_edition(key, send, screen):
    assert refresh.load_files("ofac_sdn", _edition("SDGT"), origin="test").status == "loaded"
    decision = _decide(send, key).json()
    assert screen(key, demo.AMBER_NAME_ONLY).json()["sanctions"]["review"] == "all_cleared"

    assert refresh.load_files("ofac_sdn", _edition("SDGT] [IRAN"), origin="test").status == "loaded"  # programmes
    after = screen(key, demo.AMBER_NAME_ONLY).json()
    assert "decision" not in _silver_tide(after) and after["sanctions"]["review"] == "none"
    (lapsed,) = [n for n in after["notices"] if n["code"] == "decision_lapsed"]
    assert lapsed["decision_id"] == decision["id"] and lapsed["reason"] == "record_changed"
    assert lapsed["docs"].endswith("#section/Notices/decision_lapsed")
    assert send(key, "get", f"{DECISIONS}/{decision['id']}").json()["state"] == "lapsed"


def test_an_expired_decision_stops_applying_with_a_notice(key, send, screen):
    decision = _decide(send, key, expires_at=(timezone.now() + timedelta(days=30)).isoformat()).json()
    MatchDecision.objects.filter(pk=decision["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    after = screen(key, demo.AMBER_NAME_ONLY).json()
    (lapsed,) = [n for n in after["notices"] if n["code"] == "decision_lapsed"]
    assert lapsed["reason"] == "expired" and "decision" not in _silver_tide(after)
    assert send(key, "get", f"{DECISIONS}/{decision['id']}").json()["state"] == "expired"


def test_decisions_cost_at_most_one_query_on_a_screening(key, send, screen):
    screen(key, demo.AMBER_NAME_ONLY)  # warm: the data state and this hull's history
    with CaptureQueriesContext(connection) as without:
        screen(key, demo.AMBER_NAME_ONLY)
    _decide(send, key)
    with CaptureQueriesContext(connection) as with_one:
        screen(key, demo.AMBER_NAME_ONLY)
    assert len(with_one) <= len(without) + 1


def test_a_monitor_does_not_report_a_move_made_only_by_cleared_matches(demo_world, client, issue_key, send):
    raw = issue_key("live", email="watching-reviewer@example.com", plan="paid")
    created = client.post(
        "/api/v1/vessel-monitors", data={"imo": demo.AMBER_NAME_ONLY}, content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_IDEMPOTENCY_KEY="watch-amber",
    ).json()  # fmt: skip
    runs.run(KIND, VesselMonitorRun.objects.get(monitor_id=created["id"], status=RunStatus.QUEUED).pk)
    green = {**VesselMonitor.objects.get(pk=created["id"]).baseline_verdict}
    green["sanctions"] = {**green["sanctions"], "status": "GREEN"}
    VesselMonitor.objects.filter(pk=created["id"]).update(baseline_verdict=green)  # GREEN yesterday
    assert _decide(send, raw).status_code == 201

    due = VesselMonitor.objects.get(pk=created["id"]).next_run_at
    assert runs.schedule(KIND, now=due)
    runs.run(KIND, VesselMonitorRun.objects.get(monitor_id=created["id"], status=RunStatus.QUEUED).pk)

    assert not Event.objects.filter(type="vessel_risk.changed").exists()
    latest = Screening.objects.filter(imo=demo.AMBER_NAME_ONLY, origin="monitor").latest("id")
    assert json.loads(bytes(latest.document))["sanctions"]["review"] == "all_cleared"
