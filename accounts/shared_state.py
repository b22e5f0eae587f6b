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
