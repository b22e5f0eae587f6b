"""Issue 30 (MCP tools): assess_voyage (and get_assessment) answer without the route geometry by default,
with the report page's link; include_geometry true brings it back. Through the official Python SDK client,
which validates each answer against the tool's published output schema."""

from __future__ import annotations

import json

import pytest

from tests.mcp_bridge.test_mcp_errors_and_health import sdk_calls, world  # noqa: F401
from tests.mcp_bridge.test_mcp_strict_arguments import listed_tools

pytestmark = pytest.mark.django_db(transaction=True)
ROUTE = {"origin": "NLRTM", "destination": "SGSIN"}


def test_assess_voyage_leaves_the_geometry_out_unless_asked(world, issue_key, settings):  # noqa: F811
    key = issue_key("test")
    slim, full = sdk_calls(
        [("assess_voyage", {"route": ROUTE}), ("assess_voyage", {"route": ROUTE, "include_geometry": True})],
        {"authorization": f"Bearer {key}"},
    )
    assert not slim.is_error and not full.is_error, (slim, full)
    assessment = slim.structured_content
    assert "geometry" not in assessment["route"]
    assert assessment["route"]["distance_nm"] > 0 and assessment["score"] >= 0
    assert assessment["report_url"].startswith(f"{settings.PUBLIC_BASE_URL}/voyage-assessments/")
    assert assessment["report_url"].endswith("/report")
    assert full.structured_content["route"]["geometry"]["geometry"]["type"] == "LineString"
    size = len(json.dumps(assessment))
    assert size < len(json.dumps(full.structured_content)) / 2, size

    again, again_full = sdk_calls(
        [
            ("get_assessment", {"assessment_id": assessment["id"]}),
            ("get_assessment", {"assessment_id": assessment["id"], "include_geometry": True}),
        ],
        {"authorization": f"Bearer {key}"},
    )
    assert "geometry" not in again.structured_content["route"]
    assert again.structured_content["report_url"] == assessment["report_url"]
    assert "geometry" in again_full.structured_content["route"]


def test_include_geometry_is_published_false_by_default():
    tools = listed_tools()
    for name in ("assess_voyage", "get_assessment", "list_voyage_batch_items"):
        schema = tools[name].input_schema["properties"]["include_geometry"]
        assert schema.get("default") is False and schema.get("description"), name
        assert "geometry" not in json.dumps(tools[name].output_schema.get("required", [])), name
