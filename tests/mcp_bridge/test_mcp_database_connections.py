"""MCP tool calls run outside Django's request cycle (in asgiref's worker thread), so they hand their
database connection back themselves: none is held between calls, and a connection the database
dropped in between (a restart, a failover) costs no call."""

from __future__ import annotations

import pytest
from django.db import connection

from screening import datastate
from tests.mcp_bridge.test_mcp_endpoint import _tool, world  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="sessions are counted in pg_stat_activity"),
]


def _other_sessions() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [row[0] for row in cursor.fetchall()]


def test_a_keyless_tool_call_holds_no_database_connection_afterwards(world):  # noqa: F811
    before = set(_other_sessions())
    result = _tool("check_vessel", {"imo": "9300776"})
    assert not result.get("isError"), result
    assert set(_other_sessions()) <= before


def test_a_connection_the_database_dropped_between_calls_costs_no_call(world):  # noqa: F811
    assert not _tool("check_vessel", {"imo": "9300776"}).get("isError")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    datastate.invalidate()  # the next check reads the lists' state from the database again
    result = _tool("check_vessel", {"imo": "9300776"})
    assert not result.get("isError"), result
