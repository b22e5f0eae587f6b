"""refresh_sources: local files become serving snapshots atomically; a bad file changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from screening import datastate, demo
from screening.models import SourceSnapshot
from screening.sources_rows import sanctions_source_rows

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "sources" / "fixtures"


def run(*args: str) -> None:
    call_command("refresh_sources", *args, stdout=open("/dev/null", "w"))


def test_a_loaded_watchlist_changes_the_next_screening(demo_world, issue_key, screen, tmp_path):
    key = issue_key("test")
    assert screen(key, demo.GREEN_CLEAN).json()["sanctions"]["status"] == "GREEN"
    target = tmp_path / "ua.csv"
    target.write_text((FIXTURES / "ua.csv").read_text().replace("9074729", demo.GREEN_CLEAN))
    run("--source", "ua_war_sanctions", "--file", str(target))
    datastate.invalidate()
    body = screen(key, demo.GREEN_CLEAN).json()
    assert body["sanctions"]["status"] == "AMBER"
    assert body["vetting"]["score_floor"]["basis"] == "watchlist_exact_imo"


def test_a_broken_file_is_recorded_as_failed_and_the_previous_copy_keeps_serving(demo_world, tmp_path):
    before = SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)
    broken = tmp_path / "SDN.CSV"
    broken.write_text("this is not the sdn list\n")
    with pytest.raises(CommandError):
        run("--source", "ofac_sdn", "--file", f"sdn={broken}")
    assert SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE) == before
    failed = SourceSnapshot.objects.filter(source="ofac_sdn", status=SourceSnapshot.Status.FAILED).get()
    assert "parse failed" in failed.message
    datastate.invalidate()
    row = next(r for r in sanctions_source_rows(datastate.current()) if r["source"] == "ofac_sdn")
    assert row["status"] == "ok" and "Last refresh failed" in row["message"]


def test_the_same_file_twice_is_unchanged(db, tmp_path):
    target = tmp_path / "ua.csv"
    target.write_bytes((FIXTURES / "ua.csv").read_bytes())
    run("--source", "ua_war_sanctions", "--file", str(target))
    run("--source", "ua_war_sanctions", "--file", str(target))
    assert SourceSnapshot.objects.filter(source="ua_war_sanctions").count() == 1


def test_register_imports_name_hulls_for_identity(demo_world, issue_key, screen):
    run("--source", "paris_mou_thetis", "--kind", "particulars", "--file", str(FIXTURES / "particulars.csv"))
    run("--source", "paris_mou_thetis", "--kind", "inspections", "--file", str(FIXTURES / "inspections.csv"))
    datastate.invalidate()
    body = screen(issue_key("test"), "9074729").json()
    assert body["vessel_name"] == "FIXTURE REGISTERED" and body["identity_basis"] == "sources"
    assert body["vetting"]["detention_count"] == 1


def test_the_real_ofac_file_loads(db, shared_data):
    run("--source", "ofac_sdn", "--file", f"sdn={shared_data / 'ofac' / 'sdn-2024-05-03.csv'}")
    datastate.invalidate()
    state = datastate.current()
    assert state.sanctions.records_by_imo("7406784")[0].name == "EBANO"


def test_unknown_sources_are_refused(db):
    with pytest.raises(CommandError, match="unknown source"):
        run("--source", "lloyds_list", "--file", str(FIXTURES / "ua.csv"))


def test_unlocode_aliases_load_and_resolve(db, shared_data, client):
    call_command(
        "refresh_sources",
        "--unlocode-aliases",
        str(shared_data / "unlocode" / "alias.csv"),
        stdout=open("/dev/null", "w"),
    )
    from voyages import ports

    ports.invalidate()
    first = client.get("/api/v1/ports", {"query": "Kobenhavn"}).json()["ports"][0]
    assert first["locode"] == "DKCPH"


def test_from_dir_loads_every_recognised_official_file(db, shared_data):
    run("--from-dir", str(shared_data))
    active = set(SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE).values_list("source", flat=True))
    assert {"ofac_sdn", "un_sanctions"} <= active
    from voyages.models import LayerSnapshot

    layers = set(LayerSnapshot.objects.filter(status=LayerSnapshot.Status.ACTIVE).values_list("layer", flat=True))
    assert {"piracy_asam", "piracy_imb", "port_aliases"} <= layers


def test_a_load_that_fails_midway_leaves_nothing_behind_and_the_previous_copy_serving(demo_world):
    from screening.ingest import BULK_BATCH, IngestError, load_snapshot
    from screening.models import ListedEntry
    from screening.records import RECORD_VESSEL, ListedRecord, ParsedSnapshot

    before = SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)
    rows_before = ListedEntry.objects.count()
    good = [
        ListedRecord(source="ofac_sdn", record_type=RECORD_VESSEL, name=f"GOOD {n}", source_record_id=str(n))
        for n in range(BULK_BATCH + 5)
    ]
    # A value JSON cannot hold, in the second batch: the database write fails after the first batch went in.
    poisoned = ListedRecord(source="ofac_sdn", record_type=RECORD_VESSEL, name="POISON", programs=(object(),))
    with pytest.raises(IngestError):
        load_snapshot(ParsedSnapshot("ofac_sdn", records=[*good, poisoned]), data_checksum="midway")
    assert SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE) == before
    assert ListedEntry.objects.count() == rows_before
    assert SourceSnapshot.objects.filter(source="ofac_sdn", status=SourceSnapshot.Status.FAILED).exists()


def test_a_download_that_answers_html_or_times_out_is_a_failure_not_a_snapshot(db, monkeypatch, settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = True  # the portal here is served on 127.0.0.1
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from screening import refresh

    class Html(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            body = b"<html><body>Service unavailable</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Html)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("SOURCE_URL_UK_SANCTIONS_CSV", f"http://127.0.0.1:{server.server_address[1]}/list.csv")
    try:
        outcome = refresh.refresh_source(refresh.source_for("uk_sanctions", None))
    finally:
        server.shutdown()
    assert outcome.status == "failed" and "HTML" in outcome.detail
    assert not SourceSnapshot.objects.filter(source="uk_sanctions", status=SourceSnapshot.Status.ACTIVE).exists()
