"""Issue 30 item 3: `/` is a landing page (what the service is, the keyless check form, links to the reference,
sign-up and the changelog) with a favicon served by the service itself; nothing is loaded from another host."""

from __future__ import annotations

import pytest
import requests

from screening import demo
from tests.pages.conftest import PHONE, horizontal_overflow, shot

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_landing_page_says_what_the_service_is_and_links_reference_signup_and_changelog(pages):
    tab = pages.open("/")
    assert tab.response.status == 200
    shot(tab, "landing-desktop")
    assert "Vessel Sanctions Screening" in tab.title()
    text = tab.inner_text("main")
    assert "IMO" in text and "sanctions" in text and "voyage" in text
    for name, path in (
        ("API reference", "/api/v1/docs"),
        ("Get a free API key", "/signup"),
        ("Changelog", "/changelog"),
    ):
        link = tab.locator("main").get_by_role("link", name=name)
        assert link.get_attribute("href").endswith(path)
        assert requests.get(pages.base + path, timeout=30).status_code == 200, path
    tab.locator("main").get_by_role("link", name="Changelog").click()
    tab.wait_for_url(f"{pages.base}/changelog")
    assert pages.failed_requests == []


def test_the_landing_form_runs_the_keyless_check_and_opens_the_hull_report(world, pages):
    tab = pages.open("/")
    form = tab.locator("form#keyless-check")
    assert form.count() == 1 and form.get_attribute("method") == "get"
    tab.fill("input[name=imo]", f"IMO {demo.RED_OFAC}")
    tab.click("form#keyless-check button[type=submit]")
    tab.wait_for_url(f"{pages.base}/vessels/{demo.RED_OFAC}/report")
    assert "DEMO AURORA BLISS" in tab.inner_text("h1")
    assert tab.locator(".badge.RED").count() == 1


def test_a_value_without_an_imo_number_comes_back_to_the_form_with_the_reason(pages):
    tab = pages.open("/")
    tab.fill("input[name=imo]", "12345")
    tab.click("form#keyless-check button[type=submit]")
    assert "not an IMO number" in tab.inner_text("main")
    assert tab.locator("form#keyless-check").count() == 1


def test_the_favicon_is_linked_and_served_from_the_service(pages):
    tab = pages.open("/")
    href = tab.get_attribute("link[rel=icon]", "href")
    assert href == "/favicon.svg"
    for path in ("/favicon.svg", "/favicon.ico"):
        answer = requests.get(pages.base + path, timeout=30)
        assert answer.status_code == 200 and answer.headers["Content-Type"] == "image/svg+xml", path
        assert answer.text.lstrip().startswith("<svg")
    # The browser draws it: the header's icon has a size once loaded.
    assert tab.evaluate("document.querySelector('header .brand img').naturalWidth") > 0


def test_the_landing_page_fits_a_phone_screen(pages):
    tab = pages.open("/", width=PHONE)
    assert horizontal_overflow(tab) <= 0
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE
    shot(tab, "landing-phone")
