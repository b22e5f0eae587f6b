"""Voyage batches end to end through a real Celery worker process (on the test database; on the embedded
default a broker folder of its own, tests/support/worker.py)."""

from __future__ import annotations

import time

import pytest

from metering.models import QuotaCounter
from tests.support.worker import private_broker, start_worker, stop_worker, worker_log

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker(tmp_path):
    with private_broker(tmp_path / "broker") as broker_env:
        process = start_worker(broker_env)
        yield process
        stop_worker(process)
        if process.returncode not in (0, -15):
            print(worker_log(process)[-5000:])


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
