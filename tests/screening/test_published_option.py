"""refresh_sources --published: an operator's file gets its publication date, and the command says
when that date is still unknown (issue 27, part 1)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from screening import datastate
from screening.models import SourceSnapshot
from tests.screening.conftest import undated_sdn_csv

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_list_state")]
FIXTURES = Path(__file__).parent / "sources" / "fixtures"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("refresh_sources", *args, stdout=out)
    return out.getvalue()


def serving(source: str, edition: str = "") -> SourceSnapshot:
    return SourceSnapshot.objects.get(source=source, edition=edition, status=SourceSnapshot.Status.ACTIVE)


@pytest.fixture
def sdn_csv(tmp_path) -> Path:
    path = tmp_path / "SDN.CSV"
    path.write_text(undated_sdn_csv())
    return path


def test_published_dates_a_file_that_states_none(sdn_csv):
    out = run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}", "--published", "2024-05-03")
    assert serving("ofac_sdn").published_at == datetime(2024, 5, 3, tzinfo=UTC)
    assert "ofac_sdn: published 2024-05-03T00:00:00Z" in out
    assert "unknown" not in out


def test_published_takes_a_time_in_utc(sdn_csv):
    run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}", "--published", "2024-05-03T14:05:09Z")
    assert serving("ofac_sdn").published_at == datetime(2024, 5, 3, 14, 5, 9, tzinfo=UTC)


def test_without_published_the_command_says_the_date_is_unknown_and_how_to_set_it(sdn_csv):
    out = run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}")
    assert serving("ofac_sdn").published_at is None
    assert "ofac_sdn: publication date unknown" in out
    assert "--published YYYY-MM-DD" in out


def test_published_on_the_same_file_again_dates_the_serving_copy(sdn_csv):
    run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}")
    out = run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}", "--published", "2024-05-03")
    assert "unchanged" in out
    assert SourceSnapshot.objects.filter(source="ofac_sdn").count() == 1
    assert serving("ofac_sdn").published_at == datetime(2024, 5, 3, tzinfo=UTC)


def test_a_date_the_file_stamps_wins_and_the_command_says_they_differ():
    out = run("--source", "uk_sanctions", "--file", str(FIXTURES / "uk.csv"), "--published", "2026-11-01")
    assert serving("uk_sanctions").published_at == datetime(2026, 11, 20, tzinfo=UTC)
    assert "published 2026-11-20T00:00:00Z as the file states" in out
    assert "--published 2026-11-01T00:00:00Z differs" in out


@pytest.mark.parametrize("value", ["03/05/2024", "2024-13-01", "yesterday", "2024-05-03 12:00", "2024-05-03T12:00Z"])
def test_a_bad_published_value_is_a_clear_error(sdn_csv, value):
    with pytest.raises(CommandError, match=r"is not a date: give YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ"):
        run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}", "--published", value)
    assert not SourceSnapshot.objects.filter(source="ofac_sdn").exists()


def test_a_published_date_in_the_future_is_refused(sdn_csv):
    with pytest.raises(CommandError, match="in the future"):
        run("--source", "ofac_sdn", "--file", f"sdn={sdn_csv}", "--published", "2999-01-01")


def test_published_needs_an_operators_file():
    with pytest.raises(CommandError, match="--published dates one operator's file"):
        run("--source", "ofac_sdn", "--published", "2024-05-03")


def test_the_real_ofac_csv_gets_its_date_and_matches_carry_it(shared_data, demo_world, issue_key, screen):
    run(
        "--source",
        "ofac_sdn",
        "--file",
        f"sdn={shared_data / 'ofac' / 'sdn-2024-05-03.csv'}",
        "--published",
        "2024-05-03",
    )
    datastate.invalidate()
    body = screen(issue_key("test"), "7406784").json()  # EBANO, a vessel row of that edition
    match = next(m for m in body["sanctions"]["matches"] if m["source"] == "ofac_sdn")
    assert match["list_edition"]["published"] == "2024-05-03T00:00:00Z"
    row = next(s for s in body["sources"] if s["source"] == "ofac_sdn")
    assert row["basis"] == "published_at" and row["checked_at"] == "2024-05-03T00:00:00Z"
    assert "days old" in row["message"]
