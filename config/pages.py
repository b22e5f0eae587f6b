"""Pages of the service as a whole (the changelog)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.changelog import CHANGES


def changelog_page(request: HttpRequest) -> HttpResponse:
    return render(request, "changelog.html", {"changes": CHANGES})
