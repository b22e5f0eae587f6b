"""Issue 30 item 3: the voyage report is titled with port names, its badge is coloured by risk level, the
map labels the ports and draws the listed areas the route crosses, and the page fits a phone screen."""

from __future__ import annotations

import pytest

from tests.pages.conftest import PHONE, horizontal_overflow, shot, voyage_report_path

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rtm_sin(client, issue_key, keyed):
    return voyage_report_path(client, issue_key, keyed, "NLRTM", "SGSIN")


def test_the_voyage_report_is_titled_with_port_names_and_its_badge_coloured_by_band(pages, rtm_sin):
    tab = pages.open(rtm_sin)
    heading = tab.inner_text("h1")
    assert "Rotterdam" in heading and "Singapore" in heading
    assert "NLRTM" in tab.inner_text("h1 .codes")
    assert "Rotterdam" in tab.title()
    badge = tab.locator("#risk-badge")
    assert "risk-severe" in badge.get_attribute("class")
    colour = badge.evaluate("b => getComputedStyle(b).backgroundColor")
    assert colour == "rgb(179, 38, 30)"  # --red
    assert "Raised because the route crosses" in tab.inner_text("#score-floor")
    shot(tab, "voyage-report-desktop")


def test_the_map_labels_both_ports_and_draws_the_listed_areas_crossed(pages, rtm_sin):
    tab = pages.open(rtm_sin)
    labels = tab.locator("svg.route-map text.port-label").all_text_contents()
    assert labels == ["Rotterdam (NLRTM)", "Singapore (SGSIN)"]
    areas = tab.locator("svg.route-map g.listed-area")
    assert areas.count() >= 2
    drawn = {areas.nth(i).get_attribute("data-area") for i in range(areas.count())}
    assert "jwla-southern-red-sea-yemen" in drawn
    box = tab.locator("svg.route-map g.listed-area path").first.bounding_box()
    assert box["width"] > 5 and box["height"] > 5


def test_the_voyage_report_fits_a_phone_screen(pages, rtm_sin):
    tab = pages.open(rtm_sin, width=PHONE)
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE, horizontal_overflow(tab)
    shot(tab, "voyage-report-phone")
