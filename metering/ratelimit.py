"""Request-rate limits: per key (120/minute) and per keyless client address.

A moving window over the exact times of the counted requests (a sorted set per identifier):
one Lua script prunes what left the window, counts, admits or refuses, and reports the
remaining allowance and when the oldest counted request leaves — one Redis round trip per
request, atomic across web processes. Refused requests are not counted. On the embedded
default, and while Redis is unreachable, the same window lives in this process.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from functools import cache

from metering.shared_state import UNREACHABLE, on_shared, redis_client

KEY_RATE = "120/minute"
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}

_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[4] == '1' then
    redis.call('ZADD', KEYS[1], now, ARGV[3])
    redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
    count = count + 1
  end
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = now + window
if oldest[2] then reset = tonumber(oldest[2]) + window end
return {allowed, count, tostring(reset)}
"""


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
def parse_spec(spec: str) -> tuple[int, int]:
    """'120/minute' -> (120 requests, 60 seconds)."""
    amount, _, unit = spec.partition("/")
    return int(amount), _UNITS[unit]


def _key(spec: str, identifiers: tuple[str, ...]) -> str:
    return "rate:" + spec + ":" + ":".join(identifiers)


class _LocalWindows:
    """The same moving windows in this process (embedded default; fallback while Redis is down)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.windows: dict[str, deque[float]] = {}

    def count(self, key: str, limit: int, window: int, hit: bool) -> tuple[bool, int, float]:
        now = time.time()
        with self.lock:
            times = self.windows.setdefault(key, deque())
            while times and times[0] <= now - window:
                times.popleft()
            allowed = len(times) < limit
            if allowed and hit:
                times.append(now)
            reset = times[0] + window if times else now + window
            return allowed, len(times), reset

    def clear(self) -> None:
        with self.lock:
            self.windows.clear()


_local = _LocalWindows()


@cache
def _window_script(client):  # type: ignore[no-untyped-def]
    """The Lua window, sent once per process and then called by its SHA (EVALSHA)."""
    return client.register_script(_WINDOW)


def _state(limit: int, reply: list) -> RateState:
    allowed, count, reset = reply
    return RateState(bool(allowed), limit, max(0, limit - int(count)), float(reset))


def _window(spec: str, identifiers: tuple[str, ...], hit: bool) -> RateState:
    limit, window = parse_spec(spec)
    key = _key(spec, identifiers)
    shared = on_shared(
        lambda client: _window_script(client)(keys=[key], args=[window, limit, secrets.token_hex(8), int(hit)]),
        "rate windows",
    )
    if shared is not UNREACHABLE:
        return _state(limit, shared)  # type: ignore[arg-type]
    allowed, count, reset = _local.count(key, limit, window, hit)
    return RateState(allowed, limit, max(0, limit - count), reset)


@dataclass(frozen=True)
class QueuedHit:
    """A hit queued on a caller's Redis pipeline (one round trip with the caller's own reads).

    `member` is the request's entry in the window, so a request refused after it was counted
    (its key turned out revoked, say) can be taken back out with `uncount`: refused requests
    are never counted.
    """

    spec: str
    identifiers: tuple[str, ...]
    member: str
    script: object

    def result(self, client, reply: object) -> RateState:  # type: ignore[no-untyped-def]
        """The window after this hit, from the pipeline's reply (loading the script if Redis lost it)."""
        import redis

        limit, window = parse_spec(self.spec)
        if isinstance(reply, redis.exceptions.NoScriptError):
            reply = self.script(keys=[_key(self.spec, self.identifiers)], args=[window, limit, self.member, 1])
        elif isinstance(reply, Exception):
            raise reply
        return _state(limit, reply)  # type: ignore[arg-type]

    def uncount(self) -> None:
        """Take this request back out of the window (best effort: at worst it stays counted)."""
        on_shared(lambda client: client.zrem(_key(self.spec, self.identifiers), self.member), "rate windows")


def queue_hit(client, pipeline, spec: str, *identifiers: str) -> QueuedHit:  # type: ignore[no-untyped-def]
    """Queue `hit(spec, *identifiers)` on `pipeline` (of the shared Redis `client`); read it with `.result`."""
    limit, window = parse_spec(spec)
    script = _window_script(client)
    member = secrets.token_hex(8)
    pipeline.evalsha(script.sha, 1, _key(spec, identifiers), window, limit, member, 1)
    return QueuedHit(spec, identifiers, member, script)


def hit(spec: str, *identifiers: str) -> RateState:
    """Count one request against `spec` for these identifiers (unless refused) and report the window."""
    return _window(spec, identifiers, hit=True)


def peek(spec: str, *identifiers: str) -> RateState:
    """The window without counting (for responses that are not counted, e.g. invalid_imo)."""
    return _window(spec, identifiers, hit=False)


def reset_all() -> None:
    """Clear every window (tests)."""
    client = redis_client()
    if client is not None:
        for key in client.scan_iter("rate:*"):
            client.delete(key)
    _local.clear()
