"""Urgent issue 25 on the MCP endpoint, through the official Python SDK client and raw JSON-RPC.

6: an empty `idempotency_key` is the header's empty key: 400 invalid_idempotency_key on REST, so the
same refusal on every keyed tool that takes one, with nothing stored and no unit drawn (it used to
be taken as no key: each call made a new record and drew a unit).
7: a field violation names the call that resolves it: the tool's own (never screen_vessel's
POST /api/v1/screenings for a monitor).
8c: a JSON-RPC request whose "id" is not a string or an integer is an invalid request (-32600,
id null), not a notification answered 202.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db.models import Sum

from cargo.models import CargoScreening
from exports.models import Export
from metering.models import IdempotencyRecord, MeteringEvent, QuotaCounter
from monitoring.models import CorridorMonitor, VesselMonitor
from screening import datastate, demo
from screening.models import Fleet, MatchDecision, Screening, ScreeningBatch
from tests.mcp_bridge.test_mcp_endpoint import _call
from tests.mcp_bridge.test_mcp_errors_and_health import sdk_calls
from voyages.models import VoyageAssessment, VoyageBatch
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db(transaction=True)

ROUTE = {"origin": "NLRTM", "destination": "SGSIN"}
# Arguments that pass each keyed tool's schema; the key is judged before the body is read.
KEYED_ARGUMENTS = {
    "screen_vessel": {"imo": demo.GREEN_CLEAN},
    "submit_screening_batch": {"items": [{"imo": demo.GREEN_CLEAN}]},
    "create_fleet": {"name": "Empty key", "imos": [demo.GREEN_CLEAN]},
    "record_match_decision": {
        "imo": demo.AMBER_NAME_ONLY,
        "source": "ofac_sdn",
        "source_record_id": "990002",
        "outcome": "cleared",
        "reason": "Different hull",
        "reviewer": "a.analyst",
    },  # fmt: skip
    "assess_voyage": {"route": ROUTE},
    "submit_voyage_batch": {"routes": [{"route": ROUTE}]},
    "create_corridor_monitor": {"route": ROUTE},
    "screen_cargo": {
        "commodity": {"hs_code": "8471", "description": "Laptops"},
        "origin_country": "NL",
        "destination_country": "SG",
        "parties": [{"name": "Acme Trading", "role": "shipper"}],
    },
    "redeliver_webhook": {"delivery_id": "whd_01jz0000000000000000000000"},
    "create_vessel_monitor": {"imo": demo.GREEN_CLEAN},
    "simulate_vessel_monitor": {"monitor_id": "vmo_01jz0000000000000000000000", "sanctions_status": "GREEN"},
    "update_fleet": {"fleet_id": "flt_01jz0000000000000000000000", "name": "Renamed"},
    "delete_fleet": {"fleet_id": "flt_01jz0000000000000000000000"},
    "create_webhook_endpoint": {"url": "https://receiver.invalid/hooks"},
    "delete_webhook_endpoint": {"endpoint_id": "whe_01jz0000000000000000000000"},
    "create_export": {"resource": "screenings", "format": "csv"},
    "delete_export": {"export_id": "exp_01jz0000000000000000000000"},
    "update_webhook_endpoint": {"endpoint_id": "whe_01jz0000000000000000000000", "description": "x"},
    "send_webhook_test_delivery": {"endpoint_id": "whe_01jz0000000000000000000000"},
    "rotate_webhook_secret": {"endpoint_id": "whe_01jz0000000000000000000000"},
    "delete_vessel_monitor": {"monitor_id": "vmo_01jz0000000000000000000000"},
    "delete_corridor_monitor": {"monitor_id": "cmo_01jz0000000000000000000000"},
    "revoke_match_decision": {"decision_id": "mdc_01jz0000000000000000000000", "reviewer": "a.analyst"},
}
BAD_KEYS = {"empty": "", "blank": "   ", "too long": "k" * 256, "control character": "retry\x001"}
STORED = (
    Screening,
    MatchDecision,
    ScreeningBatch,
    Fleet,
    VoyageAssessment,
    VoyageBatch,
    CorridorMonitor,
    VesselMonitor,
    CargoScreening,
    WebhookEndpoint,
    Export,
)


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


def _error_text(result) -> str:  # type: ignore[no-untyped-def]
    assert result.is_error is True, result
    return result.content[0].text


def _tools_taking_an_idempotency_key() -> set[str]:
    status, _, payload = _call("POST", "/mcp", body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 200, payload
    tools = json.loads(payload)["result"]["tools"]
    return {tool["name"] for tool in tools if "idempotency_key" in tool["inputSchema"].get("properties", {})}


def _rest_refusal(client, key: str, idempotency_key: str) -> str:  # type: ignore[no-untyped-def]
    response = client.post(
        "/api/v1/screenings",
        data={"imo": demo.GREEN_CLEAN},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
        HTTP_IDEMPOTENCY_KEY=idempotency_key,
    )
    assert response.status_code == 400, response.content
    body = response.json()
    return f"{body['code']}: {body['message']}"


# --- item 6 ----------------------------------------------------------------------------------


def test_an_empty_key_twice_on_screen_vessel_stores_nothing_and_draws_no_unit(world, issue_key, client):
    key = issue_key("live", email="empty-key@example.com")
    first, second, usage = sdk_calls(
        [
            ("screen_vessel", {"imo": demo.GREEN_CLEAN, "idempotency_key": ""}),
            ("screen_vessel", {"imo": demo.GREEN_CLEAN, "idempotency_key": ""}),
            ("get_usage", {}),
        ],
        headers={"Authorization": f"Bearer {key}"},
    )
    rest = _rest_refusal(client, key, "")
    assert rest.startswith("invalid_idempotency_key: ")
    assert _error_text(first) == _error_text(second) == rest
    assert Screening.objects.count() == 0 and IdempotencyRecord.objects.count() == 0
    assert usage.structured_content["quota"]["screenings"]["used"] == 0
    assert not MeteringEvent.objects.exists()


def test_every_keyed_tool_refuses_an_empty_blank_or_long_key_as_rest_does(world, issue_key, client):
    assert _tools_taking_an_idempotency_key() == set(KEYED_ARGUMENTS)  # a new keyed tool is covered here
    key = issue_key("live", email="bad-keys@example.com")
    names = sorted(KEYED_ARGUMENTS)
    for bad, value in BAD_KEYS.items():
        results = sdk_calls(
            [(name, {**KEYED_ARGUMENTS[name], "idempotency_key": value}) for name in names],
            headers={"Authorization": f"Bearer {key}"},
        )
        rest = _rest_refusal(client, key, value)
        assert rest.startswith("invalid_idempotency_key: ")
        texts = {
            name: _error_text(result) if result.is_error else "(answered)"
            for name, result in zip(names, results, strict=True)
        }
        assert texts == dict.fromkeys(names, rest), bad
    assert IdempotencyRecord.objects.count() == 0
    assert [model.__name__ for model in STORED if model.objects.exists()] == []
    assert (QuotaCounter.objects.aggregate(total=Sum("used"))["total"] or 0) == 0
    assert not MeteringEvent.objects.exists()


# --- item 7 ----------------------------------------------------------------------------------


def test_a_refused_imo_names_the_tool_that_was_called(world, issue_key):
    key = issue_key("live", email="remedy@example.com")
    monitor, screening = sdk_calls(
        [
            ("create_vessel_monitor", {"imo": "93003361", "mode": "simulation"}),
            ("screen_vessel", {"imo": "93003361"}),
        ],
        headers={"Authorization": f"Bearer {key}"},
    )
    monitor_text, screening_text = _error_text(monitor), _error_text(screening)
    assert monitor_text.startswith("validation_failed: ") and "imo: " in monitor_text
    assert "call create_vessel_monitor again" in monitor_text, monitor_text
    assert "/api/v1/screenings" not in monitor_text and "screen_vessel" not in monitor_text
    assert "call screen_vessel again" in screening_text, screening_text
    assert not VesselMonitor.objects.exists() and not Screening.objects.exists()


# --- item 8c ---------------------------------------------------------------------------------

NOT_AN_ID = {"object": {"n": 1}, "array": [1], "true": True, "false": False, "null": None, "decimal": 1.5}


def _list_tools(request_id: object) -> tuple[int, dict, bytes]:
    return _call("POST", "/mcp", body={"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})


def test_a_request_whose_id_is_not_a_string_or_integer_is_an_invalid_request():
    answers = {}
    for kind, request_id in NOT_AN_ID.items():
        status, headers, payload = _list_tools(request_id)
        assert headers["x-request-id"], kind
        answers[kind] = (status, headers.get("content-type"), json.loads(payload) if payload else None)
    for kind, (status, content_type, answer) in answers.items():
        assert status == 400 and content_type == "application/json" and answer is not None, (kind, status, answer)
        assert answer["jsonrpc"] == "2.0" and answer["id"] is None, kind
        assert answer["error"]["code"] == -32600 and answer["error"]["message"].startswith("Invalid Request: "), kind
    # Ids MCP takes are still answered, and a message without an id is still a notification.
    for good in (7, 0, -3, "req-1", ""):
        status, _, payload = _list_tools(good)
        assert status == 200 and json.loads(payload)["id"] == good and json.loads(payload)["result"]["tools"], good
    status, _, _ = _call("POST", "/mcp", body={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert status == 202


def test_a_tool_call_with_an_object_id_runs_nothing(world, issue_key):
    key = issue_key("live", email="object-id@example.com")
    status, _, payload = _call(
        "POST",
        "/mcp",
        {"authorization": f"Bearer {key}"},
        {
            "jsonrpc": "2.0",
            "id": {"n": 1},
            "method": "tools/call",
            "params": {"name": "screen_vessel", "arguments": {"imo": demo.GREEN_CLEAN}},
        },
    )
    assert status == 400 and json.loads(payload)["error"]["code"] == -32600
    assert not Screening.objects.exists()
