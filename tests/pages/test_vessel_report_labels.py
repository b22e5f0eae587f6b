"""Issue 30 item 3: the vessel report shows display names and sentences, not the record's machine labels;
a GREEN with complete coverage is not told to re-screen; the detention count says what the score's window is."""

from __future__ import annotations

import re

import pytest

from screening import demo
from screening.pages import views
from tests.pages.conftest import PHONE, horizontal_overflow, shot

pytestmark = pytest.mark.django_db(transaction=True)

MACHINE = re.compile(
    r"\b(ofac_sdn|eu_sanctions|un_sanctions|flag_performance|detention_history|vessel_age|"
    r"inspection_gap|confirmed_sanctions_match|published_at|service_vessel_register)\b"
)


def visible_text_outside_code(tab) -> str:
    """What a reader sees, without the small code text that keeps the machine value beside its name."""
    return tab.evaluate(
        "(() => { const main = document.querySelector('main').cloneNode(true);"
        " main.querySelectorAll('code.machine').forEach(c => c.remove()); return main.innerText; })()"
    )


def test_sources_factors_floor_and_incident_context_read_as_names_and_sentences(world, pages):
    tab = pages.open(f"/vessels/{demo.RED_OFAC}/report")
    text = visible_text_outside_code(tab)
    assert MACHINE.findall(text) == []
    assert "OFAC SDN list" in text and "EU sanctions list" in text
    factors = tab.inner_text("#vetting-factors")
    assert "Flag performance" in factors and "Detention history" in factors
    assert "raised to 90 because the hull is confirmed on a designating sanctions list" in text
    assert "Incident context: fresh" not in text
    assert "incident context" in tab.inner_text("#incident-context").lower()
    # The machine value stays at hand, in small code text.
    assert tab.locator("code.machine", has_text="ofac_sdn").count() >= 1
    shot(tab, "vessel-report-red-desktop")


def test_a_green_with_complete_coverage_is_not_told_to_re_screen(world, pages):
    tab = pages.open(f"/vessels/{demo.GREEN_CLEAN}/report")
    verdict = tab.inner_text(".verdict")
    assert "GREEN" in verdict
    assert "incomplete coverage" not in verdict and "re-screen" not in verdict.lower()
    shot(tab, "vessel-report-green-desktop")


def test_a_green_with_incomplete_coverage_is_told_to_re_screen():
    treatment = views._treatment({"status": "GREEN", "coverage_complete": False})
    assert "incomplete" in treatment and "Re-screen" in treatment
    assert "re-screen" not in views._treatment({"status": "GREEN", "coverage_complete": True}).lower()


def test_a_detention_outside_the_three_year_window_is_said_to_be_outside_it(world, pages):
    tab = pages.open(f"/vessels/{demo.RED_OFAC}/report")
    detentions = tab.inner_text("#detentions")
    assert detentions.startswith("1")
    assert "3-year window" in detentions and "outside" in detentions
    score = tab.inner_text("#vetting-factors tr:has-text('Detention history') td:last-child")
    assert score.strip() == "0"


def test_the_vessel_report_fits_a_phone_screen(world, pages):
    tab = pages.open(f"/vessels/{demo.RED_OFAC}/report", width=PHONE)
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE, horizontal_overflow(tab)
    shot(tab, "vessel-report-red-phone")
