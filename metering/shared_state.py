"""What several processes must agree on lives in Redis when REDIS_URL is set; on the
embedded default it lives in this process (one web process serves everything).

While Redis is unreachable every operation here falls back to this process's own memory
(rate windows, in-flight slots, keyless counters): the API stays up, and each process counts
on its own until Redis answers again. `redis_unavailable` says whether an error means that.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar, cast

# Imported with this module, while the web process loads, never lazily from request threads: two
# threads importing redis at once (one through the Django cache, one from here) can deadlock on the
# import locks and leave the process with a half-imported redis package answering 500s.
import redis
from django.conf import settings

from core.api.errors import redis_unavailable

logger = logging.getLogger("service.shared_state")
T = TypeVar("T")
_WARN_EVERY_SECONDS = 30.0
_last_warning = 0.0


UNREACHABLE = object()


def on_shared(operation: Callable[[Any], T], what: str) -> T | object:
    """`operation(redis)` on the shared Redis, or UNREACHABLE when there is none (the embedded
    default) or it does not answer (noted once per interval): the caller then counts `what` in
    this process."""
    client = redis_client()
    if client is None:
        return UNREACHABLE
    try:
        return operation(client)
    except Exception as exc:
        if not redis_unavailable(exc):
            raise
        note_fallback(what)
        return UNREACHABLE


def note_fallback(what: str) -> None:
    """Log (at most every 30 s per process) that `what` fell back to process memory."""
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= _WARN_EVERY_SECONDS:
        _last_warning = now
        logger.warning("Redis is unreachable: %s counted in this process only until it answers", what)


@lru_cache(maxsize=1)
def redis_client():
    """The shared Redis connection, or None on the embedded default."""
    if not settings.REDIS_URL:
        return None
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


process_lock = threading.Lock()


class _LocalStore:
    """In-process stand-in for the few Redis operations the keyless lane needs."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[object, float]] = {}

    def _live(self, key: str, now: float) -> object | None:
        entry = self.values.get(key)
        if entry is None or entry[1] <= now:
            self.values.pop(key, None)
            return None
        return entry[0]


_local = _LocalStore()
_KEYLESS = "keyless counters"


def _pipelined(*commands: tuple[str, tuple]) -> Callable[[Any], list]:
    def run(client: Any) -> list:
        pipe = client.pipeline()
        for name, args in commands:
            getattr(pipe, name)(*args)
        return pipe.execute()

    return run


def set_add_and_count(key: str, member: str, ttl: int) -> int:
    """Add member to a set that expires after ttl seconds; return the set's size."""
    shared = on_shared(_pipelined(("sadd", (key, member)), ("expire", (key, ttl, True)), ("scard", (key,))), _KEYLESS)
    if shared is not UNREACHABLE:
        return int(shared[2])  # type: ignore[index]
    now = time.time()
    with process_lock:
        # Keys of this lane hold one kind of value each: a set here, a count in incr/read_int.
        members = cast("set[str] | None", _local._live(key, now))
        if members is None:
            members = set()
            _local.values[key] = (members, now + ttl)
        members.add(member)
        return len(members)


def incr(key: str, ttl: int, amount: int = 1) -> int:
    shared = on_shared(_pipelined(("incrby", (key, amount)), ("expire", (key, ttl, True))), _KEYLESS)
    if shared is not UNREACHABLE:
        return int(shared[0])  # type: ignore[index]
    now = time.time()
    with process_lock:
        value = cast("int | None", _local._live(key, now))  # a count (see set_add_and_count)
        new = int(value or 0) + amount
        expiry = _local.values[key][1] if value is not None else now + ttl
        _local.values[key] = (new, expiry)
        return new


def read_int(key: str) -> int:
    shared = on_shared(lambda client: client.get(key), _KEYLESS)
    if shared is not UNREACHABLE:
        return int(shared or 0)  # type: ignore[call-overload]
    with process_lock:
        return int(cast("int | None", _local._live(key, time.time())) or 0)  # a count, as incr wrote it


def reset_local() -> None:
    with process_lock:
        _local.values.clear()
