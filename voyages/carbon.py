"""Carbon intensity of the passage: fuel, CO2 and the IMO CII rating (an additional block, not a driver).

Regulation constants are written here as facts:
- reference lines CII_ref = a * Capacity^-c per ship type and size (MEPC.353(78));
- reduction factors Z by year relative to 2019 (MEPC.338(76) for 2023-2026: 5, 7, 9, 11 %;
  2027-2030 as amended at MEPC 83: 13.625, 16.25, 18.875, 21.5 %);
- rating boundaries exp(d1..d4) per ship type (MEPC.354(78)); the attained/required ratio
  at or below exp(d1) is A, up to exp(d2) B, exp(d3) C, exp(d4) D, above that E;
- CO2 conversion factors Cf per fuel (MEPC.364(79)).
The attained CII here is the passage's own: CO2 grams / (capacity x distance nm). The
regulation rates a calendar year of operation; one passage is an indication of it.

Fuel, when `fuel_consumption_tonnes_per_day` is not given, is estimated (consumption_basis
"estimated"): a reference daily consumption per ship type at a reference speed, scaled by
(capacity / 100,000)^0.66 and by the cube of speed over reference speed (admiralty law),
times 0.85 in ballast. Ro-ro and passenger ships are rated by gross tonnage; the request
carries DWT, so GT is approximated by a type factor (documented below), and the block says so.
"""

from __future__ import annotations

REDUCTION_FACTOR_PCT = {
    2023: 5.0,
    2024: 7.0,
    2025: 9.0,
    2026: 11.0,
    2027: 13.625,
    2028: 16.25,
    2029: 18.875,
    2030: 21.5,
}
CO2_FACTORS = {
    "HFO": 3.114,
    "LFO": 3.151,
    "MDO": 3.206,
    "MGO": 3.206,
    "LNG": 2.750,
    "METHANOL": 1.375,
    "ETHANOL": 1.913,
    "LPG_PROPANE": 3.000,
    "LPG_BUTANE": 3.030,
}
DEFAULT_FUEL = "HFO"
BALLAST_FACTOR = 0.85
# GT per tonne DWT where the CII capacity is gross tonnage (approximation for the request's DWT).
GT_PER_DWT = {"ro_ro_cargo_vehicle": 3.0, "ro_ro_cargo": 2.0, "ro_pax": 4.0, "cruise_passenger": 12.0}
# Reference consumption (t/day at capacity 100,000) and reference speed (kn) per type.
CONSUMPTION_REFERENCE = {
    "bulk_carrier": (30.5, 14.0),
    "tanker": (31.5, 14.0),
    "container": (99.5, 18.0),
    "general_cargo": (28.0, 13.0),
    "gas_carrier": (60.0, 16.5),
    "lng_carrier": (90.0, 17.0),
    "refrigerated_cargo": (70.0, 18.0),
    "combination_carrier": (31.0, 14.0),
    "ro_ro_cargo": (45.0, 17.0),
    "ro_ro_cargo_vehicle": (40.0, 18.0),
    "ro_pax": (55.0, 20.0),
    "cruise_passenger": (60.0, 18.0),
}


def _bulk(dwt: float) -> tuple[float, float, float]:
    return min(dwt, 279_000), 4745, 0.622


def _gas(dwt: float) -> tuple[float, float, float]:
    return (dwt, 14405e7, 2.071) if dwt >= 65_000 else (dwt, 8104, 0.639)


def _general(dwt: float) -> tuple[float, float, float]:
    return (dwt, 31948, 0.792) if dwt >= 20_000 else (dwt, 588, 0.3885)


def _lng(dwt: float) -> tuple[float, float, float]:
    if dwt >= 100_000:
        return dwt, 9.827, 0.000
    return max(dwt, 65_000), 14479e10, 2.673


def _vehicle(gt: float) -> tuple[float, float, float]:
    if gt >= 30_000:
        return min(gt, 57_700), 3627, 0.590
    return gt, 330, 0.329


REFERENCE_LINES = {
    "bulk_carrier": _bulk,
    "gas_carrier": _gas,
    "tanker": lambda dwt: (dwt, 5247, 0.610),
    "container": lambda dwt: (dwt, 1984, 0.489),
    "general_cargo": _general,
    "refrigerated_cargo": lambda dwt: (dwt, 4600, 0.557),
    "combination_carrier": lambda dwt: (dwt, 5119, 0.622),
    "lng_carrier": _lng,
    "ro_ro_cargo_vehicle": _vehicle,
    "ro_ro_cargo": lambda gt: (gt, 1967, 0.485),
    "ro_pax": lambda gt: (gt, 2023, 0.460),
    "cruise_passenger": lambda gt: (gt, 930, 0.383),
}


def rating_boundaries(vessel_type: str, dwt: float) -> tuple[float, float, float, float]:
    """exp(d1..d4) of MEPC.354(78)."""
    if vessel_type == "gas_carrier":
        return (0.81, 0.91, 1.12, 1.44) if dwt >= 65_000 else (0.85, 0.95, 1.06, 1.25)
    if vessel_type == "lng_carrier":
        return (0.89, 0.98, 1.06, 1.13) if dwt >= 100_000 else (0.78, 0.92, 1.10, 1.37)
    return {
        "bulk_carrier": (0.86, 0.94, 1.06, 1.18),
        "tanker": (0.82, 0.93, 1.08, 1.28),
        "container": (0.83, 0.94, 1.07, 1.19),
        "general_cargo": (0.83, 0.94, 1.06, 1.19),
        "refrigerated_cargo": (0.78, 0.91, 1.07, 1.20),
        "combination_carrier": (0.87, 0.96, 1.06, 1.14),
        "ro_ro_cargo_vehicle": (0.86, 0.94, 1.06, 1.16),
        "ro_ro_cargo": (0.76, 0.89, 1.08, 1.27),
        "ro_pax": (0.76, 0.92, 1.14, 1.30),
        "cruise_passenger": (0.87, 0.95, 1.06, 1.16),
    }[vessel_type]


def rating_for(ratio: float, boundaries: tuple[float, float, float, float]) -> str:
    for limit, rating in zip(boundaries, "ABCD", strict=True):
        if ratio <= limit:
            return rating
    return "E"


def reduction_factor(year: int) -> float:
    """Z (%) for a year; before 2023 none applied, after 2030 the 2030 value is the last adopted."""
    if year < 2023:
        return 0.0
    return REDUCTION_FACTOR_PCT[min(year, 2030)]


def capacity_of(vessel_type: str, dwt: float) -> tuple[float, str, float, float]:
    """(capacity, unit, a, c) of the reference line."""
    if vessel_type in GT_PER_DWT:
        capacity, a, c = REFERENCE_LINES[vessel_type](dwt * GT_PER_DWT[vessel_type])
        return capacity, "gt", a, c
    capacity, a, c = REFERENCE_LINES[vessel_type](dwt)
    return capacity, "dwt", a, c


def estimated_consumption(vessel_type: str, capacity: float, speed: float, load_condition: str | None) -> float:
    base, reference_speed = CONSUMPTION_REFERENCE[vessel_type]
    daily = base * (capacity / 100_000) ** 0.66 * (speed / reference_speed) ** 3
    return daily * (BALLAST_FACTOR if load_condition == "ballast" else 1.0)


def carbon_block(
    *,
    distance_nm: float,
    year: int,
    vessel_type: str | None,
    dwt_tonnes: float | None,
    speed_knots: float | None,
    load_condition: str | None = None,
    fuel_type: str | None = None,
    fuel_consumption_tonnes_per_day: float | None = None,
    bunker_price_usd_per_tonne: float | None = None,
) -> dict | None:
    """The carbon block, or None when vessel_type or dwt_tonnes is missing (the assessment omits it)."""
    if not vessel_type or vessel_type not in REFERENCE_LINES or not dwt_tonnes or distance_nm <= 0:
        return None
    fuel = (fuel_type or DEFAULT_FUEL).upper().replace("-", "_")
    cf = CO2_FACTORS.get(fuel, CO2_FACTORS[DEFAULT_FUEL])
    capacity, unit, a, c = capacity_of(vessel_type, dwt_tonnes)
    speed = speed_knots or CONSUMPTION_REFERENCE[vessel_type][1]
    days = distance_nm / speed / 24
    if fuel_consumption_tonnes_per_day:
        daily, basis = fuel_consumption_tonnes_per_day, "reported"
    else:
        daily, basis = estimated_consumption(vessel_type, capacity, speed, load_condition), "estimated"
    fuel_tonnes = daily * days
    co2_tonnes = fuel_tonnes * cf
    attained = co2_tonnes * 1_000_000 / (capacity * distance_nm)
    reference = a * capacity ** (-c) if c else a
    z = reduction_factor(year)
    required = (1 - z / 100) * reference
    ratio = attained / required
    notes = []
    if unit == "gt":
        notes.append(f"capacity is gross tonnage approximated as {GT_PER_DWT[vessel_type]:g} x DWT")
    if fuel_type and fuel not in CO2_FACTORS:
        notes.append(f"unknown fuel {fuel_type!r}: {DEFAULT_FUEL} factor used")
    return {
        "basis": "IMO CII (MEPC.352/353/354(78), MEPC.338(76)) applied to this passage; an annual rating uses "
        "the calendar year's operational data",
        "vessel_type": vessel_type,
        "capacity": round(capacity),
        "capacity_unit": unit,
        "year": year,
        "speed_knots": round(speed, 2),
        "load_condition": load_condition or "laden",
        "passage_days": round(days, 2),
        "fuel_type": fuel if fuel in CO2_FACTORS else DEFAULT_FUEL,
        "consumption_basis": basis,
        "fuel_tonnes_per_day": round(daily, 2),
        "fuel_tonnes": round(fuel_tonnes, 1),
        "co2_tonnes": round(co2_tonnes, 1),
        "attained_cii": round(attained, 3),
        "reference_cii": round(reference, 3),
        "reduction_factor_pct": z,
        "required_cii": round(required, 3),
        "cii_ratio": round(ratio, 3),
        "cii_rating": rating_for(ratio, rating_boundaries(vessel_type, dwt_tonnes)),
        "fuel_cost_usd": round(fuel_tonnes * bunker_price_usd_per_tonne) if bunker_price_usd_per_tonne else None,
        "notes": notes,
    }


def block_for_request(request: object, distance_nm: float, year: int) -> dict | None:
    return carbon_block(
        distance_nm=distance_nm,
        year=year,
        vessel_type=getattr(request, "vessel_type", None),
        dwt_tonnes=getattr(request, "dwt_tonnes", None),
        speed_knots=getattr(request, "speed_knots", None),
        load_condition=getattr(request, "load_condition", None),
        fuel_type=getattr(request, "fuel_type", None),
        fuel_consumption_tonnes_per_day=getattr(request, "fuel_consumption_tonnes_per_day", None),
        bunker_price_usd_per_tonne=getattr(request, "bunker_price_usd_per_tonne", None),
    )
