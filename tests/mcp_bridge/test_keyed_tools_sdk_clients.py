"""The keyed MCP tools end to end with the official SDK clients (Python and TypeScript) over real HTTP
against a running server (uvicorn serving config.asgi on the test database): each tool is its REST
operation — scope-checked, metered, idempotent and access-logged as the direct call — and answers
the REST document, validated by the clients against the tool's published output schema."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import httpx2
import pytest
from django.core.management import call_command
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.models import Account
from mcp_bridge.keyed_tools import TOOLS
from metering import quota
from metering.models import AccessLogEntry, QuotaCounter
from screening import datastate, demo
from tests.support.server import running_service

pytestmark = pytest.mark.django_db(transaction=True)
TS_CLIENT = Path(__file__).resolve().parent / "ts_client"


@pytest.fixture(scope="module")
def service(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock(), running_service() as url:
        yield url


@pytest.fixture
def world(transactional_db):  # type: ignore[no-untyped-def]
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


async def _session(url: str, key: str | None, calls: list[tuple[str, dict]]) -> tuple[list, list]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            tools = await client.list_tools()
            return tools.tools, [await client.call_tool(name, arguments) for name, arguments in calls]


def python_client(url: str, key: str | None, calls: list[tuple[str, dict]]) -> tuple[list, list]:
    return asyncio.run(_session(url, key, calls))


def _text(result) -> str:  # type: ignore[no-untyped-def]
    assert result.is_error is True, result
    return result.content[0].text


def test_every_keyed_tool_is_listed_with_its_cost_argument_help_and_the_rest_output_schema(service):
    tools, _ = python_client(service, None, [])
    listed = {tool.name: tool for tool in tools}
    assert set(TOOLS) <= set(listed) and {"check_vessel", "find_port"} <= set(listed)
    for name in TOOLS:
        tool = listed[name]
        assert "unit" in tool.description or "Free" in tool.description, name
        assert tool.output_schema and tool.output_schema.get("properties"), name
        for argument, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{name}.{argument} has no description"
    assert "vessel_name" in listed["screen_vessel"].description  # what to do on INCOMPLETE
    assert {"id", "sanctions", "vetting", "notices"} <= set(listed["screen_vessel"].output_schema["properties"])
    creating = [name for name, tool in TOOLS.items() if tool.method == "POST"]
    assert all("idempotency_key" in listed[name].input_schema["properties"] for name in creating)


def test_a_keyed_tool_is_the_rest_call_metered_idempotent_scoped_and_access_logged(service, world, issue_key):
    key = issue_key("live", email="assistant@example.com")
    _, results = python_client(
        service,
        key,
        [
            ("screen_vessel", {"imo": demo.GREEN_CLEAN, "idempotency_key": "ask-1"}),
            ("screen_vessel", {"imo": demo.GREEN_CLEAN, "idempotency_key": "ask-1"}),  # a retry: replayed
            ("screen_vessel", {"imo": demo.RED_OFAC, "idempotency_key": "ask-1"}),  # another call, same key
            ("screen_vessel", {"imo": demo.INCOMPLETE_IDENTITY}),
            ("list_screenings", {"status": "INCOMPLETE", "superseded": False}),
            ("get_usage", {}),
            ("get_screening", {"screening_id": "scr_missing"}),
        ],
    )
    first, replay, conflict, incomplete, open_questions, usage, missing = results
    record = first.structured_content
    assert record["id"].startswith("scr_") and record["sanctions"]["status"] == "GREEN" and record["unit_charged"]
    assert replay.structured_content["id"] == record["id"]
    assert _text(conflict).startswith("idempotency_conflict: ")
    assert incomplete.structured_content["sanctions"]["status"] == "INCOMPLETE"
    assert [row["id"] for row in open_questions.structured_content["screenings"]] == [
        incomplete.structured_content["id"]
    ]
    assert usage.structured_content["quota"]["screenings"]["used"] == 1  # the replay charged nothing
    assert _text(missing).startswith("not_found: ")
    logged = list(AccessLogEntry.objects.order_by("at").values_list("method", "path", "status", "units_charged"))
    assert logged[0] == ("MCP", "/mcp tools/call screen_vessel", 201, 1)
    assert ("MCP", "/mcp tools/call get_usage", 200, 0) in logged

    _, [refused] = python_client(
        service, issue_key("live", scopes=["usage:read"]), [("get_screening", {"screening_id": record["id"]})]
    )
    assert _text(refused).startswith("insufficient_scope: ") and "vessel:screen" in _text(refused)
    _, [anonymous] = python_client(service, None, [("get_usage", {})])
    assert _text(anonymous).startswith("unauthorized: ")


def test_a_refusal_carries_retry_after_when_the_rest_answer_does(service, world, issue_key):
    key = issue_key("test", email="spent@example.com")
    account = Account.objects.get(email="spent@example.com")
    allowance = quota.allowance_for(account, "test", quota.KIND_SCREENING)
    QuotaCounter.objects.update_or_create(
        account=account,
        environment="test",
        kind="screening",
        period=allowance.period,
        defaults={"used": allowance.limit},
    )
    _, [refused] = python_client(service, key, [("screen_vessel", {"imo": demo.GREEN_CLEAN})])
    text = _text(refused)
    assert text.startswith("quota_exhausted: ") and "Retry-After: " in text


def test_voyages_and_monitors_through_their_tools(service, world, issue_key):
    key = issue_key("test")
    _, results = python_client(
        service,
        key,
        [
            ("assess_voyage", {"route": {"origin": "NLRTM", "destination": "SGSIN"}, "customer_reference": "v-1"}),
            ("create_vessel_monitor", {"imo": demo.GREEN_CLEAN, "mode": "simulation"}),
            ("create_vessel_monitor", {"imo": demo.GREEN_GRADE_B}),  # a live monitor on a test key
            ("list_vessel_monitors", {}),
        ],
    )
    assessment, monitor, live_refused, monitors = results
    assert assessment.structured_content["id"].startswith("vas_"), assessment
    assert _text(live_refused).startswith("environment_not_allowed: ")
    monitor_id = monitor.structured_content["id"]
    assert [row["id"] for row in monitors.structured_content["vessel_monitors"]] == [monitor_id]
    _, (fetched, baseline, changed) = python_client(
        service,
        key,
        [
            ("get_assessment", {"assessment_id": assessment.structured_content["id"]}),
            ("simulate_vessel_monitor", {"monitor_id": monitor_id, "sanctions_status": "GREEN", "vetting_grade": "A"}),
            ("simulate_vessel_monitor", {"monitor_id": monitor_id, "sanctions_status": "RED", "vetting_grade": "A"}),
        ],
    )
    assert fetched.structured_content["id"] == assessment.structured_content["id"]
    cargo_route = {"origin": "NLRTM", "destination": "DEHAM"}
    cargo = {
        "commodity": {"hs_code": "8471", "description": "Laptop computers"},
        "origin_country": "NL",
        "destination_country": "SG",
        "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
    }
    _, (screened_cargo,) = python_client(service, key, [("screen_cargo", cargo)])
    cargo_id = screened_cargo.structured_content["id"]
    _, (read_cargo, listed_cargo) = python_client(
        service, key, [("get_cargo_screening", {"cargo_screening_id": cargo_id}), ("list_cargo_screenings", {})]
    )
    assert cargo_id.startswith("cgs_") and read_cargo.structured_content["id"] == cargo_id
    assert [row["id"] for row in listed_cargo.structured_content["cargo_screenings"]] == [cargo_id]
    _, (batch, fleet) = python_client(
        service,
        key,
        [
            ("submit_screening_batch", {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": "123"}]}),
            ("create_fleet", {"name": "Tankers", "imos": [demo.GREEN_CLEAN, demo.RED_OFAC]}),
        ],
    )
    assert batch.structured_content["id"].startswith("sbt_"), batch
    fleet_id = fleet.structured_content["id"]
    _, (polled, exposure, changes) = python_client(
        service,
        key,
        [
            ("get_screening_batch", {"batch_id": batch.structured_content["id"]}),
            ("get_fleet_exposure", {"fleet_id": fleet_id}),
            ("get_fleet_changes", {"fleet_id": fleet_id}),
        ],
    )
    assert polled.structured_content["id"] == batch.structured_content["id"]
    assert not exposure.is_error and not changes.is_error, (exposure, changes)
    _, (test_key_corridor,) = python_client(service, key, [("create_corridor_monitor", {"route": cargo_route})])
    assert _text(test_key_corridor).startswith("environment_not_allowed: ")
    live = issue_key("live")
    _, (corridor, corridors) = python_client(
        service, live, [("create_corridor_monitor", {"route": cargo_route}), ("list_corridor_monitors", {})]
    )
    assert [row["id"] for row in corridors.structured_content["corridor_monitors"]] == [
        corridor.structured_content["id"]
    ]
    assert baseline.structured_content["outcome"] == "baseline"
    assert changed.structured_content["changes"][0]["severity"] == "critical"


def test_the_typescript_sdk_client_lists_and_calls_the_tools_over_http(service, world, issue_key):
    if shutil.which("node") is None:
        pytest.skip("node is not installed (bin/test installs the TypeScript SDK client where node exists)")
    assert (TS_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(), (
        "the TypeScript SDK client is not installed: bin/test runs npm ci in tests/mcp_bridge/ts_client"
    )
    key = issue_key("live")
    calls = [
        ["check_vessel", {"imo": demo.RED_OFAC}],
        ["screen_vessel", {"imo": demo.GREEN_GRADE_B, "idempotency_key": "ts-1"}],
        ["get_usage", {}],
        ["get_screening", {"screening_id": "scr_missing"}],
    ]
    done = subprocess.run(
        ["node", "client.mjs", f"{service}/mcp", key, json.dumps(calls)],
        cwd=TS_CLIENT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    schemas = {tool["name"]: tool["outputSchema"] for tool in seen["tools"]}
    assert set(TOOLS) <= set(schemas) and all(schemas[name] for name in TOOLS)
    check, screened, usage, missing = seen["results"]
    assert not check["isError"] and check["structured"]["sanctions"]["status"] == "RED"
    assert not screened["isError"], screened["text"]  # the client validated it against the output schema
    assert screened["structured"]["vetting"]["grade"] == "B"
    assert usage["structured"]["quota"]["screenings"]["used"] == 1
    assert missing["isError"] and missing["text"].startswith("not_found: ")
