"""The check psycopg's pool runs on every connection a request borrows (ENGINE core.postgresql).

psycopg's own check (`ConnectionPool.check_connection`, what Django installs with
CONN_HEALTH_CHECKS) sends an empty query: one database round trip before every request's first
statement. A connection the server has closed (a restart, a terminated backend, an idle timeout)
shows it locally: the server writes its goodbye and closes the socket, so the idle connection's
socket turns readable. This check costs a zero-timeout poll of that socket and pays psycopg's
round trip only when the socket has something to say, or when the connection went unchecked for
FULL_CHECK_SECONDS (a connection that vanished without a word, e.g. behind a proxy). A connection
that fails either way is discarded by the pool and replaced, so no request is handed a dead one.
"""

from __future__ import annotations

import select
import time
from weakref import WeakKeyDictionary

FULL_CHECK_SECONDS = 2.0
_last_full_check: WeakKeyDictionary = WeakKeyDictionary()


def _socket_readable(conn) -> bool:
    """True when the server sent something (or closed) while the connection sat idle in the pool."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def check_borrowed(conn) -> None:
    """Return quietly for a usable connection; raise (the pool then replaces it) otherwise."""
    from psycopg import pq
    from psycopg_pool import ConnectionPool

    now = time.monotonic()
    if (
        conn.closed
        or conn.pgconn.status != pq.ConnStatus.OK
        or conn.pgconn.transaction_status != pq.TransactionStatus.IDLE
        or now - _last_full_check.get(conn, 0.0) >= FULL_CHECK_SECONDS
        or _socket_readable(conn)
    ):
        ConnectionPool.check_connection(conn)  # raises on a broken connection
        _last_full_check[conn] = now
