"""Headless Chromium (Debian's package) driven by Playwright against a live test server.

`pages.open(path, width=1200)` opens a path at a viewport width and returns the tab; `shot(tab, name)`
saves a full-page screenshot under var/screenshots/pages-<name>.png for a person to look at.
Skipped where chromium or the playwright package is absent; Playwright's own browsers are never downloaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from tests.browser.conftest import SCREENSHOT_DIR, chromium_against

DESKTOP = 1200
PHONE = 375


@pytest.fixture
def world(db):
    """The demo world: 18 hulls whose verdicts are known (screening.demo)."""
    from screening import datastate

    with open("/dev/null", "w") as devnull:
        call_command("seed_demo", stdout=devnull)
    datastate.invalidate()


@pytest.fixture
def pages(live_server, settings, monkeypatch):
    with chromium_against(live_server, settings, monkeypatch) as browser:
        contexts = []

        class Pages:
            base = live_server.url
            failed_requests: list[str] = []

            @staticmethod
            def open(path: str, width: int = DESKTOP, height: int = 900, cookies: dict | None = None):
                context = browser.new_context(
                    viewport={"width": width, "height": height}, base_url=live_server.url, is_mobile=width < 500
                )
                contexts.append(context)
                if cookies:
                    context.add_cookies([{"name": k, "value": v, "url": live_server.url} for k, v in cookies.items()])
                tab = context.new_page()
                tab.set_default_timeout(30_000)
                tab.on(
                    "request",
                    lambda request: (
                        None
                        if request.url.startswith((live_server.url, "data:"))
                        else Pages.failed_requests.append(request.url)
                    ),
                )
                response = tab.goto(path)
                tab.response = response
                return tab

        try:
            yield Pages
        finally:
            for context in contexts:
                context.close()


def shot(tab, name: str) -> Path:
    path = SCREENSHOT_DIR / f"pages-{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    return path


def horizontal_overflow(tab) -> int:
    """How far the page is wider than the viewport (0 when nothing overflows)."""
    return tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def voyage_report_path(client, issue_key, keyed, origin: str = "NLRTM", destination: str = "SGSIN") -> str:
    body = client.post(
        "/api/v1/voyage-assessments",
        data={"route": {"origin": origin, "destination": destination}},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"page-{origin}-{destination}",
        **keyed(issue_key("test")),
    ).json()
    return "/" + body["report_url"].split("://", 1)[1].split("/", 1)[1]
