"""The voyage report page: one assessment as a page a person reads and prints.

The link carries a signature of the assessment id (voyages.report_links), so only whoever
holds the link the API returned can open it; it lives as long as the stored assessment.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import mark_safe

from voyages.models import VoyageAssessment
from voyages.report_links import assessment_id_from
from voyages.report_map import route_svg
from voyages.services import stored_document


def voyage_report(request: HttpRequest, token: str) -> HttpResponse:
    assessment_id = assessment_id_from(token)
    if assessment_id is None:
        raise Http404
    assessment = VoyageAssessment.objects.filter(pk=assessment_id, expires_at__gt=timezone.now()).first()
    if assessment is None:
        raise Http404
    document = stored_document(assessment)
    coords = [tuple(point) for point in document["route"]["geometry"]["geometry"]["coordinates"]]
    drivers = sorted(document.get("drivers", []), key=lambda d: d.get("relative_rank", 99))
    context = {
        "a": document,
        "drivers": drivers,
        "map_svg": mark_safe(
            route_svg(
                coords,
                title=f"{document['route']['origin_locode']} to "  # noqa: S308 - our own SVG
                f"{document['route']['dest_locode']}",
            )
        ),
        "signup_url": f"{settings.PUBLIC_BASE_URL}/signup",
    }
    return render(request, "voyages/assessment_report.html", context)
