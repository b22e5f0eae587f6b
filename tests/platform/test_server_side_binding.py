"""On PostgreSQL, parameters are bound on the server, so a statement a connection repeats is
prepared once and planned once instead of on every request (DB_SERVER_SIDE_BINDING, on by default)."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import Account
from metering import quota

pytestmark = pytest.mark.django_db

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="server-side binding is a PostgreSQL connection option"
)


@needs_postgresql
def test_postgresql_connections_bind_parameters_on_the_server_by_default():
    assert connection.features.uses_server_side_binding


@needs_postgresql
def test_a_statement_repeated_on_a_connection_is_prepared():
    account = Account.objects.create(email="prepared@example.com")
    for _ in range(6):
        quota.current_states(account, "live", (quota.KIND_SCREENING, quota.KIND_ASSESSMENT))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("accounts_quotacounter" in statement for statement in prepared), prepared
