"""The account access log: one entry per keyed request, written off the request path.

In "async" mode entries queue in memory and a daemon thread bulk-inserts them every
FLUSH_SECONDS (or when BATCH entries wait); "sync" writes inline (tests, or operators
who prefer a write per request). Entries never hold a secret: only the key's prefix.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections

from accounts.models import AccessLogEntry
from config.api.ids import new_id

logger = logging.getLogger("service.access_log")

FLUSH_SECONDS = 0.25
BATCH = 500

_pending: queue.Queue[AccessLogEntry] = queue.Queue()
_writer: threading.Thread | None = None
_writer_lock = threading.Lock()


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
    if settings.ACCESS_LOG_MODE == "sync":
        entry.save(force_insert=True)
        return
    _pending.put(entry)
    _ensure_writer()


def _ensure_writer() -> None:
    global _writer
    if _writer is not None and _writer.is_alive():
        return
    with _writer_lock:
        if _writer is None or not _writer.is_alive():
            _writer = threading.Thread(target=_run_writer, name="access-log-writer", daemon=True)
            _writer.start()


def flush() -> int:
    """Write everything queued now; returns how many entries were written."""
    batch: list[AccessLogEntry] = []
    while True:
        try:
            batch.append(_pending.get_nowait())
        except queue.Empty:
            break
    if batch:
        try:
            AccessLogEntry.objects.bulk_create(batch, batch_size=BATCH)
        except Exception:
            logger.exception("access log batch of %d entries could not be written", len(batch))
            return 0
    return len(batch)


def _run_writer() -> None:
    while True:
        try:
            first = _pending.get(timeout=FLUSH_SECONDS * 8)
        except queue.Empty:
            close_old_connections()
            continue
        _pending.put(first)
        threading.Event().wait(FLUSH_SECONDS)
        flush()
        close_old_connections()


atexit.register(flush)
