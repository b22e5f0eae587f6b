"""Exports (issue 15 item 4): CSV and JSON Lines files of a resource's records matching its list filters,
written by the jobs layer's worker body, streamed on download, scoped by the exported resource's scope,
expiring after their retention, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import zipfile
from datetime import timedelta

import pytest
from django.utils import timezone

from exports import services
from exports.models import Export, ExportItem
from exports.production import KIND
from jobs import flow
from metering.models import IdempotencyRecord
from screening import demo
from screening.evidence import canonical_json
from webhooks.models import Event

pytestmark = pytest.mark.django_db
_keys = itertools.count()
EXPORTS = "/api/v1/exports"


@pytest.fixture(autouse=True)
def _export_dir(settings, tmp_path):
    settings.EXPORT_DIR = tmp_path / "exports"


def _headers(raw: str, idempotent: bool = False) -> dict[str, str]:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    if idempotent:
        headers["HTTP_IDEMPOTENCY_KEY"] = f"exp-{next(_keys)}"
    return headers


def _post(client, raw: str, path: str, body: dict):  # type: ignore[no-untyped-def]
    return client.post(path, data=body, content_type="application/json", **_headers(raw, idempotent=True))


def _screen(client, raw: str, imo: str, **body) -> dict:  # type: ignore[no-untyped-def]
    response = _post(client, raw, "/api/v1/screenings", {"imo": imo, **body})
    assert response.status_code == 201, response.content
    return response.json()


def _export(client, raw: str, **body) -> dict:  # type: ignore[no-untyped-def]
    response = _post(client, raw, EXPORTS, body)
    assert response.status_code == 202, response.content
    return response.json()


def _run(export_id: str) -> str:
    """The worker's body for the export's one item (what jobs.run_item does on a worker)."""
    item = ExportItem.objects.get(export_id=export_id)
    return flow.run_item(KIND, item.pk)


def _download(client, raw: str, export_id: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(f"{EXPORTS}/{export_id}/download", **_headers(raw))
    assert response.status_code == 200, response.content
    assert response.streaming and "attachment" in response["Content-Disposition"]
    return b"".join(response.streaming_content).decode()


def test_a_csv_export_holds_exactly_the_filtered_records_and_neutralises_formula_cells(demo_world, client, issue_key):
    raw = issue_key("live")
    green = _screen(client, raw, demo.GREEN_CLEAN, customer_reference='=HYPERLINK("http://x")')
    _screen(client, raw, demo.RED_OFAC, customer_reference="@SUM(A1)")
    open_question = _screen(client, raw, demo.INCOMPLETE_IDENTITY, customer_reference="-2+3")

    every = _export(client, raw, resource="screenings", format="csv")
    assert every["status"] == "queued" and every["download_url"] is None
    assert _run(every["id"]) == flow.RUN_SUCCEEDED
    done = client.get(f"{EXPORTS}/{every['id']}", **_headers(raw)).json()
    assert done["status"] == "completed" and done["row_count"] == 3 and done["progress"] == 1.0
    assert done["download_url"] == f"{EXPORTS}/{every['id']}/download" and done["size_bytes"] > 0
    rows = list(csv.DictReader(io.StringIO(_download(client, raw, every["id"]))))
    assert {row["id"] for row in rows} == {green["id"], open_question["id"]} | {rows[1]["id"]}
    by_id = {row["id"]: row for row in rows}
    assert by_id[green["id"]]["sanctions.status"] == "GREEN" and by_id[green["id"]]["vetting.grade"] == "A"
    assert by_id[green["id"]]["customer_reference"] == '\'=HYPERLINK("http://x")'
    assert {row["customer_reference"] for row in rows} >= {"'@SUM(A1)", "'-2+3"}

    only_open = _export(
        client, raw, resource="screenings", format="csv", filters={"status": "INCOMPLETE", "superseded": False}
    )
    _run(only_open["id"])
    assert [row["id"] for row in csv.DictReader(io.StringIO(_download(client, raw, only_open["id"])))] == [
        open_question["id"]
    ]


def test_a_json_lines_export_carries_each_record_as_the_api_serves_it(demo_world, client, issue_key):
    raw = issue_key("live")
    record = _screen(client, raw, demo.AMBER_WATCHLIST)
    export = _export(client, raw, resource="screenings", format="jsonl")
    _run(export["id"])
    lines = _download(client, raw, export["id"]).splitlines()
    assert [json.loads(line) for line in lines] == [
        client.get(f"/api/v1/screenings/{record['id']}", **_headers(raw)).json()
    ]
    (event,) = Event.objects.filter(type="export.completed")
    assert event.data["export_id"] == export["id"] and event.data["status"] == "completed"


def test_the_access_log_exports_with_logs_read_and_each_export_needs_its_resources_scope(client, issue_key):
    raw = issue_key("live", email="ops@example.com")
    client.get("/api/v1/usage", **_headers(raw))
    log = _export(client, raw, resource="access_log", format="jsonl", filters={"path": "/api/v1/usage"})
    _run(log["id"])
    entries = [json.loads(line) for line in _download(client, raw, log["id"]).splitlines()]
    assert entries and all(entry["path"].startswith("/api/v1/usage") for entry in entries)

    screens_only = issue_key("live", email="ops@example.com", scopes=["vessel:screen"])
    refused = _post(client, screens_only, EXPORTS, {"resource": "access_log", "format": "csv"})
    assert refused.status_code == 403 and "logs:read" in refused.json()["message"]
    assert client.get(f"{EXPORTS}/{log['id']}", **_headers(screens_only)).status_code == 403
    assert client.get(EXPORTS, **_headers(screens_only)).json()["exports"] == []  # not its resource
    assert [row["id"] for row in client.get(EXPORTS, **_headers(raw)).json()["exports"]] == [log["id"]]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"resource": "screenings", "format": "csv", "filters": {"colour": "red"}}, "filters.colour"),
        ({"resource": "screenings", "format": "csv", "filters": {"status": "PURPLE"}}, "filters.status"),
        ({"resource": "screenings", "format": "csv", "filters": {"limit": "5"}}, "filters.limit"),
        ({"resource": "fleets", "format": "csv"}, "resource"),
        ({"resource": "screenings", "format": "xlsx"}, "format"),
    ],
)
def test_bad_export_input_is_422_naming_the_field_and_nothing_is_created(client, issue_key, body, field):
    response = _post(client, issue_key("live"), EXPORTS, body)
    assert response.status_code == 422, response.content
    assert response.json()["field_violations"][0]["field"] == field
    assert not Export.objects.exists() and not IdempotencyRecord.objects.exists()


def test_a_file_is_downloadable_only_once_completed_and_not_after_its_retention(demo_world, client, issue_key):
    raw = issue_key("live")
    _screen(client, raw, demo.GREEN_CLEAN)
    export = _export(client, raw, resource="screenings", format="csv")
    early = client.get(f"{EXPORTS}/{export['id']}/download", **_headers(raw))
    assert early.status_code == 409 and early.json()["code"] == "export_not_ready"
    _run(export["id"])
    _download(client, raw, export["id"])
    assert services.remove_expired_files(timezone.now() + timedelta(hours=25)) == 1
    expired = client.get(f"{EXPORTS}/{export['id']}", **_headers(raw)).json()
    assert expired["status"] == "expired" and expired["download_url"] is None
    gone = client.get(f"{EXPORTS}/{export['id']}/download", **_headers(raw))
    assert gone.status_code == 410 and gone.json()["code"] == "export_expired"


def test_delete_removes_the_export_and_its_file_and_other_owners_never_see_it(demo_world, client, issue_key, settings):
    raw = issue_key("live", email="owner@example.com")
    _screen(client, raw, demo.GREEN_CLEAN)
    export = _export(client, raw, resource="screenings", format="csv")
    _run(export["id"])
    files = list(settings.EXPORT_DIR.iterdir())
    assert len(files) == 1
    for other in (issue_key("test", email="owner@example.com"), issue_key("live", email="other@example.com")):
        assert client.get(f"{EXPORTS}/{export['id']}", **_headers(other)).status_code == 404
        assert client.get(f"{EXPORTS}/{export['id']}/download", **_headers(other)).status_code == 404
        assert client.get(EXPORTS, **_headers(other)).json()["exports"] == []
    deleted = client.delete(f"{EXPORTS}/{export['id']}", **_headers(raw, idempotent=True))
    assert deleted.status_code == 200 and deleted.json() == {"id": export["id"], "deleted": True}
    assert list(settings.EXPORT_DIR.iterdir()) == []
    assert client.get(f"{EXPORTS}/{export['id']}", **_headers(raw)).status_code == 404


def test_an_export_whose_worker_was_lost_is_written_again_by_the_sweep(demo_world, client, issue_key):
    raw = issue_key("live")
    _screen(client, raw, demo.GREEN_CLEAN)
    export = _export(client, raw, resource="screenings", format="jsonl")
    item = ExportItem.objects.get(export_id=export["id"])
    assert flow.claim(KIND, item.pk) is not None  # a worker takes it and dies mid-file
    report = flow.sweep(KIND, timezone.now() + timedelta(seconds=901))
    assert report.redispatched == 1
    assert _run(export["id"]) == flow.RUN_SUCCEEDED
    assert len(_download(client, raw, export["id"]).splitlines()) == 1


def test_cargo_screenings_export_with_their_own_scope(demo_world, client, issue_key):
    raw = issue_key("live", email="cargo@example.com")
    body = {
        "commodity": {"hs_code": "8471", "description": "Laptop computers"},
        "origin_country": "NL",
        "destination_country": "SG",
        "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
        "customer_reference": "+cargo",
    }
    record = _post(client, raw, "/api/v1/cargo-screenings", body).json()
    export = _export(client, raw, resource="cargo_screenings", format="csv")
    _run(export["id"])
    (row,) = csv.DictReader(io.StringIO(_download(client, raw, export["id"])))
    assert row["id"] == record["id"] and row["commodity.hs_code"] == "8471" and row["customer_reference"] == "'+cargo"
    no_cargo = issue_key("live", email="cargo@example.com", scopes=["vessel:screen"])
    refused = _post(client, no_cargo, EXPORTS, {"resource": "cargo_screenings", "format": "csv"})
    assert refused.status_code == 403 and "cargo:screen" in refused.json()["message"]


def test_evidence_packs_export_as_a_zip_of_one_verifiable_pack_per_filtered_record(demo_world, client, issue_key):
    raw = issue_key("live")
    red = _screen(client, raw, demo.RED_OFAC)
    _screen(client, raw, demo.GREEN_CLEAN)
    export = _export(client, raw, resource="screening_evidence", format="zip", filters={"status": "RED"})
    _run(export["id"])
    response = client.get(f"{EXPORTS}/{export['id']}/download", **_headers(raw))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.namelist() == [f"{red['id']}.json"]
    pack = json.loads(archive.read(f"{red['id']}.json"))
    assert pack["record"] == red and pack["kind"] == "screening_evidence"
    unsigned = {name: value for name, value in pack.items() if name != "sha256"}
    assert pack["sha256"] == hashlib.sha256(canonical_json(unsigned)).hexdigest()


def test_a_format_a_resource_does_not_export_as_is_422_and_creates_nothing(client, issue_key):
    raw = issue_key("live")
    for resource, format_ in (("screening_evidence", "csv"), ("screenings", "zip")):
        response = _post(client, raw, EXPORTS, {"resource": resource, "format": format_})
        assert response.status_code == 422 and response.json()["field_violations"][0]["field"] == "format"
    assert not Export.objects.exists()
