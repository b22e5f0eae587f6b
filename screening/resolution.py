"""Automatic resolution of INCOMPLETE answers (contract 2.7 and 3.3).

Schedule: cause identity gives up to six attempts over up to 30 days; cause coverage gives
denser attempts and gives up after 7 days. The first slot is sanctions.retry_after when
present. A slot due while the allowance is exhausted waits for the reset and does not count.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from config.api.timefmt import rfc3339
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

    A newer INCOMPLETE answers nothing, so the older record keeps superseded_by null: it
    stays on the same follow-up and gains superseded_by only when a verdict answers it."""
    if open_follow_up_id is not None:
        existing = FollowUp.objects.get(pk=open_follow_up_id)
        existing.screening_id = screening_id
        existing.save(update_fields=["screening", "updated_at"])
        return existing
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


def supersede(follow_up: FollowUp, answer: Screening) -> None:
    """A verdict answered the open question: record it on both sides and stop the schedule.

    Every INCOMPLETE the follow-up carried (the newest, and earlier ones it was re-pointed from)
    is answered by this verdict, so each gains superseded_by; nothing else ever sets it."""
    Screening.objects.filter(
        Q(pk=follow_up.screening_id) | Q(follow_up=follow_up), status="INCOMPLETE", superseded_by__isnull=True
    ).update(superseded_by=answer)
    follow_up.status = FollowUp.Status.RESOLVED
    follow_up.resolved_screening = answer
    follow_up.save(update_fields=["status", "resolved_screening", "updated_at"])


def advance(follow_up: FollowUp, now: datetime) -> None:
    """An attempt ran and was still INCOMPLETE: count it and move to the next slot or give up."""
    follow_up.attempts += 1
    if follow_up.attempts >= follow_up.max_attempts:
        follow_up.status = FollowUp.STATUS_UNRESOLVED
    else:
        upcoming = max(slot_time(follow_up, follow_up.attempts), now + timedelta(minutes=1))
        if upcoming > follow_up.expires_at:
            follow_up.status = FollowUp.STATUS_UNRESOLVED
        else:
            follow_up.next_attempt_at = upcoming
    follow_up.save(update_fields=["attempts", "status", "next_attempt_at", "updated_at"])


def wait_for_reset(follow_up: FollowUp, reset_at: datetime | None) -> None:
    """Allowance exhausted: the slot waits for the reset and does not count."""
    if reset_at is None:
        # A one-time allowance never resets; the schedule runs out instead of spending.
        follow_up.status = FollowUp.STATUS_UNRESOLVED
        follow_up.save(update_fields=["status", "updated_at"])
        return
    follow_up.next_attempt_at = reset_at
    follow_up.save(update_fields=["next_attempt_at", "updated_at"])


def due(now: datetime | None = None, limit: int = 200) -> list[FollowUp]:
    now = now or timezone.now()
    return list(
        FollowUp.objects.filter(status=FollowUp.STATUS_PENDING, next_attempt_at__lte=now)
        .select_related("screening", "account")
        .order_by("next_attempt_at")[:limit]
    )
