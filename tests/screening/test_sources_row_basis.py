"""The sources row says what its checked_at is (contract 2.6): the publisher's date when known."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from screening import datastate, freshness, refresh
from screening.sources_rows import sanctions_source_rows
from tests.screening.conftest import undated_sdn_csv

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_list_state")]


def rows(now: datetime | None = None) -> dict[str, dict]:
    freshness.forget_cached()
    datastate.invalidate()
    return {r["source"]: r for r in sanctions_source_rows(datastate.current(), now)}


def test_a_published_edition_reads_basis_published_at_with_its_age():
    refresh.load_files("ofac_sdn", {"sdn": undated_sdn_csv().encode()}, published_at=datetime(2024, 5, 3, tzinfo=UTC))
    now = datetime(2026, 11, 26, 12, tzinfo=UTC)
    row = rows(now)["ofac_sdn"]
    assert row["status"] == "ok"
    assert row["basis"] == "published_at"
    assert row["checked_at"] == "2024-05-03T00:00:00Z"
    assert row["message"].startswith("The OFAC SDN list published 2024-05-03T00:00:00Z; 937 days old; last checked ")


def test_an_undated_edition_keeps_refreshed_at_with_our_last_check():
    refresh.load_files("ofac_sdn", {"sdn": undated_sdn_csv().encode()})
    row = rows()["ofac_sdn"]
    assert row["basis"] == "refreshed_at"
    checked = datetime.fromisoformat(row["checked_at"].replace("Z", "+00:00"))
    assert datetime.now(UTC) - checked < timedelta(minutes=1)
    assert "The OFAC SDN list: publication date unknown" in row["message"]


def test_a_file_that_stamps_its_date_gives_the_row_that_date():
    xml = (
        b'<?xml version="1.0" encoding="UTF-8"?><CONSOLIDATED_LIST dateGenerated="2026-02-27T00:00:09.554Z">'
        b"<INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>FIXTURE</FIRST_NAME></INDIVIDUAL></INDIVIDUALS>"
        b"</CONSOLIDATED_LIST>"
    )
    refresh.load_files("un_sanctions", {"xml": xml}, edition="")
    row = rows()["un_sanctions"]
    assert row["basis"] == "published_at" and row["checked_at"] == "2026-02-27T00:00:09Z"
