"""The public vessel report page, rendered by a real headless Chromium."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from screening import datastate, demo
from tests.browser.conftest import png_size

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()


def test_a_red_hull_report_shows_the_badge_matches_treatment_and_disclaimer(world, live_server, browser):
    html = browser.dom(f"{live_server.url}/vessels/{demo.RED_OFAC}/report")
    assert 'class="badge RED"' in html
    assert "DEMO AURORA BLISS" in html
    assert "ofac_sdn" in html
    assert "Stop" in html  # the treatment of part 3.1
    assert "/signup" in html


def test_the_report_page_renders_to_a_screenshot(world, live_server, browser):
    path = browser.screenshot(f"{live_server.url}/vessels/{demo.GREEN_CLEAN}/report", "vessel-report-green")
    width, height = png_size(path)
    assert (width, height) == (1200, 1800)
    assert path.stat().st_size > 20_000  # a blank page compresses to a few kB


def test_an_invalid_imo_renders_a_readable_error_page(live_server, browser):
    html = browser.dom(f"{live_server.url}/vessels/12345/report")
    assert "too few digits" in html
