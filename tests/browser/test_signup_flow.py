"""Issue 17 item 5: the whole self-serve flow in headless Chromium (Debian's package, driven by Playwright).

Sign up, read the confirmation mail from the file backend, confirm, create a key, call the API with it over
HTTP, revoke it on the page, see 401. Every page is saved to var/screenshots/signup-*.png for a person to look at.
Skipped where chromium (or the playwright package) is absent; Playwright's own browsers are never downloaded.
"""

from __future__ import annotations

import re

import pytest
import requests

from tests.browser.conftest import SCREENSHOT_DIR, chromium_against, png_size

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "harbour-Pilot-2026!"
LINK = re.compile(r"(https?://\S+/signup/confirm/\S+)")


@pytest.fixture
def page(live_server, settings, tmp_path, monkeypatch):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    with chromium_against(live_server, settings, monkeypatch) as browser:
        context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=live_server.url)
        tab = context.new_page()
        tab.set_default_timeout(20_000)
        try:
            yield tab
        finally:
            context.close()


def shot(page, name: str) -> None:
    path = SCREENSHOT_DIR / f"signup-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    width, height = png_size(path)
    assert width >= 1000 and height >= 400, (name, width, height)


def test_sign_up_confirm_create_call_revoke_and_see_401(page, live_server, tmp_path):
    base = live_server.url
    email = "skipper@shipping.example"

    page.goto("/signup")
    assert page.title().startswith("Get a free API key")
    shot(page, "01-form")

    page.fill("input[name=email]", "someone@mailinator.com")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    assert "public_inbox_email" in page.inner_text("main")
    shot(page, "02-refused-throwaway-inbox")

    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/signup/sent")
    assert "Check your inbox" in page.inner_text("h1")
    shot(page, "03-check-your-inbox")

    mails = sorted((tmp_path / "mail").iterdir())
    assert len(mails) == 1
    link = LINK.search(mails[0].read_text()).group(1)
    assert link.startswith(base)
    page.goto(link)
    assert "Confirm your e-mail address" in page.inner_text("h1")
    shot(page, "04-confirm")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/keys")
    assert "is confirmed" in page.inner_text(".messages")
    shot(page, "05-keys-empty")

    page.fill("input[name=label]", "voyage desk")
    page.click("text=Create key")
    raw = page.input_value("#raw-key")
    assert re.fullmatch(r"svc_test_[A-Za-z0-9]{40}", raw)
    page.click("#copy-key")
    page.wait_for_function("document.getElementById('copy-status').textContent.length > 0")  # its script ran
    shot(page, "06-key-shown-once")

    usage = requests.get(f"{base}/api/v1/usage", headers={"Authorization": f"Bearer {raw}"}, timeout=30)
    assert usage.status_code == 200 and usage.json()["environment"] == "test"

    page.goto("/keys")
    assert raw not in page.content()
    assert raw[:21] in page.inner_text("#keys")  # svc_test_ + the 12-character lookup prefix
    shot(page, "07-keys-list")

    page.goto("/keys/usage")
    assert "Screenings" in page.inner_text("main")
    shot(page, "08-usage")
    page.goto("/keys/access-log")
    assert "GET /api/v1/usage" in page.inner_text("#access-log")
    shot(page, "09-access-log")

    page.goto("/keys")
    page.click("#keys >> text=Revoke")
    assert "Revoke" in page.inner_text("h1")
    shot(page, "10-revoke-confirm")
    page.click("text=Revoke this key")
    page.wait_for_url(f"{base}/keys")
    assert "refused (401)" in page.inner_text(".messages")
    shot(page, "11-revoked")

    refused = requests.get(f"{base}/api/v1/usage", headers={"Authorization": f"Bearer {raw}"}, timeout=30)
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
    assert f"{base}/signup" in refused.json()["message"]

    page.click("text=Log out")
    page.wait_for_url(f"{base}/login")
    shot(page, "12-login")
