"""Issue 12 item 28: the reference page (/api/v1/docs) loads nothing from a CDN; every asset is served here."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

ASSET = re.compile(r"""<(?:link|script|img|iframe|source)\b[^>]*\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)


def test_the_reference_page_names_no_external_host(client):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    external = [url for url in ASSET.findall(html) if re.match(r"^(https?:)?//", url)]
    assert external == [], external
    assert "@import" not in html and "url(http" not in html


def test_every_asset_of_the_reference_page_is_served_locally(client):
    html = client.get("/api/v1/docs").content.decode()
    assets = ASSET.findall(html)
    assert any("redoc" in url for url in assets), assets
    for url in assets:
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert b"fonts.googleapis" not in body and b"fonts.gstatic" not in body, url
