"""The voyage report page, rendered by a real headless Chromium: map, drivers, disclaimer."""

from __future__ import annotations

import pytest

from tests.browser.conftest import png_size

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_voyage_report_draws_the_route_map_and_drivers(issue_key, client, keyed, live_server, browser):
    key = issue_key("test")
    body = client.post(
        "/api/v1/voyage-assessments",
        data={"route": {"origin": "NLRTM", "destination": "SGSIN"}},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="report-1",
        **keyed(key),
    ).json()
    path = body["report_url"].split("://", 1)[1].split("/", 1)[1]
    url = f"{live_server.url}/{path}"
    html = browser.dom(url)
    assert "<svg" in html and "polyline" in html
    assert "War-risk listed areas" in html and "Southern Red Sea" in html
    assert "Decision support only" in html
    shot = browser.screenshot(url, "voyage-report-rtm-sin")
    assert png_size(shot) == (1200, 1800) and shot.stat().st_size > 30_000
