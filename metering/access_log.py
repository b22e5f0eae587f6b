"""The account access log: one entry per keyed request, written off the request path.

In "async" mode entries queue in memory and a daemon thread bulk-inserts them every
FLUSH_SECONDS (or when BATCH entries wait); "sync" writes inline (tests, or operators
who prefer a write per request). Entries never hold a secret: only the key's prefix.

Nothing is dropped silently. A batch the database does not take goes back to the front of
the backlog, in order, and the writer retries it with backoff until the database is back; a
rewrite skips entries already written (each entry has its own id). A sync write that fails is
queued for the writer instead of failing the request, and while entries wait for the writer,
sync entries queue behind them. Memory is bounded by ACCESS_LOG_MAX_PENDING: beyond it the
oldest entries are dropped and counted. An entry the database refuses for good (a data
error, not an outage) is set aside and counted as rejected.
`stats()` (in /readyz) reports pending, dropped and rejected for this process.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections import deque
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.db import DataError, IntegrityError, close_old_connections, connection, transaction

from core.api.ids import new_id
from metering.models import AccessLogEntry

logger = logging.getLogger("service.access_log")

FLUSH_SECONDS = 0.25
# Set on the WSGI environ of a request a keyed MCP tool makes in-process (mcp_bridge/rest.py): the
# entry then names the tool (method MCP, path "/mcp tools/call <tool>") instead of the REST path.
TOOL_ENVIRON_KEY = "service.mcp_tool"
BATCH = 500
RETRY_FIRST_SECONDS = 0.5
RETRY_MAX_SECONDS = 5.0
FLUSH_LOCK_SECONDS = 5.0  # how long flush() waits for a write in progress (the writer's, say)


class Backlog:
    """Entries waiting to be written, oldest first, bounded: past `max_pending` the oldest go.

    Thread-safe. Dropped entries are counted, and the start and end of each dropping episode
    are logged once (not once per entry).
    """

    def __init__(self, max_pending: int | None = None) -> None:
        self._entries: deque[AccessLogEntry] = deque()
        self._lock = threading.Lock()
        self._max_pending = max_pending
        self.dropped = 0
        self.rejected = 0
        self._dropping_since: int | None = None  # `dropped` when the current episode began
        self.arrived = threading.Event()

    @property
    def max_pending(self) -> int:
        if self._max_pending is not None:
            return self._max_pending
        return max(1, int(getattr(settings, "ACCESS_LOG_MAX_PENDING", 100_000)))

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, entry: AccessLogEntry) -> None:
        with self._lock:
            self._entries.append(entry)
            self._trim()
        self.arrived.set()

    def take(self, limit: int) -> list[AccessLogEntry]:
        with self._lock:
            batch = [self._entries.popleft() for _ in range(min(limit, len(self._entries)))]
            if not self._entries:
                self.arrived.clear()
            return batch

    def give_back(self, batch: Iterable[AccessLogEntry]) -> None:
        """Put a batch whose write failed back in front, in its order (marked: part of it may
        have been written after all)."""
        batch = list(batch)
        for entry in batch:
            entry._access_log_retry = True  # type: ignore[attr-defined]
        with self._lock:
            self._entries.extendleft(reversed(batch))
            self._trim()
        self.arrived.set()

    def reject(self, entry: AccessLogEntry, reason: Exception) -> None:
        with self._lock:
            self.rejected += 1
        logger.error(
            "access log entry %s (request %s) refused by the database and set aside (%d rejected so far): %s",
            entry.id,
            entry.request_id,
            self.rejected,
            reason,
        )

    def written(self) -> None:
        """A write went through: if entries were being dropped, that episode is over."""
        with self._lock:
            if self._dropping_since is None or len(self._entries) >= self.max_pending:
                return
            episode, self._dropping_since = self.dropped - self._dropping_since, None
            total = self.dropped
        logger.warning(
            "access log writing again: %d entries were dropped while the backlog was full (%d dropped in all)",
            episode,
            total,
        )

    def stats(self) -> dict[str, int]:
        return {"pending": len(self._entries), "dropped": self.dropped, "rejected": self.rejected}

    def _trim(self) -> None:  # under the lock
        over = len(self._entries) - self.max_pending
        if over <= 0:
            return
        for _ in range(over):
            self._entries.popleft()
        if self._dropping_since is None:
            self._dropping_since = self.dropped
            logger.error(
                "access log backlog full (%d entries waiting for the database): dropping the oldest "
                "and counting them until writes go through",
                self.max_pending,
            )
        self.dropped += over


_backlog = Backlog()
_writer: threading.Thread | None = None
_writer_lock = threading.Lock()
_write_lock = threading.Lock()  # one write at a time, so a batch given back keeps its place


def record(
    *,
    account_id: str,
    environment: str,
    at: datetime,
    method: str,
    path: str,
    status: int,
    code: str,
    request_id: str,
    key_prefix: str,
    client_ip: str | None,
    duration_ms: float,
    units_charged: int,
) -> None:
    """Log one keyed request. Never raises and never waits on the database in async mode."""
    entry = AccessLogEntry(
        id=new_id("log"),
        account_id=account_id,
        environment=environment,
        at=at,
        method=method,
        path=path[:500],
        status=status,
        code=code[:40],
        request_id=request_id,
        key_prefix=key_prefix,
        client_ip=client_ip,
        duration_ms=round(duration_ms, 3),
        units_charged=units_charged,
    )
    # Sync writes inline, unless earlier entries already wait for the writer (an outage): then
    # this one queues behind them, in order, and no further request waits on a database that
    # just failed.
    if settings.ACCESS_LOG_MODE == "sync" and not len(_backlog):
        try:
            with transaction.atomic():  # a savepoint inside a request's transaction
                entry.save(force_insert=True)
            return
        except Exception as exc:  # the answer stands: the background writer retries the entry
            logger.warning("access log: inline write failed (%s); entries queue for the writer", exc)
    _backlog.put(entry)
    _ensure_writer()


def stats() -> dict[str, int]:
    """This process's backlog: entries waiting, and entries lost (dropped when full, rejected)."""
    return _backlog.stats()


def _ensure_writer() -> None:
    global _writer
    if _writer is not None and _writer.is_alive():
        return
    with _writer_lock:
        if _writer is None or not _writer.is_alive():
            _writer = threading.Thread(target=_run_writer, name="access-log-writer", daemon=True)
            _writer.start()


def _write(batch: list[AccessLogEntry], backlog: Backlog) -> None:
    """Insert a batch; an entry already written (a retry after a write whose commit went
    through but whose answer was lost) is skipped, so a rewrite makes no duplicates.

    Raises when the database is unavailable. A data error (an entry the database refuses
    for good) does not hold the others back: the batch is written entry by entry and the
    refused ones are set aside.
    """
    if any(getattr(entry, "_access_log_retry", False) for entry in batch):
        # Ids are ours and unique; a unique-conflict "ignore" would do the same on PostgreSQL,
        # but SQLite's INSERT OR IGNORE would also swallow data errors silently.
        written = set(AccessLogEntry.objects.filter(id__in=[entry.id for entry in batch]).values_list("id", flat=True))
        batch = [entry for entry in batch if entry.id not in written]
        if not batch:
            return
    try:
        with transaction.atomic():
            AccessLogEntry.objects.bulk_create(batch, batch_size=BATCH)
        return
    except (IntegrityError, DataError):
        pass
    for entry in batch:
        try:
            with transaction.atomic():
                AccessLogEntry.objects.bulk_create([entry])
        except (IntegrityError, DataError) as exc:
            if not AccessLogEntry.objects.filter(id=entry.id).exists():  # not already written
                backlog.reject(entry, exc)


def _drain(backlog: Backlog) -> int:
    """Write batches until the backlog is empty; a batch that fails goes back and this raises."""
    written = 0
    while True:
        batch = backlog.take(BATCH)
        if not batch:
            return written
        try:
            _write(batch, backlog)
        except BaseException:
            backlog.give_back(batch)
            raise
        written += len(batch)
        backlog.written()


def flush(backlog: Backlog | None = None) -> int:
    """Write everything queued now; returns how many entries were written. Never raises:
    whatever could not be written stays queued for the writer."""
    backlog = _backlog if backlog is None else backlog
    if not _write_lock.acquire(timeout=FLUSH_LOCK_SECONDS):
        return 0
    try:
        return _drain(backlog)
    except Exception as exc:
        logger.warning("access log: %d entries wait for the database (%s)", len(backlog), exc)
        return 0
    finally:
        _write_lock.release()


def _close_connection() -> None:
    try:
        connection.close()
    except Exception:
        pass


def _delay(failures: int) -> float:
    """Wait before the next write: a short gather, or backoff after failed attempts."""
    if failures == 0:
        return FLUSH_SECONDS
    return min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** (failures - 1))


def _run_writer() -> None:
    backlog = _backlog
    failures = 0
    while True:
        if not backlog.arrived.wait(FLUSH_SECONDS * 8):
            close_old_connections()
            continue
        time.sleep(_delay(failures))
        with _write_lock:
            try:
                _drain(backlog)
            except Exception as exc:
                failures += 1
                if failures == 1:
                    logger.error(
                        "access log: the database does not take writes (%s); %d entries kept, retrying",
                        exc,
                        len(backlog),
                    )
                _close_connection()  # the next attempt reconnects
                continue
        if failures:
            logger.warning("access log: writes go through again after %d failed attempts", failures)
            failures = 0
        close_old_connections()


def _flush_at_exit() -> None:
    flush()
    left = _backlog.stats()
    if left["pending"]:
        logger.error("access log: %d entries could not be written before exit and are lost", left["pending"])


atexit.register(_flush_at_exit)
