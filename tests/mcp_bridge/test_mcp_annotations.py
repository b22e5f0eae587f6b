"""Issue 30 (MCP tools): every tool carries the four annotations, with honest values, as the official
Python SDK client lists them."""

from __future__ import annotations

import pytest

from tests.mcp_bridge.test_mcp_strict_arguments import listed_tools

pytestmark = pytest.mark.django_db(transaction=True)

HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")


def _hints(tool) -> tuple:  # type: ignore[no-untyped-def]
    assert tool.annotations is not None, tool.name
    return tuple(getattr(tool.annotations, hint) for hint in HINTS)


def test_every_tool_states_all_four_hints():
    for name, tool in listed_tools().items():
        assert None not in _hints(tool), (name, tool.annotations)


def test_the_hints_say_what_each_tool_does():
    tools = listed_tools()
    for name, tool in tools.items():
        read_only, destructive, idempotent, _ = _hints(tool)
        if name.startswith(("list_", "get_")):
            assert read_only and idempotent and not destructive, name
        if name.startswith("delete_"):
            assert destructive and idempotent and not read_only, name
        if name.startswith(("create_", "submit_", "screen_", "record_")) or name == "assess_voyage":
            assert not read_only and not destructive and not idempotent, name
    # screen_vessel charges a unit and writes a record, and may ask the live registers
    assert _hints(tools["screen_vessel"]) == (False, False, False, True)
    assert _hints(tools["check_vessel"]) == (True, False, True, True)
    assert _hints(tools["find_port"]) == (True, False, True, False)
    # imos replaces a fleet's whole hull list
    assert _hints(tools["update_fleet"]) == (False, True, True, False)
    # a new url is resolved when saved; a revocation again changes nothing more; each rotation a new secret
    assert _hints(tools["update_webhook_endpoint"]) == (False, True, True, True)
    assert _hints(tools["revoke_match_decision"]) == (False, True, True, False)
    assert _hints(tools["rotate_webhook_secret"]) == (False, True, False, False)
    # the test event is posted to the customer's endpoint, a new delivery each time
    assert _hints(tools["send_webhook_test_delivery"]) == (False, False, False, True)
    # only our own records
    for name in ("get_screening", "list_access_log", "create_fleet", "create_export", "record_match_decision"):
        assert _hints(tools[name])[3] is False, name
    # the customer's own endpoint or the weather service lie outside
    for name in ("create_webhook_endpoint", "redeliver_webhook", "assess_voyage", "create_corridor_monitor"):
        assert _hints(tools[name])[3] is True, name
