"""Issue 30 (MCP tools): a tool refuses an argument it does not take, naming it (never ignores it), and says
so in its input schema; each list tool takes every filter its REST list takes, and passes it through.

Through the official Python SDK client against the real ASGI app (tests.mcp_bridge.test_mcp_errors_and_health).
"""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_bridge.keyed_tools import TOOLS
from mcp_bridge.tools import ARGUMENT_RULES
from screening import demo
from screening.models import Screening
from tests.mcp_bridge.test_mcp_errors_and_health import _assert_ours, _error_text, _lifespan, sdk_calls, world  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

# What a tool adds to its REST operation: the Idempotency-Key header, and a presentation choice.
TOOL_ONLY_ARGUMENTS = {"idempotency_key", "include_geometry"}


async def _listed_tools() -> list:
    from config.asgi import application

    async with _lifespan(application):
        transport = httpx2.ASGITransport(app=application, client=("203.0.113.9", 50000))
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http:
            async with Client(streamable_http_client("http://testserver/mcp", http_client=http)) as client:
                return (await client.list_tools()).tools


def listed_tools() -> dict:
    return {tool.name: tool for tool in asyncio.run(_listed_tools())}


def test_every_input_schema_is_closed():
    tools = listed_tools()
    assert set(TOOLS) <= set(tools)
    for name, tool in tools.items():
        assert tool.input_schema.get("additionalProperties") is False, name


@pytest.mark.parametrize(
    ("tool", "arguments", "unknown", "takes"),
    [
        ("list_screenings", {"bogus": 1}, "bogus is not an argument of list_screenings", "status"),
        ("check_vessel", {"imo": demo.GREEN_CLEAN, "imoo": "x"}, "imoo is not an argument of check_vessel", "imo"),
        ("get_usage", {"verbose": True}, "verbose is not an argument of get_usage", "it takes no arguments"),
        # an argument of another tool is still not one of this tool's
        ("list_cargo_screenings", {"imo": demo.GREEN_CLEAN}, "imo is not an argument of list_cargo_screenings", "vessel_imo"),
        ("find_port", {"query": "Rotterdam", "a": 1, "b": 2}, "a, b are not arguments of find_port", "query, limit"),
    ],
)  # fmt: skip
def test_an_unknown_argument_is_a_tool_error_naming_it(tool, arguments, unknown, takes):
    (result,) = sdk_calls([(tool, arguments)])
    text = _error_text(result)
    _assert_ours(text, "validation_failed")
    assert text.startswith(f"validation_failed: {unknown}: "), text
    assert takes in text, text


def test_an_unknown_argument_beside_a_bad_one_names_both():
    (result,) = sdk_calls([("find_port", {"query": "Rotterdam", "limit": "many", "bogus": 1})])
    text = _error_text(result)
    assert "bogus is not an argument of find_port" in text and "limit must be a whole number" in text, text


def test_a_refused_call_runs_nothing(world, issue_key):  # noqa: F811
    key = issue_key("test")
    headers = {"authorization": f"Bearer {key}"}
    refused, listed = sdk_calls(
        [("screen_vessel", {"imo": demo.GREEN_CLEAN, "vesel_name": "MISSPELT"}), ("get_usage", {})], headers
    )
    assert _error_text(refused).startswith("validation_failed: vesel_name is not an argument of screen_vessel")
    assert "vessel_name" in _error_text(refused)
    assert not Screening.objects.exists()
    assert listed.structured_content["quota"]["screenings"]["used"] == 0


def test_every_argument_of_every_tool_has_a_rule_in_our_words():
    for name, tool in listed_tools().items():
        for argument in tool.input_schema["properties"]:
            assert argument in ARGUMENT_RULES, f"{name}.{argument}"


def _operation(document: dict, tool_name: str) -> dict:
    tool = TOOLS[tool_name]
    return document["paths"][tool.path][tool.method.lower()]


def _members(node: dict, components: dict) -> set[str]:
    """The member names a request body schema allows, through $ref, oneOf and allOf."""
    ref = node.get("$ref", "")
    if ref:
        return _members(components[ref.rsplit("/", 1)[-1]], components)
    members = set(node.get("properties", {}))
    for key in ("schema",):
        if key in node:
            members |= _members(node[key], components)
    for key in ("oneOf", "anyOf", "allOf"):
        for part in node.get(key, []):
            members |= _members(part, components)
    return members


def test_each_tool_takes_what_its_rest_operation_takes(client):
    """A GET tool takes exactly its operation's path and query parameters; a writing tool its path
    parameters and members of its request body, nothing else."""
    document = client.get("/api/v1/openapi.json").json()
    components = document["components"]["schemas"]
    tools = listed_tools()
    for name in TOOLS:
        operation = _operation(document, name)
        # ?format= picks a REST renderer (the evidence pack's PDF); a tool answers JSON, so it takes none.
        parameters = {
            p["name"] for p in operation.get("parameters", []) if p["in"] in {"path", "query"} and p["name"] != "format"
        }
        taken = set(tools[name].input_schema["properties"]) - TOOL_ONLY_ARGUMENTS
        members = _members(operation.get("requestBody", {}).get("content", {}).get("application/json", {}), components)
        if TOOLS[name].method == "GET":
            assert taken == parameters, (name, sorted(taken ^ parameters))
            continue
        assert taken - parameters <= members, (name, sorted(taken - parameters - members))


def test_list_cargo_screenings_passes_its_created_filters_through(world, issue_key):  # noqa: F811
    key = issue_key("test")
    cargo = {
        "commodity": {"hs_code": "8471", "description": "Laptops"}, "origin_country": "NL",
        "destination_country": "SG", "parties": [{"name": "Acme Trading", "role": "shipper"}],
    }  # fmt: skip
    screened, everything, later, earlier, window = sdk_calls(
        [
            ("screen_cargo", cargo),
            ("list_cargo_screenings", {}),
            ("list_cargo_screenings", {"created_after": "2999-01-01T00:00:00Z"}),
            ("list_cargo_screenings", {"created_before": "2000-01-01T00:00:00Z"}),
            ("list_cargo_screenings", {"created_after": "2000-01-01T00:00:00Z", "created_before": "2999-01-01T00:00:00Z"}),
        ],
        {"authorization": f"Bearer {key}"},
    )  # fmt: skip
    assert not screened.is_error, screened
    cargo_id = screened.structured_content["id"]
    assert [row["id"] for row in everything.structured_content["cargo_screenings"]] == [cargo_id]
    assert later.structured_content["cargo_screenings"] == []
    assert earlier.structured_content["cargo_screenings"] == []
    assert [row["id"] for row in window.structured_content["cargo_screenings"]] == [cargo_id]


def test_list_webhook_deliveries_and_corridor_monitors_pass_their_rest_filters_through(world, issue_key, client):  # noqa: F811
    key = issue_key("live")
    rest = {"HTTP_AUTHORIZATION": f"Bearer {key}", "content_type": "application/json"}
    endpoint = client.post(
        "/api/v1/webhook-endpoints", {"url": "https://receiver.invalid/hooks"}, HTTP_IDEMPOTENCY_KEY="e-1", **rest
    ).json()
    tested = client.post(f"/api/v1/webhook-endpoints/{endpoint['id']}/test", {}, HTTP_IDEMPOTENCY_KEY="t-1", **rest)
    assert tested.status_code == 202, tested.content
    route = {"origin": "NLRTM", "destination": "SGSIN"}
    _, _, deliveries, later, monitors = sdk_calls(
        [
            ("create_corridor_monitor", {"route": route, "customer_reference": "lane-7"}),
            ("create_corridor_monitor", {"route": route, "customer_reference": "lane-8"}),
            ("list_webhook_deliveries", {"created_after": "2000-01-01T00:00:00Z", "created_before": "2999-01-01T00:00:00Z"}),
            ("list_webhook_deliveries", {"created_after": "2999-01-01T00:00:00Z"}),
            ("list_corridor_monitors", {"customer_reference": "lane-7"}),
        ],
        {"authorization": f"Bearer {key}"},
    )  # fmt: skip
    assert len(deliveries.structured_content["webhook_deliveries"]) == 1, deliveries
    assert later.structured_content["webhook_deliveries"] == []
    assert [row["customer_reference"] for row in monitors.structured_content["corridor_monitors"]] == ["lane-7"]
