"""Voyage batches end to end through a real Celery worker process (the configured broker and database)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from metering.models import QuotaCounter

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parent.parent.parent


def _database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{settings.get('HOST') or '127.0.0.1'}:{settings.get('PORT') or 5432}/{settings['NAME']}"


@pytest.fixture
def worker():
    env = {**os.environ, "DATABASE_URL": _database_url(), "DJANGO_SETTINGS_MODULE": "config.settings"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def _wait_for_terminal(client, keyed, key, batch_id, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/voyage-assessment-batches/{batch_id}", **keyed(key)).json()
        if body["status"] in {"completed", "partial", "failed"}:
            return body
        time.sleep(0.5)
    raise AssertionError(f"batch {batch_id} still {body['status']} after {timeout} s")


def test_a_batch_runs_on_a_worker_and_only_accepted_routes_reserve_quota(worker, issue_key, client, keyed):
    key = issue_key("test")
    routes = [
        {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
        {"route": {"origin": "NLRTM", "destination": "SGSIN"}},
        {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}},
    ]
    response = client.post(
        "/api/v1/voyage-assessment-batches",
        data={"routes": routes},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="batch-1",
        **keyed(key),
    )
    assert response.status_code == 202
    created = response.json()
    assert created["status"] == "queued" and created["accepted_count"] == 2
    assert QuotaCounter.objects.get().used == 2
    done = _wait_for_terminal(client, keyed, key, created["id"])
    assert done["status"] == "partial"
    items = client.get(f"/api/v1/voyage-assessment-batches/{created['id']}/items", **keyed(key)).json()
    statuses = [item["status"] for item in items["items"]]
    assert statuses.count("succeeded") == 2 and statuses.count("rejected") == 1
    assessment_id = next(item["assessment"]["id"] for item in items["items"] if item["status"] == "succeeded")
    assert client.get(f"/api/v1/voyage-assessments/{assessment_id}", **keyed(key)).status_code == 200
    assert QuotaCounter.objects.get().used == 2


def test_more_routes_than_the_cap_are_refused_before_anything_is_reserved(issue_key, client, keyed):
    key = issue_key("test")
    routes = [{"route": {"origin": "NLRTM", "destination": "DEHAM"}}] * 11
    response = client.post(
        "/api/v1/voyage-assessment-batches",
        data={"routes": routes},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="batch-2",
        **keyed(key),
    )
    assert response.status_code == 422
    assert not QuotaCounter.objects.filter(used__gt=0).exists()
