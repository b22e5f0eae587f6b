"""POST /mcp through the real ASGI app: JSON-RPC 2.0 over Streamable HTTP (stateless), keyless and keyed tools."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.core.management import call_command

from screening import datastate, demo

pytestmark = pytest.mark.django_db(transaction=True)


async def _exchange(app, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict, bytes]:
    """Run the app's lifespan, send one HTTP request, collect the response, shut the lifespan down."""
    lifespan_in: asyncio.Queue = asyncio.Queue()
    lifespan_out: asyncio.Queue = asyncio.Queue()
    lifespan = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}}, lifespan_in.get, lifespan_out.put)
    )
    await lifespan_in.put({"type": "lifespan.startup"})
    assert (await lifespan_out.get())["type"] == "lifespan.startup.complete"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("203.0.113.9", 50000),
        "server": ("testserver", 80),
    }
    sent = False
    messages: list[dict] = []

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)

    async def send(message):
        messages.append(message)

    await app(scope, receive, send)
    await lifespan_in.put({"type": "lifespan.shutdown"})
    await lifespan
    start = next(m for m in messages if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, payload


def _call(method: str, path: str, headers: dict[str, str] | None = None, body: dict | None = None):
    from config.asgi import application

    all_headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "host": "testserver",
        **(headers or {}),
    }
    raw = json.dumps(body).encode() if body is not None else b""
    return asyncio.run(_exchange(application, method, path, all_headers, raw))


def _tool(name: str, arguments: dict, headers: dict[str, str] | None = None) -> dict:
    status, _, payload = _call(
        "POST",
        "/mcp",
        headers,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        },
    )
    assert status == 200
    return json.loads(payload)["result"]


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()


def test_get_on_mcp_is_405_and_health_reports_the_version():
    status, headers, _ = _call("GET", "/mcp")
    assert status == 405 and headers["x-request-id"]
    status, headers, payload = _call("GET", "/mcp/health")
    assert status == 200 and json.loads(payload)["version"] == "2026-10-08"
    assert headers["x-request-id"]


def test_tools_list_names_the_keyless_and_keyed_tools():
    status, headers, payload = _call("POST", "/mcp", body={"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert status == 200 and headers["x-request-id"]
    names = {tool["name"] for tool in json.loads(payload)["result"]["tools"]}
    assert {"check_vessel", "find_port", "screen_vessel"} <= names


def test_check_vessel_needs_no_key_and_answers_the_keyless_shape(world):
    result = _tool("check_vessel", {"imo": demo.RED_OFAC})
    assert result["isError"] is False
    check = result["structuredContent"]
    assert check["sanctions"]["status"] == "RED" and check["imo"] == demo.RED_OFAC


def test_check_vessel_refuses_a_path_without_one_imo():
    result = _tool("check_vessel", {"imo": "12345"})
    assert result["isError"] is True
    assert "invalid_imo: " in result["content"][0]["text"]


def test_find_port_resolves_a_name_without_a_key():
    result = _tool("find_port", {"query": "Rotterdam", "limit": 3})
    ports = result["structuredContent"]["ports"]
    assert ports[0]["locode"] == "NLRTM" and ports[0]["match_type"] == "exact_name"


def test_screen_vessel_without_a_key_is_refused_with_the_rest_code(world):
    result = _tool("screen_vessel", {"imo": demo.GREEN_CLEAN})
    assert result["isError"] is True
    assert "unauthorized: " in result["content"][0]["text"]


def test_screen_vessel_with_a_key_screens_and_meters_like_rest(world, issue_key):
    from metering.models import QuotaCounter

    key = issue_key("test")
    result = _tool("screen_vessel", {"imo": demo.GREEN_CLEAN}, {"authorization": f"Bearer {key}"})
    assert result["isError"] is False
    record = result["structuredContent"]
    assert record["sanctions"]["status"] == "GREEN" and record["unit_charged"] is True
    assert QuotaCounter.objects.get().used == 1


def test_a_keyed_tool_call_is_in_the_access_log(world, issue_key, settings):
    from metering.models import AccessLogEntry

    settings.ACCESS_LOG_MODE = "sync"
    key = issue_key("test")
    _tool("screen_vessel", {"imo": demo.GREEN_CLEAN}, {"authorization": f"Bearer {key}"})
    entry = AccessLogEntry.objects.get()
    assert entry.path == "/mcp tools/call screen_vessel" and entry.status == 201 and entry.units_charged == 1
