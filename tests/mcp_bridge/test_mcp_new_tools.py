"""Issue 30 (MCP tools): the tools an assistant lacked — webhook endpoints, exports, the access log, monitor
runs and fleets — each its REST operation (scope-checked, idempotent, access-logged), through the official
Python SDK client, which validates each answer against the tool's published output schema."""

from __future__ import annotations

import pytest

from metering.models import AccessLogEntry
from screening import demo
from tests.mcp_bridge.test_mcp_errors_and_health import _error_text, sdk_calls, world  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def _ok(result) -> dict:  # type: ignore[no-untyped-def]
    assert not result.is_error, result
    return result.structured_content


def test_fleets_list_get_update_delete(world, issue_key):  # noqa: F811
    key = issue_key("test")
    (created,) = sdk_calls([("create_fleet", {"name": "Tankers", "imos": [demo.GREEN_CLEAN]})], _bearer(key))
    fleet_id = _ok(created)["id"]
    listed, fetched, renamed, grown, deleted, gone = sdk_calls(
        [
            ("list_fleets", {"limit": 10}),
            ("get_fleet", {"fleet_id": fleet_id}),
            ("update_fleet", {"fleet_id": fleet_id, "name": "Crude tankers"}),
            ("update_fleet", {"fleet_id": fleet_id, "add_imos": [demo.RED_OFAC], "idempotency_key": "grow-1"}),
            ("delete_fleet", {"fleet_id": fleet_id}),
            ("get_fleet", {"fleet_id": fleet_id}),
        ],
        _bearer(key),
    )
    assert [row["id"] for row in _ok(listed)["fleets"]] == [fleet_id]
    assert _ok(fetched)["imos"] == [demo.GREEN_CLEAN]
    assert _ok(renamed)["name"] == "Crude tankers"
    assert sorted(_ok(grown)["imos"]) == sorted([demo.GREEN_CLEAN, demo.RED_OFAC])
    assert _ok(deleted)["id"] == fleet_id
    assert _error_text(gone).startswith("not_found: ")
    (both,) = sdk_calls([("update_fleet", {"fleet_id": "flt_missing", "imos": [], "add_imos": []})], _bearer(key))
    assert _error_text(both).startswith(("validation_failed: ", "not_found: "))


def test_webhook_endpoints_list_create_delete(world, issue_key):  # noqa: F811
    key = issue_key("live")
    arguments = {
        "url": "https://receiver.invalid/hooks", "event_types": ["vessel_risk.changed"], "description": "risk desk",
        "idempotency_key": "hook-1",
    }  # fmt: skip
    created, replayed, listed = sdk_calls(
        [
            ("create_webhook_endpoint", arguments),
            ("create_webhook_endpoint", arguments),
            ("list_webhook_endpoints", {}),
        ],
        _bearer(key),
    )
    endpoint = _ok(created)
    assert endpoint["id"].startswith("whe_") and endpoint["event_types"] == ["vessel_risk.changed"]
    assert _ok(replayed)["id"] == endpoint["id"]  # the retry under the same key made nothing new
    assert [row["id"] for row in _ok(listed)["webhook_endpoints"]] == [endpoint["id"]]
    deleted, after, refused = sdk_calls(
        [
            ("delete_webhook_endpoint", {"endpoint_id": endpoint["id"]}),
            ("list_webhook_endpoints", {}),
            ("create_webhook_endpoint", {"url": "http://example.com/hooks"}),
        ],
        _bearer(key),
    )
    assert _ok(deleted)["id"] == endpoint["id"]
    assert _ok(after)["webhook_endpoints"] == []
    assert _error_text(refused).startswith("validation_failed: ") and "url" in _error_text(refused)
    logged = set(AccessLogEntry.objects.values_list("path", flat=True))
    assert {"/mcp tools/call create_webhook_endpoint", "/mcp tools/call delete_webhook_endpoint"} <= logged


def test_exports_create_and_get(world, issue_key):  # noqa: F811
    key = issue_key("test")
    created, bad = sdk_calls(
        [
            ("create_export", {"resource": "screenings", "format": "csv", "filters": {"status": "RED"}}),
            ("create_export", {"resource": "screenings", "format": "csv", "filters": {"stauts": "RED"}}),
        ],
        _bearer(key),
    )
    export = _ok(created)
    assert export["id"].startswith("exp_") and export["resource"] == "screenings" and export["format"] == "csv"
    assert _error_text(bad).startswith("validation_failed: ") and "stauts" in _error_text(bad)
    (fetched,) = sdk_calls([("get_export", {"export_id": export["id"]})], _bearer(key))
    assert _ok(fetched)["id"] == export["id"]


def test_the_access_log_through_its_tool(world, issue_key):  # noqa: F811
    key = issue_key("test")
    _, listed, filtered = sdk_calls(
        [
            ("get_usage", {}),
            ("list_access_log", {"limit": 50}),
            ("list_access_log", {"path": "/mcp tools/call get_usage", "status": 200}),
        ],
        _bearer(key),
    )
    assert any(row["path"] == "/mcp tools/call get_usage" for row in _ok(listed)["entries"])
    assert {row["path"] for row in _ok(filtered)["entries"]} == {"/mcp tools/call get_usage"}
    (refused,) = sdk_calls([("list_access_log", {})], _bearer(issue_key("test", scopes=["usage:read"])))
    assert _error_text(refused).startswith("insufficient_scope: ") and "logs:read" in _error_text(refused)


def test_monitor_runs_through_their_tools(world, issue_key):  # noqa: F811
    key = issue_key("test")
    (monitor,) = sdk_calls([("create_vessel_monitor", {"imo": demo.GREEN_CLEAN, "mode": "simulation"})], _bearer(key))
    monitor_id = _ok(monitor)["id"]
    simulated, runs = sdk_calls(
        [
            ("simulate_vessel_monitor", {"monitor_id": monitor_id, "sanctions_status": "RED", "vetting_grade": "A"}),
            ("list_vessel_monitor_runs", {"monitor_id": monitor_id, "limit": 5}),
        ],
        _bearer(key),
    )
    _ok(simulated)
    assert len(_ok(runs)["runs"]) >= 1

    live = issue_key("live")
    (corridor,) = sdk_calls(
        [("create_corridor_monitor", {"route": {"origin": "NLRTM", "destination": "SGSIN"}})], _bearer(live)
    )
    corridor_id = _ok(corridor)["id"]
    corridor_runs, missing = sdk_calls(
        [
            ("list_corridor_monitor_runs", {"monitor_id": corridor_id, "status": "completed"}),
            ("list_corridor_monitor_runs", {"monitor_id": "cmo_missing"}),
        ],
        _bearer(live),
    )
    assert all(run["status"] == "completed" for run in _ok(corridor_runs)["runs"])
    assert _error_text(missing).startswith("not_found: ")
