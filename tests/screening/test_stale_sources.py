"""A source reads stale when our last successful check is older than its cadence allows (issue 27, part 1).

"Stale" measures our copy, not the publisher: an edition published long ago is not stale if we
checked it recently, and a stale list still screens (status ok) while every place that shows
sources says the copy may be out of date.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from screening import datastate, demo, feeds, freshness, refresh
from screening.models import SourceFeed, SourceSnapshot
from screening.sources.catalog import sources_named
from screening.sources_rows import sanctions_source_rows
from tests.screening.conftest import undated_sdn_csv

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_list_state")]
OLD_EDITION = datetime(2024, 5, 3, tzinfo=UTC)


def load_ofac(published_at: datetime | None = OLD_EDITION) -> SourceSnapshot:
    outcome = refresh.load_files(
        "ofac_sdn", {"sdn": undated_sdn_csv(demo.GREEN_CLEAN).encode()}, published_at=published_at
    )
    assert outcome.status == "loaded", outcome
    freshness.forget_cached()
    datastate.invalidate()
    return SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)


def age_our_copy(source: str, edition: str, days: float) -> datetime:
    """Our last successful check (and the copy itself) taken `days` ago."""
    then = timezone.now() - timedelta(days=days)
    SourceFeed.objects.filter(source=source, edition=edition).update(checked_at=then)
    SourceSnapshot.objects.filter(source=source, edition=edition).update(retrieved_at=then)
    freshness.forget_cached()
    datastate.invalidate()
    return then


def ofac_row(now: datetime | None = None) -> dict:
    return next(r for r in sanctions_source_rows(datastate.current(), now) if r["source"] == "ofac_sdn")


def test_every_sanctions_file_has_a_cadence_and_ofac_is_checked_within_days():
    (ofac,) = sources_named("ofac_sdn")
    assert ofac.cadence == timedelta(days=2)
    for name in ("un_sanctions", "eu_sanctions", "uk_sanctions", "opensanctions", "ua_war_sanctions"):
        assert all(source.cadence is not None for source in sources_named(name)), name


def test_stale_after_the_cadence_from_a_later_now():
    load_ofac()
    checked = SourceFeed.objects.get(source="ofac_sdn", edition="").checked_at
    assert not freshness.is_stale("ofac_sdn", "", checked, checked + timedelta(days=2))
    assert freshness.is_stale("ofac_sdn", "", checked, checked + timedelta(days=2, seconds=1))
    row = ofac_row(checked + timedelta(days=3))
    assert row["status"] == "ok"  # a stale core list still screens
    assert "Our copy may be out of date: last successful check" in row["message"]
    assert "expected at least every 2 days." in row["message"]


def test_a_stale_file_of_a_list_with_several_is_named_by_its_display_name_in_the_row():
    xml = (
        b'<?xml version="1.0" encoding="UTF-8"?><CONSOLIDATED_LIST dateGenerated="2026-02-27T00:00:09.554Z">'
        b"<INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>FIXTURE</FIRST_NAME></INDIVIDUAL></INDIVIDUALS>"
        b"</CONSOLIDATED_LIST>"
    )
    assert refresh.load_files("un_sanctions", {"xml": xml}, edition="").status == "loaded"
    csv = b"name,imo,listed_on,reference,flag,vessel_type\nFIXTURE 1718,9074729,2017-01-01,KPi.1,KP,tanker\n"
    assert refresh.load_files("un_sanctions", {"csv": csv}, edition="un_1718_vessels").status == "loaded"
    age_our_copy("un_sanctions", "un_1718_vessels", days=31)
    row = next(r for r in sanctions_source_rows(datastate.current()) if r["source"] == "un_sanctions")
    assert row["source"] == "un_sanctions"  # the machine field keeps the code
    assert "Our copy of the UN 1718 Committee vessel list may be out of date" in row["message"]
    assert "un_1718_vessels" not in row["message"] and "un_sanctions" not in row["message"]


def test_stale_when_our_last_check_was_set_back():
    load_ofac()
    then = age_our_copy("ofac_sdn", "", days=5)
    row = ofac_row()
    assert row["status"] == "ok"
    assert f"last successful check {then.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z" in row["message"]
    assert "may be out of date" in row["message"]


def test_an_old_edition_checked_recently_is_not_stale():
    load_ofac(published_at=OLD_EDITION)
    age_our_copy("ofac_sdn", "", days=5)
    feeds.mark_checked("ofac_sdn", "")  # e.g. a 304 this morning: the publisher has nothing newer
    freshness.forget_cached()
    row = ofac_row()
    assert "may be out of date" not in row["message"]
    assert row["basis"] == "published_at" and row["checked_at"] == "2024-05-03T00:00:00Z"
    assert "days old" in row["message"]


def test_an_operator_supplied_list_allows_a_month():
    outcome = refresh.load_files("ua_war_sanctions", {"csv": b"name,imo\nFIXTURE UA,9074729\n"})
    assert outcome.status == "loaded", outcome
    then = age_our_copy("ua_war_sanctions", "", days=31)
    state = datastate.current()
    within = {r["source"]: r for r in sanctions_source_rows(state, then + timedelta(days=29))}
    assert "may be out of date" not in within["ua_war_sanctions"].get("message", "")
    rows = {r["source"]: r for r in sanctions_source_rows(state)}
    assert rows["ua_war_sanctions"]["status"] == "ok"
    assert "expected at least every 30 days" in rows["ua_war_sanctions"]["message"]


def test_demo_data_is_never_stale(demo_world):
    SourceSnapshot.objects.update(retrieved_at=timezone.now() - timedelta(days=90))
    datastate.invalidate()
    rows = sanctions_source_rows(datastate.current())
    assert all("may be out of date" not in r.get("message", "") for r in rows)


def test_the_keyless_check_and_its_report_say_a_list_is_stale(demo_world, client):
    load_ofac()
    age_our_copy("ofac_sdn", "", days=4)
    body = client.get(f"/api/v1/vessels/{demo.GREEN_CLEAN}/check").json()
    detail = body["sanctions"]["detail"]
    assert "the OFAC SDN list published 2024-05-03 (" in detail and "days old)" in detail
    assert "Our copy of the OFAC SDN list may be out of date" in detail
    assert "ofac_sdn" not in detail  # the prose names lists by their display names; codes stay in the fields
    page = client.get(f"/vessels/{demo.GREEN_CLEAN}/report").content.decode()
    assert "stale: may be out of date" in page
    assert "published 2024-05-03T00:00:00Z" in page  # the match's list edition


def test_a_list_turning_stale_is_not_answered_from_the_keyless_cache(demo_world, client):
    load_ofac()
    age_our_copy("ofac_sdn", "", days=4)  # a copy taken days ago...
    feeds.mark_checked("ofac_sdn", "")  # ...and checked (unchanged) just now
    freshness.forget_cached()
    first = client.get(f"/api/v1/vessels/{demo.GREEN_CLEAN}/check").json()
    assert "may be out of date" not in first["sanctions"]["detail"]
    # Nothing about the serving copy changes; only our last check falls behind the cadence.
    SourceFeed.objects.filter(source="ofac_sdn").update(checked_at=timezone.now() - timedelta(days=4))
    freshness.forget_cached()
    second = client.get(f"/api/v1/vessels/{demo.GREEN_CLEAN}/check").json()
    assert "Our copy of the OFAC SDN list may be out of date" in second["sanctions"]["detail"]


def test_readyz_names_stale_lists_and_stays_ready(client):
    load_ofac()
    response = client.get("/readyz")
    assert response.json()["sources"] == {"stale": []}
    age_our_copy("ofac_sdn", "", days=3)
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ready"
    (stale,) = body["sources"]["stale"]
    assert stale["source"] == "ofac_sdn" and stale["stale"] is True
    assert stale["expected_every"] == "2 days"
    assert stale["published_at"] == "2024-05-03T00:00:00Z"


def test_the_back_office_lists_age_and_stale_of_the_serving_copy():
    from django.contrib import admin

    snapshot = load_ofac()
    age_our_copy("ofac_sdn", "", days=3)
    snapshot.refresh_from_db()
    model_admin = admin.site._registry[SourceSnapshot]
    assert {"published_at", "edition_age", "stale"} <= set(model_admin.list_display)
    assert model_admin.edition_age(snapshot).endswith("days old")
    assert model_admin.stale(snapshot).startswith("stale: Our copy may be out of date")
    feeds.mark_checked("ofac_sdn", "")
    freshness.forget_cached()
    assert model_admin.stale(snapshot) == "no"
