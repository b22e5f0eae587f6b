"""Automatic resolution of INCOMPLETE answers (contract 2.7 and 3.3).

Schedule: cause identity gives up to six attempts over up to 30 days; cause coverage gives
denser attempts and gives up after 7 days. The first slot is sanctions.retry_after when
present. A slot due while the allowance is exhausted waits for the reset and does not count.

Runs overlap (a slow beat tick, an acks-late redelivery, two workers), so an attempt is claimed
before it runs: `claim` takes a due follow-up, unchanged since it was read, under a lease and one
more claim number; `settle` writes the attempt's outcome only while that claim still holds,
inside the transaction that writes the outcome (the record, the unit, the event), and raises
LeaseLost otherwise so that all of it rolls back. One due slot is therefore re-screened, charged
and answered once, however many runs read it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.api.timefmt import rfc3339
from core.leases import Lease
from screening.models import FollowUp, Screening

MAX_ATTEMPTS = 6
WINDOW = {"identity": timedelta(days=30), "coverage": timedelta(days=7)}
# Offsets of attempts 1..6 from enrolment (the first is replaced by retry_after when given).
OFFSETS = {
    "identity": (
        timedelta(hours=1),
        timedelta(hours=12),
        timedelta(days=2),
        timedelta(days=6),
        timedelta(days=14),
        timedelta(days=29, hours=12),
    ),
    "coverage": (
        timedelta(minutes=20),
        timedelta(hours=2),
        timedelta(hours=8),
        timedelta(days=1),
        timedelta(days=3),
        timedelta(days=6, hours=20),
    ),
}


class AttemptOutcome(StrEnum):
    """What one scheduled attempt did (the beat task counts them)."""

    RESOLVED = "resolved"  # a verdict answered the open INCOMPLETE (one unit, screening.resolved)
    PENDING = "pending"  # still INCOMPLETE: counted, moved to the next slot
    WAITING = "waiting"  # the allowance is used: the slot waits for the reset, not counted
    UNRESOLVED = "unresolved"  # the schedule ran out (screening.unresolved)
    SKIPPED = "skipped"  # another run holds the attempt, or it moved on since it was read


# Attempts of an enrolment race before giving up (each loser joins the winner's follow-up).
_ENROL_TRIES = 3


def slot_time(follow_up: FollowUp, attempt_index: int) -> datetime:
    """When attempt number attempt_index (0-based) is due."""
    return follow_up.created_at + OFFSETS[follow_up.cause][attempt_index]


def block(follow_up: FollowUp) -> dict:
    return {
        "status": follow_up.status,
        "cause": follow_up.cause,
        "attempts": follow_up.attempts,
        "max_attempts": follow_up.max_attempts,
        "next_attempt_at": rfc3339(follow_up.next_attempt_at),
        "expires_at": rfc3339(follow_up.expires_at),
        "resolved_screening_id": follow_up.resolved_screening_id,
        "webhook_event": "screening.resolved",
    }


def enroll(
    account_id: str,
    environment: str,
    imo: str,
    screening_id: str,
    cause: str,
    retry_after: datetime | None,
    now: datetime,
    *,
    open_follow_up_id: int | None,
) -> FollowUp:
    """Open a follow-up for the record about to be inserted as `screening_id`, or point the hull's
    open one at it (call inside the transaction that inserts the record; the key is deferred).

    Concurrent screenings of one hull may all find none open: the first insert wins and the others
    join it (the one-open-per-hull constraint refuses their inserts), so each answers INCOMPLETE on
    the hull's one follow-up. A newer INCOMPLETE answers nothing, so the older record keeps
    superseded_by null: it stays on the same follow-up and gains superseded_by only when a verdict
    answers it."""
    if open_follow_up_id is not None:
        joined = _point_open_follow_up_at(Q(pk=open_follow_up_id), screening_id, now)
        if joined is not None:
            return joined
    for _ in range(_ENROL_TRIES):
        try:
            with transaction.atomic():  # a savepoint: a refused insert leaves the caller's transaction usable
                return FollowUp.objects.create(
                    account_id=account_id,
                    environment=environment,
                    imo=imo,
                    screening_id=screening_id,
                    cause=cause,
                    max_attempts=MAX_ATTEMPTS,
                    next_attempt_at=retry_after or now + OFFSETS[cause][0],
                    expires_at=now + WINDOW[cause],
                    created_at=now,
                )
        except IntegrityError:
            hull = Q(account_id=account_id, environment=environment, imo=imo)
            joined = _point_open_follow_up_at(hull, screening_id, now)
            if joined is not None:
                return joined
    raise RuntimeError(f"could not enrol hull {imo}: its open follow-up kept changing")


def _point_open_follow_up_at(which: Q, screening_id: str, now: datetime) -> FollowUp | None:
    """Point the open follow-up matching `which` at the new record; None when none is open (any more)."""
    open_ones = FollowUp.objects.filter(which, status=FollowUp.Status.PENDING)
    if not open_ones.update(screening_id=screening_id, updated_at=now):
        return None
    return open_ones.first()


def open_follow_up_locked(follow_up_id: int) -> FollowUp | None:
    """The follow-up a verdict is about to answer, locked to the end of the transaction; None when it
    was answered or given up meanwhile (another screening or attempt got there first)."""
    return (
        FollowUp.objects.select_for_update(of=("self",))
        .select_related("screening")
        .filter(pk=follow_up_id, status=FollowUp.Status.PENDING)
        .first()
    )


def supersede(follow_up: FollowUp, answer: Screening) -> None:
    """A verdict answered the open question: record it on both sides and stop the schedule.

    Every INCOMPLETE the follow-up carried (the newest, and earlier ones it was re-pointed from)
    is answered by this verdict, so each gains superseded_by; nothing else ever sets it."""
    Screening.objects.filter(
        Q(pk=follow_up.screening_id) | Q(follow_up=follow_up), status="INCOMPLETE", superseded_by__isnull=True
    ).update(superseded_by=answer)
    FollowUp.objects.filter(pk=follow_up.pk).update(
        status=FollowUp.Status.RESOLVED, resolved_screening=answer, updated_at=answer.screened_at
    )
    follow_up.status = FollowUp.Status.RESOLVED
    follow_up.resolved_screening = answer


# --- attempts, claimed under a lease ---------------------------------------------------------


def _lease_seconds() -> float:
    return settings.FOLLOW_UP_LEASE_SECONDS


# A follow-up stays pending while an attempt holds it: the claim number alone says who holds it.
LEASE = Lease(FollowUp, FollowUp.Status.PENDING, _lease_seconds, fence="claims")


def unclaimed(now: datetime) -> Q:
    return Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lte=now)


def claim(follow_up: FollowUp, now: datetime) -> FollowUp | None:
    """Take the attempt due on `follow_up` (as it was read) under a lease: the follow-up as claimed,
    or None when another run holds it or it moved on since it was read (answered, advanced)."""
    unchanged = Q(
        pk=follow_up.pk,
        status=FollowUp.Status.PENDING,
        attempts=follow_up.attempts,
        next_attempt_at=follow_up.next_attempt_at,
    )
    if not LEASE.claim(unchanged & unclaimed(now), now, updated_at=now):
        return None
    return FollowUp.objects.select_related("screening", "account").get(pk=follow_up.pk)


def settle(claimed: FollowUp, now: datetime, **fields: Any) -> None:
    """Write the attempt's outcome `fields` and release the claim; call first inside the transaction
    that writes the rest of the outcome. Raises LeaseLost when this claim no longer holds the
    follow-up (its lease lapsed and another run took it, or a verdict answered it meanwhile)."""
    LEASE.settle(claimed.pk, claimed.claims, updated_at=now, **fields)
    for name, value in fields.items():
        setattr(claimed, name, value)


def release(claimed: FollowUp) -> None:
    """An attempt failed before it settled: free the slot for the next run (nothing else changes)."""
    LEASE.release(claimed.pk, claimed.claims)


def after_incomplete_attempt(follow_up: FollowUp, now: datetime) -> dict[str, Any]:
    """An attempt ran and was still INCOMPLETE: the fields that count it and move it to its next
    slot, or give it up (status unresolved) when none is left within the window."""
    attempts = follow_up.attempts + 1
    if attempts >= follow_up.max_attempts:
        return {"attempts": attempts, "status": FollowUp.Status.UNRESOLVED}
    upcoming = max(slot_time(follow_up, attempts), now + timedelta(minutes=1))
    if upcoming > follow_up.expires_at:
        return {"attempts": attempts, "status": FollowUp.Status.UNRESOLVED}
    return {"attempts": attempts, "next_attempt_at": upcoming}


def due(now: datetime | None = None, limit: int = 200) -> list[FollowUp]:
    """Follow-ups whose slot is due and that no live claim holds, oldest slot first."""
    now = now or timezone.now()
    return list(
        FollowUp.objects.filter(unclaimed(now), status=FollowUp.Status.PENDING, next_attempt_at__lte=now).order_by(
            "next_attempt_at"
        )[:limit]
    )
