"""Reads of screening records, scoped to the caller (tenancy) and filtered by validated input."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from rest_framework import serializers

from accounts.tenancy import Owner
from core.api.filters import ListFilter, QueryBooleanField
from core.api.pagination import paginate
from screening import resolution
from screening.models import Screening
from screening.verdict import Verdict


class ScreeningFilter(ListFilter):
    status = serializers.ChoiceField(choices=Verdict.values, required=False)
    superseded = QueryBooleanField(help_text="true: only superseded records; false: only current ones")
    imo = serializers.RegexField(r"^\d{7}$", required=False, help_text="7-digit IMO")


def stored_document(screening: Screening) -> dict:
    return json.loads(bytes(screening.document))


def overlaid_document(screening: Screening) -> dict:
    """GET by id and list rows: the stored record plus superseded_by and the live resolution."""
    document = stored_document(screening)
    document["superseded_by"] = screening.superseded_by_id
    if "resolution" in document and screening.follow_up is not None:
        document["resolution"] = resolution.block(screening.follow_up)
    return document


def filtered_screenings(owner: Owner, filters: dict[str, Any]) -> QuerySet[Screening]:
    """The caller's records matching the list filters (the list pages them; an export writes them all)."""
    records = Screening.objects.owned_by(owner).select_related("follow_up")
    if "status" in filters:
        records = records.filter(status=filters["status"])
    if "superseded" in filters:
        records = records.filter(superseded_by__isnull=not filters["superseded"])
    if "imo" in filters:
        records = records.filter(imo=filters["imo"])
    return records


def screening_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first; status=INCOMPLETE&superseded=false lists the questions still open."""
    return paginate(filtered_screenings(owner, filters), filters, plural="screenings", render=overlaid_document)


def screening_detail(owner: Owner, screening_id: str) -> dict:
    return overlaid_document(Screening.objects.select_related("follow_up").owned_one(owner, screening_id))
