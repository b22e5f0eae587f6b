"""The dated changelog (contract part 9): a page and the end of the OpenAPI description, newest first,
naming each deprecation and its date."""

from __future__ import annotations

import pytest

from config.changelog import CHANGES

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
    assert "engine_version 32" in description
