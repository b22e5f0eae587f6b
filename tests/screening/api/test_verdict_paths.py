"""Each demo hull produces its documented outcome through POST /api/v1/screenings."""

import pytest
from django.core.management import call_command

from screening import datastate, demo

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(issue_key):
    return issue_key("test")


def test_exact_imo_on_a_designating_list_is_red_and_floors_vetting_at_90(demo_world, key, screen):
    response = screen(key, demo.RED_OFAC)
    assert response.status_code == 201
    body = response.json()
    assert body["sanctions"]["status"] == "RED"
    driving = [m for m in body["sanctions"]["matches"] if m.get("drove_verdict")]
    assert {m["source"] for m in driving} >= {"ofac_sdn"}
    assert all(m["match_type"] == "exact_imo" and m["confidence_class"] == "confirmed" for m in driving)
    assert body["vetting"]["grade"] == "E"
    assert body["vetting"]["score_floor"]["basis"] == "confirmed_sanctions_match"
    assert body["vetting"]["score_floor"]["value"] == 90
    assert body["unit_charged"] is True
    assert response["X-Service-Quota-Remaining"] == "499"


def test_un_1718_vessel_designation_matches_by_imo(demo_world, key, screen):
    body = screen(key, demo.RED_UN_1718, vessel_name="DEMO CHON MA").json()
    assert body["sanctions"]["status"] == "RED"
    un = [m for m in body["sanctions"]["matches"] if m["source"] == "un_sanctions"]
    assert un and "source_url" not in un[0]


def test_name_only_hit_on_a_vessel_record_is_amber(demo_world, key, screen):
    body = screen(key, demo.AMBER_NAME_ONLY).json()
    assert body["sanctions"]["status"] == "AMBER"
    hit = next(m for m in body["sanctions"]["matches"] if m["source"] == "ofac_sdn")
    assert hit["match_type"] in {"name_fuzzy", "name_flag"}
    assert hit["record_type"] == "vessel" and hit["drove_verdict"] is True


def test_exact_imo_on_a_watchlist_is_amber_and_floors_vetting_at_61(demo_world, key, screen):
    body = screen(key, demo.AMBER_WATCHLIST).json()
    assert body["sanctions"]["status"] == "AMBER"
    assert body["vetting"]["score_floor"]["basis"] == "watchlist_exact_imo"
    assert body["vetting"]["score"] >= 61 and body["vetting"]["grade"] in {"D", "E"}


def test_uncorroborated_aggregated_designation_is_amber(demo_world, key, screen):
    body = screen(key, demo.AMBER_AGGREGATED, vessel_name="DEMO GREY PETREL").json()
    assert body["sanctions"]["status"] == "AMBER"
    assert any(m["source"] == "opensanctions" and m["drove_verdict"] for m in body["sanctions"]["matches"])


def test_clean_hull_is_green_with_complete_coverage(demo_world, key, screen):
    body = screen(key, demo.GREEN_CLEAN).json()
    assert body["sanctions"]["status"] == "GREEN"
    assert body["sanctions"]["coverage_complete"] is True
    assert body["sanctions"]["coverage_gaps"] == []
    assert body["sanctions"]["retry_after"] is None
    assert all(m["drove_verdict"] is False for m in body["sanctions"]["matches"] if "drove_verdict" in m)
    assert body["vetting"]["grade"] == "A"
    assert body["ownership"]["opacity"] == "LOW"
    assert "resolution" not in body
    assert body["notices"] == []


def test_supplementary_outage_is_green_with_incomplete_coverage(db, key, screen):
    call_command("seed_demo", "--omit-source", "uk_sanctions", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    body = screen(key, demo.GREEN_CLEAN).json()
    assert body["sanctions"]["status"] == "GREEN"
    assert body["sanctions"]["coverage_complete"] is False
    assert body["sanctions"]["coverage_gaps"] == ["uk_sanctions"]
    row = next(s for s in body["sources"] if s["source"] == "uk_sanctions")
    assert row["status"] == "error"


def test_core_source_outage_is_incomplete_naming_the_gap_and_uncharged(db, key, screen):
    call_command("seed_demo", "--omit-source", "ofac_sdn", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    response = screen(key, demo.GREEN_CLEAN)
    body = response.json()
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert "ofac_sdn" in body["sanctions"]["coverage_gaps"]
    assert body["unit_charged"] is False
    assert body["resolution"]["cause"] == "coverage"
    assert body["sanctions"]["retry_after"] is not None
    assert response["X-Service-Quota-Remaining"] == "500"


def test_grades_a_to_e_and_opacity_bands_are_all_represented(demo_world, key, screen):
    grades = {
        imo: screen(key, imo).json()["vetting"]["grade"]
        for imo in (demo.GREEN_CLEAN, demo.GREEN_GRADE_B, demo.GREEN_GRADE_C, demo.GREEN_GRADE_D, demo.GREEN_GRADE_E)
    }
    assert list(grades.values()) == ["A", "B", "C", "D", "E"]
    opacities = {
        screen(key, imo).json()["ownership"]["opacity"]
        for imo in (demo.GREEN_CLEAN, demo.GREEN_GRADE_C, demo.GREEN_GRADE_E)
    }
    assert opacities == {"LOW", "MEDIUM", "HIGH"}


def test_a_hull_with_no_observed_input_is_not_assessed(demo_world, key, screen):
    body = screen(key, demo.NOT_ASSESSED).json()
    vetting = body["vetting"]
    assert vetting["assessed"] is False and vetting["status"] == "not_assessed"
    assert vetting["grade"] is None and vetting["score"] is None
    assert body["ownership"]["opacity"] is None and body["ownership"]["score"] is None


def test_entity_name_hit_is_listed_but_never_makes_amber(demo_world, key, screen):
    body = screen(key, demo.ENTITY_COLLISION).json()
    assert body["sanctions"]["status"] == "GREEN"
    entity = [m for m in body["sanctions"]["matches"] if m["record_type"] == "entity"]
    assert entity and all(m["drove_verdict"] is False for m in entity)


def test_name_hit_on_a_vessel_with_another_imo_is_a_collision(demo_world, key, screen):
    body = screen(key, demo.IMO_COLLISION).json()
    assert body["sanctions"]["status"] == "GREEN"
    collision = next(m for m in body["sanctions"]["matches"] if m["name"] == "DEMO BLUE HORIZON")
    assert collision["drove_verdict"] is False


def test_with_a_caller_supplied_name_a_different_imo_hit_cannot_be_ruled_a_collision(demo_world, key, screen):
    body = screen(key, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO BLUE HORIZON").json()
    assert body["identity_basis"] == "user"
    assert body["sanctions"]["status"] == "AMBER"
    hit = next(m for m in body["sanctions"]["matches"] if m["name"] == "DEMO BLUE HORIZON")
    assert hit["drove_verdict"] is True


def test_include_vetting_false_skips_the_grade_with_identical_sanctions(demo_world, key, screen):
    full = screen(key, demo.RED_OFAC).json()
    lean = screen(key, demo.RED_OFAC, include_vetting=False).json()
    assert lean["vetting"]["status"] == "not_requested"
    assert lean["vetting"]["grade"] is None
    row = next(s for s in lean["sources"] if s["source"] == "vessel_vetting")
    assert row["status"] == "not_requested"
    assert lean["sanctions"]["status"] == full["sanctions"]["status"]
    assert lean["sanctions"]["coverage_complete"] == full["sanctions"]["coverage_complete"]


def test_demo_sources_say_they_are_demo(demo_world, key, screen):
    body = screen(key, demo.GREEN_CLEAN).json()
    ofac = next(s for s in body["sources"] if s["source"] == "ofac_sdn")
    assert "Demo data" in ofac["message"]


def test_record_carries_versions_and_timestamps(demo_world, key, screen):
    body = screen(key, demo.GREEN_CLEAN, customer_reference="PO-77").json()
    assert body["id"].startswith("scr_")
    assert body["methodology_version"] == "vessel_screening_external_v1"
    assert body["engine_version"] == 34
    assert body["customer_reference"] == "PO-77"
    assert body["screened_at"].endswith("Z") and body["expires_at"] > body["screened_at"]
    assert "superseded_by" not in body


@pytest.mark.parametrize("hull", demo.HULLS, ids=lambda h: h.key)
def test_every_demo_hull_shows_the_outcome_the_readme_documents(demo_world, key, screen, hull):
    body = screen(key, hull.imo).json()
    assert body["sanctions"]["status"] == hull.outcome.split()[0].rstrip(":,")


def test_every_match_explains_which_names_met_by_which_rule_and_what_decided_drove_verdict(demo_world, key, screen):
    body = screen(key, demo.AMBER_NAME_ONLY).json()
    hit = next(m for m in body["sanctions"]["matches"] if m["source"] == "ofac_sdn")
    why = hit["explanation"]
    assert why["listed_name"] == hit["name"] and why["hull_name"] == body["vessel_name"]
    assert why["basis"] in {"exact", "spacing", "transliteration", "word_order", "dropped_letter", "similar"}
    assert why["basis_text"] and 90 <= why["score"] <= 100
    assert (why["verdict_rule"], hit["drove_verdict"]) == ("3.2.1", True)
    assert "vessel record" in why["verdict_reason"]

    red = screen(key, demo.RED_OFAC).json()
    confirmed = next(m for m in red["sanctions"]["matches"] if m.get("drove_verdict"))
    assert confirmed["explanation"]["basis"] == "exact_imo" and confirmed["explanation"]["score"] == 100
    assert confirmed["explanation"]["verdict_rule"] == "3.1" and "hull_name" not in confirmed["explanation"]
    for other in red["sanctions"]["matches"]:
        if not other.get("drove_verdict"):
            assert other["explanation"]["verdict_rule"] in {"3.2.1", "3.2.2", "3.2.3", "3.2.5", "3.1"}
