"""In-flight ceilings: a customer's own slots (2 assessments, 6 screenings, live and test
together: contract part 8 counts them per customer, not per environment) and the shared
service pool. Slots expire, so a crashed request never leaks one.

Redis: a sorted set per pool, member = slot token, score = expiry; one Lua script prunes
expired members and claims atomically. Embedded default: the same in process memory.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

from django.conf import settings

from core.api.errors import ApiError
from metering.shared_state import UNREACHABLE, on_shared, process_lock, redis_client

logger = logging.getLogger("service.concurrency")

_SLOTS = "in-flight slots"
SCREENING_SLOTS = 6
ASSESSMENT_SLOTS = 2
SLOT_TTL_SECONDS = 60

_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
"""

# The customer's slot and the service pool's together: both or neither, in one round trip.
# Returns 1 (both claimed), 0 (the customer's pool is full) or -1 (the service pool is full).
_CLAIM_PAIR = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return -1
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""

_local_pools: dict[str, dict[str, float]] = {}


@cache
def _claim_pair_script(client):
    """Sent once per process, then called by its SHA (EVALSHA)."""
    return client.register_script(_CLAIM_PAIR)


@dataclass(frozen=True)
class Slot:
    pool: str
    token: str
    local: bool = False  # claimed in this process (embedded default, or while Redis was down)


def try_claim(pool: str, limit: int, ttl: int = SLOT_TTL_SECONDS) -> Slot | None:
    now = time.time()
    token = secrets.token_hex(8)
    claimed = on_shared(
        lambda client: client.eval(_CLAIM, 1, f"slots:{pool}", now, limit, now + ttl, token, ttl + 5), _SLOTS
    )
    if claimed is not UNREACHABLE:
        return Slot(pool, token) if claimed else None
    with process_lock:
        members = _local_pools.setdefault(pool, {})
        for expired in [t for t, expiry in members.items() if expiry <= now]:
            del members[expired]
        if len(members) >= limit:
            return None
        members[token] = now + ttl
    return Slot(pool, token, local=True)


def release(slot: Slot) -> None:
    client = redis_client()
    if client is not None and not slot.local:
        client.zrem(f"slots:{slot.pool}", slot.token)
        return
    with process_lock:
        _local_pools.get(slot.pool, {}).pop(slot.token, None)


def release_quietly(slot: Slot) -> None:
    try:
        release(slot)
    except Exception:
        logger.warning("in-flight slot %s could not be released; it expires in %d s", slot.pool, SLOT_TTL_SECONDS)


def in_use(pool: str) -> int:
    now = time.time()
    shared = on_shared(lambda client: client.zcount(f"slots:{pool}", now, "+inf"), _SLOTS)
    if shared is not UNREACHABLE:
        return int(shared)  # type: ignore[call-overload]
    with process_lock:
        return sum(1 for expiry in _local_pools.get(pool, {}).values() if expiry > now)


def customer_pool(kind: str, account_id: str) -> str:
    """The customer's own pool for `kind`: one per account, shared by its live and test keys."""
    return f"{kind}:{account_id}"


@contextmanager
def customer_slot(kind: str, account_id: str, environment: str) -> Iterator[None]:
    """Hold one of the customer's own slots and one of the service pool's, or raise 429.

    `environment` does not choose the pool: the ceiling covers the account's live and test keys together.
    """
    limit = SCREENING_SLOTS if kind == "screening" else ASSESSMENT_SLOTS
    own_pool, service_pool = customer_pool(kind, account_id), f"service:{kind}"
    slots = _claim_pair(own_pool, limit, service_pool, settings.SERVICE_POOL_SIZE)
    if slots == 0:
        raise ApiError(
            429,
            "concurrency_limit",
            f"More than {limit} {kind}s in flight for this account (live and test together); "
            "stop parallelising and retry shortly.",
            headers={"Retry-After": "1"},
        )
    if slots == -1:
        raise ApiError(
            429,
            "service_concurrency_limit",
            "The shared service pool is full; retry shortly. Reducing your fan-out does not help.",
            headers={"Retry-After": "2"},
        )
    own, shared = slots  # type: ignore[misc]
    try:
        yield
    finally:
        # Best effort: the work is done (perhaps committed); a slot that cannot be released now
        # expires after SLOT_TTL_SECONDS, and the answer must not be lost to a cache outage.
        _release_pair_quietly(shared, own)


def _claim_pair(own_pool: str, own_limit: int, service_pool: str, service_limit: int) -> tuple[Slot, Slot] | int:
    """Both slots (one Redis round trip), or 0 when the customer's pool is full, -1 when the service's is."""
    now = time.time()
    token = secrets.token_hex(8)
    ttl = SLOT_TTL_SECONDS
    claimed = on_shared(
        lambda client: _claim_pair_script(client)(
            keys=[f"slots:{own_pool}", f"slots:{service_pool}"],
            args=[now, own_limit, service_limit, now + ttl, token, ttl + 5],
        ),
        _SLOTS,
    )
    if claimed is not UNREACHABLE:
        return (Slot(own_pool, token), Slot(service_pool, token)) if claimed == 1 else int(claimed)  # type: ignore[call-overload]
    own = try_claim(own_pool, own_limit)  # Redis unreachable: this process's pools, one by one
    if own is None:
        return 0
    shared = try_claim(service_pool, service_limit)
    if shared is None:
        release(own)
        return -1
    return own, shared


def _release_pair_quietly(*slots: Slot) -> None:
    """Release slots claimed together: one Redis round trip for those held there."""
    client = redis_client()
    held_in_redis = [slot for slot in slots if not slot.local] if client is not None else []
    if held_in_redis:
        try:
            pipeline = client.pipeline(transaction=False)
            for slot in held_in_redis:
                pipeline.zrem(f"slots:{slot.pool}", slot.token)
            pipeline.execute()
        except Exception:
            logger.warning("in-flight slots could not be released; they expire in %d s", SLOT_TTL_SECONDS)
    for slot in slots:
        if slot not in held_in_redis:
            release_quietly(slot)


def reset_all() -> None:
    """Drop every slot (tests)."""
    client = redis_client()
    if client is not None:
        for key in client.scan_iter("slots:*"):
            client.delete(key)
    with process_lock:
        _local_pools.clear()
