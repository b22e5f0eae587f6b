"""Django's PostgreSQL backend, with the connection pool's borrow check swapped for one that
costs no round trip while the connection is evidently healthy (see `core.postgresql`)."""

from __future__ import annotations

from django.db.backends.postgresql import base as postgresql

from core.postgresql import check_borrowed


class DatabaseWrapper(postgresql.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        # Django installs psycopg's check (an empty query per borrow) when CONN_HEALTH_CHECKS is on;
        # psycopg_pool (pinned) keeps the callback in `_check`.
        if pool is not None and pool._check is not None and pool._check is not check_borrowed:
            pool._check = check_borrowed
        return pool
