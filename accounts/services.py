"""Writes on accounts and keys (one transaction each)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from accounts import keys
from accounts.models import ALL_SCOPES, ENVIRONMENTS, PLANS, Account, ApiKey


class KeyRequestError(ValueError):
    """A key could not be issued as asked (unknown scope, bad CIDR, ...)."""


def validate_allowed_ips(entries: Sequence[str]) -> list[str]:
    cleaned = []
    for entry in entries:
        try:
            cleaned.append(str(ipaddress.ip_network(entry.strip(), strict=False)))
        except ValueError:
            raise KeyRequestError(f"{entry!r} is not an IP address or CIDR range") from None
    return cleaned


@transaction.atomic
def issue_key(
    *,
    email: str,
    environment: str,
    scopes: Sequence[str] | None = None,
    opened_on: date | None = None,
    plan: str | None = None,
    allowed_ips: Sequence[str] = (),
    expires_at: datetime | None = None,
    label: str = "",
) -> tuple[Account, ApiKey, str]:
    """Create the account if needed and a key; the raw key is returned once, never stored."""
    if environment not in dict(ENVIRONMENTS):
        raise KeyRequestError(f"environment must be test or live, not {environment!r}")
    chosen_scopes = list(scopes) if scopes else list(ALL_SCOPES)
    unknown = sorted(set(chosen_scopes) - set(ALL_SCOPES))
    if unknown:
        raise KeyRequestError(f"unknown scopes: {', '.join(unknown)}")
    if plan is not None and plan not in dict(PLANS):
        raise KeyRequestError(f"plan must be free or paid, not {plan!r}")
    account, created = Account.objects.get_or_create(
        email=email.strip().lower(),
        defaults={"opened_on": opened_on or timezone.now().date(), "plan": plan or "free"},
    )
    if not created and (opened_on or plan):
        account.opened_on = opened_on or account.opened_on
        account.plan = plan or account.plan
        account.save(update_fields=["opened_on", "plan"])
    raw, parsed = keys.mint(environment)
    pepper_id, digest = keys.hash_secret(parsed.secret)
    key = ApiKey.objects.create(
        account=account,
        environment=environment,
        label=label,
        lookup=parsed.lookup,
        secret_hash=digest,
        pepper_id=pepper_id,
        scopes=chosen_scopes,
        allowed_ips=validate_allowed_ips(allowed_ips),
        expires_at=expires_at,
    )
    return account, key, raw


def revoke_key(key: ApiKey) -> None:
    """Takes effect on the next request (the key cache is dropped by the save signal)."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
