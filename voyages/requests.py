"""Validation of a voyage route request (contract 4.5), shared by assessments and batches.

Violations are collected as contract field names (route.origin, route.via[3], ...) so the
caller can turn them into one validation_failed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from rest_framework.serializers import Serializer

from core.api.strict_input import unknown_field_violations, unknown_member_violations
from screening.imo import ImoInputError, parse_screening_imo
from voyages.carbon import CO2_FACTORS
from voyages.passages import PASSAGES
from voyages.ports import Port, get_catalogue

LOCODE_SHAPE = re.compile(r"^[A-Z]{2}[A-Z2-9]{3}$")
MAX_VIA = 20
PORTS_HINT = "look the port up with GET /api/v1/ports?query=<name> and send its locode"

VESSEL_TYPES = (
    "bulk_carrier",
    "gas_carrier",
    "tanker",
    "container",
    "general_cargo",
    "refrigerated_cargo",
    "combination_carrier",
    "lng_carrier",
    "ro_ro_cargo",
    "ro_ro_cargo_vehicle",
    "ro_pax",
    "cruise_passenger",
)
LOAD_CONDITIONS = ("laden", "ballast")
MAX_CUSTOMER_REFERENCE = 200
# route.<name>: the accepted range (inclusive), published in the OpenAPI document as given here.
NUMBER_RANGES: dict[str, tuple[float, float]] = {
    "speed_knots": (1, 40),
    "dwt_tonnes": (100, 600_000),
    "fuel_consumption_tonnes_per_day": (0.1, 500),
    "bunker_price_usd_per_tonne": (0, 10_000),
}
# The fuels whose CO2 factor the carbon block carries, in capitals or in lower case ("methanol").
FUEL_TYPES = tuple(fuel for name in CO2_FACTORS for fuel in (name, name.lower()))


@dataclass
class RouteRequest:
    origin: Port
    destination: Port
    via: list[tuple[float, float]] = field(default_factory=list)  # (lon, lat)
    vessel_type: str | None = None
    load_condition: str | None = None
    speed_knots: float | None = None
    dwt_tonnes: float | None = None
    fuel_type: str | None = None
    fuel_consumption_tonnes_per_day: float | None = None
    bunker_price_usd_per_tonne: float | None = None
    customer_reference: str | None = None
    closed_passages: frozenset[str] | None = None  # None: the default closures (voyages.passages)
    imo: str | None = None  # the hull sailing it: adds the AIS anomalies driver (voyages.ais_driver)


def _locode(value: Any, name: str, violations: list[dict]) -> Port | None:
    if isinstance(value, dict):
        value = value.get("locode")
    if not isinstance(value, str):
        violations.append(
            {
                "field": name,
                "message": f'{name} must be a UN/LOCODE string such as NLRTM or {{"locode": "NLRTM"}}; {PORTS_HINT}.',
            }
        )
        return None
    if not LOCODE_SHAPE.match(value):
        hint = f" (did you mean {value.upper()}?)" if LOCODE_SHAPE.match(value.upper()) else ""
        violations.append(
            {
                "field": name,
                "message": f"{value!r} is not an uppercase 5-character UN/LOCODE{hint}; "
                f"port names are not accepted — {PORTS_HINT}.",
            }
        )
        return None
    port = get_catalogue().get_port(value)
    if port is None:
        violations.append({"field": name, "message": f"{value} is not a port this service carries; {PORTS_HINT}."})
    return port


def name_the_call(message: str, call: str) -> str:
    """A remedy ending "… and resend." names the call to resend."""
    return f"{message[: -len('resend.')]}resend {call}." if message.endswith("resend.") else message


def _number(route: dict, key: str, violations: list[dict]) -> float | None:
    if key not in route or route[key] is None:
        return None
    minimum, maximum = NUMBER_RANGES[key]
    value = route[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        violations.append({"field": f"route.{key}", "message": f"route.{key} must be a number; correct it and resend."})
        return None
    if not minimum <= value <= maximum:
        violations.append(
            {
                "field": f"route.{key}",
                "message": f"route.{key} must be between {minimum:g} and {maximum:g}; correct it and resend.",
            }
        )
        return None
    return float(value)


def _choice(route: dict, key: str, choices: tuple[str, ...], violations: list[dict]) -> str | None:
    if key not in route or route[key] is None:
        return None
    value = route[key]
    if not isinstance(value, str) or value not in choices:
        violations.append(
            {
                "field": f"route.{key}",
                "message": f"route.{key} must be one of {', '.join(choices)}; correct it and resend.",
            }
        )
        return None
    return value


def _via(raw: Any, violations: list[dict]) -> list[tuple[float, float]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        violations.append(
            {
                "field": "route.via",
                "message": "route.via must be an array of [lon, lat] pairs or "
                "{lat, lon} objects; correct it and resend.",
            }
        )
        return []
    if len(raw) > MAX_VIA:
        violations.append(
            {
                "field": "route.via",
                "message": f"route.via holds {len(raw)} points; at most {MAX_VIA} are accepted — drop some and resend.",
            }
        )
        return []
    points = []
    for index, item in enumerate(raw):
        if isinstance(item, dict):
            lon, lat = item.get("lon"), item.get("lat")
        elif isinstance(item, list) and len(item) == 2:
            lon, lat = item
        else:
            lon = lat = None
        valid = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (lon, lat))
        if not valid or not (-180 <= lon <= 180 and -90 <= lat <= 90):  # type: ignore[operator]
            violations.append(
                {
                    "field": f"route.via[{index}]",
                    "message": 'each via point is [lon, lat] or {"lat": …, "lon": …} with lat in '
                    "-90..90 and lon in -180..180; correct it and resend.",
                }
            )
            continue
        points.append((float(lon), float(lat)))  # type: ignore[arg-type]
    return points


def _closures(route: dict, violations: list[dict]) -> frozenset[str] | None:
    """route.closed_passages: names of voyages.passages.PASSAGES to route around (replaces the defaults)."""
    value = route.get("closed_passages")
    if value is None:
        return None
    known = ", ".join(sorted(PASSAGES))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        violations.append(
            {
                "field": "route.closed_passages",
                "message": f"route.closed_passages must be an array of passage names ({known}).",
            }
        )
        return None
    unknown = sorted(set(value) - set(PASSAGES))
    if unknown:
        violations.append(
            {"field": "route.closed_passages", "message": f"unknown passage(s) {', '.join(unknown)}; known: {known}."}
        )
        return None
    return frozenset(value)


def _imo(value: Any, violations: list[dict]) -> str | None:
    """The optional hull of the voyage: seven digits (also IMO<imo>) holding their check digit."""
    if value is None:
        return None
    try:
        parsed = parse_screening_imo(value) if isinstance(value, str) else None
    except ImoInputError:
        parsed = None
    if parsed is None or not parsed.check_digit_valid:
        violations.append(
            {
                "field": "imo",
                "message": "imo must be the 7-digit IMO number of the hull sailing the route, with a valid check "
                "digit (e.g. 9074729); correct it or leave it out and resend.",
            }
        )
        return None
    return parsed.imo


def _unknown_members(published: type[Serializer], body: dict, route: Any) -> list[dict]:
    """A violation for each member the request does not take, however deep (route.spede_knots,
    route.origin.name, route.via[0].latitude): refused, never dropped."""
    resend = "correct it and resend"
    found = unknown_field_violations(published, body, resend=resend)
    if isinstance(route, dict):
        for side in ("origin", "destination"):
            found += unknown_member_violations(route.get(side), ("locode",), prefix=f"route.{side}", resend=resend)
        via = route.get("via")
        for index, point in enumerate(via if isinstance(via, list) else []):
            found += unknown_member_violations(point, ("lat", "lon"), prefix=f"route.via[{index}]", resend=resend)
    return found


def parse_route_request(
    body: Any,
    violations: list[dict],
    prefix: str = "",
    *,
    resend: str | None = None,
    published: type[Serializer] | None = None,
) -> RouteRequest | None:
    """Validate one route request body; append violations (field names prefixed) and return it or None.

    `resend`: the caller's operation ("POST /api/v1/voyage-assessments"), named in every remedy that
    says to resend (contract part 7: a violation names the call that resolves it).
    `published`: the request's published serializer (voyages.api.schema.AssessmentRequestSchema, which
    imports this module): a member it does not declare is a violation naming it. Given for a request as
    received; not for one stored before the rule and read again by a run."""
    local: list[dict] = []
    if not isinstance(body, dict):
        violations.append({"field": prefix or "body", "message": "must be a JSON object; correct it and resend."})
        return None
    route = body.get("route")
    if published is not None:
        local.extend(_unknown_members(published, body, route))
    if not isinstance(route, dict):
        local.append(
            {"field": "route", "message": "route must be an object with origin and destination; correct it and resend."}
        )
        route = {}
    reference = body.get("customer_reference")
    if reference is not None and (not isinstance(reference, str) or len(reference) > MAX_CUSTOMER_REFERENCE):
        local.append(
            {
                "field": "customer_reference",
                "message": f"customer_reference must be a string of at most {MAX_CUSTOMER_REFERENCE} characters; "
                "correct it and resend.",
            }
        )
    imo = _imo(body.get("imo"), local)
    origin = _locode(route.get("origin"), "route.origin", local) if route else None
    destination = _locode(route.get("destination"), "route.destination", local) if route else None
    if origin is not None and destination is not None and origin.locode == destination.locode:
        local.append(
            {
                "field": "route.destination",
                "message": "route.destination equals route.origin; a voyage "
                "needs two different ports — correct it and resend.",
            }
        )
    request = RouteRequest(
        origin=origin,  # type: ignore[arg-type]
        destination=destination,  # type: ignore[arg-type]
        via=_via(route.get("via"), local),
        vessel_type=_choice(route, "vessel_type", VESSEL_TYPES, local),
        load_condition=_choice(route, "load_condition", LOAD_CONDITIONS, local),
        speed_knots=_number(route, "speed_knots", local),
        dwt_tonnes=_number(route, "dwt_tonnes", local),
        fuel_type=_choice(route, "fuel_type", FUEL_TYPES, local),
        fuel_consumption_tonnes_per_day=_number(route, "fuel_consumption_tonnes_per_day", local),
        bunker_price_usd_per_tonne=_number(route, "bunker_price_usd_per_tonne", local),
        customer_reference=reference if isinstance(reference, str) else None,
        closed_passages=_closures(route, local),
        imo=imo,
    )
    for violation in local:
        if prefix:
            violation["field"] = f"{prefix}.{violation['field']}"
        if resend:
            violation["message"] = name_the_call(violation["message"], resend)
    violations.extend(local)
    return None if local else request
