"""Reads of cargo screenings, scoped to the caller (tenancy) and filtered by validated input."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from rest_framework import serializers

from accounts.tenancy import Owner
from cargo.models import CargoScreening
from core.api.filters import ListFilter, QueryTimestampField
from core.api.pagination import paginate
from screening.verdict import Verdict


class CargoScreeningFilter(ListFilter):
    status = serializers.ChoiceField(choices=Verdict.values, required=False)
    created_after = QueryTimestampField(help_text="Only cargo screenings created at or after this instant (RFC 3339)")
    created_before = QueryTimestampField(help_text="Only cargo screenings created before this instant (RFC 3339)")
    hs_chapter = serializers.RegexField(r"^\d{2}$", required=False, help_text="2-digit HS chapter, e.g. 84")
    vessel_imo = serializers.RegexField(r"^\d{7}$", required=False, help_text="7-digit IMO of the vessel screened")


def stored_document(record: CargoScreening) -> dict:
    """The record as issued (cargo screenings carry no overlay)."""
    return json.loads(bytes(record.document))


def filtered_cargo_screenings(owner: Owner, filters: dict[str, Any]) -> QuerySet[CargoScreening]:
    """The caller's cargo screenings matching the list filters (the list pages them; an export writes them all)."""
    records = CargoScreening.objects.owned_by(owner)
    if "status" in filters:
        records = records.filter(status=filters["status"])
    if "created_after" in filters:
        records = records.filter(created_at__gte=filters["created_after"])
    if "created_before" in filters:
        records = records.filter(created_at__lt=filters["created_before"])
    if "hs_chapter" in filters:
        records = records.filter(hs_code__startswith=filters["hs_chapter"])
    if "vessel_imo" in filters:
        records = records.filter(vessel_imo=filters["vessel_imo"])
    return records


def cargo_screening_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first, {"cargo_screenings": [...], "next_cursor": ...}."""
    return paginate(
        filtered_cargo_screenings(owner, filters), filters, plural="cargo_screenings", render=stored_document
    )


def cargo_screening_body(owner: Owner, cargo_screening_id: str) -> bytes:
    """The stored bytes of one of the caller's cargo screenings; 404 for anyone else's id."""
    body = (
        CargoScreening.objects.owned_by(owner).filter(pk=cargo_screening_id).values_list("document", flat=True).first()
    )
    if body is None:
        raise Http404
    return bytes(body)
