"""Allowances (contract part 8), atomic charging, the ledger, and what the quota notices need.

Charging is a conditional UPDATE (used + units <= limit) inside the caller's transaction,
so a unit is never lost or counted twice under concurrency, and an INCOMPLETE is simply
never charged (the refund and the charge are the same transaction that writes nothing).

The ledger: every movement of a counter is one entry (MeteringEvent) written by the same call, in
the same transaction: `charge` (a CHARGE, RESCREEN, RESERVATION, SETTLEMENT or TOPUP entry of
+units) and `refund` (a REFUND or SETTLEMENT entry of -units), each naming the allowance period it
moved. So for every (account, environment, kind, period) the entries' units sum to the counter's
`used`. A charge is its UPDATE and one INSERT, a refund its UPDATE and one INSERT.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import cast

from django.db import connection, transaction
from django.utils import timezone

from accounts.models import ENV_LIVE, ENV_TEST, Account
from core.api.errors import ApiError
from core.api.timefmt import rfc3339
from core.compiled_query import CompiledQuery
from metering.models import AllowanceKind, MeteringEvent, QuotaCounter

logger = logging.getLogger("service.metering")

KIND_SCREENING = AllowanceKind.SCREENING
KIND_ASSESSMENT = AllowanceKind.ASSESSMENT
ONCE = "once"

Reason = MeteringEvent.Reason
# The entries that draw a unit for a screening or an assessment (quota_pace counts those with units > 0).
CHARGED_REASONS = (Reason.CHARGE, Reason.RESCREEN, Reason.TOPUP)

WARNING_FRACTION = 0.8
TEST_MAX_ROUTES = 10
LIVE_MAX_ROUTES = 10
MONTHLY = "monthly"


@dataclass(frozen=True)
class AllowanceRule:
    """One row of the allowance table (contract part 8): who it applies to and what it grants."""

    kind: str
    environment: str
    limit: int
    period: str  # MONTHLY or ONCE
    opened_from: date | None = None  # the account's opening date, inclusive
    opened_until: date | None = None  # inclusive

    def applies(self, kind: str, environment: str, opened_on: date) -> bool:
        return (
            self.kind == kind
            and self.environment == environment
            and (self.opened_from is None or opened_on >= self.opened_from)
            and (self.opened_until is None or opened_on <= self.opened_until)
        )


# First matching row wins. A pilot account's own total (Account.pilot_screening_total) replaces the
# live screening rows. Voyage assessments and test keys stay monthly for every account (part 8 rule 2).
ALLOWANCES: tuple[AllowanceRule, ...] = (
    AllowanceRule(KIND_SCREENING, ENV_LIVE, 5_000, MONTHLY, opened_until=date(2026, 9, 30)),
    AllowanceRule(KIND_SCREENING, ENV_LIVE, 5_000, ONCE, opened_from=date(2026, 10, 1), opened_until=date(2026, 10, 7)),
    AllowanceRule(KIND_SCREENING, ENV_LIVE, 2_000, ONCE, opened_from=date(2026, 10, 8)),
    AllowanceRule(KIND_SCREENING, ENV_TEST, 500, MONTHLY),
    AllowanceRule(KIND_ASSESSMENT, ENV_LIVE, 10_000, MONTHLY),
    AllowanceRule(KIND_ASSESSMENT, ENV_TEST, 1_000, MONTHLY),
)


@dataclass(frozen=True)
class Allowance:
    kind: str
    environment: str
    limit: int
    period: str  # 'YYYY-MM' or 'once'
    resets_at: datetime | None  # None on a one-time allowance

    @property
    def one_time(self) -> bool:
        return self.period == ONCE


@dataclass(frozen=True)
class QuotaState:
    allowance: Allowance
    used: int
    drawn: int = 0  # units the charge that produced this state drew

    @property
    def remaining(self) -> int:
        return max(0, self.allowance.limit - self.used)

    @property
    def crossed_warning(self) -> bool:
        """This charge took the live screening allowance over the 80 % line (usage.quota_warning)."""
        before = QuotaState(self.allowance, self.used - self.drawn)
        return bool(self.drawn) and warning_due(self) and not warning_due(before)

    def headers(self) -> dict[str, str]:
        headers = {"X-Service-Quota-Limit": str(self.allowance.limit), "X-Service-Quota-Remaining": str(self.remaining)}
        resets_at = rfc3339(self.allowance.resets_at)  # None on a one-time allowance
        if resets_at is not None:
            headers["X-Service-Quota-Reset"] = resets_at
        return headers

    def as_dict(self) -> dict:
        return {
            "used": self.used,
            "limit": self.allowance.limit,
            "remaining": self.remaining,
            "one_time": self.allowance.one_time,
            "resets_at": rfc3339(self.allowance.resets_at),
        }


def _month_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month_start(moment: datetime) -> datetime:
    start = _month_start(moment)
    return (start + timedelta(days=32)).replace(day=1)


def allowance_for(account: Account, environment: str, kind: str, now: datetime | None = None) -> Allowance:
    now = now or timezone.now()
    if kind == KIND_SCREENING and environment == ENV_LIVE and account.pilot_screening_total is not None:
        return Allowance(kind, environment, account.pilot_screening_total, ONCE, None)
    rule = next(r for r in ALLOWANCES if r.applies(kind, environment, account.opened_on))
    if rule.period == ONCE:
        return Allowance(kind, environment, rule.limit, ONCE, None)
    return Allowance(kind, environment, rule.limit, now.astimezone(UTC).strftime("%Y-%m"), next_month_start(now))


def current_state(account: Account, environment: str, kind: str, now: datetime | None = None) -> QuotaState:
    allowance = allowance_for(account, environment, kind, now)
    used = (
        QuotaCounter.objects.filter(account=account, environment=environment, kind=kind, period=allowance.period)
        .values_list("used", flat=True)
        .first()
    )
    return QuotaState(allowance, used or 0)


def usage_states(
    account: Account, environments: Iterable[str], kinds: Iterable[str], now: datetime | None = None
) -> dict[tuple[str, str], QuotaState]:
    """Several allowances' states in one read: {(environment, kind): QuotaState}.

    What GET /usage answers and what the pause message states: the same numbers, from this read.
    """
    environments, kinds = tuple(environments), tuple(kinds)
    allowances = {(env, kind): allowance_for(account, env, kind, now) for env in environments for kind in kinds}
    # One plain statement: GET /usage runs it on every call, and building the queryset cost more than running it.
    table = connection.ops.quote_name(QuotaCounter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT environment, kind, period, used FROM {table} WHERE account_id = %s "
            f"AND environment IN ({', '.join(['%s'] * len(environments))}) "
            f"AND kind IN ({', '.join(['%s'] * len(kinds))})",
            [account.pk, *environments, *kinds],
        )
        rows = cursor.fetchall()
    used = {(env, kind): count for env, kind, period, count in rows if period == allowances[(env, kind)].period}
    return {key: QuotaState(allowance, used.get(key, 0)) for key, allowance in allowances.items()}


def current_states(account: Account, environment: str, kinds: tuple[str, ...], now: datetime | None = None) -> dict:
    """Several allowances' states in one environment in one read (GET /usage): {kind: QuotaState}."""
    states = usage_states(account, (environment,), kinds, now)
    return {kind: states[(environment, kind)] for kind in kinds}


def current_states_for(account: Account, environments: list[str], kind: str, now: datetime | None = None) -> dict:
    """One allowance's state in several environments in one read: {environment: QuotaState}."""
    states = usage_states(account, environments, (kind,), now)
    return {env: states[(env, kind)] for env in environments}


def exhausted_error(state: QuotaState, now: datetime | None = None) -> ApiError:
    now = now or timezone.now()
    allowance = state.allowance
    what = "screening" if allowance.kind == KIND_SCREENING else "voyage assessment"
    if allowance.one_time:
        reset_text = "This is a one-time allowance and does not reset."
        headers: dict[str, str] = {}
    else:
        resets_at = cast(datetime, allowance.resets_at)  # None only on a one-time allowance (allowance_for)
        reset_text = f"It resets at {rfc3339(resets_at)}."
        headers = {"Retry-After": str(max(1, math.ceil((resets_at - now).total_seconds())))}
    headers.update(state.headers())
    return ApiError(
        402,
        "quota_exhausted",
        f"The {allowance.environment} {what} allowance is used: {state.used}/{allowance.limit}. {reset_text} "
        "Nothing ran and nothing was charged. Still working: replays of answered Idempotency-Keys, every GET of "
        "existing screenings and assessments, and test keys.",
        headers=headers,
    )


def ensure_available(account: Account, environment: str, kind: str, units: int = 1) -> QuotaState:
    """Refuse (402) before anything runs when the allowance cannot cover `units`."""
    state = current_state(account, environment, kind)
    if state.remaining < units:
        raise exhausted_error(state)
    return state


def _draw(account_id: str, environment: str, kind: str, period: str, units: int, limit: int) -> int | None:
    """One conditional UPDATE … RETURNING: the new `used`, or None when no counter row covers it."""
    table = connection.ops.quote_name(QuotaCounter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET used = used + %s WHERE account_id = %s AND environment = %s AND kind = %s "
            "AND period = %s AND used <= %s RETURNING used",
            [units, account_id, environment, kind, period, limit - units],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def _give_back(account_id: str, environment: str, kind: str, period: str, units: int) -> int | None:
    """One conditional UPDATE … RETURNING: the new `used`, or None when the counter holds fewer units."""
    table = connection.ops.quote_name(QuotaCounter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET used = used - %s WHERE account_id = %s AND environment = %s AND kind = %s "
            "AND period = %s AND used >= %s RETURNING used",
            [units, account_id, environment, kind, period, units],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def _enter(
    account: Account, environment: str, allowance: Allowance, units: int, reason: str, at: datetime, imo: str
) -> None:
    """One ledger entry: `units` (signed) moved on `allowance`'s counter, and why."""
    MeteringEvent.objects.create(
        account=account,
        environment=environment,
        kind=allowance.kind,
        at=at,
        imo=imo,
        units=units,
        reason=reason,
        period=allowance.period,
    )


def charge(
    account: Account,
    environment: str,
    kind: str,
    units: int = 1,
    imo: str = "",
    *,
    reason: str = Reason.CHARGE,
    at: datetime | None = None,
) -> QuotaState:
    """Draw units atomically and enter them in the ledger; call inside the transaction that writes the
    charged result.

    `reason`: the entry's (default CHARGE: a screening record the customer caused, or an assessment;
    RESCREEN for the service's own re-screen of an INCOMPLETE, RESERVATION for a job's accepted items,
    TOPUP, SETTLEMENT). `at`: when (default now; its month is the period of a monthly allowance).

    The common case is one statement (the conditional update) plus the entry; the period's first
    charge creates the counter. Raises 402 when the allowance cannot cover it.
    """
    at = at or timezone.now()
    allowance = allowance_for(account, environment, kind, at)
    with transaction.atomic(savepoint=False):  # part of the caller's transaction: no extra round trip
        used = _draw(account.pk, environment, kind, allowance.period, units, allowance.limit) if units else None
        if used is None:
            counter, _ = QuotaCounter.objects.get_or_create(
                account=account, environment=environment, kind=kind, period=allowance.period
            )
            if units:
                used = _draw(account.pk, environment, kind, allowance.period, units, allowance.limit)
                if used is None:
                    raise exhausted_error(current_state(account, environment, kind))
            else:
                used = counter.used
        _enter(account, environment, allowance, units, reason, at, imo)
    return QuotaState(allowance, used, drawn=units)


def refund(
    account: Account,
    environment: str,
    kind: str,
    units: int = 1,
    *,
    reason: str = Reason.REFUND,
    drawn_at: datetime | None = None,
    imo: str = "",
) -> QuotaState:
    """Give back units and enter them (negative) in the ledger; call inside the transaction that
    writes why (a failed item, an uncharged result).

    `drawn_at`: when the units were drawn (a job's creation, for its reservation); they go back to
    that allowance period (default now). `reason`: REFUND, or SETTLEMENT for a batch item's reserved
    unit handed over to its own record's charge. Returns the state of the current period.
    """
    now = timezone.now()
    allowance = allowance_for(account, environment, kind, drawn_at or now)
    if units <= 0:
        return current_state(account, environment, kind, now)
    with transaction.atomic(savepoint=False):
        used = _give_back(account.pk, environment, kind, allowance.period, units)
        if used is None:  # never with a balanced ledger: nothing to give back, nothing entered
            logger.warning(
                "refund of %s %s unit(s) to %s/%s/%s found fewer on the counter; nothing given back",
                units, kind, account.pk, environment, allowance.period,
            )  # fmt: skip
            return current_state(account, environment, kind, now)
        _enter(account, environment, allowance, -units, reason, now, imo)
    if drawn_at is not None and allowance.period != allowance_for(account, environment, kind, now).period:
        return current_state(account, environment, kind, now)
    return QuotaState(allowance, used)


def adjust(counter: QuotaCounter, used: int, at: datetime | None = None) -> None:
    """Set a counter's `used` (an operator's correction) and enter the difference as an ADJUSTMENT."""
    with transaction.atomic():
        locked = QuotaCounter.objects.select_for_update().get(pk=counter.pk)
        difference = used - locked.used
        if not difference:
            return
        QuotaCounter.objects.filter(pk=counter.pk).update(used=used)
        MeteringEvent.objects.create(
            account_id=locked.account_id,
            environment=locked.environment,
            kind=locked.kind,
            at=at or timezone.now(),
            units=difference,
            reason=Reason.ADJUSTMENT,
            period=locked.period,
        )
    counter.used = used


def warning_due(state: QuotaState) -> bool:
    """quota_warning: at least 80% of the live screening allowance used."""
    allowance = state.allowance
    return (
        allowance.kind == KIND_SCREENING
        and allowance.environment == ENV_LIVE
        and allowance.limit > 0
        and state.used >= WARNING_FRACTION * allowance.limit
    )


@dataclass(frozen=True)
class PaceProjection:
    projected_exhaustion: date
    per_day: float
    used: int
    limit: int
    trailing_7_day_count: int


# When the account first drew a unit of this kind for a screening or an assessment (not a job's
# reservation): read on every charged screening (quota_pace).
_FIRST_CHARGE = CompiledQuery(
    lambda account_id, environment, kind: (
        MeteringEvent.objects.filter(
            account_id=account_id, environment=environment, kind=kind, reason__in=CHARGED_REASONS, units__gt=0
        )
        .order_by("at")
        .values("at")[:1]
    ),
    "account_id",
    "environment",
    "kind",
)


# Once an account has drawn a unit, when it first did never changes (events are only ever added
# at the moment of the charge), so each process reads it once per account and kind.
_first_charges: dict[tuple[str, str, str], datetime] = {}
_FIRST_CHARGES_KEPT = 100_000


def _first_charge(account_id: str, environment: str, kind: str) -> datetime | None:
    key = (account_id, environment, kind)
    first = _first_charges.get(key)
    if first is None:
        found = _FIRST_CHARGE.first(MeteringEvent.objects.db, account_id=account_id, environment=environment, kind=kind)
        first = found["at"] if found else None
        if first is not None:
            if len(_first_charges) >= _FIRST_CHARGES_KEPT:
                _first_charges.clear()
            _first_charges[key] = first
    return first


def pace_projection(account: Account, state: QuotaState, now: datetime | None = None) -> PaceProjection | None:
    """quota_pace: the trailing seven-day rate exhausts the month's allowance before reset.

    Quiet once quota_warning applies, under three days of history, and on one-time allowances.
    """
    now = now or timezone.now()
    allowance = state.allowance
    if allowance.one_time or warning_due(state) or allowance.resets_at is None:
        return None
    first = _first_charge(account.pk, allowance.environment, allowance.kind)
    if first is None or now - first < timedelta(days=3):
        return None
    events = MeteringEvent.objects.filter(  # charged screenings (or assessments), not reservations
        account=account,
        environment=allowance.environment,
        kind=allowance.kind,
        reason__in=CHARGED_REASONS,
        units__gt=0,
    )
    window_start = now - timedelta(days=7)
    days = min(7.0, (now - max(first, window_start)).total_seconds() / 86400)
    count = events.filter(at__gte=window_start).count()
    per_day = count / days if days > 0 else 0.0
    if per_day <= 0:
        return None
    days_to_exhaust = state.remaining / per_day
    exhaustion = now + timedelta(days=days_to_exhaust)
    if exhaustion >= allowance.resets_at:
        return None
    return PaceProjection(exhaustion.date(), round(per_day, 1), state.used, allowance.limit, count)
