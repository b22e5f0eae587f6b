"""Issue 30 item 3: changelog entries dated after today say "scheduled", on the page and in the OpenAPI
description's changelog markdown."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from core import changelog
from tests.pages.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


def test_future_entries_on_the_changelog_page_are_labelled_scheduled(pages):
    today = date.today()
    tab = pages.open("/changelog")
    rows = tab.locator("#changes tbody tr")
    for i in range(rows.count()):
        row = rows.nth(i)
        on = date.fromisoformat(row.locator("time").get_attribute("datetime"))
        assert (row.locator(".scheduled").count() == 1) == (on > today), on
    assert any(change.on > today for change in changelog.CHANGES), "no future entry to show the label on"
    phone = pages.open("/changelog", width=PHONE)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE


def test_the_changelog_markdown_labels_only_future_entries_scheduled():
    newest = changelog.CHANGES[0].on
    before = changelog.as_markdown(today=newest - timedelta(days=1)).splitlines()
    assert "(scheduled)" in before[2]
    on_the_day = changelog.as_markdown(today=newest)
    assert "(scheduled)" not in on_the_day
