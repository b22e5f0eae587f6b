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
from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from accounts import keys
from accounts.models import ENTITLEMENT_ACTIVE, ENV_LIVE, Account, ApiKey
from core.api.clientip import client_ip
from core.api.errors import ApiError
from core.compiled_query import CompiledQuery
from metering import ratelimit
from metering.shared_state import redis_client
from metering.switches import current_switches

if TYPE_CHECKING:
    from django_redis.cache import RedisCache

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
    """Where "Get a free key" leads: the self-serve sign-up page (portal)."""
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
    # A dotted path; settings' CACHES literal mixes str and dict values, so the checker widens them.
    backend = cast(str, settings.CACHES["default"]["BACKEND"])
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
# Compiled once per process: building the queryset costs more than running it (about 0.6 ms
# against 0.05 ms on SQLite), and the key row is read on every request where no shared cache holds it.
_KEY_ROW = CompiledQuery(
    lambda lookup: ApiKey.objects.filter(lookup=lookup).select_related("account").values(*_KEY_ROW_FIELDS), "lookup"
)


def _read_key_row(lookup: str) -> dict | None:
    return _KEY_ROW.first(ApiKey.objects.db, lookup=lookup)


def _load_key(lookup: str, cached: dict | None = None) -> tuple[dict | None, str | None]:
    """The key row and the cache generation it was read under (None: not cacheable).

    Every cached row carries the generation token current when its reader began; `forget_key`
    replaces the token, so a row read before a revocation and written after it (a request in
    flight) is never believed: the generation is read before the database, and a reader only
    trusts an entry whose token is still the current one. `cached`: the two cache entries as
    `cache.get_many` returns them, when the caller already read them (`_read_cached_with_rate`).
    """
    if not key_cache_is_shared():
        return _read_key_row(lookup), None
    generation_key, entry_key = _generation_key(lookup), _cache_key(lookup)
    found = cached if cached is not None else cache.get_many([generation_key, entry_key])
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
def _key_changed(sender, instance: ApiKey, **kwargs) -> None:
    forget_key(instance.lookup)


def forget_account_keys(account_id: str) -> None:
    """An account change (pause, plan, entitlement) reaches every key's next request."""
    if not key_cache_is_shared():
        return
    for lookup in ApiKey.objects.filter(account_id=account_id).values_list("lookup", flat=True):
        forget_key(lookup)


@receiver(post_save, sender=Account)
def _account_changed(sender, instance: Account, **kwargs) -> None:
    forget_account_keys(instance.pk)


def _touch_last_used(row: dict, lookup: str, generation: str | None, now: datetime) -> None:
    last = row.get("last_used_at")
    if last is None or now - last >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=row["id"]).update(last_used_at=now)
        row["last_used_at"] = now
        if generation is not None:  # under the generation it was read with: stale after a revocation
            _remember(lookup, row, generation)


# lookup -> (key id, secret hash, pepper id) of keys this process has authenticated. These never
# change for a key (revocation, expiry, scopes and the account live in the row, read fresh under
# the cache generation on every request), so they may be kept: a request whose secret verifies
# against them can count its rate in the same Redis round trip that reads the key's cache entry.
_known_identities: dict[str, tuple[str, str, str]] = {}
_KNOWN_IDENTITIES_MAX = 100_000


def _know_identity(lookup: str, row: dict) -> None:
    identity = (row["id"], row["secret_hash"], row["pepper_id"])
    if _known_identities.get(lookup) != identity:
        if len(_known_identities) >= _KNOWN_IDENTITIES_MAX:
            _known_identities.clear()
        _known_identities[lookup] = identity


def _shared_redis_for_keys():
    """The Redis client holding both the key cache and the rate windows, or None when they differ."""
    client = redis_client()
    if client is None or not key_cache_is_shared():
        return None
    config = settings.CACHES["default"]
    if not config["BACKEND"].startswith("django_redis.") or config.get("LOCATION") != settings.REDIS_URL:
        return None
    return client


def _read_cached_with_rate(parsed: keys.ParsedKey) -> tuple[dict, ratelimit.QueuedHit, ratelimit.RateState] | None:
    """One Redis round trip for a key this process already knows: its cache entries and its rate hit.

    Only when the secret verifies against the key's identity (a wrong secret is never counted
    against a real key); None means "take the usual path" (unknown key, other Redis, Redis down).
    """
    known = _known_identities.get(parsed.lookup)
    if known is None or not keys.secret_matches(parsed.secret, known[1], known[2]):
        return None
    client = _shared_redis_for_keys()
    if client is None:
        return None
    import redis

    generation_key, entry_key = _generation_key(parsed.lookup), _cache_key(parsed.lookup)
    try:
        pipeline = client.pipeline(transaction=False)
        pipeline.mget([cache.make_key(generation_key), cache.make_key(entry_key)])
        queued = ratelimit.queue_hit(client, pipeline, ratelimit.KEY_RATE, "key", known[0])
        replies = pipeline.execute(raise_on_error=False)
        if isinstance(replies[0], Exception):
            raise replies[0]
        rate = queued.result(client, replies[1])
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        return None  # the usual path falls back as it does while Redis is unreachable
    # _shared_redis_for_keys answered only because the default cache is django_redis's.
    decode, names = cast("RedisCache", cache).client.decode, (generation_key, entry_key)
    cached = {name: decode(value) for name, value in zip(names, replies[0], strict=True) if value is not None}
    return cached, queued, rate


def authenticate_header_value(header: str | None, *, counting: bool = False) -> KeyContext:
    """The key's context, or 401. `counting`: the caller counts the request against the key's rate
    next (`count_rate`), so count it here in the same Redis round trip when possible (sets
    `context.rate`; a request that ends in 401 here is not counted)."""
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
    prefetched = _read_cached_with_rate(parsed) if counting else None
    if prefetched is None:
        return _authenticate(parsed)
    cached, queued, rate = prefetched
    try:
        context = _authenticate(parsed, cached)
    except BaseException:
        queued.uncount()  # refused (or failed) requests are not counted
        raise
    if context.key_id == queued.identifiers[-1]:
        context.rate = rate
    else:  # the lookup now names another key (the first was deleted): count_rate counts the right one
        queued.uncount()
    return context


def _authenticate(parsed: keys.ParsedKey, cached: dict | None = None) -> KeyContext:
    row, generation = _load_key(parsed.lookup, cached)
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
    _know_identity(parsed.lookup, row)
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
    def authenticate(self, request):
        # metering.middleware.KeyedResponseMiddleware authenticates every keyed /api/v1 request
        # first; a view reached another way (tests calling it directly) authenticates here.
        context = getattr(request._request, "key_context", None)
        if context is None:
            context = authenticate_header_value(request.META.get("HTTP_AUTHORIZATION"))
            request._request.key_context = context
        return (None, context)

    def authenticate_header(self, request) -> str:
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

    def has_permission(self, request, view) -> bool:
        enforce_keyed_rules(
            request.auth,
            client_ip(request._request),
            getattr(view, "required_scope", None),
            live_only=getattr(view, "live_only", False),
        )
        return True
