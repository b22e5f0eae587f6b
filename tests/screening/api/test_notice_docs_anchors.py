"""Issue 12 item 12: the `docs` link of every notice resolves to a real anchor of the reference page."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from accounts.models import Account
from screening import demo, notices

pytestmark = pytest.mark.django_db


def _page_ids(client) -> set[str]:  # type: ignore[no-untyped-def]
    """The section anchors Redoc makes on /api/v1/docs from the OpenAPI description (issue 30): one per
    level-1 heading (`section/<heading>`) and one per level-2 heading under it (`section/<level 1>/<heading>`).
    tests/platform/test_reference_page_layout.py checks in Chromium that Redoc draws each."""
    assert client.get("/api/v1/docs").status_code == 200
    description = client.get("/api/v1/openapi.json").json()["info"]["description"]
    ids, top = set(), None
    for hashes, name in re.findall(r"^(#{1,2}) (.+)$", description, re.M):
        slug = name.strip().replace(" ", "-")
        if len(hashes) == 1:
            top = f"section/{slug}"
            ids.add(top)
        else:
            ids.add(f"{top}/{slug}" if top else f"section/{slug}")
    return ids


def _resolves(client, url: str, ids: set[str]) -> bool:  # type: ignore[no-untyped-def]
    parts = urlsplit(url)
    return parts.path == "/api/v1/docs" and parts.fragment in ids and client.get(parts.path).status_code == 200


def test_every_notice_code_has_an_anchor_in_the_notices_section(client):
    ids = _page_ids(client)
    assert "section/Notices" in ids
    missing = [code for code in notices.CODES if notices._docs(code).split("#", 1)[1] not in ids]
    assert missing == []


def test_the_published_notice_codes_are_the_ones_with_anchors(client):
    document = client.get("/api/v1/openapi.json").json()
    schemas = document["components"]["schemas"]
    code = schemas["NoticeSchema"]["properties"]["code"]
    ref = code.get("$ref") or code["allOf"][0]["$ref"]
    assert sorted(schemas[ref.rsplit("/", 1)[-1]]["enum"]) == sorted(notices.CODES)
    source = open(notices.__file__).read()
    assert set(re.findall(r'_notice\(\s*"([a-z_]+)"', source)) == set(notices.CODES)


def test_the_docs_links_real_screenings_carry_resolve(demo_world, client, issue_key, screen):
    raw = issue_key("test", email="anchors@example.com", plan="paid")
    Account.objects.filter(email="anchors@example.com").update(appended_digit_correction=True)
    bodies = [
        screen(raw, demo.INCOMPLETE_IDENTITY).json(),  # identity_unresolved, auto_resolution
        screen(raw, demo.CONTESTED).json(),  # identity_contested
        screen(raw, demo.GREEN_CLEAN).json(),
        screen(raw, demo.GREEN_CLEAN).json(),  # repeat_screening
        screen(raw, demo.GREEN_CLEAN + "5").json(),  # imo_normalized
    ]
    links = {n["code"]: n["docs"] for body in bodies for n in body["notices"]}
    assert set(links) >= {"identity_unresolved", "auto_resolution", "identity_contested", "repeat_screening"}
    assert "imo_normalized" in links
    ids = _page_ids(client)
    assert [code for code, url in links.items() if not _resolves(client, url, ids)] == []
