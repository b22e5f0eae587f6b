"""Issue 30 (MCP tools, the rest of the REST surface): listing and deleting exports, reading, updating,
testing and re-keying a webhook endpoint, reading a delivery, reading and deleting monitors, reading and
revoking a match decision, and a screening's evidence pack — each tool its REST operation, through the
official Python SDK client (which validates each answer against the tool's published output schema).
Every keyed REST operation has its tool, bar the file download."""

from __future__ import annotations

import pytest

from mcp_bridge.keyed_tools import TOOLS
from screening import demo
from tests.mcp_bridge.test_mcp_errors_and_health import _error_text, sdk_calls, world  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

# Keyed REST operations no tool stands for, and why.
WITHOUT_A_TOOL = {
    "download_export": "the file itself (CSV, JSON lines or ZIP), not a JSON answer; get_export gives download_url",
}


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def _ok(result) -> dict:  # type: ignore[no-untyped-def]
    assert not result.is_error, result
    return result.structured_content


def test_every_keyed_rest_operation_has_its_tool_and_every_tool_is_one(client):
    document = client.get("/api/v1/openapi.json").json()
    operations = {
        (method.upper(), path): operation["operationId"]
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and {"BearerKey": []} in (operation.get("security") or [])
    }
    with_a_tool = {(tool.method, tool.path) for tool in TOOLS.values()}
    assert with_a_tool <= set(operations), sorted(with_a_tool - set(operations))
    lacking = {operations[key] for key in set(operations) - with_a_tool}
    assert lacking == set(WITHOUT_A_TOOL)


def test_exports_are_listed_and_deleted_through_their_tools(world, issue_key):  # noqa: F811
    key = issue_key("test")
    (created,) = sdk_calls([("create_export", {"resource": "screenings", "format": "csv"})], _bearer(key))
    export_id = _ok(created)["id"]
    listed, deleted, gone, relisted = sdk_calls(
        [
            ("list_exports", {"limit": 10}),
            ("delete_export", {"export_id": export_id}),
            ("get_export", {"export_id": export_id}),
            ("list_exports", {}),
        ],
        _bearer(key),
    )
    assert [row["id"] for row in _ok(listed)["exports"]] == [export_id]
    assert _ok(deleted) == {"id": export_id, "deleted": True}
    assert _error_text(gone).startswith("not_found: ")
    assert _ok(relisted)["exports"] == []


def test_a_webhook_endpoint_is_read_updated_tested_and_rekeyed_through_its_tools(world, issue_key):  # noqa: F811
    key = issue_key("live")
    (created,) = sdk_calls([("create_webhook_endpoint", {"url": "https://receiver.invalid/hooks"})], _bearer(key))
    endpoint = _ok(created)
    endpoint_id = endpoint["id"]
    fetched, updated, tested, rotated, refused = sdk_calls(
        [
            ("get_webhook_endpoint", {"endpoint_id": endpoint_id}),
            (
                "update_webhook_endpoint",
                {"endpoint_id": endpoint_id, "description": "risk desk", "event_types": ["vessel_risk.changed"]},
            ),
            ("send_webhook_test_delivery", {"endpoint_id": endpoint_id}),
            ("rotate_webhook_secret", {"endpoint_id": endpoint_id, "overlap_hours": 24}),
            ("update_webhook_endpoint", {"endpoint_id": endpoint_id, "url": "http://receiver.invalid/hooks"}),
        ],
        _bearer(key),
    )
    assert _ok(fetched)["id"] == endpoint_id and "secret" not in _ok(fetched)
    assert _ok(updated)["description"] == "risk desk" and _ok(updated)["event_types"] == ["vessel_risk.changed"]
    delivery = _ok(tested)
    assert delivery["id"].startswith("whd_") and delivery["event_type"] == "webhook.test"
    assert _ok(rotated)["secret"] != endpoint["secret"] and _ok(rotated)["previous_secret_expires_at"]
    assert _error_text(refused).startswith("validation_failed: ") and "url" in _error_text(refused)
    (read,) = sdk_calls([("get_webhook_delivery", {"delivery_id": delivery["id"]})], _bearer(key))
    assert _ok(read)["id"] == delivery["id"] and _ok(read)["endpoint_id"] == endpoint_id


def test_monitors_are_read_and_deleted_through_their_tools(world, issue_key):  # noqa: F811
    key = issue_key("test")
    (vessel,) = sdk_calls([("create_vessel_monitor", {"imo": demo.GREEN_CLEAN, "mode": "simulation"})], _bearer(key))
    monitor_id = _ok(vessel)["id"]
    fetched, deleted, gone = sdk_calls(
        [
            ("get_vessel_monitor", {"monitor_id": monitor_id}),
            ("delete_vessel_monitor", {"monitor_id": monitor_id}),
            ("get_vessel_monitor", {"monitor_id": monitor_id}),
        ],
        _bearer(key),
    )
    assert _ok(fetched)["id"] == monitor_id and _ok(fetched)["imo"] == demo.GREEN_CLEAN
    assert _ok(deleted) == {"id": monitor_id, "deleted": True}
    assert _error_text(gone).startswith("not_found: ")

    live = issue_key("live")
    (corridor,) = sdk_calls(
        [("create_corridor_monitor", {"route": {"origin": "NLRTM", "destination": "SGSIN"}})], _bearer(live)
    )
    corridor_id = _ok(corridor)["id"]
    fetched, deleted, gone = sdk_calls(
        [
            ("get_corridor_monitor", {"monitor_id": corridor_id}),
            ("delete_corridor_monitor", {"monitor_id": corridor_id}),
            ("get_corridor_monitor", {"monitor_id": corridor_id}),
        ],
        _bearer(live),
    )
    assert _ok(fetched)["id"] == corridor_id
    assert _ok(deleted) == {"id": corridor_id, "deleted": True}
    assert _error_text(gone).startswith("not_found: ")


def test_a_match_decision_is_read_and_revoked_through_its_tools(world, issue_key):  # noqa: F811
    key = issue_key("test")
    decision_arguments = {
        "imo": demo.AMBER_NAME_ONLY, "source": "ofac_sdn", "source_record_id": "990002", "outcome": "cleared",
        "reason": "Different hull: the listing is a 1990s general cargo ship.", "reviewer": "assistant-reviewed",
    }  # fmt: skip
    (recorded,) = sdk_calls([("record_match_decision", decision_arguments)], _bearer(key))
    decision_id = _ok(recorded)["id"]
    fetched, revoked, again, after = sdk_calls(
        [
            ("get_match_decision", {"decision_id": decision_id}),
            ("revoke_match_decision", {"decision_id": decision_id, "reviewer": "a.lead", "reason": "Re-opened"}),
            ("revoke_match_decision", {"decision_id": decision_id, "reviewer": "a.lead"}),
            ("list_match_decisions", {"imo": demo.AMBER_NAME_ONLY, "active": True}),
        ],
        _bearer(key),
    )
    assert _ok(fetched)["id"] == decision_id and _ok(fetched)["state"] == "active"
    assert _ok(revoked)["state"] == "revoked"
    assert _ok(revoked)["revoked"] == {"at": _ok(revoked)["revoked"]["at"], "by": "a.lead", "reason": "Re-opened"}
    assert _error_text(again).startswith("decision_revoked: ")
    assert _ok(after)["match_decisions"] == []


def test_a_screenings_evidence_pack_through_its_tool(world, issue_key):  # noqa: F811
    key = issue_key("test")
    (screened,) = sdk_calls([("screen_vessel", {"imo": demo.RED_OFAC})], _bearer(key))
    screening_id = _ok(screened)["id"]
    pack, missing = sdk_calls(
        [
            ("get_screening_evidence", {"screening_id": screening_id}),
            ("get_screening_evidence", {"screening_id": "scr_missing"}),
        ],
        _bearer(key),
    )
    assert _ok(pack)["kind"] == "screening_evidence" and _ok(pack)["screening_id"] == screening_id
    assert _ok(pack)["record"]["id"] == screening_id and len(_ok(pack)["sha256"]) == 64
    assert _error_text(missing).startswith("not_found: ")
