"""Free-account pause (contract part 7 rule 5): bursts and register walking.

A free account is paused when it runs more than 250 screenings in any ten minutes (live
and test together), or when most of its last 40 screenings step through IMO numbers each
within 200 of the one before. An operator lifts the pause in the admin.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import ENV_LIVE, ENV_TEST, PLAN_FREE, Account
from config.api.errors import ApiError
from config.api.timefmt import rfc3339
from metering.models import MeteringEvent

BURST_LIMIT = 250
BURST_WINDOW = timedelta(minutes=10)
WALK_WINDOW = 40
WALK_STEP = 200


def _allowance_text(state) -> str:  # type: ignore[no-untyped-def]
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
    from metering import quota

    environments = [ENV_LIVE, ENV_TEST]
    if environment in environments:
        environments.remove(environment)
        environments.insert(0, environment)
    states = quota.current_states_for(account, environments, quota.KIND_SCREENING)
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


def evaluate(account: Account, now: datetime | None = None) -> str | None:
    """After a screening: pause a free account that crossed either line; returns the reason."""
    if account.plan != PLAN_FREE or account.is_paused:
        return None
    now = now or timezone.now()
    # One read serves both rules: the newest BURST_LIMIT + 1 screenings (the burst needs no more).
    recent = list(
        MeteringEvent.objects.filter(account=account, kind="screening")
        .order_by("-at", "-id")
        .values_list("imo", "at")[: BURST_LIMIT + 1]
    )
    reason = None
    if sum(1 for _, at in recent if at > now - BURST_WINDOW) > BURST_LIMIT:
        reason = f"more than {BURST_LIMIT} screenings in ten minutes."
    else:
        numbers = [int(imo) for imo, _ in reversed(recent[:WALK_WINDOW]) if imo.isdigit()]
        if len(numbers) == WALK_WINDOW and is_register_walk(numbers):
            reason = (
                f"most of the last {WALK_WINDOW} screenings step through IMO numbers "
                f"within {WALK_STEP} of each other."
            )
    if reason:
        from accounts.auth import forget_account_keys

        Account.objects.filter(pk=account.pk, paused_reason="").update(paused_reason=reason, paused_at=now)
        forget_account_keys(account.pk)
        account.paused_reason, account.paused_at = reason, now
    return reason
