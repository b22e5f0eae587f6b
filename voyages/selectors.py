"""Reads of voyage assessments and batches, scoped to the caller (tenancy)."""

from __future__ import annotations

import json

from django.http import Http404
from django.utils import timezone

from accounts.tenancy import Owner
from core.api.timefmt import rfc3339
from jobs.flow import status_counts
from voyages.models import VoyageAssessment, VoyageBatch, VoyageBatchItem


def stored_document(assessment: VoyageAssessment) -> dict:
    return json.loads(bytes(assessment.document))


def assessment_body(owner: Owner, assessment_id: str) -> bytes:
    """The stored assessment, byte-for-byte, until its expires_at."""
    assessment = (
        VoyageAssessment.objects.owned_by(owner)
        .filter(pk=assessment_id, expires_at__gt=timezone.now())
        .only("document")
        .first()
    )
    if assessment is None:
        raise Http404
    return bytes(assessment.document)


def _owned_batch(owner: Owner, batch_id: str) -> VoyageBatch:
    return VoyageBatch.objects.owned_one(owner, batch_id)


def batch_document(batch: VoyageBatch) -> dict:
    counts = status_counts(VoyageBatchItem.objects.filter(batch=batch).values_list("status", flat=True))
    return {
        "id": batch.id,
        "status": batch.status,
        "customer_reference": batch.customer_reference or None,
        "item_count": batch.item_count,
        "accepted_count": batch.accepted_count,
        "counts": counts,
        "created_at": rfc3339(batch.created_at),
        "completed_at": rfc3339(batch.completed_at),
        "items_url": f"/api/v1/voyage-assessment-batches/{batch.id}/items",
    }


def items_document(batch: VoyageBatch) -> dict:
    items = []
    for item in VoyageBatchItem.objects.filter(batch=batch).select_related("assessment"):
        row: dict = {"id": item.id, "position": item.position, "status": item.status}
        if item.assessment is not None:
            row["assessment"] = stored_document(item.assessment)
        if item.error is not None:
            row["error"] = item.error
        items.append(row)
    return {"items": items, "next_cursor": None}


def batch_detail(owner: Owner, batch_id: str) -> dict:
    return batch_document(_owned_batch(owner, batch_id))


def batch_items(owner: Owner, batch_id: str) -> dict:
    """Every item of the batch in position order (a batch holds at most 10): one page."""
    return items_document(_owned_batch(owner, batch_id))
