"""MCP get_vessel_behaviour and screen_vessel include_behaviour, through the official Python SDK client."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from behaviour.models import AisLoad
from screening import demo
from tests.mcp_bridge.test_mcp_errors_and_health import _error_text, sdk_calls, world  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

# The container ship LAURA MAERSK transmits IMO 9190731 from MMSI 219947000 in tracktable-data's NY hour.
SHIP_IMO, SHIP_MMSI = "9190731", "219947000"


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def test_get_vessel_behaviour_answers_as_the_rest_report_with_from_and_to(world, issue_key, settings, tmp_path):  # noqa: F811
    tracktable_data = pytest.importorskip("tracktable_data")
    from pathlib import Path

    settings.AIS_STORE_DIR = tmp_path / "ais"
    hour = Path(tracktable_data.__file__).parent / "python_example_data" / "NYHarbor_2020_06_30_first_hour.csv"
    call_command("load_ais", str(hour), stdout=io.StringIO())
    assert AisLoad.objects.get().status == AisLoad.Status.COMMITTED
    key = issue_key("test")
    window = {"imo": SHIP_IMO, "from": "2020-06-29T00:00:00Z", "to": "2020-07-01T00:00:00Z"}
    (found, empty, misspelt) = sdk_calls(
        [
            ("get_vessel_behaviour", window),
            ("get_vessel_behaviour", {"imo": demo.GREEN_CLEAN}),
            ("get_vessel_behaviour", {**window, "form": "2020-06-29T00:00:00Z"}),
        ],
        _bearer(key),
    )
    assert not found.is_error, found
    body = found.structured_content
    assert body["observed"] is True and body["from"] == "2020-06-29T00:00:00Z"
    assert [identity["mmsi"] for identity in body["identities"]] == [SHIP_MMSI]
    assert empty.structured_content["observed"] is False
    assert misspelt.is_error and "form" in _error_text(misspelt)


def test_screen_vessel_takes_include_behaviour(world, issue_key, settings, tmp_path):  # noqa: F811
    settings.AIS_STORE_DIR = tmp_path / "ais"
    key = issue_key("test")
    (with_block, without) = sdk_calls(
        [
            ("screen_vessel", {"imo": demo.GREEN_CLEAN, "include_behaviour": True}),
            ("screen_vessel", {"imo": demo.GREEN_CLEAN}),
        ],
        _bearer(key),
    )
    assert with_block.structured_content["behaviour"]["window_days"] == 90
    assert "behaviour" not in without.structured_content
