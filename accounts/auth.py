"""Bearer API-key authentication and the permission that applies the keyed lane's rules.

Order for every keyed request: authenticate (401) → count against the key's rate (429,
X-RateLimit-* from here on) → operator pause (503) → allowed_ips (403) → scope (403) →
environment (403).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from django.conf import settings
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from accounts import keys
from accounts.models import ENTITLEMENT_ACTIVE, ENV_LIVE, Account, ApiKey
from config.api.clientip import client_ip
from config.api.errors import ApiError
from metering import ratelimit
from metering.switches import current_switches

KEY_CACHE_SECONDS = 30
# Read with the key row (and cached with it) so a keyed request needs no account query.
ACCOUNT_FIELDS_READ_WITH_KEY = (
    "email",
    "plan",
    "opened_on",
    "entitlement",
    "pilot_screening_total",
    "appended_digit_correction",
    "paused_reason",
    "paused_at",
)
LAST_USED_RESOLUTION = timedelta(minutes=5)


def signup_url() -> str:
    """Where "Get a free key" leads; until self-serve sign-up is built, a page saying how a key is obtained."""
    return f"{settings.PUBLIC_BASE_URL}/signup"


def unauthorized(reason: str) -> ApiError:
    return ApiError(
        401,
        "unauthorized",
        f"{reason} Send Authorization: Bearer <API_KEY>. Get a free key at {signup_url()}",
        headers={"WWW-Authenticate": 'Bearer realm="api"'},
    )


@dataclass
class KeyContext:
    """What a request knows about the key that authenticated it."""

    key_id: str
    account_id: str
    environment: str
    display_prefix: str
    scopes: list[str]
    allowed_ips: list[str]
    rate: ratelimit.RateState | None = None
    quota_headers: dict[str, str] = field(default_factory=dict)
    units_charged: int = 0
    account_fields: dict = field(default_factory=dict)

    @cached_property
    def account(self) -> Account:
        """The account as the key lookup read it (no query; any field not read loads on access)."""
        if not self.account_fields:
            return Account.objects.get(pk=self.account_id)
        known = {"id": self.account_id, **self.account_fields}
        names = [f.attname for f in Account._meta.concrete_fields if f.attname in known]  # from_db wants model order
        return Account.from_db("default", names, [known[name] for name in names])


def _cache_key(lookup: str) -> str:
    return f"apikey:{lookup}"


def _load_key(lookup: str) -> dict | None:
    cached = cache.get(_cache_key(lookup))
    if cached is not None:
        return cached or None
    row = (
        ApiKey.objects.filter(lookup=lookup)
        .select_related("account")
        .values(
            "id",
            "environment",
            "secret_hash",
            "pepper_id",
            "scopes",
            "allowed_ips",
            "expires_at",
            "revoked_at",
            "last_used_at",
            "account_id",
            *(f"account__{name}" for name in ACCOUNT_FIELDS_READ_WITH_KEY),
        )
        .first()
    )
    cache.set(_cache_key(lookup), row or {}, KEY_CACHE_SECONDS)
    return row


def forget_key(lookup: str) -> None:
    """Revocation and edits take effect on the next request, in every process."""
    cache.delete(_cache_key(lookup))


@receiver(post_save, sender=ApiKey)
@receiver(post_delete, sender=ApiKey)
def _key_changed(sender, instance: ApiKey, **kwargs) -> None:  # type: ignore[no-untyped-def]
    forget_key(instance.lookup)


def forget_account_keys(account_id: str) -> None:
    """An account change (pause, plan, entitlement) reaches every key's next request."""
    for lookup in ApiKey.objects.filter(account_id=account_id).values_list("lookup", flat=True):
        forget_key(lookup)


@receiver(post_save, sender=Account)
def _account_changed(sender, instance: Account, **kwargs) -> None:  # type: ignore[no-untyped-def]
    forget_account_keys(instance.pk)


def _touch_last_used(row: dict, now: datetime) -> None:
    last = row.get("last_used_at")
    if last is None or now - last >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=row["id"]).update(last_used_at=now)
        row["last_used_at"] = now
        cache.set(_cache_key(row["lookup"]), row, KEY_CACHE_SECONDS)


def authenticate_header_value(header: str | None) -> KeyContext:
    if header is None or header == "":
        raise unauthorized("No API key was sent.")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value or value != value.strip() or " " in value:
        raise unauthorized("The Authorization header is malformed.")
    if len(value) > 200:
        raise unauthorized("The API key is malformed.")
    parsed = keys.parse(value)
    if parsed is None:
        raise unauthorized("The API key is malformed.")
    row = _load_key(parsed.lookup)
    if row is None or not keys.secret_matches(parsed.secret, row["secret_hash"], row["pepper_id"]):
        raise unauthorized("The API key is not recognised.")
    if row["environment"] != parsed.environment:
        raise unauthorized(f"The key prefix svc_{parsed.environment}_ does not match the key's environment.")
    now = timezone.now()
    if row["revoked_at"] is not None:
        raise unauthorized("The API key has been revoked.")
    if row["expires_at"] is not None and row["expires_at"] <= now:
        raise unauthorized("The API key has expired.")
    if row["account__entitlement"] != ENTITLEMENT_ACTIVE:
        raise unauthorized("The account's entitlement is inactive.")
    row["lookup"] = parsed.lookup
    _touch_last_used(row, now)
    return KeyContext(
        key_id=row["id"],
        account_id=row["account_id"],
        environment=row["environment"],
        display_prefix=f"svc_{row['environment']}_{parsed.lookup[:6]}",
        scopes=list(row["scopes"]),
        allowed_ips=list(row["allowed_ips"] or []),
        account_fields={name: row[f"account__{name}"] for name in ACCOUNT_FIELDS_READ_WITH_KEY},
    )


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request):  # type: ignore[no-untyped-def]
        context = authenticate_header_value(request.META.get("HTTP_AUTHORIZATION"))
        request._request.key_context = context
        return (None, context)

    def authenticate_header(self, request) -> str:  # type: ignore[no-untyped-def]
        return 'Bearer realm="api"'


def ip_allowed(address: str, allowed: list[str]) -> bool:
    if not allowed:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in allowed:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def enforce_keyed_rules(
    context: KeyContext, address: str, required_scope: str | None, *, live_only: bool = False
) -> None:
    """The keyed lane's rules after authentication, in order; shared by REST views and MCP tools."""
    context.rate = ratelimit.hit(ratelimit.KEY_RATE, "key", context.key_id)
    if not context.rate.allowed:
        raise ApiError(
            429,
            "rate_limit_exceeded",
            f"Over {context.rate.limit} requests per minute on this key; back off until X-RateLimit-Reset.",
            headers={"Retry-After": str(context.rate.retry_after)},
        )
    switches = current_switches()
    if switches.api_paused:
        raise ApiError(
            503,
            "api_paused",
            "The API is paused by an operator. Nothing ran and nothing was charged; resend after Retry-After.",
            headers={"Retry-After": str(switches.api_paused_retry_after)},
        )
    if not ip_allowed(address, context.allowed_ips):
        raise ApiError(403, "ip_not_allowed", "This key may not be used from this source address.")
    if required_scope and required_scope not in context.scopes:
        raise ApiError(
            403, "insufficient_scope", f"This key lacks the scope {required_scope}. Create a key that carries it."
        )
    if live_only and context.environment != ENV_LIVE:
        raise ApiError(403, "environment_not_allowed", "This operation is not available on a test key; use a live key.")


class KeyedAccess(BasePermission):
    """Applies the keyed lane's rules; a view names `required_scope` and may set `live_only`."""

    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        enforce_keyed_rules(
            request.auth,
            client_ip(request._request),
            getattr(view, "required_scope", None),
            live_only=getattr(view, "live_only", False),
        )
        return True
