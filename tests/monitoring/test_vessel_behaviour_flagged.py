"""vessel_behaviour.flagged: new AIS events of medium or high severity reach the hull's live monitors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from accounts.models import Account
from behaviour.models import AisLoad, BehaviourEvent
from behaviour.services import events_detected
from monitoring.behaviour_flags import BEHAVIOUR_FLAGGED
from monitoring.models import VesselMonitor
from webhooks.events import EVENT_TYPES
from webhooks.models import Event

pytestmark = pytest.mark.django_db

WATCHED, OTHER = "9074729", "9300776"


def _monitor(account: Account, imo: str, mode: str = VesselMonitor.Mode.LIVE) -> VesselMonitor:
    return VesselMonitor.objects.create(account=account, environment="live", imo=imo, mode=mode)


def _event(kind: str, severity: str, imo: str, other_imo: str = "", minute: int = 0) -> BehaviourEvent:
    return BehaviourEvent.objects.create(
        id=f"bev_test{kind}{severity}{minute}",
        kind=kind,
        severity=severity,
        mmsi=219000001,
        imo=imo,
        other_mmsi=219000002 if other_imo else None,
        other_imo=other_imo,
        started_at=datetime(2024, 3, 1, 12, minute, tzinfo=UTC),
        ended_at=datetime(2024, 3, 1, 20, minute, tzinfo=UTC),
        lat=36.5,
        lon=22.5,
        summary="test",
        evidence={"gap_hours": 8},
        detector_version="1",
        detected_at=datetime(2024, 3, 2, tzinfo=UTC),
    )


@pytest.fixture
def account(issue_key) -> Account:
    issue_key("live", email="watch@example.com")
    return Account.objects.get(email="watch@example.com")


def test_the_event_type_is_published_among_the_webhook_events(client):
    assert BEHAVIOUR_FLAGGED in EVENT_TYPES
    document = client.get("/api/v1/openapi.json").json()
    assert BEHAVIOUR_FLAGGED in document["webhooks"]


def test_a_committed_loads_new_medium_or_high_events_are_sent_to_the_live_monitors_of_either_hull(account):
    watching = _monitor(account, WATCHED)
    _monitor(account, "9321483", mode=VesselMonitor.Mode.SIMULATION)  # never scheduled, never flagged
    dark = _event("dark_period", "high", WATCHED)
    meeting = _event("sts_meeting", "medium", OTHER, other_imo=WATCHED, minute=1)
    call = _event("port_call", "info", WATCHED, minute=2)
    weak = _event("position_jump", "low", WATCHED, minute=3)

    events_detected.send(sender=AisLoad, load=None, new_events=[dark, meeting, call, weak])

    sent = list(Event.objects.filter(type=BEHAVIOUR_FLAGGED).order_by("created_at", "id"))
    assert [(e.data["vessel_monitor_id"], e.data["event"]["id"]) for e in sent] == [
        (watching.id, dark.id),
        (watching.id, meeting.id),
    ]
    assert sent[0].account_id == account.pk and sent[0].environment == "live"
    assert sent[1].data["event"]["other_vessel"] == {"mmsi": "219000002", "imo": WATCHED}
    assert sent[0].data["event"]["advisory_practice"].startswith("Disabling or manipulating")


def test_events_of_hulls_nobody_monitors_send_nothing(account):
    _monitor(account, WATCHED)
    events_detected.send(sender=AisLoad, load=None, new_events=[_event("dark_period", "high", OTHER)])
    assert not Event.objects.filter(type=BEHAVIOUR_FLAGGED).exists()


def test_a_real_flagged_event_validates_against_the_published_webhook(client, account):
    from tests.webhooks.test_event_schema import _as_sent, _errors

    _monitor(account, WATCHED)
    events_detected.send(sender=AisLoad, load=None, new_events=[_event("dark_period", "high", WATCHED)])
    document = client.get("/api/v1/openapi.json").json()
    body = _as_sent(Event.objects.get(type=BEHAVIOUR_FLAGGED))
    assert _errors(document, BEHAVIOUR_FLAGGED, body) == []
    body["data"]["event"]["kind"] = "not_a_kind"
    assert _errors(document, BEHAVIOUR_FLAGGED, body)
