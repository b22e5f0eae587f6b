"""One way to run monitors (vessel and corridor): schedule slots, claim a run under a lease, write its
result once, defer it while the allowance is used, and recover runs lost with a worker.

schedule()  (beat) For every scheduled monitor whose `next_run_at` has come, one run row for that slot
            (unique per (monitor, slot): a second schedule of the same slot finds it), the monitor's
            next slot moved on by the kind's cadence (missed slots are not replayed), and a task per
            run sent after commit.
claim()     queued -> running under a lease and one more attempt.
run()       The kind's `execute(run)` does the work; it must call `complete(run, **fields)` inside the
            transaction that writes what the run produced (a screening record, events): the result
            and the run's status commit together or not at all, and a worker whose lease was taken
            over writes nothing (LeaseLost). `execute` raises Deferred when the allowance is used or
            the account is paused: the run waits (status deferred, its attempt not counted) and runs
            after `until`. An ApiError fails the run with its error (the next slot runs as usual).
sweep()     (beat) Runs past their lease are queued again (failed after max attempts); deferred runs
            whose time came are queued again; queued runs whose task never ran are re-sent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.api.errors import ApiError
from core.leases import KindRegistry, Lease, LeaseLost, SweepReport
from core.task_sending import send_each, task_named
from monitoring.models import CorridorMonitor, CorridorMonitorRun, RunStatus, VesselMonitor, VesselMonitorRun

logger = logging.getLogger("service.monitoring")

RAN = "ran"
RAN_FAILED = "failed"
RAN_DEFERRED = "deferred"
RAN_SKIPPED = "skipped"
RAN_SUPERSEDED = "superseded"


class Deferred(Exception):
    """The run cannot be charged now (allowance used, account paused): try again after `until`."""

    def __init__(self, until: datetime, reason: str) -> None:
        super().__init__(reason)
        self.until = until
        self.reason = reason


@dataclass(frozen=True)
class MonitorKind:
    """name: task messages and logs ("vessel_monitor"). cadence: time between slots.
    scheduled: the monitors the schedule runs (e.g. live mode only). execute: runs one claimed run."""

    name: str
    monitor_model: type[VesselMonitor] | type[CorridorMonitor]
    run_model: type[VesselMonitorRun] | type[CorridorMonitorRun]
    cadence: timedelta
    scheduled: Callable[[models.QuerySet], models.QuerySet]
    execute: Callable[[Any], None]

    @property
    def lease(self) -> Lease:
        """A run is held while running, fenced by its attempt number (core/leases.py)."""
        return Lease(self.run_model, RunStatus.RUNNING, _lease_seconds)


def _lease_seconds() -> float:
    return settings.MONITOR_RUN_LEASE_SECONDS


_KINDS: KindRegistry[MonitorKind] = KindRegistry("monitor kind")


def register(kind: MonitorKind) -> MonitorKind:
    return _KINDS.register(kind.name, kind)


def get(name: str) -> MonitorKind:
    return _KINDS.get(name)


def all_kinds() -> list[MonitorKind]:
    return _KINDS.all()


def _lease(now: datetime) -> datetime:
    return now + timedelta(seconds=_lease_seconds())


# -- schedule ----------------------------------------------------------------------------------


def open_run(kind: MonitorKind, monitor: Any, slot: datetime, **fields: Any) -> tuple[Any, bool]:
    """The run of `monitor` for `slot`, created queued unless it exists: (run, created)."""
    try:
        with transaction.atomic():
            run = kind.run_model.objects.create(
                monitor=monitor, slot=slot, status=RunStatus.QUEUED, lease_expires_at=_lease(timezone.now()), **fields
            )
        return run, True
    except IntegrityError:
        return kind.run_model.objects.get(monitor=monitor, slot=slot), False


def schedule(kind: MonitorKind, now: datetime | None = None) -> list[int]:
    """Open the runs of every scheduled monitor whose slot has come; returns the run ids sent."""
    now = now or timezone.now()
    due = kind.scheduled(kind.monitor_model.objects.filter(next_run_at__lte=now)).order_by("next_run_at")
    opened: list[int] = []
    for monitor in due[: settings.MONITOR_SCHEDULE_BATCH]:
        slot = monitor.next_run_at
        following = slot + kind.cadence
        while following <= now:  # a slot missed while the service was down is not replayed
            following += kind.cadence
        with transaction.atomic():
            if not kind.monitor_model.objects.filter(pk=monitor.pk, next_run_at=slot).update(next_run_at=following):
                continue  # another scheduler took this slot
            run, created = open_run(kind, monitor, slot)
        if created:
            opened.append(run.pk)
    if opened:
        dispatch(kind, opened)
    return opened


def dispatch(kind: MonitorKind, run_ids: Iterable[int]) -> int:
    """One task per run (best effort: the sweep re-sends what the broker did not take)."""
    return send_each(task_named("monitoring.run"), ((kind.name, run_id) for run_id in run_ids), f"{kind.name} run")


# -- run ---------------------------------------------------------------------------------------


@dataclass
class Claimed:
    kind: MonitorKind
    run: Any
    attempt: int
    done: bool = False


def claim(kind: MonitorKind, run_id: int, now: datetime | None = None) -> Claimed | None:
    now = now or timezone.now()
    if not kind.lease.claim(Q(pk=run_id, status=RunStatus.QUEUED), now):
        return None
    run = kind.run_model.objects.select_related("monitor", "monitor__account").get(pk=run_id)
    return Claimed(kind, run, run.attempts)


def complete(claimed: Claimed, **fields: Any) -> None:
    """Mark the run completed with its result fields; call inside the transaction writing the result."""
    claimed.kind.lease.settle(
        claimed.run.pk, claimed.attempt, status=RunStatus.COMPLETED, completed_at=timezone.now(), **fields
    )
    claimed.done = True


def run(kind: MonitorKind, run_id: int, now: datetime | None = None) -> str:
    """The worker's body for one message: claim the run, execute it, settle it."""
    claimed = claim(kind, run_id, now)
    if claimed is None:
        return RAN_SKIPPED
    return run_claimed(claimed)


def run_claimed(claimed: Claimed) -> str:
    kind, held = claimed.kind, kind_run_filter(claimed)
    try:
        kind.execute(claimed)
        if not claimed.done:
            raise RuntimeError(f"{kind.name}: execute returned without completing run {claimed.run.pk}")
        return RAN
    except LeaseLost:
        logger.warning("%s run %s attempt %s was taken over; dropped", kind.name, claimed.run.pk, claimed.attempt)
        return RAN_SUPERSEDED
    except Deferred as deferred:
        held.update(
            status=RunStatus.DEFERRED,
            attempts=F("attempts") - 1,  # waiting for the allowance is not an attempt
            lease_expires_at=deferred.until,
            error={"code": "deferred", "message": deferred.reason},
        )
        return RAN_DEFERRED
    except ApiError as exc:
        held.update(
            status=RunStatus.FAILED,
            lease_expires_at=None,
            completed_at=timezone.now(),
            error={"code": exc.code, "message": exc.message},
        )
        return RAN_FAILED


def kind_run_filter(claimed: Claimed) -> models.QuerySet:
    """The run, only while this attempt still holds it."""
    return claimed.kind.lease.holding(claimed.run.pk, claimed.attempt)


# -- sweep -------------------------------------------------------------------------------------


def sweep(kind: MonitorKind, now: datetime | None = None) -> SweepReport:
    """Runs lost with their worker are failed after too many attempts, else queued again; deferred runs
    whose time came and queued runs whose message never ran are queued (re-sent) too."""
    now = now or timezone.now()
    report = SweepReport("requeued", "failed", "resent")
    lease = kind.lease
    report.add(
        "failed",
        lease.give_up_lapsed(
            now,
            settings.MONITOR_RUN_MAX_ATTEMPTS,
            status=RunStatus.FAILED,
            completed_at=now,
            error={"code": "attempts_exhausted", "message": "the run was lost with its worker too many times"},
        ),
    )
    resend: list[int] = []
    for status in (RunStatus.RUNNING, RunStatus.DEFERRED, RunStatus.QUEUED):
        stale = kind.run_model.objects.filter(status=status, lease_expires_at__lte=now)
        requeued = lease.requeue(stale, RunStatus.QUEUED, now)
        resend.extend(requeued)
        if status != RunStatus.QUEUED:
            report.add("requeued", len(requeued))
    report.add("resent", dispatch(kind, resend) if resend else 0)
    return report


def tick(now: datetime | None = None) -> dict[str, dict]:
    """The beat task: schedule due slots and recover runs, for every kind."""
    report = {}
    for kind in all_kinds():
        opened = schedule(kind, now)
        report[kind.name] = {"opened": len(opened), **sweep(kind, now).as_dict()}
    return report
