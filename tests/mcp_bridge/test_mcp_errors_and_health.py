"""Issue 12 items 26 and 27, through the official MCP SDK client against the real ASGI app.

26: GET {mcp_url}/health reports the endpoint version; every MCP response carries
X-Service-API-Version like the REST API. 27: every tool error starts with an API error code and
never carries the SDK's or pydantic's own text.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx2
import pytest
from django.core.management import call_command
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from screening import datastate, demo
from tests.mcp_bridge.test_mcp_endpoint import _call

pytestmark = pytest.mark.django_db(transaction=True)

LIBRARY_WORDS = (
    "Error executing tool",
    "validation error",
    "pydantic",
    "Input should",
    "Field required",
    "Unknown tool",
    "type=",
    "errors.pydantic.dev",
    "Traceback",
)


@contextlib.asynccontextmanager
async def _lifespan(app):
    inbox: asyncio.Queue = asyncio.Queue()
    outbox: asyncio.Queue = asyncio.Queue()
    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}}, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    assert (await outbox.get())["type"] == "lifespan.startup.complete"
    try:
        yield
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await task


async def _sdk_calls(calls: list[tuple[str, dict]], headers: dict[str, str] | None = None) -> list:
    """Call tools with the SDK's Client over Streamable HTTP into config.asgi.application."""
    from config.asgi import application

    async with _lifespan(application):
        transport = httpx2.ASGITransport(app=application, client=("203.0.113.9", 50000))
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver", headers=headers or {}) as http:
            async with Client(streamable_http_client("http://testserver/mcp", http_client=http)) as client:
                return [await client.call_tool(name, arguments) for name, arguments in calls]


def sdk_calls(calls: list[tuple[str, dict]], headers: dict[str, str] | None = None) -> list:
    return asyncio.run(_sdk_calls(calls, headers))


def _error_text(result) -> str:
    assert result.is_error is True, result
    return result.content[0].text


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()


# --- item 26 ---------------------------------------------------------------------------------


def test_health_at_the_mcp_url_reports_the_endpoint_version():
    status, headers, payload = _call("GET", "/health")
    assert status == 200, payload
    assert json.loads(payload) == {"status": "ok", "version": "2026-10-08"}
    assert headers["x-request-id"] and headers["x-service-api-version"] == "2026-10-08"


def test_health_also_answers_through_django_for_wsgi_deployments(client):
    response = client.get("/health")
    assert response.status_code == 200 and response.json()["version"] == "2026-10-08"
    assert response["X-Service-API-Version"] == "2026-10-08"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/mcp", {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        ("GET", "/mcp", None),
        ("GET", "/mcp/health", None),
        ("GET", "/mcp/nowhere", None),
    ],
)
def test_every_mcp_response_carries_the_api_version_header(method, path, body):
    status, headers, _ = _call(method, path, body=body)
    assert headers.get("x-service-api-version") == "2026-10-08", (status, headers)
    assert headers["x-request-id"]


def test_the_version_header_is_on_a_tool_call_made_by_the_sdk_client():
    seen: list[dict] = []

    async def run():
        from config.asgi import application

        async def record(response):
            seen.append(dict(response.headers))

        async with _lifespan(application):
            transport = httpx2.ASGITransport(app=application)
            async with httpx2.AsyncClient(
                transport=transport, base_url="http://testserver", event_hooks={"response": [record]}
            ) as http:
                async with Client(streamable_http_client("http://testserver/mcp", http_client=http)) as client:
                    await client.call_tool("find_port", {"query": "Rotterdam", "limit": 1})

    asyncio.run(run())
    assert seen and all(h.get("x-service-api-version") == "2026-10-08" for h in seen), seen


# --- item 27 ---------------------------------------------------------------------------------


def _assert_ours(text: str, code: str) -> None:
    assert text.startswith(f"{code}: "), text
    for words in LIBRARY_WORDS:
        assert words.lower() not in text.lower(), (words, text)


def test_refusals_start_with_the_rest_error_code(world):
    bad_imo, no_key = sdk_calls([("check_vessel", {"imo": "12345"}), ("screen_vessel", {"imo": demo.GREEN_CLEAN})])
    _assert_ours(_error_text(bad_imo), "invalid_imo")
    _assert_ours(_error_text(no_key), "unauthorized")


def test_a_refusal_from_the_keyed_lane_keeps_its_field_violations(world, issue_key):
    key = issue_key("test")
    (result,) = sdk_calls([("screen_vessel", {"imo": "12"})], {"authorization": f"Bearer {key}"})
    text = _error_text(result)
    _assert_ours(text, "validation_failed")
    assert "imo" in text


@pytest.mark.parametrize(
    ("tool", "arguments", "argument"),
    [
        ("check_vessel", {}, "imo"),
        ("check_vessel", {"imo": ["9300116"]}, "imo"),
        ("find_port", {"query": "Rotterdam", "limit": "many"}, "limit"),
        ("find_port", {"limit": 3}, "query"),
        ("find_port", {"query": 42}, "query"),
        ("screen_vessel", {"imo": demo.GREEN_CLEAN, "include_vetting": "perhaps"}, "include_vetting"),
        ("screen_vessel", {"imo": demo.GREEN_CLEAN, "vessel_name": {"x": 1}}, "vessel_name"),
    ],
)
def test_arguments_that_do_not_fit_are_validation_failed_in_our_words(tool, arguments, argument):
    (result,) = sdk_calls([(tool, arguments)])
    text = _error_text(result)
    _assert_ours(text, "validation_failed")
    assert text.startswith(f"validation_failed: {argument} "), text


def test_a_missing_argument_says_it_is_missing():
    (result,) = sdk_calls([("check_vessel", {})])
    assert _error_text(result).startswith("validation_failed: imo is missing: imo must be a string")


def test_an_out_of_range_limit_names_the_limit():
    (result,) = sdk_calls([("find_port", {"query": "Rotterdam", "limit": 500})])
    _assert_ours(_error_text(result), "validation_failed")
    assert "limit must be from 1 to 50" in _error_text(result)


def test_an_unknown_tool_is_not_found():
    (result,) = sdk_calls([("delete_everything", {})])
    text = _error_text(result)
    _assert_ours(text, "not_found")
    assert "delete_everything" not in text and "check_vessel" in text


def test_an_unexpected_failure_is_internal_error_without_its_text(monkeypatch):
    from mcp_bridge import tools

    def explode(*args, **kwargs):
        raise RuntimeError("secret database password in a stack trace")

    monkeypatch.setattr(tools, "find_port_sync", explode)
    (result,) = sdk_calls([("find_port", {"query": "Rotterdam"})])
    text = _error_text(result)
    _assert_ours(text, "internal_error")
    assert "secret" not in text and "RuntimeError" not in text


def test_an_api_error_raised_inside_a_keyless_tool_keeps_its_code(monkeypatch):
    from core.api.errors import ApiError
    from mcp_bridge import tools

    def unavailable(*args, **kwargs):
        raise ApiError(503, "service_unavailable", "A backing service did not answer; retry after 5 seconds.")

    monkeypatch.setattr(tools, "find_port_sync", unavailable)
    (result,) = sdk_calls([("find_port", {"query": "Rotterdam"})])
    _assert_ours(_error_text(result), "service_unavailable")


def test_a_browser_origin_or_a_foreign_host_is_refused_in_the_api_envelope():
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    status, headers, payload = _call("POST", "/mcp", {"origin": "https://evil.example"}, listing)
    assert status == 403 and headers["content-type"] == "application/json"
    assert json.loads(payload)["code"] == "origin_not_allowed" and headers["x-request-id"]
    status, _, payload = _call("POST", "/mcp", {"host": "rebound.example"}, listing)
    assert status == 421 and json.loads(payload)["code"] == "misdirected_request"
    assert _call("POST", "/mcp", None, listing)[0] == 200
