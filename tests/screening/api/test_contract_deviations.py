"""Issue 12, items 1, 3, 4, 9, 10 and 11: screening behaviour the contract states and the service missed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from screening import demo, engine, services, vetting
from screening.models import FollowUp, Screening
from screening.records import (
    CONFIDENCE_CONFIRMED,
    CONFIDENCE_PROBABLE,
    MATCH_EXACT_IMO,
    MATCH_EXACT_MMSI,
    RECORD_VESSEL,
    ListedRecord,
    MatchHit,
)
from screening.verdict import SANCTIONS_SOURCES, SOURCE_ROLES, decide_sanctions

from .test_identity_and_resolution import _name_the_hull

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="deviations@example.com", plan="paid")


def _codes(body: dict) -> list[str]:
    return [notice["code"] for notice in body["notices"]]


# Item 1: enrichment_latency times the whole screening with vetting.


@pytest.fixture
def clock(monkeypatch):
    """A fake perf_counter for the engine; slow(step) makes a step of the screening take 7 seconds."""
    now = {"t": 1000.0}
    monkeypatch.setattr(engine, "time", SimpleNamespace(perf_counter=lambda: now["t"]))

    def slow(name: str) -> None:
        real = getattr(engine, name)

        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            now["t"] += 7.0
            return real(*args, **kwargs)

        monkeypatch.setattr(engine, name, wrapped)

    return SimpleNamespace(slow=slow)


@pytest.mark.parametrize("step", ["resolve_identity", "match_hull"])
def test_enrichment_latency_counts_identity_and_matching(demo_world, key, screen, clock, step):
    clock.slow(step)
    body = screen(key, demo.GREEN_CLEAN).json()
    notice = next(n for n in body["notices"] if n["code"] == "enrichment_latency")
    assert notice["seconds"] >= 6
    assert "include_vetting" in notice["remedy"]


def test_enrichment_latency_is_quiet_without_vetting_or_when_fast(demo_world, key, screen, clock):
    assert "enrichment_latency" not in _codes(screen(key, demo.GREEN_GRADE_B).json())
    clock.slow("resolve_identity")
    assert "enrichment_latency" not in _codes(screen(key, demo.GREEN_GRADE_C, include_vetting=False).json())


# Item 3: vetting.factors always holds the five factors; detention_count stays an integer.


def _assert_five_unobserved(block: dict) -> None:
    assert [f["name"] for f in block["factors"]] == list(vetting.NOMINAL_WEIGHTS)
    assert all(f["observed"] is False and f["weight_pct"] == 0 and f["score"] is None for f in block["factors"])
    assert type(block["detention_count"]) is int


def test_not_requested_vetting_lists_the_five_factors_unobserved(demo_world, key, screen):
    body = screen(key, demo.GREEN_GRADE_E, include_vetting=False).json()
    assert body["vetting"]["status"] == "not_requested"
    _assert_five_unobserved(body["vetting"])


def test_vetting_that_fails_lists_the_five_factors_and_counts_detentions(demo_world, key, screen, monkeypatch):
    def broken(records):  # type: ignore[no-untyped-def]
        raise RuntimeError("ownership graph unavailable")

    monkeypatch.setattr(engine.ownership, "assess_ownership", broken)
    body = screen(key, demo.GREEN_GRADE_E).json()
    assert body["sanctions"]["status"] == "GREEN"
    assert body["vetting"]["assessed"] is False and body["vetting"]["grade"] is None
    _assert_five_unobserved(body["vetting"])
    row = next(s for s in body["sources"] if s["source"] == "vessel_vetting")
    assert row["status"] == "error"


def test_assessed_vetting_still_lists_the_five_factors(demo_world, key, screen):
    for imo in (demo.GREEN_CLEAN, demo.NOT_ASSESSED, demo.INCOMPLETE_IDENTITY, demo.CONTESTED):
        block = screen(key, imo).json()["vetting"]
        assert [f["name"] for f in block["factors"]] == list(vetting.NOMINAL_WEIGHTS), imo
        assert type(block["detention_count"]) is int, imo


# Item 4: the keyless check accepts any value holding exactly one 7-digit number.


@pytest.mark.parametrize(
    "value",
    [
        f"IMO%20{demo.GREEN_CLEAN}%20built%202005",
        f"{demo.GREEN_CLEAN}%20(built%202005,%2012%20crew)",
        f"IMO{demo.GREEN_CLEAN}-dwt-12345678",
        f"ship%201%20IMO%20{demo.GREEN_CLEAN}",
    ],
)
def test_the_keyless_check_reads_the_one_seven_digit_number_among_others(demo_world, client, value):
    response = client.get(f"/api/v1/vessels/{value}/check", REMOTE_ADDR="198.51.100.61")
    assert response.status_code == 200, response.content
    assert response.json()["imo"] == demo.GREEN_CLEAN


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (f"IMO%20{demo.GREEN_CLEAN}%20or%20{demo.RED_OFAC}", "more than one 7-digit number"),
        ("built%202005", "no run of 7"),
        ("nothing", "no digits"),
    ],
)
def test_no_seven_digit_number_or_more_than_one_is_invalid_imo(demo_world, client, value, fragment):
    response = client.get(f"/api/v1/vessels/{value}/check", REMOTE_ADDR="198.51.100.62")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_imo" and fragment in response.json()["message"]


# Item 9: the AMBER detail names its shape of 3.1 in true words; every detail sentence is true.


def test_each_amber_demo_path_names_its_shape(demo_world, key, screen):
    watchlist = screen(key, demo.AMBER_WATCHLIST).json()["sanctions"]["detail"]
    assert "non-designating watchlist" in watchlist and "Ukrainian war-sanctions watchlist" in watchlist
    aggregated = screen(key, demo.AMBER_AGGREGATED).json()["sanctions"]["detail"]
    assert "aggregated" in aggregated and "corroborates" in aggregated
    name_only = screen(key, demo.AMBER_NAME_ONLY).json()["sanctions"]["detail"]
    assert "name-only match against a listed vessel record" in name_only.lower()
    mmsi = screen(key, demo.AMBER_MMSI).json()["sanctions"]["detail"]
    assert "watchlist" not in mmsi
    assert "MMSI" in mmsi and "OFAC SDN list (a designating list)" in mmsi and "not confirmed" in mmsi


def _hit(source: str, match_type: str, **fields) -> MatchHit:  # type: ignore[no-untyped-def]
    record = ListedRecord(source=source, record_type=RECORD_VESSEL, name="DEMO TEST", source_record_id="1", **fields)
    confidence = CONFIDENCE_CONFIRMED if match_type == MATCH_EXACT_IMO else CONFIDENCE_PROBABLE
    return MatchHit(record, match_type, confidence, 100.0, matched_listed_name=record.name)


def _detail(*hits: MatchHit, gaps: tuple[str, ...] = ()) -> tuple[str, str]:
    outcome = decide_sanctions(
        list(hits),
        hull_imo="9074729",
        identity_basis="sources",
        available_sources=[s for s in SANCTIONS_SOURCES if s not in gaps],
        unavailable_sources=list(gaps),
        editions={},
    )
    return outcome.status, outcome.detail


@pytest.mark.parametrize("source", [s for s, role in SOURCE_ROLES.items() if role == "designating"])
def test_a_designating_list_is_never_called_a_watchlist(source):
    status, detail = _detail(_hit(source, MATCH_EXACT_MMSI, mmsi="123456789"))
    assert status == "AMBER"
    assert "watchlist" not in detail and "designating list" in detail
    status, detail = _detail(_hit(source, MATCH_EXACT_IMO, imo="9074729"))
    assert status == "RED" and "watchlist" not in detail and "designating list" in detail


def test_an_mmsi_on_the_watchlist_is_shape_two_and_a_tagged_aggregated_mmsi_is_shape_three():
    _, detail = _detail(_hit("ua_war_sanctions", MATCH_EXACT_MMSI, mmsi="123456789"))
    assert "non-designating watchlist" in detail and "MMSI 123456789" in detail
    _, detail = _detail(_hit("opensanctions", MATCH_EXACT_MMSI, mmsi="123456789", tags=("sanction",)))
    assert "aggregated" in detail and "corroborates" in detail and "non-designating" not in detail


def test_an_aggregated_record_with_only_watchlist_tags_is_not_called_a_designation():
    _, detail = _detail(_hit("opensanctions", MATCH_EXACT_IMO, imo="9074729", tags=("mare.shadow",)))
    assert "non-designating watchlist" in detail and "sanctioned" not in detail


def test_coverage_sentences_fit_the_verdict():
    _, red = _detail(_hit("ofac_sdn", MATCH_EXACT_IMO, imo="9074729"), gaps=("uk_sanctions",))
    assert "the UK Sanctions List could not be loaded" in red and "re-screen" not in red and "stands" in red
    _, green = _detail(gaps=("uk_sanctions",))
    assert "not a clean pass" in green and "re-screen" in green
    assert "uk_sanctions" not in red + green  # the prose names the list; coverage_gaps keeps the code


def test_an_incomplete_for_coverage_names_the_missing_lists_by_their_display_names():
    status, detail = _detail(gaps=("ofac_sdn", "ua_war_sanctions"))
    assert status == "INCOMPLETE"
    assert "Missing core source: the OFAC SDN list." in detail
    assert "Also unavailable: the Ukrainian war-sanctions watchlist." in detail
    assert "ofac_sdn" not in detail and "ua_war_sanctions" not in detail


def test_a_green_with_ruled_out_rows_says_what_they_were(demo_world, key, screen):
    entity = screen(key, demo.ENTITY_COLLISION).json()["sanctions"]["detail"]
    assert "company or individual record" in entity
    collision = screen(key, demo.IMO_COLLISION).json()["sanctions"]["detail"]
    assert "another IMO" in collision


# Item 10: every field of a stored record (and of a match) is optional on retrieval.


def _reachable(schemas: dict, roots: tuple[str, ...]) -> dict[str, dict]:
    import json
    import re

    seen: dict[str, dict] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen[name] = schemas[name]
        pending += re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(schemas[name]))
    return seen


def _required_anywhere(node, path="") -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    if isinstance(node, dict):
        if isinstance(node.get("required"), list) and node["required"]:
            found.append(f"{path}: {node['required']}")
        for key, value in node.items():
            found += _required_anywhere(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _required_anywhere(value, f"{path}/{index}")
    return found


def test_no_field_of_a_record_or_a_match_is_required_in_the_published_schema(client):
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    reached = _reachable(schemas, ("ScreeningRecordSchema", "MatchSchema", "AssessmentSchema"))
    assert {"MatchSchema", "SanctionsSchema", "VettingSchema", "VettingFactorSchema", "NoticeSchema"} <= set(reached)
    required = [f"{name}{where}" for name, schema in reached.items() for where in _required_anywhere(schema)]
    assert required == []
    assert "optional on retrieval" in schemas["ScreeningRecordSchema"]["description"]
    # Requests keep their required fields.
    assert "imo" in schemas["ScreeningInputRequest"]["required"]


# Item 11: resolving an INCOMPLETE; superseded_by only ever names a record that answers.


def test_the_answer_to_an_incomplete_gives_no_key_advice(demo_world, key, screen):
    original = screen(key, demo.INCOMPLETE_IDENTITY).json()
    answer = screen(key, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO NEW NAME").json()
    assert answer["sanctions"]["status"] == "GREEN" and answer["supersedes"] == original["id"]
    notice = next(n for n in answer["notices"] if n["code"] == "repeat_screening")
    assert notice["previous_screening_id"] == original["id"] and notice["previous_status"] == "INCOMPLETE"
    assert "Idempotency-Key" not in notice["remedy"] and "Idempotency-Key" not in notice["message"]
    assert "answers" in notice["message"]


def test_a_verdict_after_an_incomplete_it_does_not_answer_gives_no_key_advice_either(demo_world, key, screen):
    from django.core.management import call_command

    from screening import datastate

    call_command("seed_demo", "--omit-source", "ofac_sdn", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    screen(key, demo.GREEN_CLEAN)  # INCOMPLETE (coverage)
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    body = screen(key, demo.GREEN_CLEAN).json()
    notice = next(n for n in body["notices"] if n["code"] == "repeat_screening")
    assert notice["previous_status"] == "INCOMPLETE"
    assert "Idempotency-Key" not in notice["remedy"]


def test_a_newer_incomplete_does_not_become_the_superseded_by_of_the_older_one(demo_world, key, screen, client, keyed):
    first = screen(key, demo.INCOMPLETE_IDENTITY).json()
    second = screen(key, demo.INCOMPLETE_IDENTITY).json()
    assert client.get(f"/api/v1/screenings/{first['id']}", **keyed(key)).json()["superseded_by"] is None
    answer = screen(key, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO NEW NAME").json()
    assert answer["supersedes"] == second["id"]
    for record in (first, second):
        again = client.get(f"/api/v1/screenings/{record['id']}", **keyed(key)).json()
        assert again["superseded_by"] == answer["id"]
        assert again["resolution"]["resolved_screening_id"] == answer["id"]


def test_a_scheduled_answer_is_the_superseded_by_of_every_incomplete_it_answers(demo_world, key, screen):
    first = screen(key, demo.INCOMPLETE_IDENTITY).json()
    second = screen(key, demo.INCOMPLETE_IDENTITY).json()
    assert Screening.objects.get(pk=first["id"]).superseded_by_id is None
    _name_the_hull()
    assert services.attempt_follow_up(FollowUp.objects.get()) == "resolved"
    answer_id = FollowUp.objects.get().resolved_screening_id
    assert Screening.objects.get(pk=answer_id).status != "INCOMPLETE"
    assert set(Screening.objects.filter(superseded_by__isnull=False).values_list("superseded_by_id", flat=True)) == {
        answer_id
    }
    assert Screening.objects.get(pk=first["id"]).superseded_by_id == answer_id
    assert Screening.objects.get(pk=second["id"]).superseded_by_id == answer_id
