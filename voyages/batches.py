"""Voyage assessment batches: up to 10 routes, validated up front, run on Celery workers.

Only accepted items reserve quota (one unit each, drawn when the batch is created); an item
that then fails is refunded. The batch ends completed (all succeeded), partial (some) or
failed (none) and emits no charge for rejected items.

Each accepted item is its own task. A worker claims an item (queued -> running, with a lease and
one more attempt) before it runs, so two workers never both run it, and a redelivered message for
an item already claimed or settled does nothing. The item's result and its status commit in one
transaction: the assessment with `succeeded`, or `failed` with its unit's refund; a worker whose
claim was taken over (its lease ran out and the sweep queued the item again) writes nothing.

`sweep()` (beat, every VOYAGE_BATCH_SWEEP_SECONDS) recovers what a killed worker or a lost broker
message leaves behind: it re-sends items queued or running past their lease, fails an item whose
runs were lost VOYAGE_BATCH_ITEM_MAX_ATTEMPTS times, and ends a batch still open
VOYAGE_BATCH_DEADLINE_SECONDS after creation, its unfinished items failed `deadline_exceeded` and
refunded. A batch's final status is written once, by whichever settles its last open item.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts import quota
from accounts.models import ENV_LIVE, Account
from config.api.errors import ApiError, FieldViolation
from config.api.timefmt import rfc3339
from voyages.models import VoyageBatch, VoyageBatchItem
from voyages.requests import parse_route_request

logger = logging.getLogger("service.batches")

MAX_ROUTES = 10

# Error codes of items the service gave up on (the item's unit is refunded).
ERROR_DEADLINE_EXCEEDED = "deadline_exceeded"
ERROR_ATTEMPTS_EXHAUSTED = "attempts_exhausted"

# What run_item() did with a message.
RUN_SUCCEEDED = "succeeded"
RUN_FAILED = "failed"
RUN_SKIPPED = "skipped"  # the item was not queued: running elsewhere, or already settled
RUN_SUPERSEDED = "superseded"  # the claim was taken over while it ran; nothing written


class LeaseLost(Exception):
    """The item is no longer held under this attempt: roll back what the attempt wrote."""


def max_routes(environment: str) -> int:
    return quota.LIVE_MAX_ROUTES if environment == ENV_LIVE else quota.TEST_MAX_ROUTES


def _lease(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS)


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
    now = timezone.now()
    queued: list[str] = []
    with transaction.atomic():
        state = quota.charge(account, environment, quota.KIND_ASSESSMENT, accepted)
        batch = VoyageBatch.objects.create(
            account=account,
            environment=environment,
            customer_reference=reference or "",
            item_count=len(routes),
            accepted_count=accepted,
            status=VoyageBatch.STATUS_QUEUED if accepted else VoyageBatch.STATUS_FAILED,
            created_at=now,
            completed_at=None if accepted else now,
        )
        for index, (item, request, violations) in enumerate(parsed):
            row = VoyageBatchItem.objects.create(
                batch=batch,
                position=index,
                request=item if isinstance(item, dict) else {"value": item},
                status=VoyageBatchItem.STATUS_QUEUED if request is not None else VoyageBatchItem.STATUS_REJECTED,
                reserved_unit=request is not None,
                error=None if request is not None else {"code": "validation_failed", "field_violations": violations},
                # A queued item's lease: when the sweep re-sends it if no worker has claimed it.
                lease_expires_at=_lease(now) if request is not None else None,
            )
            if request is not None:
                queued.append(row.pk)
    if queued:
        transaction.on_commit(lambda: dispatch(queued))
    return batch, state


def dispatch(item_ids: Iterable[str]) -> int:
    """Send one task per item; returns how many were sent.

    Best effort: the batch is committed and answered whatever the broker does. An item whose
    message cannot be sent (or is lost later) stays queued and the sweep re-sends it once its
    lease has run out.
    """
    from voyages.tasks import run_voyage_batch_item

    sent = 0
    for item_id in item_ids:
        try:
            run_voyage_batch_item.delay(item_id)
        except Exception:  # the broker's errors vary by transport; the sweep is the recovery
            logger.warning("batch item %s not sent; the sweep will re-send it", item_id, exc_info=True)
        else:
            sent += 1
    return sent


def claim_item(item_id: str, now: datetime) -> tuple[VoyageBatchItem, int] | None:
    """queued -> running under a new attempt, or None when the item is not this worker's to run."""
    with transaction.atomic():
        claimed = VoyageBatchItem.objects.filter(pk=item_id, status=VoyageBatchItem.STATUS_QUEUED).update(
            status=VoyageBatchItem.STATUS_RUNNING, lease_expires_at=_lease(now), attempts=F("attempts") + 1
        )
        if not claimed:
            return None
        item = VoyageBatchItem.objects.select_related("batch__account").get(pk=item_id)
        VoyageBatch.objects.filter(pk=item.batch_id, status=VoyageBatch.STATUS_QUEUED).update(
            status=VoyageBatch.STATUS_RUNNING
        )
    return item, item.attempts


def _settle_item(item: VoyageBatchItem, attempt: int, **fields: Any) -> None:
    """Write the item's outcome if this attempt still holds it; otherwise raise LeaseLost.

    Call inside the transaction that writes the outcome's other half (the assessment, the refund).
    """
    settled = VoyageBatchItem.objects.filter(
        pk=item.pk, status=VoyageBatchItem.STATUS_RUNNING, attempts=attempt
    ).update(lease_expires_at=None, **fields)
    if not settled:
        raise LeaseLost(item.pk)


def run_item(item_id: str, now: datetime | None = None) -> str:
    """Worker body for one item: claim it, assess it, write result and status together."""
    claim = claim_item(item_id, now or timezone.now())
    if claim is None:
        return RUN_SKIPPED
    return run_claimed(*claim)


def run_claimed(item: VoyageBatchItem, attempt: int) -> str:
    """Assess an item claimed under `attempt`; nothing is written unless the attempt still holds it."""
    from voyages import services

    batch = item.batch
    violations: list[dict] = []
    request = parse_route_request(item.request, violations)
    try:
        try:
            if request is None:
                raise FieldViolation(violations)
            services.create_assessment(
                batch.account,
                batch.environment,
                request,
                charge_units=0,
                in_transaction=lambda issued: _settle_item(
                    item, attempt, status=VoyageBatchItem.STATUS_SUCCEEDED, assessment=issued.assessment, error=None
                ),
            )
            outcome = RUN_SUCCEEDED
        except ApiError as exc:
            with transaction.atomic():
                _settle_item(
                    item,
                    attempt,
                    status=VoyageBatchItem.STATUS_FAILED,
                    error={"code": exc.code, "message": exc.message, **exc.extra},
                )
                if item.reserved_unit:
                    quota.refund(batch.account, batch.environment, quota.KIND_ASSESSMENT)
            outcome = RUN_FAILED
    except LeaseLost:
        logger.warning("batch item %s attempt %s was taken over; its result is dropped", item.pk, attempt)
        return RUN_SUPERSEDED
    settle_batch(batch.pk)
    return outcome


def final_status(statuses: list[str]) -> str:
    succeeded = statuses.count(VoyageBatchItem.STATUS_SUCCEEDED)
    if succeeded == len(statuses):
        return VoyageBatch.STATUS_COMPLETED
    return VoyageBatch.STATUS_PARTIAL if succeeded else VoyageBatch.STATUS_FAILED


def settle_batch(batch_id: str, now: datetime | None = None) -> str | None:
    """Write the batch's final status once no item is open; returns it, or None while items are open.

    Items never leave a terminal status, so once all are terminal the outcome is fixed; the
    conditional update writes it exactly once however many workers and sweeps get here.
    """
    statuses = list(VoyageBatchItem.objects.filter(batch_id=batch_id).values_list("status", flat=True))
    if any(status in VoyageBatchItem.OPEN for status in statuses):
        return None
    final = final_status(statuses)
    VoyageBatch.objects.filter(pk=batch_id, status__in=VoyageBatch.OPEN).update(
        status=final, completed_at=now or timezone.now()
    )
    return final


def _give_up(batch: VoyageBatch, items: Q, code: str, message: str) -> int:
    """Fail the batch's open items matching `items` and refund their units, in one transaction."""
    with transaction.atomic():
        failed = VoyageBatchItem.objects.filter(items, batch=batch, status__in=VoyageBatchItem.OPEN).update(
            status=VoyageBatchItem.STATUS_FAILED, lease_expires_at=None, error={"code": code, "message": message}
        )
        if failed:
            quota.refund(batch.account, batch.environment, quota.KIND_ASSESSMENT, failed)
    return failed


@dataclass
class SweepReport:
    redispatched: int = 0  # items re-sent (queued past their lease, or running past it: lost)
    exhausted: int = 0  # items failed attempts_exhausted
    expired: int = 0  # items failed deadline_exceeded
    settled: list[str] = field(default_factory=list)  # batches this sweep ended

    def as_dict(self) -> dict:
        return {
            "redispatched": self.redispatched,
            "exhausted": self.exhausted,
            "expired": self.expired,
            "settled": len(self.settled),
        }


def sweep(now: datetime | None = None) -> SweepReport:
    """Recover open batches: re-send stale items, fail lost ones, end overdue batches."""
    now = now or timezone.now()
    report = SweepReport()
    overdue_before = now - timedelta(seconds=settings.VOYAGE_BATCH_DEADLINE_SECONDS)
    resend: list[str] = []
    for batch in VoyageBatch.objects.filter(status__in=VoyageBatch.OPEN).select_related("account"):
        if batch.created_at <= overdue_before:
            report.expired += _give_up(
                batch,
                Q(),
                ERROR_DEADLINE_EXCEEDED,
                f"the batch did not finish within {settings.VOYAGE_BATCH_DEADLINE_SECONDS} s; "
                "this route's unit is refunded: send it again in a new batch.",
            )
        else:
            report.exhausted += _give_up(
                batch,
                Q(
                    status=VoyageBatchItem.STATUS_RUNNING,
                    lease_expires_at__lte=now,
                    attempts__gte=settings.VOYAGE_BATCH_ITEM_MAX_ATTEMPTS,
                ),
                ERROR_ATTEMPTS_EXHAUSTED,
                f"the route's run was lost {settings.VOYAGE_BATCH_ITEM_MAX_ATTEMPTS} times (its worker stopped "
                "or failed); its unit is refunded: send it again in a new batch.",
            )
            resend.extend(_requeue_stale(batch, now))
        if settle_batch(batch.pk, now) is not None:
            report.settled.append(batch.pk)
    report.redispatched = dispatch(resend) if resend else 0
    return report


def _requeue_stale(batch: VoyageBatch, now: datetime) -> list[str]:
    """Items queued or running past their lease, queued again under a fresh lease: ids to re-send."""
    stale = VoyageBatchItem.objects.filter(batch=batch, status__in=VoyageBatchItem.OPEN).filter(
        Q(lease_expires_at__lte=now) | Q(lease_expires_at__isnull=True)
    )
    requeued = []
    for item_id, status, lease in stale.values_list("pk", "status", "lease_expires_at"):
        # Conditional on what was read: a worker that claimed or settled the item since wins.
        if VoyageBatchItem.objects.filter(pk=item_id, status=status, lease_expires_at=lease).update(
            status=VoyageBatchItem.STATUS_QUEUED, lease_expires_at=_lease(now)
        ):
            if status == VoyageBatchItem.STATUS_RUNNING:
                logger.warning("batch item %s lost its worker (lease ran out); queued again", item_id)
            requeued.append(item_id)
    return requeued


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
        "counts": {
            s: counts.get(s, 0)
            for s in (
                VoyageBatchItem.STATUS_QUEUED,
                VoyageBatchItem.STATUS_RUNNING,
                VoyageBatchItem.STATUS_REJECTED,
                VoyageBatchItem.STATUS_SUCCEEDED,
                VoyageBatchItem.STATUS_FAILED,
            )
        },
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
