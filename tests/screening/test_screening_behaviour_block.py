"""include_behaviour: the screening record carries what the hull's AIS showed, and nothing else moves."""

from __future__ import annotations

import json

import pytest

from screening import demo
from tests.screening.conftest import screen  # noqa: F401 (fixture)
from tests.support.published_schema import Published

pytestmark = pytest.mark.django_db


def test_a_screening_without_include_behaviour_has_no_behaviour_block(demo_world, issue_key, screen):  # noqa: F811
    body = screen(issue_key("test"), demo.GREEN_CLEAN).json()
    assert "behaviour" not in body


def test_include_behaviour_adds_the_ninety_day_block_and_changes_neither_verdict_nor_grade(
    demo_world,
    client,
    issue_key,
    screen,  # noqa: F811
    settings,
    tmp_path,
):
    settings.AIS_STORE_DIR = tmp_path / "ais"
    raw = issue_key("test")
    plain = screen(raw, demo.RED_OFAC).json()
    response = screen(raw, demo.RED_OFAC, include_behaviour=True)
    published = Published.served_by(client)
    with_block = published.check("/api/v1/screenings", "post", response)
    assert not published.failures, published.failures
    block = with_block["behaviour"]
    assert block["window_days"] == 90 and block["observed"] is False
    assert block["to"] == with_block["screened_at"]
    assert set(block["counts"]) >= {"dark_period", "sts_meeting"} and not any(block["counts"].values())
    assert block["report"].startswith(f"/api/v1/vessels/{demo.RED_OFAC}/behaviour?from=")
    assert with_block["sanctions"]["status"] == plain["sanctions"]["status"] == "RED"
    assert with_block["vetting"] == plain["vetting"]
    assert with_block["unit_charged"] == plain["unit_charged"]
    stored = client.get(f"/api/v1/screenings/{with_block['id']}", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert stored["behaviour"] == block


def test_include_behaviour_must_be_a_boolean(demo_world, issue_key, screen):  # noqa: F811
    response = screen(issue_key("test"), demo.GREEN_CLEAN, include_behaviour="yes")
    assert response.status_code == 422
    assert [v["field"] for v in response.json()["field_violations"]] == ["include_behaviour"]


def test_a_batch_with_include_behaviour_gives_every_record_the_block(
    demo_world, issue_key, client, keyed, settings, tmp_path
):
    from screening.models import Screening
    from tests.screening.api.test_screening_batches import run_all

    settings.AIS_STORE_DIR = tmp_path / "ais"
    raw = issue_key("test", plan="paid")
    body = {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.RED_OFAC}], "include_behaviour": True}
    created = client.post(
        "/api/v1/screening-batches", data=body, content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="batch-behaviour", **keyed(raw),
    ).json()  # fmt: skip
    assert created["include_behaviour"] is True
    assert run_all(created["id"]) == ["succeeded", "succeeded"]
    records = [json.loads(bytes(screening.document)) for screening in Screening.objects.order_by("screened_at")]
    assert [record["behaviour"]["window_days"] for record in records] == [90, 90]


def test_a_batch_refuses_an_include_behaviour_that_is_not_a_boolean(demo_world, issue_key, client, keyed):
    response = client.post(
        "/api/v1/screening-batches", data={"items": [{"imo": demo.GREEN_CLEAN}], "include_behaviour": "yes"},
        content_type="application/json", HTTP_IDEMPOTENCY_KEY="batch-behaviour-bad", **keyed(issue_key("test")),
    )  # fmt: skip
    assert response.status_code == 422
    assert [v["field"] for v in response.json()["field_violations"]] == ["include_behaviour"]
