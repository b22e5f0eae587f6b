"""Bearer API-key authentication and the permission that applies the keyed lane's rules.

Order for every keyed request: authenticate (401) → count against the key's rate (429,
X-RateLimit-* from here on) → operator pause (503) → allowed_ips (403) → scope (403) →
environment (403).
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from django.conf import settings
from django.core.cache import cache
from django.db import connection, connections, transaction
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
# Outlives every cached row; when it is evicted or expires, the rows cached under it are no longer believed.
KEY_GENERATION_SECONDS = 24 * 3600
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


def _generation_key(lookup: str) -> str:
    return f"apikey-gen:{lookup}"


def key_cache_is_shared() -> bool:
    """Key rows are cached only in a cache every web process shares (Redis).

    A per-process cache (the embedded default's LocMemCache) could not hear a revocation made
    in another process, so there every request reads the key row (one indexed SQLite read,
    about 0.1 ms) and revocation takes effect on the next request in every process.
    """
    backend = settings.CACHES["default"]["BACKEND"]
    return not backend.endswith(("LocMemCache", "DummyCache"))


_KEY_ROW_FIELDS = (
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
_LOOKUP_PLACEHOLDER = "\x00lookup\x00"
_compiled_key_query: dict[str, tuple] = {}


def _key_query(alias: str) -> tuple:
    """The key-row query compiled once per process: (sql, index of the lookup parameter, params, converters).

    Building the queryset costs more than running it (about 0.6 ms against 0.05 ms on SQLite),
    and the key row is read on every request where no shared cache holds it.
    """
    compiled = _compiled_key_query.get(alias)
    if compiled is None:
        queryset = ApiKey.objects.filter(lookup=_LOOKUP_PLACEHOLDER).select_related("account").values(*_KEY_ROW_FIELDS)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        converters = compiler.get_converters([column for column, _, _ in compiler.select])
        converters = [(index, functions, expression) for index, (functions, expression) in converters.items()]
        compiled = (sql, list(params).index(_LOOKUP_PLACEHOLDER), list(params), converters)
        _compiled_key_query[alias] = compiled
    return compiled


def _read_key_row(lookup: str) -> dict | None:
    alias = ApiKey.objects.db
    sql, position, params, converters = _key_query(alias)
    params = [*params]
    params[position] = lookup
    db = connections[alias]
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    if found is None:
        return None
    values = list(found)
    for index, functions, expression in converters:  # as values() would: JSON, datetimes, booleans
        for convert in functions:
            values[index] = convert(values[index], expression, db)
    return dict(zip(_KEY_ROW_FIELDS, values, strict=True))


def _load_key(lookup: str) -> tuple[dict | None, str | None]:
    """The key row and the cache generation it was read under (None: not cacheable).

    Every cached row carries the generation token current when its reader began; `forget_key`
    replaces the token, so a row read before a revocation and written after it (a request in
    flight) is never believed: the generation is read before the database, and a reader only
    trusts an entry whose token is still the current one.
    """
    if not key_cache_is_shared():
        return _read_key_row(lookup), None
    generation_key, entry_key = _generation_key(lookup), _cache_key(lookup)
    found = cache.get_many([generation_key, entry_key])
    generation, entry = found.get(generation_key), found.get(entry_key)
    if generation is not None and isinstance(entry, dict) and entry.get("generation") == generation:
        return entry["row"], generation
    if generation is None:
        token = secrets.token_hex(12)
        # add: only if absent, so a token set meanwhile by forget_key is never overwritten.
        generation = token if cache.add(generation_key, token, KEY_GENERATION_SECONDS) else cache.get(generation_key)
    row = _read_key_row(lookup)
    if generation is not None:
        _remember(lookup, row, generation)
    return row, generation


def _remember(lookup: str, row: dict | None, generation: str) -> None:
    cache.set(_cache_key(lookup), {"generation": generation, "row": row}, KEY_CACHE_SECONDS)


def _new_generation(lookup: str) -> None:
    cache.set(_generation_key(lookup), secrets.token_hex(12), KEY_GENERATION_SECONDS)
    cache.delete(_cache_key(lookup))


def forget_key(lookup: str) -> None:
    """Revocation and edits take effect on the next request, in every process.

    Replaces the key's cache generation now and again when the surrounding transaction commits
    (a request reading between the two would otherwise cache the row the transaction is about to
    change). Requests in flight that read the row earlier write it under the old generation,
    which no reader trusts.
    """
    if not key_cache_is_shared():
        return
    _new_generation(lookup)
    if connection.in_atomic_block:
        transaction.on_commit(lambda: _new_generation(lookup))


@receiver(post_save, sender=ApiKey)
@receiver(post_delete, sender=ApiKey)
def _key_changed(sender, instance: ApiKey, **kwargs) -> None:  # type: ignore[no-untyped-def]
    forget_key(instance.lookup)


def forget_account_keys(account_id: str) -> None:
    """An account change (pause, plan, entitlement) reaches every key's next request."""
    if not key_cache_is_shared():
        return
    for lookup in ApiKey.objects.filter(account_id=account_id).values_list("lookup", flat=True):
        forget_key(lookup)


@receiver(post_save, sender=Account)
def _account_changed(sender, instance: Account, **kwargs) -> None:  # type: ignore[no-untyped-def]
    forget_account_keys(instance.pk)


def _touch_last_used(row: dict, lookup: str, generation: str | None, now: datetime) -> None:
    last = row.get("last_used_at")
    if last is None or now - last >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=row["id"]).update(last_used_at=now)
        row["last_used_at"] = now
        if generation is not None:  # under the generation it was read with: stale after a revocation
            _remember(lookup, row, generation)


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
    row, generation = _load_key(parsed.lookup)
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
    _touch_last_used(row, parsed.lookup, generation, now)
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
        # metering.middleware.KeyedResponseMiddleware authenticates every keyed /api/v1 request
        # first; a view reached another way (tests calling it directly) authenticates here.
        context = getattr(request._request, "key_context", None)
        if context is None:
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


def count_rate(context: KeyContext) -> None:
    """Count the request against the key's rate (once per request) or raise 429."""
    if context.rate is None:
        context.rate = ratelimit.hit(ratelimit.KEY_RATE, "key", context.key_id)
    if not context.rate.allowed:
        raise ApiError(
            429,
            "rate_limit_exceeded",
            f"Over {context.rate.limit} requests per minute on this key; back off until X-RateLimit-Reset.",
            headers={"Retry-After": str(context.rate.retry_after)},
        )


def enforce_keyed_rules(
    context: KeyContext, address: str, required_scope: str | None, *, live_only: bool = False
) -> None:
    """The keyed lane's rules after authentication, in order; shared by REST views and MCP tools."""
    count_rate(context)
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
