"""An evidence-pack export written by a real Celery worker process (issue 28 "Done means")."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from exports.models import Export
from screening import demo
from screening.evidence import canonical_json
from tests.support.worker import private_broker, start_worker, stop_worker, wait_until, worker_log

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_worker_writes_the_zip_of_evidence_packs_and_it_downloads_whole(
    demo_world, client, issue_key, tmp_path, settings
):
    settings.EXPORT_DIR = tmp_path / "exports"
    raw = issue_key("live", email="evidence-export@example.com")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    records = [
        client.post("/api/v1/screenings", data={"imo": imo}, content_type="application/json",
                    HTTP_IDEMPOTENCY_KEY=f"ev-{imo}", **auth).json()
        for imo in (demo.RED_OFAC, demo.AMBER_NAME_ONLY)
    ]  # fmt: skip
    with private_broker(tmp_path / "broker") as broker_env:
        worker = start_worker({**broker_env, "EXPORT_DIR": str(tmp_path / "exports")}, log_path=tmp_path / "w.log")
        try:
            created = client.post(
                "/api/v1/exports", data={"resource": "screening_evidence", "format": "zip"},
                content_type="application/json", HTTP_IDEMPOTENCY_KEY="ev-export", **auth,
            )  # fmt: skip
            assert created.status_code == 202, created.content
            export_id = created.json()["id"]
            try:
                wait_until(lambda: Export.objects.get(pk=export_id).file_name, 60, "the export's file")
            except AssertionError:
                print(worker_log(worker)[-4000:])
                raise
        finally:
            stop_worker(worker)
    response = client.get(f"/api/v1/exports/{export_id}/download", **auth)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == sorted(f"{record['id']}.json" for record in records)
    for record in records:
        pack = json.loads(archive.read(f"{record['id']}.json"))
        assert pack["record"] == record
        unsigned = {name: value for name, value in pack.items() if name != "sha256"}
        assert pack["sha256"] == hashlib.sha256(canonical_json(unsigned)).hexdigest()
