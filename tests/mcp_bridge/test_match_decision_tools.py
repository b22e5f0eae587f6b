"""record_match_decision and list_match_decisions through the official Python SDK client over HTTP."""

from __future__ import annotations

import pytest

from screening import demo
from tests.mcp_bridge.test_keyed_tools_sdk_clients import python_client, service, world  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_assistant_records_a_decision_and_the_next_screening_shows_it(service, world, issue_key):  # noqa: F811
    key = issue_key("test")
    decision_arguments = {
        "imo": demo.AMBER_NAME_ONLY, "source": "ofac_sdn", "source_record_id": "990002", "outcome": "cleared",
        "reason": "Different hull: the listing is a 1990s general cargo ship.", "reviewer": "assistant-reviewed",
    }  # fmt: skip
    _, (recorded, listed, screened, refused) = python_client(
        service,
        key,
        [
            ("record_match_decision", decision_arguments),
            ("list_match_decisions", {"imo": demo.AMBER_NAME_ONLY, "active": True}),
            ("screen_vessel", {"imo": demo.AMBER_NAME_ONLY}),
            ("record_match_decision", {**decision_arguments, "imo": demo.GREEN_CLEAN}),
        ],
    )
    assert not recorded.is_error, recorded
    decision = recorded.structured_content
    assert decision["id"].startswith("mdc_") and decision["state"] == "active"
    assert [row["id"] for row in listed.structured_content["match_decisions"]] == [decision["id"]]
    sanctions = screened.structured_content["sanctions"]
    assert sanctions["status"] == "AMBER" and sanctions["review"] == "all_cleared"
    assert refused.is_error and refused.content[0].text.startswith("validation_failed: ")
