"""A new list edition re-screens exactly the monitored hulls it can touch (issue 27 parts 3-5).

Editions are OFAC SDN.CSV files in the real layout (12 header-less columns), loaded through the
same `load_files` an operator's `refresh_sources --file` and a poll use. The out-of-cycle runs are
executed here through the worker's own body (`runs.run`); tests/monitoring/test_list_updates_worker.py
drives the same chain through a real Celery worker to a real HTTPS receiver.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from accounts.models import Account
from metering.models import MeteringEvent
from monitoring import list_updates, runs
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from monitoring.vessels import KIND
from screening import demo, refresh
from screening.index import PackedNames, SanctionsIndex, _key_hash
from screening.matching import match_hull
from screening.models import Screening, SourceSnapshot
from screening.records import ListedRecord
from webhooks.models import Event
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db
_keys = itertools.count()
MONITORS = "/api/v1/vessel-monitors"
SHARED_OFAC = Path(__file__).resolve().parents[3] / "shared" / "data" / "ofac"

# Listings that stay in every edition (a list never loads as nearly all new: the shrink guard).
STANDING = [
    f'{4000 + n},"STANDING VESSEL {chr(65 + n)}{chr(65 + n)}","vessel","CUBA",-0- ,-0- ,"Tug",-0- ,-0- ,"Cuba",-0- ,'
    f'"Vessel Registration Identification IMO {imo}."'
    for n, imo in enumerate(("7406784", "7206512", "9116412", "9187629", "9079107", "9212905"))
] + [f'{5000 + n},"STANDING TRADING CO {n}",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ' for n in range(24)]
# The demo hull GREEN_CLEAN (DEMO FJORD GUARDIAN) designated by IMO.
BY_IMO = (
    f'6001,"NORTHERN LIGHT","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,'
    f'"Vessel Registration Identification IMO {demo.GREEN_CLEAN}."'
)
# A listing naming the demo hull GREEN_GRADE_B (DEMO ATLANTIC WREN) with no identifier at all.
BY_NAME_ONLY = '6002,"DEMO ATLANTIC WREN","vessel","IRAN",-0- ,-0- ,"General Cargo",-0- ,-0- ,-0- ,-0- ,-0- '


def _edition(*extra: str) -> dict[str, bytes]:
    return {"sdn": ("\n".join([*STANDING, *extra]) + "\n").encode()}


def _load(files: dict[str, bytes], **options) -> refresh.RefreshOutcome:  # type: ignore[no-untyped-def]
    return refresh.load_files("ofac_sdn", files, origin="test", **options)


def _newest() -> SourceSnapshot:
    return SourceSnapshot.objects.filter(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE).get()


def _watch(client, raw: str, imo: str) -> str:  # type: ignore[no-untyped-def]
    response = client.post(
        MONITORS, data={"imo": imo}, content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_IDEMPOTENCY_KEY=f"lu-{next(_keys)}",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    monitor_id = response.json()["id"]
    run = VesselMonitorRun.objects.get(monitor_id=monitor_id, status=RunStatus.QUEUED)
    assert runs.run(KIND, run.pk) == runs.RAN  # the baseline
    return monitor_id


def _run_out_of_cycle() -> list[VesselMonitorRun]:
    queued = list(
        VesselMonitorRun.objects.filter(trigger=VesselMonitorRun.Trigger.LIST_UPDATE, status=RunStatus.QUEUED)
    )
    for run in queued:
        assert runs.run(KIND, run.pk) == runs.RAN
    return [VesselMonitorRun.objects.get(pk=run.pk) for run in queued]


def _changes(imo: str) -> list[dict]:
    return [event.data for event in Event.objects.filter(type="vessel_risk.changed").order_by("created_at")
            if event.data["imo"] == imo]  # fmt: skip


@pytest.fixture
def watched(demo_world, client, issue_key):
    """A live account watching three demo hulls on the first real OFAC edition, each with its baseline."""
    assert _load(_edition()).status == "loaded"  # replaces the demo copy: no diff, nothing re-screened
    assert _newest().diff is None
    raw = issue_key("live", email="desk@example.com")
    account = Account.objects.get(email="desk@example.com")
    endpoint_owner = type("Owner", (), {"account_id": account.pk, "environment": "live"})()
    return {
        "raw": raw,
        "account": account,
        "owner": endpoint_owner,
        "by_imo": _watch(client, raw, demo.GREEN_CLEAN),
        "by_name": _watch(client, raw, demo.GREEN_GRADE_B),
        "untouched": _watch(client, raw, demo.GREEN_GRADE_C),
    }


def test_an_edition_keeps_its_diff_of_added_removed_and_changed_listings(watched):
    renamed = STANDING[0].replace("STANDING VESSEL AA", "STANDING VESSEL RENAMED")
    assert _load({"sdn": ("\n".join([renamed, *STANDING[1:], BY_IMO]) + "\n").encode()}).status == "loaded"
    snapshot = _newest()
    assert (snapshot.added, snapshot.changed) == (1, 1)
    assert [r["name"] for r in snapshot.diff["added"]] == ["NORTHERN LIGHT"]
    (change,) = snapshot.diff["changed"]
    assert (change["before"]["name"], change["after"]["name"]) == ("STANDING VESSEL AA", "STANDING VESSEL RENAMED")
    assert snapshot.diff["removed"] == []


def test_a_designation_re_screens_exactly_the_hulls_it_can_touch_free_of_charge(watched, client):
    charged_before = MeteringEvent.objects.filter(account=watched["account"]).count()
    units_before = sum(MeteringEvent.objects.filter(account=watched["account"]).values_list("units", flat=True))
    create_endpoint(watched["owner"], {"url": "https://hooks.example.com/lists"})
    fleet = client.post(
        "/api/v1/fleets", data={"name": "Watched", "imos": [demo.GREEN_CLEAN, demo.GREEN_GRADE_C]},
        content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {watched['raw']}", HTTP_IDEMPOTENCY_KEY="fleet-1",
    ).json()  # fmt: skip
    assert _load(_edition(BY_IMO, BY_NAME_ONLY)).status == "loaded"
    snapshot = _newest()

    report = list_updates.rescreen_for_edition(snapshot.pk)
    assert report.affected_hulls == 2 and report.runs_opened == 2
    done = _run_out_of_cycle()
    assert {run.monitor_id for run in done} == {watched["by_imo"], watched["by_name"]}  # not the untouched hull
    assert all(run.status == RunStatus.COMPLETED and run.list_snapshot_id == snapshot.pk for run in done)

    (by_imo,) = _changes(demo.GREEN_CLEAN)
    assert [
        (c["label"], c["previous"], c["current"]) for c in by_imo["changes"] if c["label"] == "Sanctions status"
    ] == [("Sanctions status", "GREEN", "RED")]
    assert by_imo["trigger"]["source"] == "ofac_sdn" and by_imo["trigger"]["list_snapshot_id"] == snapshot.pk
    (by_name,) = _changes(demo.GREEN_GRADE_B)  # found through the names of the monitored hulls
    assert [c["current"] for c in by_name["changes"] if c["label"] == "Sanctions status"] == ["AMBER"]
    assert not _changes(demo.GREEN_GRADE_C)

    records = Screening.objects.filter(origin=Screening.Origin.LIST_UPDATE)
    assert records.count() == 2 and not records.filter(unit_charged=True).exists()
    units_after = sum(MeteringEvent.objects.filter(account=watched["account"]).values_list("units", flat=True))
    assert units_after == units_before  # nothing charged
    assert MeteringEvent.objects.filter(account=watched["account"]).count() >= charged_before
    monitor = VesselMonitor.objects.get(pk=watched["by_imo"])
    assert monitor.next_run_at is not None and monitor.next_run_at > snapshot.retrieved_at  # daily slot unmoved

    exposure = client.get(f"/api/v1/fleets/{fleet['id']}/exposure", HTTP_AUTHORIZATION=f"Bearer {watched['raw']}")
    statuses = {hull["imo"]: hull["sanctions_status"] for hull in exposure.json()["hulls"]}
    assert statuses == {demo.GREEN_CLEAN: "RED", demo.GREEN_GRADE_C: "GREEN"}  # the fleet reads the new record

    (told,) = Event.objects.filter(type="sanctions_list.updated")
    assert told.account_id == watched["account"].pk
    assert told.data["source"] == "ofac_sdn" and told.data["added"] == 2 and told.data["removed"] == 0
    assert told.data["monitored_hulls_rescreened"] == 2

    again = list_updates.rescreen_for_edition(snapshot.pk)  # a redelivered message
    assert again.runs_opened == 0 and Event.objects.filter(type="sanctions_list.updated").count() == 1


def test_a_delisting_moves_the_hull_back_to_green_through_the_same_path(watched):
    _load(_edition(BY_IMO))
    list_updates.rescreen_for_edition(_newest().pk)
    _run_out_of_cycle()
    assert VesselMonitor.objects.get(pk=watched["by_imo"]).baseline_verdict["sanctions"]["status"] == "RED"

    assert _load(_edition()).status == "loaded"  # the listing is removed
    snapshot = _newest()
    assert snapshot.removed == 1
    report = list_updates.rescreen_for_edition(snapshot.pk)
    assert report.affected_hulls == 1
    _run_out_of_cycle()
    delisted = _changes(demo.GREEN_CLEAN)[-1]
    assert [(c["previous"], c["current"]) for c in delisted["changes"] if c["label"] == "Sanctions status"] == [
        ("RED", "GREEN")
    ]
    assert delisted["trigger"]["list_snapshot_id"] == snapshot.pk


def test_an_empty_or_truncated_edition_produces_no_diff_and_re_screens_nobody(watched):
    before = SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE, source="ofac_sdn").get()
    truncated = {"sdn": ("\n".join(STANDING[:3]) + "\n").encode()}  # lost nearly every row
    outcome = _load(truncated)
    assert outcome.status == "failed" and "refused" in outcome.detail
    assert _load({"sdn": b""}).status == "failed"
    assert _newest().pk == before.pk  # the previous edition keeps serving
    assert not VesselMonitorRun.objects.filter(trigger=VesselMonitorRun.Trigger.LIST_UPDATE).exists()
    assert not Event.objects.filter(type="sanctions_list.updated").exists()


def test_the_inverted_matcher_finds_what_a_screening_would_match_by_name_and_nothing_else(watched):
    """Each probe listing is matched both ways: the monitored-names index (inverted) against every
    monitored hull's names, and a screening's forward search of each hull's names against the listing."""
    index = list_updates.monitored_index(recheck=True)
    hull_names, _ = list_updates._hull_names()  # the registers' names and former names of the watched hulls
    assert "DEMO FJORD GUARDIAN" in hull_names[demo.GREEN_CLEAN]
    probes = [
        ("DEMO ATLANTIC WREN", "vessel"),
        ("DEMO ATLANTIK WREN", "vessel"),  # one letter off
        ("ATLANTIC", "vessel"),  # a fragment is not the hull's name
        ("DEMO FJORD GUARDIAN", "entity"),
        ("DEMO FJORD GUARDIEN", "entity"),  # one letter off a 19-letter name: the typo rule's 92
        ("DEMO FJORD GUARD", "entity"),  # under the entity cutoff
        ("FJORD GUARDIAN DEMO", "vessel"),  # the same words reordered
        ("DEMO", "vessel"),  # a short name only ever matches exactly
    ]
    for name, record_type in probes:
        listing = ListedRecord("ofac_sdn", record_type, name, source_record_id="probe")
        forward = SanctionsIndex.build([listing], version="probe")
        expected = {
            imo
            for imo, names in hull_names.items()
            for hull_name in names
            if any(
                hit.record is listing
                for hit in match_hull(forward, imo=imo, mmsi=None, names=[hull_name], chosen_name=hull_name)
            )
        }
        payload = {"source": "ofac_sdn", "record_type": record_type, "name": name, "source_record_id": "probe"}
        assert set(list_updates.affected_hulls({"added": [payload]}, index)) == expected, name
    assert set(list_updates.affected_hulls({"added": [{"source": "ofac_sdn", "record_type": "vessel",
                                                        "name": "DEMO ATLANTIK WREN"}]}, index)) == {demo.GREEN_GRADE_B}  # fmt: skip


@pytest.mark.skipif(not (SHARED_OFAC / "sdn-2022-05-08.csv").exists(), reason="needs ../shared/data/ofac")
def test_two_real_ofac_editions_re_screen_only_hulls_whose_listings_changed(demo_world, client, issue_key):
    older = (SHARED_OFAC / "sdn-2022-04-06.csv").read_bytes()
    newer = (SHARED_OFAC / "sdn-2022-05-08.csv").read_bytes()
    assert _load({"sdn": older}).status == "loaded"
    raw = issue_key("live", email="real-lists@example.com")
    # Watch the hulls of every vessel listing in the newer file that the older one lacks or lists differently,
    # plus hulls whose listings did not change at all.
    from screening.ingest import edition_diff
    from screening.sources.ofac import parse_sdn_csv

    diff = edition_diff(parse_sdn_csv(older).records, parse_sdn_csv(newer).records)
    touched = sorted({r["imo"] for part in ("added", "removed") for r in diff[part] if r.get("imo")}
                     | {c[side]["imo"] for c in diff["changed"] for side in ("before", "after") if c[side].get("imo")})  # fmt: skip
    assert touched, "the two real editions differ in at least one hull listing"
    unchanged = [r.imo for r in parse_sdn_csv(newer).records if r.imo and r.imo not in touched][:3]
    for imo in [*touched[:3], *unchanged]:
        _watch(client, raw, imo)
    assert _load({"sdn": newer}).status == "loaded"
    snapshot = _newest()
    assert snapshot.diff is not None and snapshot.added + snapshot.removed + snapshot.changed > 0
    list_updates.rescreen_for_edition(snapshot.pk)
    rescreened = {
        run.monitor.imo for run in VesselMonitorRun.objects.filter(trigger="list_update").select_related("monitor")
    }
    assert set(touched[:3]) <= rescreened
    assert not rescreened & set(unchanged) - set(touched)


def test_the_monitored_index_is_written_once_and_mapped_by_other_processes(watched):
    """A process that needs the index loads the one another process wrote (its arrays mapped), and
    finds what the builder finds: the blocking keys hash the same in every process."""
    version = list_updates._index_version()
    folder = list_updates._folder_for(version)
    built = list_updates._build_index(version)
    assert (folder / "COMPLETE").exists()
    loaded = list_updates.MonitoredHulls.load(folder, repr(version))
    assert isinstance(loaded.names.names, PackedNames) and isinstance(loaded.imos, np.memmap)
    for name in ("DEMO ATLANTIK WREN", "DEMO FJORD GUARDIAN", "ATLANTIC"):
        assert loaded.imos_named(name, cutoff=90.0) == built.imos_named(name, cutoff=90.0)
    assert loaded.imos_named("DEMO ATLANTIK WREN", cutoff=90.0) == {demo.GREEN_GRADE_B}
    elsewhere = subprocess.run(
        [sys.executable, "-c", "from screening.index import _key_hash; print(_key_hash('t:ATLANTIC'))"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert int(elsewhere.stdout) == _key_hash("t:ATLANTIC")
