"""The vessel report page draws the hull's AIS track with its events, or says no AIS is held."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command

from behaviour.models import AisLoad
from screening import demo
from screening.pages import views
from tests.pages.conftest import PHONE, horizontal_overflow, shot

pytestmark = pytest.mark.django_db(transaction=True)

# LAURA MAERSK transmits IMO 9190731 from MMSI 219947000 in tracktable-data's New York Harbor hour.
SHIP_IMO, SHIP_MMSI = "9190731", "219947000"


@pytest.fixture
def ny_harbor_loaded(settings, tmp_path, monkeypatch):
    tracktable_data = pytest.importorskip("tracktable_data")
    settings.AIS_STORE_DIR = tmp_path / "ais"
    hour = Path(tracktable_data.__file__).parent / "python_example_data" / "NYHarbor_2020_06_30_first_hour.csv"
    call_command("load_ais", str(hour), stdout=io.StringIO())
    assert AisLoad.objects.get().status == AisLoad.Status.COMMITTED
    # The page draws the 30 days before now; the file is of 2020-06-30, so the page's "now" is the day after.
    monkeypatch.setattr(views, "timezone", _FixedNow(datetime(2020, 7, 1, tzinfo=UTC)))


class _FixedNow:
    def __init__(self, moment) -> None:  # type: ignore[no-untyped-def]
        self.moment = moment

    def now(self):  # type: ignore[no-untyped-def]
        return self.moment


def test_the_report_draws_the_track_of_the_hulls_mmsi_on_the_map(world, ny_harbor_loaded, pages):
    tab = pages.open(f"/vessels/{SHIP_IMO}/report")
    assert tab.response.status == 200
    section = tab.inner_text("main")
    assert "Behaviour from AIS" in section and SHIP_MMSI in section
    track = tab.locator("svg.route-map polyline.route")
    assert track.count() == 1
    assert len(track.get_attribute("points").split()) >= 10
    shot(tab, "vessel-report-ais-track")
    phone = pages.open(f"/vessels/{SHIP_IMO}/report", width=PHONE)
    assert horizontal_overflow(phone) == 0


def test_a_hull_without_ais_is_said_to_have_none(world, pages, settings, tmp_path):
    settings.AIS_STORE_DIR = tmp_path / "ais"
    tab = pages.open(f"/vessels/{demo.GREEN_CLEAN}/report")
    assert "No AIS of this hull is held for the last 30 days" in tab.inner_text("main")
    assert tab.locator("svg.route-map").count() == 0


def test_the_demo_hulls_report_marks_its_events_on_the_track_and_lists_them(world, ais_store, pages):
    call_command("seed_demo_ais", stdout=io.StringIO())
    tab = pages.open(f"/vessels/{demo.GREEN_CLEAN}/report")
    text = tab.inner_text("main")
    assert "AIS silent for 14.0 h" in text and "Met MMSI 613990111" in text and "Draught went from 8.2 m" in text
    assert tab.locator("svg.route-map circle.hot").count() == 3
    shot(tab, "vessel-report-demo-ais")
