"""Voyage assessment batches: up to 10 routes, validated up front, run on Celery workers.

Only accepted items reserve quota (one unit each, drawn when the batch is created); an item
that then fails is refunded. The batch ends completed (all succeeded), partial (some) or
failed (none) and emits no charge for rejected items.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import quota
from accounts.models import ENV_LIVE, Account
from config.api.errors import ApiError, FieldViolation
from config.api.timefmt import rfc3339
from voyages.models import VoyageBatch, VoyageBatchItem
from voyages.requests import parse_route_request

MAX_ROUTES = 10


def max_routes(environment: str) -> int:
    return quota.LIVE_MAX_ROUTES if environment == ENV_LIVE else quota.TEST_MAX_ROUTES


def create_batch(account: Account, environment: str, body: Any) -> tuple[VoyageBatch, quota.QuotaState]:
    if not isinstance(body, dict) or not isinstance(body.get("routes"), list) or not body["routes"]:
        raise FieldViolation(
            [
                {
                    "field": "routes",
                    "message": "routes must be a non-empty array of route requests "
                    "({route: {origin, destination, …}}); correct it and "
                    "resend POST /api/v1/voyage-assessment-batches.",
                }
            ]
        )
    routes = body["routes"]
    cap = max_routes(environment)
    if len(routes) > cap:
        raise FieldViolation(
            [
                {
                    "field": "routes",
                    "message": f"a batch holds at most {cap} routes on a {environment} key; split it and resend.",
                }
            ]
        )
    reference = body.get("customer_reference")
    if reference is not None and not isinstance(reference, str):
        raise FieldViolation([{"field": "customer_reference", "message": "must be a string; correct it and resend."}])
    parsed = []
    for index, item in enumerate(routes):
        violations: list[dict] = []
        request = parse_route_request(item, violations, prefix=f"routes[{index}]")
        parsed.append((item, request, violations))
    accepted = sum(1 for _, request, _ in parsed if request is not None)
    if accepted:
        quota.ensure_available(account, environment, quota.KIND_ASSESSMENT, accepted)
    with transaction.atomic():
        state = quota.charge(account, environment, quota.KIND_ASSESSMENT, accepted)
        batch = VoyageBatch.objects.create(
            account=account,
            environment=environment,
            customer_reference=reference or "",
            item_count=len(routes),
            accepted_count=accepted,
            status=VoyageBatch.STATUS_QUEUED if accepted else VoyageBatch.STATUS_FAILED,
            completed_at=None if accepted else timezone.now(),
        )
        for index, (item, request, violations) in enumerate(parsed):
            VoyageBatchItem.objects.create(
                batch=batch,
                position=index,
                request=item if isinstance(item, dict) else {"value": item},
                status=VoyageBatchItem.STATUS_QUEUED if request is not None else VoyageBatchItem.STATUS_REJECTED,
                reserved_unit=request is not None,
                error=None if request is not None else {"code": "validation_failed", "field_violations": violations},
            )
    if accepted:
        from voyages.tasks import run_voyage_batch

        transaction.on_commit(lambda: run_voyage_batch.delay(batch.pk))
    return batch, state


def run_batch(batch_id: str) -> VoyageBatch:
    """Worker body: assess every queued item, refund the ones that fail, settle the status."""
    from voyages import services

    batch = VoyageBatch.objects.select_related("account").get(pk=batch_id)
    if batch.status in VoyageBatch.TERMINAL:
        return batch
    VoyageBatch.objects.filter(pk=batch.pk).update(status=VoyageBatch.STATUS_RUNNING)
    for item in batch.items.filter(status=VoyageBatchItem.STATUS_QUEUED):
        violations: list[dict] = []
        request = parse_route_request(item.request, violations)
        try:
            if request is None:
                raise FieldViolation(violations)
            issued = services.create_assessment(batch.account, batch.environment, request, charge_units=0)
        except ApiError as exc:
            item.status = VoyageBatchItem.STATUS_FAILED
            item.error = {"code": exc.code, "message": exc.message, **exc.extra}
            quota.refund(batch.account, batch.environment, quota.KIND_ASSESSMENT)
        else:
            item.status = VoyageBatchItem.STATUS_SUCCEEDED
            item.assessment = issued.assessment
        item.save(update_fields=["status", "error", "assessment"])
    statuses = list(batch.items.values_list("status", flat=True))
    succeeded = statuses.count(VoyageBatchItem.STATUS_SUCCEEDED)
    final = (
        VoyageBatch.STATUS_COMPLETED
        if succeeded == len(statuses)
        else VoyageBatch.STATUS_PARTIAL
        if succeeded
        else VoyageBatch.STATUS_FAILED
    )
    VoyageBatch.objects.filter(pk=batch.pk).update(status=final, completed_at=timezone.now())
    batch.refresh_from_db()
    return batch


def batch_document(batch: VoyageBatch) -> dict:
    counts: dict[str, int] = {}
    for status in batch.items.values_list("status", flat=True):
        counts[status] = counts.get(status, 0) + 1
    return {
        "id": batch.id,
        "status": batch.status,
        "customer_reference": batch.customer_reference or None,
        "item_count": batch.item_count,
        "accepted_count": batch.accepted_count,
        "counts": {s: counts.get(s, 0) for s in ("queued", "rejected", "succeeded", "failed")},
        "created_at": rfc3339(batch.created_at),
        "completed_at": rfc3339(batch.completed_at),
        "items_url": f"/api/v1/voyage-assessment-batches/{batch.id}/items",
    }


def items_document(batch: VoyageBatch) -> dict:
    from voyages.services import stored_document

    items = []
    for item in batch.items.select_related("assessment"):
        row: dict = {"id": item.id, "position": item.position, "status": item.status}
        if item.assessment is not None:
            row["assessment"] = stored_document(item.assessment)
        if item.error is not None:
            row["error"] = item.error
        items.append(row)
    return {"items": items, "next_cursor": None}
