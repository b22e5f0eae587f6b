"""Screening as of a past instant (issue 28 part 3): the lists as they stood, from the editions kept."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from screening import demo, refresh, replay
from screening.models import EditionFile, FollowUp, Screening, SourceSnapshot
from tests.screening.api.test_match_decisions import STANDING

pytestmark = pytest.mark.django_db
# A listing by IMO of the demo hull GREEN_CLEAN, in the second edition only.
DESIGNATION = (
    f'6001,"NORTHERN LIGHT","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,'
    f'"Vessel Registration Identification IMO {demo.GREEN_CLEAN}."'
)


def _load(*rows: str) -> SourceSnapshot:
    files = {"sdn": ("\n".join([*STANDING, *rows]) + "\n").encode()}
    assert refresh.load_files("ofac_sdn", files, origin="test").status == "loaded"
    return SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)


@pytest.fixture
def two_editions(key):  # type: ignore[no-untyped-def]
    # The demo world's lists were loaded a month ago; OFAC then published twice.
    SourceSnapshot.objects.update(retrieved_at=timezone.now() - timedelta(days=30))
    first = _load()
    SourceSnapshot.objects.filter(pk=first.pk).update(retrieved_at=timezone.now() - timedelta(days=10))
    second = _load(DESIGNATION)
    SourceSnapshot.objects.filter(pk=second.pk).update(retrieved_at=timezone.now() - timedelta(days=2))
    return SourceSnapshot.objects.get(pk=first.pk), SourceSnapshot.objects.get(pk=second.pk)


def test_every_loaded_edition_is_kept_compressed_by_its_checksum(two_editions):
    first, second = two_editions
    kept = EditionFile.objects.get(pk=second.checksum)
    assert kept.source == "ofac_sdn" and kept.parts == ["sdn"] and len(bytes(kept.data)) < kept.size
    assert b"NORTHERN LIGHT" in replay.kept_files(second.checksum)["sdn"]
    assert EditionFile.objects.filter(pk=first.checksum).exists()


def test_as_of_reads_the_edition_in_force_then_and_names_it(two_editions, key, screen):
    first, second = two_editions
    now = screen(key, demo.GREEN_CLEAN).json()
    assert now["sanctions"]["status"] == "RED" and "as_of" not in now

    then = screen(key, demo.GREEN_CLEAN, as_of=(timezone.now() - timedelta(days=5)).isoformat()).json()
    assert then["sanctions"]["status"] == "GREEN"  # the designation came in the second edition
    assert then["as_of"] and [e["snapshot_id"] for e in then["as_of_editions"] if e["source"] == "ofac_sdn"] == [
        first.pk
    ]
    assert then["unit_charged"] is True  # charged like any screening
    by_date = screen(key, demo.GREEN_CLEAN, as_of=(timezone.now() - timedelta(days=1)).date().isoformat()).json()
    assert by_date["sanctions"]["status"] == "RED"
    assert [e["snapshot_id"] for e in by_date["as_of_editions"] if e["source"] == "ofac_sdn"] == [second.pk]
    record = Screening.objects.get(pk=then["id"])
    assert record.as_of is not None and json.loads(bytes(record.document))["as_of"] == then["as_of"]


def test_as_of_before_any_edition_is_incomplete_naming_the_missing_lists_and_never_green(two_editions, key, screen):
    long_ago = screen(key, demo.GREEN_CLEAN, as_of="2001-01-01").json()
    assert long_ago["sanctions"]["status"] == "INCOMPLETE"
    assert {"ofac_sdn", "opensanctions", "eu_sanctions"} <= set(long_ago["sanctions"]["coverage_gaps"])
    assert long_ago["unit_charged"] is False and not FollowUp.objects.exists()  # never followed up


def test_as_of_in_the_future_or_malformed_is_422_and_charges_nothing(key, screen):
    future = screen(key, demo.GREEN_CLEAN, as_of=(timezone.now() + timedelta(days=1)).isoformat())
    assert future.status_code == 422 and future.json()["field_violations"][0]["field"] == "as_of"
    malformed = screen(key, demo.GREEN_CLEAN, as_of="last tuesday")
    assert malformed.status_code == 422 and malformed.json()["field_violations"][0]["field"] == "as_of"
    assert not Screening.objects.exists()


def test_an_as_of_record_never_drives_fleets(two_editions, key, screen, send):
    fleet = send(key, "post", "/api/v1/fleets", {"name": "Watched", "imos": [demo.GREEN_CLEAN]}).json()
    screen(key, demo.GREEN_CLEAN)  # RED now
    screen(key, demo.GREEN_CLEAN, as_of=(timezone.now() - timedelta(days=5)).isoformat())  # GREEN then
    exposure = send(key, "get", f"/api/v1/fleets/{fleet['id']}/exposure").json()
    assert [(h["imo"], h["sanctions_status"]) for h in exposure["hulls"]] == [(demo.GREEN_CLEAN, "RED")]
