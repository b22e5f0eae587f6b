"""Request-rate limits: per key (120/minute) and per keyless client address.

Moving windows from the `limits` library: atomic Lua scripts on Redis, so the limit holds
across web processes; in memory on the embedded default.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache, lru_cache

from limits import RateLimitItem, parse
from limits.strategies import MovingWindowRateLimiter

from accounts.shared_state import limits_storage, local_limits_storage, note_fallback, redis_unavailable

KEY_RATE = "120/minute"


@dataclass(frozen=True)
class RateState:
    allowed: bool
    limit: int
    remaining: int
    reset_at: float  # when the oldest counted request leaves the window (epoch seconds)

    @property
    def reset_epoch(self) -> int:
        return math.ceil(self.reset_at)

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.reset_at - time.time()))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_epoch),
        }


@cache
def _item(spec: str) -> RateLimitItem:
    return parse(spec)


@lru_cache(maxsize=1)
def _limiter() -> MovingWindowRateLimiter:
    return MovingWindowRateLimiter(limits_storage())


@lru_cache(maxsize=1)
def _local_limiter() -> MovingWindowRateLimiter:
    return MovingWindowRateLimiter(local_limits_storage())


def _hit_on(limiter: MovingWindowRateLimiter, item: RateLimitItem, identifiers: tuple[str, ...]) -> RateState:
    allowed = limiter.hit(item, *identifiers)
    stats = limiter.get_window_stats(item, *identifiers)
    return RateState(allowed, item.amount, max(0, stats.remaining), stats.reset_time)


def _peek_on(limiter: MovingWindowRateLimiter, item: RateLimitItem, identifiers: tuple[str, ...]) -> RateState:
    stats = limiter.get_window_stats(item, *identifiers)
    return RateState(stats.remaining > 0, item.amount, max(0, stats.remaining), stats.reset_time)


def _shared_or_local(operation, spec: str, identifiers: tuple[str, ...]) -> RateState:  # type: ignore[no-untyped-def]
    item = _item(spec)
    try:
        return operation(_limiter(), item, identifiers)
    except Exception as exc:
        if not redis_unavailable(exc):
            raise
        note_fallback("rate windows")
        return operation(_local_limiter(), item, identifiers)


def hit(spec: str, *identifiers: str) -> RateState:
    """Count one request against `spec` for these identifiers and report the window."""
    return _shared_or_local(_hit_on, spec, identifiers)


def peek(spec: str, *identifiers: str) -> RateState:
    """The window without counting (for responses that are not counted, e.g. invalid_imo)."""
    return _shared_or_local(_peek_on, spec, identifiers)


def reset_all() -> None:
    """Clear every window (tests)."""
    limits_storage().reset()
    local_limits_storage().reset()
