"""Voyage risk score: a weighted average of five drivers, raised by categorical floors (contract 2.10).

Drivers and weights (methodology voyage_risk_external_v1):
    jwc_listed_areas 30 · sanctions (EEZ transit) 20 · piracy 20 · weather 15 · cii 15
Each driver has a 0-100 signal; score = round(sum(weight * signal) / 100) unless a floor
applies. Floors (the highest wins; score = max(weighted, floor)):
    listed_area_active_hostility 80  the route crosses a listed area with active hostilities
    sanctioned_eez_transit       75  the route crosses the EEZ of a comprehensively sanctioned state
    named_country_port_call      70  a port call in a JWC named country
    listed_area_transit          60  the route crosses any JWC listed area
risk_level: low < 20 ≤ moderate < 40 ≤ elevated < 60 ≤ high < 80 ≤ severe.
contribution_band (share of the weighted score): critical ≥ 40%, high ≥ 25%, medium ≥ 10%,
low ≥ 3%, minimal below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.api.timefmt import rfc3339
from voyages.layers import jwc
from voyages.layers.cii import voyage_cii
from voyages.layers.eez import APPROXIMATION_MESSAGE
from voyages.layers.geo import RouteInput, fraction_inside
from voyages.layers.sanctions_regimes import COMPREHENSIVE, regimes_for
from voyages.layers.weather import Forecast, climatology_signal
from voyages.layers_state import LayerSet

WEIGHTS = {"jwc_listed_areas": 30, "sanctions": 20, "piracy": 20, "weather": 15, "cii": 15}
LABELS = {
    "jwc_listed_areas": "War-risk listed areas",
    "sanctions": "Sanctioned and restricted waters",
    "piracy": "Piracy and armed robbery",
    "weather": "Weather",
    "cii": "Country instability",
}
AREA_SIGNAL = {"severe": 95, "high": 75}
EEZ_SIGNAL = {"sanctioned": 100, "listed_area": 70, "restricted": 45, "standard": 0}
FLOORS = {
    "listed_area_active_hostility": 80,
    "sanctioned_eez_transit": 75,
    "named_country_port_call": 70,
    "listed_area_transit": 60,
}
FLOOR_DRIVER = {
    "listed_area_active_hostility": "jwc_listed_areas",
    "listed_area_transit": "jwc_listed_areas",
    "named_country_port_call": "jwc_listed_areas",
    "sanctioned_eez_transit": "sanctions",
}
RISK_LEVELS = ((20, "low"), (40, "moderate"), (60, "elevated"), (80, "high"))
BANDS = ((40, "critical"), (25, "high"), (10, "medium"), (3, "low"))


@dataclass
class RiskResult:
    score: int
    risk_level: str
    drivers: list[dict]
    jwc_intersected_areas: list[dict]
    eez_transit: list[dict]
    score_floor: dict | None
    confidence: float
    missing_sources: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)
    source_status: dict[str, str] = field(default_factory=dict)


def risk_level_for(score: int) -> str:
    for ceiling, level in RISK_LEVELS:
        if score < ceiling:
            return level
    return "severe"


def _band(share_pct: float) -> str:
    for minimum, band in BANDS:
        if share_pct >= minimum:
            return band
    return "minimal"


def _port_in_area(route: RouteInput, area: jwc.ListedArea) -> bool:
    from shapely import Point

    ends = [route.coordinates[0], route.coordinates[-1]]
    return any(area.polygon.contains(Point(((lon + 180) % 360) - 180, lat)) for lon, lat in ends)


def _drivers(signals: dict[str, tuple[int, int | None, str]], floor_basis: str | None) -> tuple[list[dict], int]:
    contributions = {name: WEIGHTS[name] * signals[name][0] / 100 for name in WEIGHTS}
    total = sum(contributions.values())
    ranked = sorted(WEIGHTS, key=lambda n: (-contributions[n], n))
    drivers = []
    for name in WEIGHTS:
        signal, events, summary = signals[name]
        share = round(100 * contributions[name] / total, 1) if total else 0.0
        drivers.append(
            {
                "source": name,
                "label": LABELS[name],
                "summary": summary,
                "event_count": events,
                "signal_score": signal,
                "weight_pct": WEIGHTS[name],
                "contribution_pct": share,
                "contribution_band": _band(share),
                "sets_floor": floor_basis is not None and FLOOR_DRIVER[floor_basis] == name,
                "relative_rank": ranked.index(name) + 1,
            }
        )
    return drivers, round(total)


def assess_route_risk(route: RouteInput, *, as_of: datetime, layers: LayerSet, forecast: Forecast | None) -> RiskResult:
    areas: list[dict[str, Any]] = []
    hostile = named_port = False
    for area in jwc.LISTED_AREAS:
        share = fraction_inside(route, area.polygon)
        port_inside = _port_in_area(route, area)
        if share > 0 or port_inside:
            areas.append({"id": area.id, "name": area.name, "risk_level": area.risk_level, "route_fraction": share})
            hostile = hostile or area.active_hostility
        if port_inside:
            named_port = True
    port_countries = [c for c in (route.origin_country, route.dest_country) if c]
    named_port = named_port or any(c in jwc.FULLY_LISTED_COUNTRIES for c in port_countries)
    transit = layers.eez.transit(route)
    sanctioned = [r for r in transit if regimes_for(r["country_code"])[0] == COMPREHENSIVE]

    jwc_signal = max((AREA_SIGNAL[a["risk_level"]] for a in areas), default=0)
    jwc_summary = f"Crosses {', '.join(a['name'] for a in areas)}." if areas else "No JWC listed area is crossed."
    eez_signal = max((EEZ_SIGNAL[r["risk_category"]] for r in transit), default=0)
    flagged = [f"{r['country_name']} ({r['risk_category']})" for r in transit if r["risk_category"] != "standard"]
    eez_summary = (
        f"Transits the waters of {', '.join(flagged)}."
        if flagged
        else "No sanctioned or restricted state's waters on the route."
    )
    piracy = layers.piracy.assess(route)
    climate_signal, weather_summary = climatology_signal(route, as_of.month)
    weather_signal = max(climate_signal, forecast.signal) if forecast else climate_signal
    if forecast:
        weather_summary += (
            f" Forecast issued {rfc3339(forecast.issued_at)}: waves to {forecast.max_wave_height_m:g} m, "
            f"wind to {forecast.max_wind_kn:g} kn."
        )
    cii_signal, cii_summary = voyage_cii(port_countries, transit, layers.indicators)
    signals = {
        "jwc_listed_areas": (jwc_signal, len(areas), jwc_summary),
        "sanctions": (eez_signal, len(flagged), eez_summary),
        "piracy": piracy,
        "weather": (weather_signal, None, weather_summary),
        "cii": (cii_signal, None, cii_summary),
    }
    applicable = [
        name
        for name, hit in (
            ("listed_area_active_hostility", hostile and any(a["route_fraction"] > 0 for a in areas)),
            ("sanctioned_eez_transit", bool(sanctioned)),
            ("named_country_port_call", named_port),
            ("listed_area_transit", any(a["route_fraction"] > 0 for a in areas)),
        )
        if hit
    ]
    basis = max(applicable, key=lambda b: FLOORS[b]) if applicable else None
    drivers, weighted = _drivers(signals, None)
    score_floor = None
    score = weighted
    if basis is not None and FLOORS[basis] > weighted:
        score = FLOORS[basis]
        drivers, _ = _drivers(signals, basis)
        score_floor = {
            "basis": basis,
            "value": FLOORS[basis],
            "explanation": _floor_explanation(basis, areas, sanctioned, port_countries),
            "weighted_score": weighted,
        }
    missing = [] if forecast else ["weather_forecast"]
    confidence = (
        1.0
        - (0.1 if not forecast else 0)
        - (0.1 if layers.eez.basis != "polygons" else 0)
        - (0.05 if layers.piracy.uses_prior else 0)
    )
    sources = _sources(layers, forecast)
    return RiskResult(
        score=score,
        risk_level=risk_level_for(score),
        drivers=drivers,
        jwc_intersected_areas=areas,
        eez_transit=transit,
        score_floor=score_floor,
        confidence=round(confidence, 2),
        missing_sources=missing,
        sources=sources,
        source_status={row["source"]: row["status"] for row in sources},
    )


def _floor_explanation(basis: str, areas: list[dict], sanctioned: list[dict], ports: list[str]) -> str:
    if basis == "sanctioned_eez_transit":
        names = ", ".join(r["country_name"] for r in sanctioned)
        return f"The route crosses waters of a comprehensively sanctioned state ({names})."
    if basis == "named_country_port_call":
        return f"A port call in a country named in the JWC listed areas ({', '.join(ports)})."
    names = ", ".join(a["name"] for a in areas)
    if basis == "listed_area_active_hostility":
        return f"The route crosses a listed area with active hostilities: {names}."
    return f"The route crosses a JWC listed area: {names}."


def _sources(layers: LayerSet, forecast: Forecast | None) -> list[dict]:
    piracy_row: dict = {"source": "piracy", "status": "ok"}
    if layers.piracy.uses_prior:
        piracy_row.update(
            checked_at=None, basis="unknown", message="No incident file loaded; project-written hot-spot prior in use."
        )
    else:
        piracy_row.update(
            checked_at=rfc3339(layers.piracy_latest_event_at),
            basis="latest_event_at",
            message=f"{len(layers.piracy.incidents)} incidents held; loaded {rfc3339(layers.piracy_loaded_at)}.",
        )
    if forecast:
        weather_row = {
            "source": "weather",
            "status": "ok",
            "checked_at": rfc3339(forecast.issued_at),
            "basis": "published_at",
            "message": "Live forecast plus seasonal climatology.",
        }
    else:
        weather_row = {
            "source": "weather",
            "status": "ok",
            "checked_at": None,
            "basis": "unknown",
            "message": "Seasonal climatology only: the live forecast is not configured or did not "
            "answer in time (weather_forecast in missing_sources).",
        }
    eez_polygons = layers.eez.basis == "polygons"
    return [
        {
            "source": "jwc_listed_areas",
            "status": "ok",
            "checked_at": None,
            "basis": "unknown",
            "message": f"Bundled listed areas ({jwc.EDITION}); the bundled data carries no timestamp.",
        },
        {
            "source": "sanctions",
            "status": "ok",
            "checked_at": rfc3339(layers.eez_loaded_at) if eez_polygons else None,
            "basis": "refreshed_at" if eez_polygons else "unknown",
            "message": (layers.eez.message if eez_polygons else APPROXIMATION_MESSAGE)
            + " Regimes: project-written table of comprehensive and sectoral programmes.",
        },
        piracy_row,
        weather_row,
        {
            "source": "cii",
            "status": "ok",
            "checked_at": None,
            "basis": "unknown",
            "message": "Composite of JWC listing, sanctions regimes, piracy hot-spot waters and loaded country "
            "indicators" + ("" if layers.indicators else " (none loaded)") + "; no timestamp exists.",
        },
    ]
