"""Issue 30 item 1: the reference page (/api/v1/docs) in headless Chromium, driven by Playwright.

It opens on Redoc's own layout: the title, then a sidebar whose first entries are the documentation
sections (matching quality, notices, changelog) and the operation groups, the webhooks after them; the
notice anchors resolve inside Redoc; and no request leaves for another host (Redoc's sidebar logo from
cdn.redoc.ly included). Screenshots go to var/screenshots/reference-*.png for a person to look at.
Skipped where chromium (or the playwright package) is absent.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from screening import notices
from tests.browser.conftest import SCREENSHOT_DIR, chromium_against, png_size

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Vessel Sanctions Screening and Voyage Risk API"
DOC_SECTIONS = ["Matching quality", "Notices", "Changelog"]
OPERATION_GROUPS = ["Screening", "Voyages", "Monitoring", "Events", "Account"]


@pytest.fixture
def browser_page(live_server, settings, monkeypatch):
    with chromium_against(live_server, settings, monkeypatch) as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        tab.requested = []  # every URL the page asked for, whatever answered
        tab.on("request", lambda request: tab.requested.append(request.url))
        try:
            yield tab
        finally:
            context.close()


def _open(page, fragment: str = "") -> None:
    page.goto(f"/api/v1/docs{fragment}")
    page.wait_for_selector(".menu-content li[data-item-id]")
    page.wait_for_selector(f"h1:has-text('{TITLE}')")


def _sidebar_labels(page) -> list[str]:
    """The sidebar's top-level entries in order: section items and group headings."""
    return page.evaluate(
        "() => [...document.querySelector('.menu-content ul[role=menu]').children]"
        ".map(li => li.innerText.trim().split('\\n')[0])"
    )


def _foreign(page, base: str) -> list[str]:
    ours = urlsplit(base).netloc
    return [
        url
        for url in page.requested
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != ours
    ]


def test_the_first_screen_is_redocs_layout_with_the_title_and_the_sidebar(browser_page, live_server):
    page = browser_page
    _open(page)
    assert page.title() == TITLE
    # The documentation sections, then the operation groups, then the webhooks (group names are upper-cased).
    assert _sidebar_labels(page) == DOC_SECTIONS + [group.upper() for group in OPERATION_GROUPS + ["Webhooks"]]
    assert page.locator(".menu-content").get_by_text("Vessels", exact=True).is_visible()
    # Nothing of ours is drawn above Redoc: its layout starts at the top of the page.
    assert page.eval_on_selector("#redoc-container", "el => el.getBoundingClientRect().top") == 0
    menu = page.locator(".menu-content")
    assert menu.is_visible() and menu.bounding_box()["x"] == 0
    path = SCREENSHOT_DIR / "reference-01-first-screen.png"
    page.screenshot(path=str(path))
    assert png_size(path) == (1280, 900)
    assert _foreign(page, live_server.url) == []


def test_each_notice_link_opens_its_section_inside_redoc(browser_page, live_server):
    page = browser_page
    _open(page, f"#{notices.docs_anchor('quota_pace')}")
    for code in notices.CODES:
        assert page.locator(f'[id="{notices.docs_anchor(code)}"]').count() == 1, code
    section = page.locator(f'[id="{notices.docs_anchor("quota_pace")}"]')
    page.wait_for_function(
        "id => { const r = document.getElementById(id).getBoundingClientRect(); return r.top > -5 && r.top < 200 }",
        arg=notices.docs_anchor("quota_pace"),
    )
    assert "trailing seven-day rate" in section.inner_text()
    page.screenshot(path=str(SCREENSHOT_DIR / "reference-02-notice-anchor.png"))
    assert _foreign(page, live_server.url) == []


def test_the_verification_recipe_is_a_section_of_the_webhooks_group(browser_page, live_server):
    page = browser_page
    _open(page, "#tag/Verifying-webhook-signatures")
    section = page.locator('[id="tag/Verifying-webhook-signatures"]')
    section.wait_for()
    page.wait_for_function(
        "() => { const r = document.getElementById('tag/Verifying-webhook-signatures').getBoundingClientRect();"
        " return r.top > -5 && r.top < 200 }"
    )
    page.screenshot(path=str(SCREENSHOT_DIR / "reference-03-webhook-signatures.png"))
    python = page.locator('[id="tag/Verifying-webhook-signatures/Python-(standard-library-only)"]')
    python.scroll_into_view_if_needed()
    text = python.inner_text()
    assert "def verify_signature(secret: str, header: str, body: bytes" in text
    # The code block ends inside the page: nothing (no fixed footer) covers its last line.
    block = python.locator("pre").first
    box = block.bounding_box()
    page.evaluate("y => window.scrollTo(0, y)", box["y"] + page.evaluate("window.scrollY") - 100)
    box = block.bounding_box()
    bottom = min(box["y"] + box["height"] - 5, 895)
    covering = page.evaluate(
        "([x, y]) => { const el = document.elementFromPoint(x, y); return el && el.closest('pre') !== null }",
        [box["x"] + 20, bottom],
    )
    assert covering, "something covers the Python recipe"
    # Lines wider than the middle panel scroll inside the block; none is cut off out of reach.
    assert block.evaluate("el => getComputedStyle(el).overflowX") in ("auto", "scroll")
    page.screenshot(path=str(SCREENSHOT_DIR / "reference-04-python-recipe.png"))
    assert _foreign(page, live_server.url) == []
