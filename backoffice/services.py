"""Operator actions: each one transaction with its audit row (who, when, what, before and after).

The admin's actions call these; so can a shell. Changes to a key or an account take effect on the
next request (their save signals drop the key cache); the pause switches within a second.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Account, ApiKey
from accounts.services import revoke_key
from backoffice import audit
from backoffice.tasks import refresh_source
from metering.models import ServiceSwitches
from webhooks import services as webhook_services
from webhooks.models import Delivery, WebhookEndpoint

SWITCH_FIELDS = ("api_paused", "api_paused_retry_after", "keyless_paused", "keyless_paused_retry_after")
ACCOUNT_PAUSE_FIELDS = ("paused_reason", "paused_at")


def _switches() -> ServiceSwitches:
    return ServiceSwitches.objects.select_for_update().order_by("pk").first() or ServiceSwitches()


@transaction.atomic
def set_pause(operator: Any, lane: str, paused: bool, retry_after: int | None = None, note: str = "") -> None:
    """lane 'api' (keyed lane: 503 api_paused) or 'keyless' (503 keyless_paused), with the Retry-After to send."""
    if lane not in ("api", "keyless"):
        raise ValueError(f"unknown lane {lane!r}")
    if retry_after is not None and not 1 <= retry_after <= 86_400:
        raise ValueError("Retry-After must be 1 to 86400 seconds")
    switches = _switches()
    before = audit.snapshot(switches, SWITCH_FIELDS)
    setattr(switches, f"{lane}_paused", paused)
    if retry_after is not None:
        setattr(switches, f"{lane}_paused_retry_after", retry_after)
    switches.save()
    audit.record(
        operator,
        f"{'pause' if paused else 'resume'}_{lane}",
        switches,
        before=before,
        after=audit.snapshot(switches, SWITCH_FIELDS),
        note=note,
    )


@transaction.atomic
def revoke_keys(operator: Any, keys: Iterable[ApiKey]) -> int:
    count = 0
    for key in keys:
        before = audit.snapshot(key, ("revoked_at",))
        if key.revoked_at is not None:
            continue
        revoke_key(key)
        audit.record(operator, "revoke_key", key, target_id=key.id, before=before, after={"revoked_at": key.revoked_at})
        count += 1
    return count


def _account_change(operator: Any, action: str, account: Account, fields: tuple[str, ...], note: str, **values) -> None:
    account = Account.objects.select_for_update().get(pk=account.pk)
    before = audit.snapshot(account, fields)
    for name, value in values.items():
        setattr(account, name, value)
    account.save(update_fields=list(values))
    audit.record(operator, action, account, before=before, after=audit.snapshot(account, fields), note=note)


@transaction.atomic
def pause_account(operator: Any, account: Account, reason: str) -> None:
    """The free-account pause (402 on live and test screenings) with its reason, set by hand."""
    reason = reason.strip()
    if not reason:
        raise ValueError("a pause needs its reason")
    _account_change(
        operator,
        "pause_account",
        account,
        ACCOUNT_PAUSE_FIELDS,
        reason,
        paused_reason=reason[:300],
        paused_at=timezone.now(),
    )


@transaction.atomic
def unpause_account(operator: Any, account: Account, note: str = "") -> None:
    """Lift the pause, whether the pace check (250 in ten minutes, an IMO walk) or an operator set it."""
    _account_change(operator, "unpause_account", account, ACCOUNT_PAUSE_FIELDS, note, paused_reason="", paused_at=None)


@transaction.atomic
def set_appended_digit_correction(operator: Any, account: Account, enabled: bool, note: str = "") -> None:
    _account_change(
        operator,
        "set_appended_digit_correction",
        account,
        ("appended_digit_correction",),
        note,
        appended_digit_correction=enabled,
    )


@transaction.atomic
def grant_pilot_allowance(operator: Any, account: Account, total: int | None, note: str = "") -> None:
    """A pilot's own one-time live screening total (None: back to the plan's allowance)."""
    if total is not None and total < 0:
        raise ValueError("the pilot total cannot be negative")
    _account_change(
        operator, "grant_pilot_allowance", account, ("pilot_screening_total",), note, pilot_screening_total=total
    )


@transaction.atomic
def request_source_refresh(operator: Any, source: str, edition: str = "", note: str = "") -> None:
    """Queue a refresh of one source from its official URL (the worker loads it atomically)."""
    label = f"{source}/{edition}" if edition else source
    audit.record(operator, "refresh_source", target_type="screening.source", target_id=label, note=note)
    transaction.on_commit(lambda: refresh_source.delay(source, edition))


ENDPOINT_FIELDS = ("enabled", "disabled_reason")


@transaction.atomic
def set_endpoint_enabled(operator: Any, endpoint: WebhookEndpoint, enabled: bool, note: str = "") -> None:
    """Disable or enable a customer's webhook endpoint (the customer's own update, audited); ApiError when
    the endpoint refuses it."""
    before = audit.snapshot(endpoint, ENDPOINT_FIELDS)
    webhook_services.update_endpoint(endpoint, endpoint.id, {"enabled": enabled})
    endpoint.refresh_from_db(fields=list(ENDPOINT_FIELDS))
    action = "enable_endpoint" if enabled else "disable_endpoint"
    audit.record(operator, action, endpoint, before=before, after=audit.snapshot(endpoint, ENDPOINT_FIELDS), note=note)


@transaction.atomic
def redeliver(operator: Any, delivery: Delivery, note: str = "") -> None:
    """Send a delivery's event again (the customer's own redelivery, audited); ApiError when it cannot be."""
    before = audit.snapshot(delivery, ("status", "attempt_count"))
    webhook_services.redeliver(delivery, delivery.id)
    delivery.refresh_from_db(fields=["status", "attempt_count"])
    audit.record(
        operator,
        "redeliver",
        delivery,
        before=before,
        after=audit.snapshot(delivery, ("status", "attempt_count")),
        note=note,
    )
