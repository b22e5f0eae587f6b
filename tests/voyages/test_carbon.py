"""The carbon-intensity block: IMO CII reference lines, reduction factors, rating boundaries, fuel and CO2."""

from __future__ import annotations

import pytest

from voyages import carbon


def block(**overrides):
    values = {
        "distance_nm": 8300.0,
        "year": 2026,
        "vessel_type": "bulk_carrier",
        "dwt_tonnes": 82000.0,
        "speed_knots": 13.0,
    }
    values.update(overrides)
    return carbon.carbon_block(**values)


def test_the_bulk_carrier_reference_line_follows_mepc_353():
    result = block()
    assert result["reference_cii"] == pytest.approx(4745 * 82000**-0.622, rel=1e-3)
    assert result["capacity"] == 82000 and result["capacity_unit"] == "dwt"


def test_bulk_carrier_capacity_is_capped_at_279000_dwt():
    assert block(dwt_tonnes=400000)["capacity"] == 279000


def test_required_cii_applies_the_year_reduction_factor():
    assert carbon.reduction_factor(2023) == 5 and carbon.reduction_factor(2026) == 11
    assert carbon.reduction_factor(2030) == 21.5 and carbon.reduction_factor(2035) == 21.5
    result = block(year=2026)
    assert result["required_cii"] == pytest.approx(result["reference_cii"] * 0.89, rel=1e-3)


def test_ratings_follow_the_boundaries_of_mepc_354():
    bounds = carbon.rating_boundaries("bulk_carrier", 82000)
    assert bounds == (0.86, 0.94, 1.06, 1.18)
    assert carbon.rating_for(0.85, bounds) == "A"
    assert carbon.rating_for(0.90, bounds) == "B"
    assert carbon.rating_for(1.00, bounds) == "C"
    assert carbon.rating_for(1.10, bounds) == "D"
    assert carbon.rating_for(1.19, bounds) == "E"


def test_co2_is_fuel_times_the_fuel_factor():
    hfo = block(fuel_type="HFO", fuel_consumption_tonnes_per_day=30)
    lng = block(fuel_type="LNG", fuel_consumption_tonnes_per_day=30)
    assert hfo["co2_tonnes"] == pytest.approx(hfo["fuel_tonnes"] * 3.114, rel=1e-3)
    assert lng["co2_tonnes"] == pytest.approx(lng["fuel_tonnes"] * 2.750, rel=1e-3)


def test_reported_consumption_is_used_as_given():
    result = block(fuel_consumption_tonnes_per_day=25)
    assert result["consumption_basis"] == "reported" and result["fuel_tonnes_per_day"] == 25
    days = 8300 / 13 / 24
    assert result["fuel_tonnes"] == pytest.approx(25 * days, rel=1e-3)


def test_ballast_lowers_the_estimated_consumption_and_speed_raises_it_by_the_cube():
    laden, ballast = block(load_condition="laden"), block(load_condition="ballast")
    assert laden["consumption_basis"] == "estimated"
    assert ballast["fuel_tonnes_per_day"] == pytest.approx(laden["fuel_tonnes_per_day"] * 0.85, rel=1e-2)
    fast = block(speed_knots=15.6)
    assert fast["fuel_tonnes_per_day"] == pytest.approx(laden["fuel_tonnes_per_day"] * 1.2**3, rel=1e-2)


def test_fuel_cost_appears_only_with_a_price():
    assert block()["fuel_cost_usd"] is None
    priced = block(bunker_price_usd_per_tonne=600)
    assert priced["fuel_cost_usd"] == pytest.approx(priced["fuel_tonnes"] * 600, rel=1e-2)


def test_passenger_types_use_approximated_gross_tonnage_and_say_so():
    result = block(vessel_type="cruise_passenger", dwt_tonnes=8000, speed_knots=18)
    assert result["capacity_unit"] == "gt" and result["capacity"] == 96000
    assert any("gross tonnage" in note for note in result["notes"])


def test_no_block_without_vessel_type_or_dwt():
    assert block(vessel_type=None) is None
    assert block(dwt_tonnes=None) is None
