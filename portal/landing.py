"""The landing page at `/`, the favicon, and the landing page's keyless check form.

The keyless check is GET /api/v1/vessels/{imo}/check (JSON) and its page /vessels/{imo}/report,
which runs the same check (screening.keyless). A form cannot put the IMO into a path, so the
form sends GET /check?imo=… and is redirected to the report page; nothing is screened here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from metering.auth import signup_url
from screening.imo import InvalidImoPath, parse_keyless_imo

FAVICON = Path(__file__).resolve().parent / "static" / "portal" / "favicon.svg"
FAVICON_MAX_AGE = 86_400


@cache
def _favicon_bytes() -> bytes:
    return FAVICON.read_bytes()


def _landing(request: HttpRequest, *, imo: str = "", error: str = "", status: int = 200) -> HttpResponse:
    context = {"signup_url": signup_url(), "imo": imo, "error": error}
    return render(request, "landing.html", context, status=status)


@require_safe
def landing_page(request: HttpRequest) -> HttpResponse:
    return _landing(request)


@require_safe
def check_form(request: HttpRequest) -> HttpResponse:
    """The landing form's target: a valid IMO goes to its report page, anything else back to the form."""
    value = request.GET.get("imo", "").strip()
    if not value:
        return _landing(request, error="Enter the hull's 7-digit IMO number.", status=400)
    try:
        imo = parse_keyless_imo(value)
    except InvalidImoPath as exc:
        return _landing(request, imo=value, error=f"That is not an IMO number: {exc}.", status=400)
    return redirect(reverse("vessel-report", kwargs={"imo": imo}))


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """The service's icon (an SVG shield and hull), at /favicon.svg and /favicon.ico alike."""
    response = HttpResponse(_favicon_bytes(), content_type="image/svg+xml")
    response["Cache-Control"] = f"public, max-age={FAVICON_MAX_AGE}"
    return response
