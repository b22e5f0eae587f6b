"""One flow for every job: reserve -> run items on workers -> settle (refunds) -> emit `<kind>.completed`.

create()  Validated items arrive as ItemSpecs. Accepted items reserve one unit each (drawn in the
          transaction that writes the job and its items, with the caller's `in_transaction` hook,
          e.g. the idempotent answer); each is sent to a worker after commit (best effort).
claim()   A worker takes an item: queued -> running under a lease and one more attempt. A
          redelivered message for an item claimed or settled elsewhere does nothing.
run       The kind's run_item does the work and settles the item through ItemRun inside the
          transaction that writes its result: the result and the item's status commit together,
          or neither does. A worker whose claim was taken over (its lease ran out and the sweep
          queued the item again) writes nothing (LeaseLost rolls its transaction back). A failed
          item, or one whose result came back uncharged, gets its unit back in that transaction.
settle_job()  Once no item is open the job's final status (completed, partial, failed) is written
          by one conditional update, and `<kind>.completed` is emitted in the same transaction:
          exactly once however many workers and sweeps get there.
sweep()   (beat) Re-sends items queued or running past their lease, fails an item whose runs
          were lost max_attempts times, ends a job still open deadline_seconds after creation
          (its unfinished items failed `deadline_exceeded`), refunding what did not run.

A worker killed mid-item therefore costs nothing: its transaction never committed, the sweep
queues the item again and the next worker runs it under the unit reserved at creation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Account
from core.api.errors import ApiError
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from core.leases import LeaseLost, SweepReport
from core.task_sending import send_each, task_named
from jobs import kinds
from jobs.kinds import ItemT, JobKind, JobT
from jobs.models import Job, JobItem
from metering import quota
from webhooks.events import emit

logger = logging.getLogger("service.jobs")

# Error codes of items the service gave up on (the item's unit is refunded).
ERROR_DEADLINE_EXCEEDED = "deadline_exceeded"
ERROR_ATTEMPTS_EXHAUSTED = "attempts_exhausted"

# What running one message did.
RUN_SUCCEEDED = "succeeded"
RUN_FAILED = "failed"
RUN_SKIPPED = "skipped"  # the item was not queued: running elsewhere, or already settled
RUN_SUPERSEDED = "superseded"  # the claim was taken over while it ran; nothing written


@dataclass(frozen=True)
class ItemSpec:
    """One item as validated at creation: accepted (it reserves a unit and runs) or rejected with its error."""

    request: dict
    error: dict | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class CreatedJob:
    """What create() returns and hands to `in_transaction`: the job, its document as bytes, the quota state."""

    job: Job
    body: bytes
    quota: quota.QuotaState | None  # None for a kind that draws no allowance


def _lease(kind: JobKind, now: datetime) -> datetime:
    return kind.lease.expiry(now)


def _items(kind: JobKind, job_id: str):
    return kind.item_model._default_manager.filter(**{f"{kind.job_field}_id": job_id})


# --- create ---------------------------------------------------------------------------------


def create(
    kind: JobKind,
    account: Account,
    environment: str,
    specs: list[ItemSpec],
    *,
    customer_reference: str = "",
    job_fields: dict[str, Any] | None = None,
    in_transaction: Callable[[CreatedJob], None] | None = None,
    now: datetime | None = None,
) -> CreatedJob:
    """Write the job (with the kind's own `job_fields`) and its items, reserving one unit per accepted
    item when the kind is metered; send the accepted items."""
    accepted = sum(1 for spec in specs if spec.accepted)
    quota_kind = kind.quota_kind
    metered = quota_kind is not None
    if accepted and quota_kind is not None:
        quota.ensure_available(account, environment, quota_kind, accepted)
    now = now or timezone.now()
    with transaction.atomic():
        state = (
            quota.charge(account, environment, quota_kind, accepted, reason=quota.Reason.RESERVATION, at=now)
            if quota_kind is not None
            else None
        )
        job = kind.job_model.objects.create(
            **(job_fields or {}),
            account=account,
            environment=environment,
            customer_reference=customer_reference,
            item_count=len(specs),
            accepted_count=accepted,
            status=Job.Status.QUEUED if accepted else Job.Status.FAILED,
            created_at=now,
            completed_at=None if accepted else now,
        )
        items = kind.item_model._default_manager.bulk_create(
            [
                kind.item_model(
                    **{kind.job_field: job},
                    position=position,
                    request=spec.request,
                    status=JobItem.Status.QUEUED if spec.accepted else JobItem.Status.REJECTED,
                    reserved_unit=spec.accepted and metered,
                    error=spec.error,
                    # A queued item's lease: when the sweep re-sends it if no worker has claimed it.
                    lease_expires_at=_lease(kind, now) if spec.accepted else None,
                )
                for position, spec in enumerate(specs)
            ]
        )
        if not accepted:  # nothing to run: the job ended as it was created
            _emit_completed(kind, job, [item.status for item in items])
        created = CreatedJob(job, to_json_bytes(kind.render(job)), state)
        if in_transaction is not None:
            in_transaction(created)
    queued = [item.pk for item in items if item.status == JobItem.Status.QUEUED]
    if queued:
        transaction.on_commit(lambda: dispatch(kind, queued))
    return created


def dispatch(kind: JobKind, item_ids: Iterable[str]) -> int:
    """Send one task per item; returns how many were sent.

    Best effort: the job is committed and answered whatever the broker does. An item whose
    message cannot be sent (or is lost later) stays queued and the sweep re-sends it once its
    lease has run out.
    """
    return send_each(task_named("jobs.run_item"), ((kind.name, item_id) for item_id in item_ids), f"{kind.name} item")


# --- run ------------------------------------------------------------------------------------


@dataclass
class ItemRun(Generic[JobT, ItemT]):
    """A claimed item and the attempt that holds it; the kind's run_item settles through it."""

    kind: JobKind[JobT, ItemT]
    item: ItemT
    attempt: int
    settled: str | None = None

    @property
    def job(self) -> JobT:
        return getattr(self.item, self.kind.job_field)

    def succeeded(self, *, charged: bool = True, **result: Any) -> None:
        """Mark the item succeeded with its result fields; call inside the transaction writing the result.

        `charged=False`: the result came back uncharged, so the unit reserved for it is refunded.
        Raises LeaseLost when this attempt no longer holds the item (everything rolls back).
        """
        self._settle(JobItem.Status.SUCCEEDED, refund=not charged, error=None, **result)

    def failed(self, error: dict) -> None:
        """Mark the item failed and refund its unit; call inside a transaction. Raises LeaseLost."""
        self._settle(JobItem.Status.FAILED, refund=True, error=error)

    def _settle(self, status: str, *, refund: bool, **fields: Any) -> None:
        self.kind.lease.settle(self.item.pk, self.attempt, status=status, **fields)
        if refund and self.item.reserved_unit and self.kind.quota_kind is not None:
            job = self.job
            quota.refund(job.account, job.environment, self.kind.quota_kind, drawn_at=job.created_at)
        self.settled = status


def claim(kind: JobKind[JobT, ItemT], item_id: str, now: datetime | None = None) -> ItemRun[JobT, ItemT] | None:
    """queued -> running under a new attempt, or None when the item is not this worker's to run."""
    now = now or timezone.now()
    with transaction.atomic():
        if not kind.lease.claim(Q(pk=item_id, status=JobItem.Status.QUEUED), now):
            return None
        item = kind.item_model._default_manager.select_related(f"{kind.job_field}__account").get(pk=item_id)
        kind.job_model.objects.filter(pk=getattr(item, f"{kind.job_field}_id"), status=Job.Status.QUEUED).update(
            status=Job.Status.RUNNING
        )
    return ItemRun(kind, item, item.attempts)


def run_item(kind: JobKind, item_id: str, now: datetime | None = None) -> str:
    """The worker's body for one message: claim the item, run it, settle it and, if it was the last, the job."""
    run = claim(kind, item_id, now)
    if run is None:
        return RUN_SKIPPED
    return run_claimed(run)


def run_claimed(run: ItemRun[Any, Any]) -> str:
    """Run an item claimed under `run.attempt`; nothing is written unless the attempt still holds it."""
    kind, item = run.kind, run.item
    try:
        try:
            kind.run_item(run)
            if run.settled is None:
                raise RuntimeError(f"{kind.name}: run_item returned without settling item {item.pk}")
            outcome = RUN_SUCCEEDED
        except ApiError as exc:
            with transaction.atomic():
                run.failed({"code": exc.code, "message": exc.message, **exc.extra})
            outcome = RUN_FAILED
    except LeaseLost:
        logger.warning("%s item %s attempt %s was taken over; its result is dropped", kind.name, item.pk, run.attempt)
        return RUN_SUPERSEDED
    settle_job(kind, getattr(item, f"{kind.job_field}_id"))
    return outcome


# --- settle ---------------------------------------------------------------------------------


def final_status(statuses: list[str]) -> str:
    succeeded = statuses.count(JobItem.Status.SUCCEEDED)
    if statuses and succeeded == len(statuses):
        return Job.Status.COMPLETED
    return Job.Status.PARTIAL if succeeded else Job.Status.FAILED


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys(JobItem.Status.values, 0)
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return counts


def settle_job(kind: JobKind, job_id: str, now: datetime | None = None) -> str | None:
    """Write the job's final status once no item is open; returns it, or None while items are open.

    Items never leave a terminal status, so once all are terminal the outcome is fixed; the
    conditional update writes it exactly once however many workers and sweeps get here, and the
    completion event commits with it.
    """
    statuses = list(_items(kind, job_id).values_list("status", flat=True))
    if any(status in JobItem.OPEN for status in statuses):
        return None
    final = final_status(statuses)
    now = now or timezone.now()
    with transaction.atomic():
        if kind.job_model.objects.filter(pk=job_id, status__in=Job.OPEN).update(status=final, completed_at=now):
            _emit_completed(kind, kind.job_model.objects.get(pk=job_id), statuses)
    return final


def _emit_completed(kind: JobKind, job: Job, statuses: list[str]) -> None:
    data: dict[str, Any] = {
        f"{kind.name}_id": job.pk,
        "status": job.status,
        "customer_reference": job.customer_reference or None,
        "item_count": job.item_count,
        "accepted_count": job.accepted_count,
        "counts": status_counts(statuses),
        "completed_at": rfc3339(job.completed_at),
    }
    if kind.event_data is not None:
        data.update(kind.event_data(job))
    emit(job.account_id, job.environment, kind.event_type, data)


# --- sweep ----------------------------------------------------------------------------------


def _give_up(kind: JobKind, job: Job, items: Q, code: str, message: str) -> int:
    """Fail the job's open items matching `items` and refund the units they reserved, in one transaction."""
    error = {"code": code, "message": message}
    with transaction.atomic():
        open_items = _items(kind, job.pk).filter(items, status__in=JobItem.OPEN)
        reserved = open_items.filter(reserved_unit=True).update(
            status=JobItem.Status.FAILED, lease_expires_at=None, error=error
        )
        unreserved = open_items.update(status=JobItem.Status.FAILED, lease_expires_at=None, error=error)
        if reserved and kind.quota_kind is not None:
            quota.refund(job.account, job.environment, kind.quota_kind, reserved, drawn_at=job.created_at)
    return reserved + unreserved


def _requeue_stale(kind: JobKind, job: Job, now: datetime) -> list[str]:
    """Items queued or running past their lease, queued again under a fresh lease: ids to re-send."""
    stale = _items(kind, job.pk).filter(
        Q(lease_expires_at__lte=now) | Q(lease_expires_at__isnull=True), status__in=JobItem.OPEN
    )
    return kind.lease.requeue(stale, JobItem.Status.QUEUED, now)


def sweep(kind: JobKind, now: datetime | None = None) -> SweepReport:
    """Recover a kind's open jobs: re-send stale items, fail lost ones, end overdue jobs."""
    now = now or timezone.now()
    report = SweepReport("redispatched", "exhausted", "expired", listed=("settled",))
    overdue_before = now - timedelta(seconds=kind.deadline_seconds)
    resend: list[str] = []
    for job in kind.job_model.objects.filter(status__in=Job.OPEN).select_related("account"):
        if job.created_at <= overdue_before:
            expired = _give_up(
                kind,
                job,
                Q(),
                ERROR_DEADLINE_EXCEEDED,
                f"the {kind.job_noun} did not finish within {kind.deadline_seconds} s; "
                f"this {kind.item_noun}'s unit is refunded: send it again in a new {kind.job_noun}.",
            )
            report.add("expired", expired)
        else:
            exhausted = _give_up(
                kind,
                job,
                Q(status=JobItem.Status.RUNNING, lease_expires_at__lte=now, attempts__gte=kind.max_attempts),
                ERROR_ATTEMPTS_EXHAUSTED,
                f"the {kind.item_noun}'s run was lost {kind.max_attempts} times (its worker stopped "
                f"or failed); its unit is refunded: send it again in a new {kind.job_noun}.",
            )
            report.add("exhausted", exhausted)
            resend.extend(_requeue_stale(kind, job, now))
        if settle_job(kind, job.pk, now) is not None:
            report.add_id("settled", job.pk)
    report.add("redispatched", dispatch(kind, resend) if resend else 0)
    return report


def sweep_all(now: datetime | None = None) -> dict[str, dict]:
    """Sweep every registered kind (the beat task)."""
    return {kind.name: sweep(kind, now).as_dict() for kind in kinds.all_kinds()}
