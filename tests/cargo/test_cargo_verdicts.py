"""Each verdict path of a cargo screening on the demo world, and what each part sets."""

from __future__ import annotations

import pytest

from cargo.models import CargoScreening
from metering.models import QuotaCounter
from screening import demo
from screening.models import FollowUp, Screening
from tests.cargo.conftest import cargo_body

pytestmark = pytest.mark.django_db


def used(environment: str = "test") -> int:
    return sum(QuotaCounter.objects.filter(environment=environment, kind="screening").values_list("used", flat=True))


def drivers_of(body: dict) -> list[tuple[str, str, str]]:
    return [(d["part"], d["field"], d["status"]) for d in body["drivers"]]


def test_a_clean_cargo_on_a_clean_vessel_is_green_and_costs_one_unit(demo_world, key, screen_cargo):
    response = screen_cargo(key, cargo_body(vessel={"imo": demo.GREEN_CLEAN}, customer_reference="PO-1"))
    assert response.status_code == 201
    body = response.json()
    assert body["id"].startswith("cgs_") and body["customer_reference"] == "PO-1"
    assert body["status"] == "GREEN" and body["coverage_complete"] is True and body["drivers"] == []
    assert body["unit_charged"] is True and used() == 1
    assert body["methodology_version"] == "cargo_screening_external_v1"
    vessel = body["vessel"]
    assert vessel["status"] == "GREEN" and vessel["vessel_name"] == "DEMO FJORD GUARDIAN"
    hull = Screening.objects.get(pk=vessel["screening_id"])
    assert hull.origin == "cargo" and hull.unit_charged  # the one unit is the hull's
    assert response["X-Service-Quota-Remaining"] == "499" and response["X-Service-Quota-Limit"] == "500"


def test_a_cargo_without_a_vessel_costs_one_unit_of_the_screening_allowance(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body()).json()
    assert body["status"] == "GREEN" and body["vessel"] is None and body["load_port"]["locode"] == "NLRTM"
    assert used() == 1 and Screening.objects.count() == 0


def test_a_party_listed_by_its_exact_name_on_a_designating_list_makes_the_cargo_red(demo_world, key, screen_cargo):
    parties = [
        {"name": "Demo Fjord Exporters AS", "role": "shipper"},
        {"name": "Demo Orion Traders", "role": "consignee"},  # the listed name without its legal form
    ]
    body = screen_cargo(key, cargo_body(parties=parties)).json()
    assert body["status"] == "RED"
    assert drivers_of(body) == [("party", "parties[1]", "RED")] and body["drivers"][0]["sets_verdict"]
    consignee = body["parties"][1]
    assert consignee["status"] == "RED" and body["parties"][0]["status"] == "GREEN"
    match = consignee["matches"][0]
    assert match["source"] == "ofac_sdn" and match["record_type"] == "entity"
    assert match["match_type"] == "name_exact" and match["confidence_class"] == "confirmed"
    assert match["drove_verdict"] is True and match["source_record_id"] == "990004"
    assert "consignee" in body["detail"] and "OFAC" in body["detail"]


def test_a_near_party_name_is_amber_for_review(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(parties=[{"name": "DEMO ORION TRADER", "role": "notify_party"}])).json()
    assert body["status"] == "AMBER" and drivers_of(body) == [("party", "parties[0]", "AMBER")]
    match = body["parties"][0]["matches"][0]
    assert match["match_type"] == "name_fuzzy" and match["confidence_class"] == "possible"


def test_a_party_named_like_a_listed_vessel_is_left_to_the_vessel_part(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(parties=[{"name": "DEMO SILVER TIDE", "role": "charterer"}])).json()
    assert body["status"] == "GREEN" and body["parties"][0]["matches"] == []


def test_a_destination_under_a_comprehensive_regime_is_red(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(destination_country="IR", discharge_port="IRBND")).json()
    assert body["status"] == "RED"
    assert ("country", "destination_country", "RED") in drivers_of(body)
    assert ("port", "discharge_port", "RED") in drivers_of(body)
    assert body["destination_country"]["sanctions"]["kind"] == "comprehensive"
    assert any("Iran" in regime for regime in body["destination_country"]["sanctions"]["regimes"])


def test_an_origin_under_sectoral_sanctions_is_amber(demo_world, key, screen_cargo):
    body = screen_cargo(
        key, cargo_body(commodity={"hs_code": "0803", "description": "Bananas"}, origin_country="RU", load_port=None)
    ).json()
    assert body["status"] == "AMBER" and drivers_of(body) == [("country", "origin_country", "AMBER")]
    assert body["origin_country"]["sanctions"] == {
        "is_sanctioned": True,
        "kind": "sectoral",
        "regimes": body["origin_country"]["sanctions"]["regimes"],
    }
    assert body["load_port"] is None


def test_a_load_port_in_a_sanctioned_state_makes_red_though_both_countries_are_clean(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(origin_country="AE", load_port="IRBND")).json()
    assert body["status"] == "RED" and drivers_of(body) == [("port", "load_port", "RED")]
    assert body["origin_country"]["status"] == "GREEN"


def test_a_port_in_crimea_is_read_by_its_region_not_its_country(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(destination_country="UA", discharge_port="UASVP")).json()
    assert body["status"] == "RED" and drivers_of(body) == [("port", "discharge_port", "RED")]
    assert body["discharge_port"]["region"] == "Crimea" and body["destination_country"]["status"] == "GREEN"
    odesa = screen_cargo(key, cargo_body(destination_country="UA", discharge_port="UAODS")).json()
    assert odesa["status"] == "GREEN" and odesa["discharge_port"]["region"] is None


def test_arms_to_an_embargoed_country_are_red_by_commodity(demo_world, key, screen_cargo):
    body = screen_cargo(
        key,
        cargo_body(
            commodity={"hs_code": "930190", "description": "Military weapons"},
            destination_country="LY",
            discharge_port=None,
        ),
    ).json()
    assert body["status"] == "RED"
    assert drivers_of(body) == [("commodity", "commodity.hs_code", "RED"), ("country", "destination_country", "AMBER")]
    control = body["commodity"]["export_controls"][0]
    assert control["category"] == "arms" and control["severity"] == "prohibited" and "1970 (2011)" in control["regime"]
    assert [d["sets_verdict"] for d in body["drivers"]] == [True, False]


def test_dual_use_machinery_to_russia_is_amber_naming_the_regulation(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(destination_country="RU", discharge_port="RULED")).json()
    assert body["status"] == "AMBER"
    assert ("commodity", "commodity.hs_code", "AMBER") in drivers_of(body)
    controls = body["commodity"]["export_controls"]
    assert {c["category"] for c in controls} == {"dual_use"}
    assert "833/2014" in controls[0]["regime"] and controls[0]["field"] == "destination_country"


def test_export_controls_follow_the_direction_of_the_measure(demo_world, key, screen_cargo):
    # Crude oil is restricted from Russia (an import measure), not to it.
    crude = {"hs_code": "270900", "description": "Crude petroleum"}
    from_russia = screen_cargo(key, cargo_body(commodity=crude, origin_country="RU", load_port="RUNVS")).json()
    assert [c["category"] for c in from_russia["commodity"]["export_controls"]] == ["crude_oil_and_products"]
    to_russia = screen_cargo(key, cargo_body(commodity=crude, destination_country="RU", discharge_port=None)).json()
    assert to_russia["commodity"]["export_controls"] == []


def test_a_heading_level_category_needs_the_heading(demo_world, key, screen_cargo):
    cars = screen_cargo(
        key,
        cargo_body(commodity={"hs_code": "8703", "description": "Cars"}, destination_country="RU", discharge_port=None),
    ).json()
    assert cars["commodity"]["categories"] == ["luxury_goods"]
    chapter = screen_cargo(
        key,
        cargo_body(
            commodity={"hs_code": "87", "description": "Vehicles"}, destination_country="RU", discharge_port=None
        ),
    ).json()
    assert chapter["commodity"]["categories"] == [] and chapter["commodity"]["hs_chapter"] == "87"


def test_a_red_vessel_makes_the_cargo_red(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(vessel={"imo": f"IMO {demo.RED_OFAC}"})).json()
    assert body["status"] == "RED" and drivers_of(body) == [("vessel", "vessel.imo", "RED")]
    assert body["vessel"]["imo"] == demo.RED_OFAC and body["vessel"]["status"] == "RED"
    assert used() == 1


def test_an_amber_vessel_makes_the_cargo_amber(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(vessel={"imo": demo.AMBER_WATCHLIST})).json()
    assert body["status"] == "AMBER" and drivers_of(body) == [("vessel", "vessel.imo", "AMBER")]


def test_an_unnamed_vessel_leaves_the_cargo_incomplete_free_and_unenrolled(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(vessel={"imo": demo.INCOMPLETE_IDENTITY})).json()
    assert body["status"] == "INCOMPLETE" and drivers_of(body) == [("vessel", "vessel.imo", "INCOMPLETE")]
    assert body["unit_charged"] is False and used() == 0
    assert FollowUp.objects.count() == 0  # no background re-screen would draw a unit later
    named = screen_cargo(key, cargo_body(vessel={"imo": demo.INCOMPLETE_IDENTITY, "vessel_name": "DEMO NEW NAME"}))
    assert named.json()["status"] == "GREEN" and named.json()["vessel"]["identity_basis"] == "user"
    assert used() == 1


def test_a_bad_check_digit_is_screened_as_a_bare_identifier_and_not_charged(demo_world, key, screen_cargo):
    body = screen_cargo(key, cargo_body(vessel={"imo": demo.BAD_CHECK_DIGIT})).json()
    assert body["status"] == "INCOMPLETE" and body["unit_charged"] is False and used() == 0


def test_a_red_party_stands_when_the_vessel_is_incomplete_and_costs_one_unit(demo_world, key, screen_cargo):
    parties = [{"name": "DEMO KORYO SHIPPING COMPANY", "role": "charterer"}]
    body = screen_cargo(key, cargo_body(parties=parties, vessel={"imo": demo.INCOMPLETE_IDENTITY})).json()
    assert body["status"] == "RED"
    assert drivers_of(body) == [("party", "parties[0]", "RED"), ("vessel", "vessel.imo", "INCOMPLETE")]
    assert body["unit_charged"] is True and used() == 1
    hull = Screening.objects.get(pk=body["vessel"]["screening_id"])
    assert hull.unit_charged is False  # the unit is the cargo's own


def test_a_missing_core_list_makes_the_cargo_incomplete(demo_world_without, key, screen_cargo):
    demo_world_without("ofac_sdn")
    body = screen_cargo(key, cargo_body()).json()
    assert body["status"] == "INCOMPLETE" and body["coverage_gaps"] == ["ofac_sdn"]
    assert drivers_of(body) == [("party", "parties", "INCOMPLETE")] and used() == 0
    assert "the OFAC SDN list could not be loaded" in body["detail"] and "ofac_sdn" not in body["detail"]
    assert CargoScreening.objects.get().unit_charged is False


def test_a_missing_supplementary_list_is_green_but_not_a_clean_pass(demo_world_without, key, screen_cargo):
    demo_world_without("uk_sanctions")
    body = screen_cargo(key, cargo_body()).json()
    assert (
        body["status"] == "GREEN" and body["coverage_complete"] is False and body["coverage_gaps"] == ["uk_sanctions"]
    )
    assert "not a clean pass" in body["detail"]
    assert "the UK Sanctions List could not be loaded" in body["detail"] and "uk_sanctions" not in body["detail"]
    assert {row["source"]: row["status"] for row in body["sources"]}["uk_sanctions"] == "error"


def test_drivers_list_every_part_worst_first(demo_world, key, screen_cargo):
    body = screen_cargo(
        key,
        cargo_body(
            commodity={"hs_code": "8471", "description": "Computers"},
            origin_country="RU",
            load_port="RUNVS",
            destination_country="KP",
            discharge_port="KPNAM",
            parties=[{"name": "DEMO ORION TRADER", "role": "shipper"}],
            vessel={"imo": demo.AMBER_WATCHLIST},
        ),
    ).json()
    assert body["status"] == "RED"
    statuses = [d["status"] for d in body["drivers"]]
    assert statuses == sorted(statuses, key=["RED", "INCOMPLETE", "AMBER"].index)
    assert {d["part"] for d in body["drivers"]} == {"party", "country", "port", "commodity", "vessel"}
    assert {d["part"] for d in body["drivers"] if d["sets_verdict"]} == {"country", "port"}
