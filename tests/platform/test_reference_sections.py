"""Issue 30 item 1: the OpenAPI document carries what the reference page shows, in Redoc's own terms.

Every operation and webhook is tagged; every tag has a human name and a description; x-tagGroups lists
each tag once, the operation groups first and the webhooks last; the notices and the webhook verification
recipe are sections of the document (not HTML placed above Redoc).
"""

from __future__ import annotations

import re

import pytest

from screening import notices

pytestmark = pytest.mark.django_db

OPERATION_GROUPS = ["Screening", "Voyages", "Monitoring", "Events", "Account"]


@pytest.fixture
def document(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _operations(document: dict, section: str) -> list[dict]:
    return [op for item in document.get(section, {}).values() for op in item.values() if isinstance(op, dict)]


def test_every_tag_is_named_described_and_in_exactly_one_group(document):
    tags = {tag["name"]: tag for tag in document["tags"]}
    for name, tag in tags.items():
        assert re.fullmatch(r"[A-Z][A-Za-z .()-]+", name), name  # a human name, not a slug
        assert tag.get("description", "").strip(), name
    grouped = [name for group in document["x-tagGroups"] for name in group["tags"]]
    assert sorted(grouped) == sorted(tags)  # each tag once, none left out (Redoc hides an ungrouped tag)
    used = {tag for op in _operations(document, "paths") + _operations(document, "webhooks") for tag in op["tags"]}
    assert used <= set(tags)
    assert all(len(op["tags"]) == 1 for op in _operations(document, "paths") + _operations(document, "webhooks"))


def test_the_operation_groups_come_first_and_the_webhooks_last(document):
    groups = [group["name"] for group in document["x-tagGroups"]]
    assert groups == [*OPERATION_GROUPS, "Webhooks"]
    operation_tags = {tag for op in _operations(document, "paths") for tag in op["tags"]}
    webhook_tags = {tag for op in _operations(document, "webhooks") for tag in op["tags"]}
    assert operation_tags.isdisjoint(webhook_tags)
    by_group = {group["name"]: set(group["tags"]) for group in document["x-tagGroups"]}
    assert set().union(*(by_group[name] for name in OPERATION_GROUPS)) == operation_tags
    assert by_group["Webhooks"] == webhook_tags | {"Verifying webhook signatures"}
    assert document["x-tagGroups"][-1]["tags"][0] == "Verifying webhook signatures"
    assert [t["name"] for t in document["tags"]] == [n for g in document["x-tagGroups"] for n in g["tags"]]


def test_the_notices_are_a_section_of_the_description_with_one_anchor_per_code(document):
    description = document["info"]["description"]
    sections = re.findall(r"^# (.+)$", description, re.M)
    assert sections == ["Matching quality", "Notices", "Changelog"]
    notices_text = description.split("# Notices", 1)[1].split("\n# ", 1)[0]
    assert re.findall(r"^## (\S+)$", notices_text, re.M) == list(notices.CODES)
    for code in notices.CODES:  # the docs link of a notice: Redoc's id of that heading
        assert notices._docs(code).endswith(f"/api/v1/docs#section/Notices/{code}")
    assert "<section" not in description and "<article" not in description


def test_the_verification_recipe_is_a_section_of_the_webhooks_group(document):
    tag = next(tag for tag in document["tags"] if tag["name"] == "Verifying webhook signatures")
    assert tag["x-traitTag"] is True  # a section of its own, no operations
    text = tag["description"]
    assert "```python\nimport hashlib" in text and "def verify_signature(" in text
    assert "```javascript\n" in text and "timingSafeEqual" in text
    assert "{%" not in text and "&quot;" not in text  # rendered, not escaped
    for webhook in _operations(document, "webhooks"):
        assert "(#tag/Verifying-webhook-signatures)" in webhook["description"]


def test_the_reference_page_places_nothing_above_redoc(client):
    html = client.get("/api/v1/docs").content.decode()
    body = html.split("<body>", 1)[1]
    assert body.lstrip().startswith('<div id="redoc-container"></div>')
    assert "Notices" not in html and "Verifying webhook signatures" not in html
