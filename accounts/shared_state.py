"""What several processes must agree on lives in Redis when REDIS_URL is set; on the
embedded default it lives in this process (one web process serves everything)."""

from __future__ import annotations

import threading
from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=1)
def redis_client():  # type: ignore[no-untyped-def]
    """The shared Redis connection, or None on the embedded default."""
    if not settings.REDIS_URL:
        return None
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


@lru_cache(maxsize=1)
def limits_storage():  # type: ignore[no-untyped-def]
    from limits.storage import storage_from_string

    if settings.REDIS_URL:
        return storage_from_string(settings.REDIS_URL.replace("redis://", "redis://", 1))
    return storage_from_string("memory://")


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


def set_add_and_count(key: str, member: str, ttl: int) -> int:
    """Add member to a set that expires after ttl seconds; return the set's size."""
    client = redis_client()
    if client is not None:
        pipe = client.pipeline()
        pipe.sadd(key, member)
        pipe.expire(key, ttl, nx=True)
        pipe.scard(key)
        return int(pipe.execute()[2])
    import time

    now = time.time()
    with process_lock:
        members = _local._live(key, now)
        if members is None:
            members = set()
            _local.values[key] = (members, now + ttl)
        members.add(member)  # type: ignore[union-attr]
        return len(members)  # type: ignore[arg-type]


def incr(key: str, ttl: int, amount: int = 1) -> int:
    client = redis_client()
    if client is not None:
        pipe = client.pipeline()
        pipe.incrby(key, amount)
        pipe.expire(key, ttl, nx=True)
        return int(pipe.execute()[0])
    import time

    now = time.time()
    with process_lock:
        value = _local._live(key, now)
        new = int(value or 0) + amount
        expiry = _local.values[key][1] if value is not None else now + ttl
        _local.values[key] = (new, expiry)
        return new


def read_int(key: str) -> int:
    client = redis_client()
    if client is not None:
        return int(client.get(key) or 0)
    import time

    with process_lock:
        return int(_local._live(key, time.time()) or 0)


def reset_local() -> None:
    with process_lock:
        _local.values.clear()
