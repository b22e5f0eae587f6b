"""The demo world's AIS: generated, labelled demo, and showing what the detectors find on the GREEN hull."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command

from behaviour import demo
from behaviour.models import AisLoad, BehaviourEvent
from screening import demo as screening_demo

pytestmark = pytest.mark.django_db


def _seed() -> str:
    out = io.StringIO()
    call_command("seed_demo_ais", stdout=out)
    return out.getvalue()


def test_the_demo_hulls_behaviour_shows_a_dark_period_a_meeting_and_a_draught_change_beside_its_green_verdict(
    demo_world, ais_store, client, keyed, issue_key
):
    assert "Demo AIS loaded" in _seed()
    load = AisLoad.objects.get()
    assert load.origin == AisLoad.Origin.DEMO and load.file_name.startswith("demo-ais-")
    body = client.get(f"/api/v1/vessels/{screening_demo.GREEN_CLEAN}/behaviour", **keyed(issue_key("test"))).json()
    assert body["observed"] is True
    assert body["coverage"]["files"][0]["origin"] == "demo"
    assert {identity["mmsi"] for identity in body["identities"]} == {demo.GUARDIAN_MMSI}
    kinds = {event["kind"]: event for event in body["events"]}
    assert set(kinds) == {"dark_period", "sts_meeting", "draught_change_at_sea"}
    assert kinds["dark_period"]["severity"] == "high" and "Laconian Gulf" in kinds["dark_period"]["summary"]
    assert kinds["sts_meeting"]["other_vessel"] == {"mmsi": demo.TRADER_MMSI, "imo": demo.TRADER_IMO}
    assert kinds["draught_change_at_sea"]["severity"] == "high"  # after the meeting
    trader = set(BehaviourEvent.objects.filter(mmsi=int(demo.TRADER_MMSI)).values_list("kind", flat=True))
    assert trader == {"sts_meeting", "draught_change_at_sea", "identity_change"}


def test_seeding_again_keeps_the_demo_and_an_aged_demo_is_replaced_by_a_fresh_one(ais_store):
    _seed()
    assert "already loaded" in _seed()
    first = AisLoad.objects.get()
    events = BehaviourEvent.objects.count()
    AisLoad.objects.filter(pk=first.pk).update(created_at=first.created_at - timedelta(days=30))
    later = demo.seed_demo_ais(today=first.created_at.date() + timedelta(days=30))[0]
    assert list(AisLoad.objects.values_list("pk", flat=True)) == [later.pk] != [first.pk]
    assert BehaviourEvent.objects.count() == events
    assert not any(ais_store.glob(f"*/day=*/load={first.pk}"))
