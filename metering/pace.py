"""Free-account pause (contract part 7 rule 5): bursts and register walking.

A free account is paused when it runs more than 250 screenings in any ten minutes (live
and test together), or when most of its last 40 screenings step through IMO numbers each
within 200 of the one before. An operator lifts the pause in the admin.

The burst line is held, not just noticed: a free account's screening is admitted inside the
transaction that writes it (`burst_line` around the transaction, `admit` in it, after the
charge has inserted the screening's metering event), and that transaction counts the
account's screenings of the last ten minutes under a lock no other screening of the account
can hold at the same time: a row lock on the account on PostgreSQL; on SQLite every write
transaction is already the database's only writer (config/settings.py opens them IMMEDIATE).
So the count always includes every screening committed before it and the 251st is refused
however many run in parallel: the transaction rolls back (no record, no unit, no event) and
the account is paused. The register-walk rule is evaluated after the commit, from the same read.

What counts is screenings, not ledger entries: the CHARGE entries of kind screening, one per
screening record the customer caused, whatever the door (REST, MCP, batch item, vessel monitor
run, cargo screening). A batch's reservation, settlements, refunds, a cargo top-up and the
service's own re-screens of INCOMPLETEs (RESCREEN) are entries too, and none of them is counted.
The walk rule reads the hulls (IMO numbers) of the newest counted screenings: a cargo screening
without a vessel has none and is skipped.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from accounts.models import ENV_LIVE, ENV_TEST, PLAN_FREE, Account
from core.api.errors import ApiError
from core.api.timefmt import rfc3339
from core.compiled_query import CompiledQuery
from metering import quota
from metering.auth import forget_account_keys
from metering.models import MeteringEvent

COUNTED = MeteringEvent.Reason.CHARGE  # the entry of a screening the customer caused

logger = logging.getLogger("service.pace")

BURST_LIMIT = 250
BURST_WINDOW = timedelta(minutes=10)
WALK_WINDOW = 40
WALK_STEP = 200
BURST_REASON = f"more than {BURST_LIMIT} screenings in ten minutes."
WALK_REASON = f"most of the last {WALK_WINDOW} screenings step through IMO numbers within {WALK_STEP} of each other."


def _allowance_text(state) -> str:
    allowance = state.allowance
    if allowance.one_time:
        when = "one-time, does not reset"
    else:
        when = f"resets at {rfc3339(allowance.resets_at)}"
    return f"{allowance.environment} {state.used}/{allowance.limit} ({when})"


def paused_error(account: Account, environment: str | None = None) -> ApiError:
    """402 like the quota 402 (contract 7, row 402): the reason, used/limit and the reset instant
    of the screening allowances, what lifts the pause, and what still works.

    The pause covers the account's live and test keys together, so both allowances are stated (the
    key's own first); the quota headers are those of the allowance the key draws on. No Retry-After:
    a reset does not lift the pause, an operator does.
    """
    environments = [ENV_LIVE, ENV_TEST]
    if environment in environments:
        environments.remove(environment)
        environments.insert(0, environment)
    # The same read as GET /usage (quota.usage_states): the message and /usage give the same numbers.
    read = quota.usage_states(account, environments, (quota.KIND_SCREENING,))
    states = {env: read[(env, quota.KIND_SCREENING)] for env in environments}
    since = f" since {rfc3339(account.paused_at)}" if account.paused_at else ""
    allowances = "; ".join(_allowance_text(states[env]) for env in environments)
    return ApiError(
        402,
        "quota_exhausted",
        f"This account is paused{since}: {account.paused_reason} Nothing ran and nothing was charged. "
        f"Screening allowance used/limit: {allowances}. The pause does not end at a reset: an operator "
        "lifts it (write to support). Still working: replays of answered Idempotency-Keys, every GET of "
        "existing screenings and assessments, and voyage assessments.",
        headers=states[environment].headers() if environment in states else {},
    )


def ensure_not_paused(account: Account, environment: str | None = None) -> None:
    """402 when the account is paused; pass the key's environment for its quota headers."""
    if account.is_paused:
        raise paused_error(account, environment)


def is_register_walk(imos: list[int]) -> bool:
    """Most consecutive pairs of the window step by 1..200 (a walk through a register)."""
    if len(imos) < WALK_WINDOW:
        return False
    pairs = zip(imos, imos[1:], strict=False)
    steps = sum(1 for previous, current in pairs if 0 < abs(current - previous) <= WALK_STEP)
    return steps > (len(imos) - 1) / 2


def _newest_hulls(newest_first_imos) -> tuple[str, ...]:
    """The IMO numbers of the newest WALK_WINDOW counted screenings that have a hull, newest first."""
    return tuple(itertools.islice((imo for imo in newest_first_imos if imo.isdigit()), WALK_WINDOW))


def _walk_reason(newest_first_imos: list[str]) -> str | None:
    numbers = [int(imo) for imo in reversed(_newest_hulls(newest_first_imos))]
    if len(numbers) == WALK_WINDOW and is_register_walk(numbers):
        return WALK_REASON
    return None


def pause(account: Account, reason: str, now: datetime | None = None) -> None:
    """Pause the account (once: the first reason stays) and let every key's next request know."""
    now = now or timezone.now()
    if Account.objects.filter(pk=account.pk, paused_reason="").update(paused_reason=reason, paused_at=now):
        account.paused_reason, account.paused_at = reason, now
    elif not account.is_paused:  # paused meanwhile by another request: report that pause
        account.paused_reason, account.paused_at = (
            Account.objects.filter(pk=account.pk).values_list("paused_reason", "paused_at").get()
        )
    forget_account_keys(account.pk)


def evaluate(account: Account, now: datetime | None = None) -> str | None:
    """After a screening written without `burst_line` (a cargo screening without a hull): pause a
    free account that crossed either line; returns the reason."""
    if account.plan != PLAN_FREE or account.is_paused:
        return None
    now = now or timezone.now()
    recent = _recent(account.pk)
    reason = None
    if sum(1 for _, at in recent if at > now - BURST_WINDOW) > BURST_LIMIT:
        reason = BURST_REASON
    else:
        reason = _walk_reason([imo for imo, _ in recent])
    if reason:
        pause(account, reason, now)
    return reason


# --- the burst line, held inside the screening's transaction ---------------------------------


class BurstLineCrossed(Exception):
    """Raised inside the screening's transaction so that it rolls back; `burst_line` answers it."""


@dataclass
class Admission:
    """A free account's screening admitted within the burst line, and what the walk rule needs."""

    account: Account | None = None  # None: nothing to check (a paid account, or not counted)
    newest_imos: tuple[str, ...] = ()  # the hulls of the account's newest screenings, this one first

    def check_walk(self, _account: Account | None = None) -> str | None:
        """After the commit: pause when the screenings step through a register; returns the reason."""
        if self.account is None or self.account.is_paused:
            return None
        reason = _walk_reason(list(self.newest_imos))
        if reason:
            pause(self.account, reason)
        return reason


@dataclass
class BurstLine:
    """What `burst_line` hands the transaction it surrounds."""

    account: Account
    counted: bool
    admission: Admission

    def admit(self) -> Admission:
        """Inside the transaction, after the charge inserted this screening's metering event:
        raise `BurstLineCrossed` (the transaction rolls back) when it is the 251st in ten minutes.

        PostgreSQL: one statement more for a free account (the lock); paid accounts none.
        """
        if not self.counted or self.account.plan != PLAN_FREE:
            return self.admission
        if connection.vendor == "postgresql":
            # Held to the end of the transaction: the screenings of one free account are admitted one
            # at a time, each counting what the ones before it committed. NO KEY UPDATE does not block
            # the inserts that reference the account (they take KEY SHARE).
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT 1 FROM {connection.ops.quote_name(Account._meta.db_table)} WHERE id = %s "
                    "FOR NO KEY UPDATE",
                    [self.account.pk],
                )
        now = timezone.now()
        recent = _recent(self.account.pk)  # this screening's own event included
        if sum(1 for _, at in recent if at > now - BURST_WINDOW) > BURST_LIMIT:
            raise BurstLineCrossed()
        self.admission.account = self.account
        self.admission.newest_imos = _newest_hulls(imo for imo, _ in recent)
        return self.admission


# Pauses written inside a transaction that encloses the screening's own (a batch item's, a cargo
# screening's) roll back with it; they are written again once that transaction is over.
_unwritten = threading.local()


@contextmanager
def burst_line(account: Account, environment: str, *, counted: bool = True) -> Iterator[BurstLine]:
    """Around the transaction that writes a screening; call `.admit()` inside it.

    When the screening crosses the burst line its transaction has rolled back by the time this
    answers: the account is paused (outside that transaction) and the 402 paused_error raised.
    `counted=False`: the service's own re-screens (INCOMPLETE resolution) are not the account's.
    """
    line = BurstLine(account, counted, Admission())
    try:
        yield line
    except BurstLineCrossed:
        pause(account, BURST_REASON)
        if connection.in_atomic_block:
            pending = getattr(_unwritten, "pauses", None) or {}
            pending[account.pk] = (BURST_REASON, account.paused_at)
            _unwritten.pauses = pending
        raise paused_error(account, environment) from None


def write_unwritten_pauses() -> None:
    """Write the pauses whose first write an enclosing transaction rolled back (once it is over).

    Called when a request or a task is done; a no-op inside a transaction (the pauses wait).
    """
    pending = getattr(_unwritten, "pauses", None)
    if not pending or connection.in_atomic_block:
        return
    _unwritten.pauses = {}
    for account_id, (reason, at) in pending.items():
        try:
            if Account.objects.filter(pk=account_id, paused_reason="").update(paused_reason=reason, paused_at=at):
                forget_account_keys(account_id)
        except Exception:
            logger.exception("the burst pause of account %s could not be written", account_id)


def _write_unwritten_pauses_after_task(**kwargs) -> None:
    write_unwritten_pauses()


def _connect_task_signal() -> None:
    from celery.signals import task_postrun

    task_postrun.connect(_write_unwritten_pauses_after_task, weak=False, dispatch_uid="pace-unwritten-pauses")


_connect_task_signal()


# Read on every free account's screening: its SQL is built once per process (core/compiled_query.py).
# Enough rows for both rules: the burst line needs the newest BURST_LIMIT + 1, the walk the newest 40
# hulls. Counted screenings only (CHARGE entries): never a reservation, refund, top-up or re-screen.
_NEWEST_SCREENINGS = CompiledQuery(
    lambda account_id: (
        MeteringEvent.objects.filter(account_id=account_id, kind="screening", reason=COUNTED)
        .order_by("-at", "-id")
        .values("imo", "at")[: BURST_LIMIT + 1]
    ),
    "account_id",
)


def _recent(account_id: str) -> list[tuple[str, datetime]]:
    """The account's newest BURST_LIMIT + 1 counted screenings, newest first: (imo, at)."""
    rows = _NEWEST_SCREENINGS.rows(MeteringEvent.objects.db, account_id=account_id)
    return [(row["imo"], row["at"]) for row in rows]
