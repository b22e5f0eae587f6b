"""Request-rate limits: per key (120/minute) and per keyless client address.

A moving window over the exact times of the counted requests (a sorted set per identifier):
one Lua script prunes what left the window, counts, admits or refuses, and reports the
remaining allowance and when the oldest counted request leaves — one Redis round trip per
request, atomic across web processes. Refused requests are not counted.

Without Redis (the embedded default) the web processes of the machine share the same window in
a small SQLite file beside the database (one IMMEDIATE transaction per request: prune, count,
admit), so X-RateLimit-Remaining is the one count every process agrees on and 120 per minute
holds however many processes serve the key. While a configured Redis is unreachable, and
where there is no SQLite file to share, the window lives in this process.
"""

from __future__ import annotations

import bisect
import math
import secrets
import sqlite3
import threading
import time
from array import array
from collections import deque
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connections

from metering.shared_state import UNREACHABLE, on_shared, redis_client

if TYPE_CHECKING:
    from redis.commands.core import Script

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

PURGE_EVERY_SECONDS = 60.0


class _FileWindows:
    """The same moving windows in a SQLite file every process on the machine opens (embedded default).

    One row per window: the times of its counted requests, oldest first, packed as doubles (one
    small row read and rewritten per counted request). Kept apart from the service's database so
    counting a request never waits for a screening's write transaction; nothing in it outlives a
    window, so it is written without syncing (a crash loses at most the current windows).
    """

    _SCHEMA = (
        "CREATE TABLE IF NOT EXISTS windows (bucket TEXT PRIMARY KEY, times BLOB NOT NULL, expires REAL NOT NULL) "
        "WITHOUT ROWID"
    )

    def __init__(self) -> None:
        self.threads = threading.local()
        self.last_purge = 0.0

    def _open(self, path: str) -> sqlite3.Connection:
        opened = getattr(self.threads, "opened", None)
        if opened is not None and opened[0] == path:
            return opened[1]
        if opened is not None:
            opened[1].close()
        db = sqlite3.connect(path, timeout=20, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute(self._SCHEMA)
        self.threads.opened = (path, db)
        return db

    def count(self, path: str, key: str, limit: int, window: int, hit: bool) -> tuple[bool, int, float]:
        db = self._open(path)
        db.execute("BEGIN IMMEDIATE")  # the file's only writer until COMMIT: read, count and admit as one
        try:
            now = time.time()  # read under the lock, so every process's entries are in the order they were counted
            row = db.execute("SELECT times FROM windows WHERE bucket = ?", (key,)).fetchone()
            times = array("d", row[0] if row else b"")
            left = bisect.bisect_right(times, now - window)  # these have left the window
            del times[:left]
            allowed = len(times) < limit
            if allowed and hit:
                times.append(now)
                db.execute(
                    "INSERT OR REPLACE INTO windows (bucket, times, expires) VALUES (?, ?, ?)",
                    (key, times.tobytes(), now + window),
                )
            if now - self.last_purge >= PURGE_EVERY_SECONDS:  # windows of identifiers no longer seen
                self.last_purge = now
                db.execute("DELETE FROM windows WHERE expires <= ?", (now,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return allowed, len(times), (times[0] if times else now) + window

    def clear(self, path: str) -> None:
        self._open(path).execute("DELETE FROM windows")


_files = _FileWindows()


def _shared_file() -> str | None:
    """The windows file every process of the embedded default shares: beside its SQLite database.

    None where a Redis is configured (its windows are shared there; while it is unreachable each
    process counts alone) or the database is not a SQLite file.
    """
    if settings.REDIS_URL:
        return None
    database = connections["default"].settings_dict
    name = str(database.get("NAME") or "")
    if not database["ENGINE"].endswith("sqlite3") or not name or name == ":memory:" or name.startswith("file:"):
        return None
    path = Path(name)
    return str(path.with_name(f"{path.stem}-rate-windows.sqlite3"))


@cache
def _window_script(client):
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
    path = _shared_file()
    if path is not None:
        allowed, count, reset = _files.count(path, key, limit, window, hit)
    else:
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
    script: Script

    def result(self, client, reply: object) -> RateState:
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


def queue_hit(client, pipeline, spec: str, *identifiers: str) -> QueuedHit:
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
    path = _shared_file()
    if path is not None:
        _files.clear(path)
    _local.clear()
