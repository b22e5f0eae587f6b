"""The voyage report page: one assessment as a page a person reads and prints.

The link carries a signature of the assessment id (voyages.report_links), so only whoever
holds the link the API returned can open it; it lives as long as the stored assessment.
"""

from __future__ import annotations

import numpy as np
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import mark_safe
from shapely import contains_xy

from metering.auth import signup_url
from screening.pages.labels import BASES, SOURCE_STATUS
from voyages.layers.jwc import LISTED_AREAS
from voyages.models import VoyageAssessment
from voyages.ports import get_catalogue
from voyages.report_links import assessment_id_from
from voyages.report_map import route_svg
from voyages.scoring import LABELS, RISK_LEVELS
from voyages.services import stored_document

FLOOR_TITLES = {
    "listed_area_active_hostility": "Raised because the route crosses a listed area with active hostilities",
    "sanctioned_eez_transit": "Raised because the route crosses the waters of a comprehensively sanctioned state",
    "named_country_port_call": "Raised because a port call is in a country named in the listed areas",
    "listed_area_transit": "Raised because the route crosses a war-risk listed area",
}


def _in_listed_areas(coords: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Route points inside a JWC listed area, to highlight on the map."""
    lons = np.array([((lon + 180) % 360) - 180 for lon, _ in coords])
    lats = np.array([lat for _, lat in coords])
    inside = np.zeros(len(coords), dtype=bool)
    for area in LISTED_AREAS:
        inside |= contains_xy(area.polygon, lons, lats)
    return [point for point, hit in zip(coords, inside, strict=True) if hit]


def percent(fraction: float | None) -> str:
    """A share of the route as a person reads it: 0.0312 -> "3.1%"; a sliver above 0 is "<0.1%"."""
    if fraction is None:
        return "—"
    value = 100 * float(fraction)
    if 0 < value < 0.1:
        return "<0.1%"
    return f"{value:.1f}%".replace(".0%", "%")


RISK_CATEGORIES = {
    "sanctioned": "sanctioned state",
    "listed_area": "in a listed area",
    "restricted": "restricted",
    "standard": "standard",
}


def _with_share(rows: list[dict]) -> list[dict]:
    return [
        {
            **row,
            "route_share": percent(row.get("route_fraction")),
            "risk_text": RISK_CATEGORIES.get(row.get("risk_category", ""), row.get("risk_category", "")),
        }
        for row in rows
    ]


def risk_bands() -> list[dict]:
    """The risk levels with their score ranges (voyages.scoring.RISK_LEVELS): low 0-19 ... severe 80-100."""
    bands, low = [], 0
    for ceiling, level in RISK_LEVELS:
        bands.append({"level": level, "range": f"{low}–{ceiling - 1}"})
        low = ceiling
    bands.append({"level": "severe", "range": f"{low}–100"})
    return bands


def port_name(locode: str) -> dict:
    port = get_catalogue().get_port(locode)
    if port is None:
        return {"locode": locode, "name": locode, "country": ""}
    return {"locode": locode, "name": port.name, "country": port.country}


def _sources(rows: list[dict]) -> list[dict]:
    return [
        {
            **row,
            "display_name": LABELS.get(row.get("source", ""), row.get("source", "")),
            "status_text": SOURCE_STATUS.get(row.get("status", ""), row.get("status", "")),
            "basis_text": BASES.get(row.get("basis") or "", row.get("basis") or "—"),
        }
        for row in rows
    ]


def voyage_report(request: HttpRequest, token: str) -> HttpResponse:
    assessment_id = assessment_id_from(token)
    if assessment_id is None:
        raise Http404
    assessment = VoyageAssessment.objects.filter(pk=assessment_id, expires_at__gt=timezone.now()).first()
    if assessment is None:
        raise Http404
    document = stored_document(assessment)
    coords = [tuple(point) for point in document["route"]["geometry"]["geometry"]["coordinates"]]
    origin, destination = document["route"]["origin_locode"], document["route"]["dest_locode"]
    drivers = sorted(document.get("drivers", []), key=lambda d: d.get("relative_rank", 99))
    origin_port, dest_port = port_name(origin), port_name(destination)
    areas = document.get("jwc_intersected_areas") or []
    svg = route_svg(
        coords,
        highlighted=_in_listed_areas(coords),
        title=f"{origin_port['name']} to {dest_port['name']}",
        area_ids=[area["id"] for area in areas],
        ports=[(origin_port["name"], origin), (dest_port["name"], destination)],
    )
    floor = document.get("score_floor")
    context = {
        "a": document,
        "origin": origin_port,
        "destination": dest_port,
        "bands": risk_bands(),
        "floor_title": FLOOR_TITLES.get(floor["basis"], floor["basis"]) if floor else "",
        "drivers": drivers,
        "sources": _sources(document.get("sources") or []),
        "jwc_areas": _with_share(areas),
        "eez_rows": _with_share(document.get("eez_transit") or []),
        "map_svg": mark_safe(svg),  # noqa: S308 - SVG built from numbers and escaped text (voyages.report_map)
        "signup_url": signup_url(),
    }
    return render(request, "voyages/assessment_report.html", context)
