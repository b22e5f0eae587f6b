"""The dated changelog (contract part 9): a page and the end of the OpenAPI description, newest first,
naming each deprecation and its date."""

from __future__ import annotations

import pytest

from core.changelog import CHANGES

pytestmark = pytest.mark.django_db


def test_the_changelog_is_dated_newest_first_and_names_the_deprecations_of_part_9():
    dates = [change.on for change in CHANGES]
    assert dates == sorted(dates, reverse=True)
    texts = " ".join(change.text for change in CHANGES)
    assert "source_status" in texts and "coverageComplete" in texts
    assert any(change.kind == "deprecated" for change in CHANGES)


def test_the_changelog_page_and_the_openapi_description_carry_every_entry(client):
    page = client.get("/changelog")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    description = client.get("/api/v1/openapi.json").json()["info"]["description"]
    html = page.content.decode()
    for change in CHANGES:
        assert change.on.isoformat() in html and change.on.isoformat() in description
    assert "engine_version 34" in description


# -- the Deprecation header (contract 9.2, RFC 9745) ---------------------------------------------

EPOCH_2026_10_31 = "@1793404800"  # 2026-10-31T00:00:00Z
EPOCH_2026_10_08 = "@1791417600"  # 2026-10-08T00:00:00Z


def test_every_operation_named_by_a_deprecation_exists():
    from django.urls import get_resolver

    from core.changelog import DEPRECATIONS

    names = {name for name in get_resolver().reverse_dict if isinstance(name, str)}
    for deprecation in DEPRECATIONS:
        for url_name, method in deprecation.operations:
            assert url_name in names, url_name
            assert method in {"GET", "POST", "PATCH", "DELETE"}


def test_answers_carrying_source_status_say_it_is_deprecated_and_point_at_the_changelog(client, issue_key, keyed):
    raw = issue_key("test")
    created = client.post(
        "/api/v1/voyage-assessments", data={"route": {"origin": "NLRTM", "destination": {"locode": "SGSIN"}}},
        content_type="application/json", HTTP_IDEMPOTENCY_KEY="deprecation-1", **keyed(raw),
    )  # fmt: skip
    assert created.status_code == 201 and "source_status" in created.json()
    read = client.get(f"/api/v1/voyage-assessments/{created.json()['id']}", **keyed(raw))
    for answer in (created, read):
        assert answer["Deprecation"] == EPOCH_2026_10_31
        assert answer["Link"] == '</changelog>; rel="deprecation"; type="text/html"'
        assert "Sunset" not in answer  # 9.2: Sunset only when an endpoint is retired


def test_answers_without_a_deprecated_part_and_errors_carry_no_deprecation(client, issue_key, keyed):
    raw = issue_key("test")
    assert "Deprecation" not in client.get("/api/v1/screenings", **keyed(raw))
    missing = client.get("/api/v1/voyage-assessments/vas_01J000000000000000000000", **keyed(raw))
    assert missing.status_code == 404 and "Deprecation" not in missing


def test_monitor_answers_carry_the_camel_case_deprecation_until_the_keys_are_removed(
    client, issue_key, keyed, monkeypatch
):
    from datetime import UTC, datetime

    from django.utils import timezone

    raw = issue_key("test")
    assert client.get("/api/v1/vessel-monitors", **keyed(raw))["Deprecation"] == EPOCH_2026_10_08
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 12, 23, 0, 0, 1, tzinfo=UTC))
    assert "Deprecation" not in client.get("/api/v1/vessel-monitors", **keyed(raw))
