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
from voyages.layers.jwc import LISTED_AREAS
from voyages.models import VoyageAssessment
from voyages.report_links import assessment_id_from
from voyages.report_map import route_svg
from voyages.services import stored_document


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


def _with_share(rows: list[dict]) -> list[dict]:
    return [{**row, "route_share": percent(row.get("route_fraction"))} for row in rows]


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
    context = {
        "a": document,
        "drivers": drivers,
        "jwc_areas": _with_share(document.get("jwc_intersected_areas") or []),
        "eez_rows": _with_share(document.get("eez_transit") or []),
        "map_svg": mark_safe(  # noqa: S308 - SVG built by voyages.report_map from numbers and escaped text
            route_svg(coords, highlighted=_in_listed_areas(coords), title=f"{origin} to {destination}")
        ),
        "signup_url": signup_url(),
    }
    return render(request, "voyages/assessment_report.html", context)
