"""Fault drills for voyage batches: a real worker killed mid-item, a broker message lost with a Redis
restart, a batch left past its deadline with no worker (issue 19, item 4).

Each drill ends by counting what a customer would lose: a batch that never reaches completed,
partial or failed (stuck), an assessment no batch item points at (orphan), units kept for work
that was not done.

The sweep is run as beat would run it, by a management shell against the drill's database;
`later_by` runs it as if that many seconds had passed (a lease of 120 s, a deadline of 30 min).
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg
import pytest
import redis

pytestmark = pytest.mark.slow

BATCHES = "/api/v1/voyage-assessment-batches"
ROUTES = [
    {"route": {"origin": "NLRTM", "destination": "SGSIN"}},
    {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
    {"route": {"origin": "USNYC", "destination": "JPTYO"}},
]
TERMINAL = {"completed", "partial", "failed"}
LOCK_WAITERS = "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'drill'"
LEASE_SECONDS = 120  # the service's default VOYAGE_BATCH_ITEM_LEASE_SECONDS
DEADLINE_SECONDS = 1800  # the service's default VOYAGE_BATCH_DEADLINE_SECONDS


class WeatherGate:
    """A weather forecast service that holds each request until opened (then answers 503).

    A worker pointed at it stops inside an item's assessment, after the item was taken and
    before anything is written: the drill lands its fault there.
    """

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.released = threading.Event()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                gate.arrived.set()
                gate.released.wait(120)
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/forecast"

    def shutdown(self) -> None:
        self.released.set()
        self.server.shutdown()


@contextmanager
def workers(drill):
    """Start workers (optionally with extra environment); every one is stopped at the end."""
    started = []

    def start(**env: str):
        saved = dict(drill.env)
        drill.env.update(env)
        try:
            worker = drill.start_worker()
        finally:
            drill.env.clear()
            drill.env.update(saved)
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            if worker.poll() is None:
                drill.kill_worker(worker)


def create_batch(drill, key: str, routes=ROUTES) -> dict:
    response = drill.post(BATCHES, {"routes": routes}, idempotency_key=key)
    assert response.status_code == 202, response.text
    return response.json()


def sweep(drill, later_by: float = 0) -> dict:
    out = drill.manage(
        "shell",
        "-c",
        "import json; from datetime import timedelta; from django.utils import timezone; "
        "from voyages.batches import sweep; "
        f"print(json.dumps(sweep(timezone.now() + timedelta(seconds={later_by})).as_dict()))",
    )
    return json.loads(out.strip().splitlines()[-1])


def wait_for_terminal(drill, batch_id: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while True:
        status = drill.get(f"{BATCHES}/{batch_id}").json()["status"]
        if status in TERMINAL or time.monotonic() > deadline:
            return status
        time.sleep(0.5)


def figures(drill, batch_id: str) -> dict:
    """What the batch cost and left behind, read from the database."""
    (created_at,) = drill.postgres.sql(f"SELECT created_at FROM voyages_voyagebatch WHERE id = '{batch_id}'")[0]
    items = drill.postgres.sql(
        f"SELECT status, assessment_id FROM voyages_voyagebatchitem WHERE batch_id = '{batch_id}'"
    )
    (written,) = drill.postgres.sql(
        f"SELECT count(*) FROM voyages_voyageassessment WHERE assessed_at >= '{created_at.isoformat()}'"
    )[0]
    (orphans,) = drill.postgres.sql(
        "SELECT count(*) FROM voyages_voyageassessment a WHERE assessed_at >= "
        f"'{created_at.isoformat()}' AND NOT EXISTS "
        "(SELECT 1 FROM voyages_voyagebatchitem i WHERE i.assessment_id = a.id)"
    )[0]
    return {
        "succeeded": sum(1 for status, _ in items if status == "succeeded"),
        "linked": sum(1 for _, assessment in items if assessment),
        "assessments": written,
        "orphans": orphans,
        "item_statuses": sorted(status for status, _ in items),
    }


def queue_length(drill) -> int:
    return redis.Redis.from_url(drill.redis.url).llen("celery")


def test_a_worker_killed_mid_item_leaves_no_orphan_and_a_fresh_worker_completes_the_batch(drill):
    gate = WeatherGate()
    units_before = drill.units_used("assessment")
    try:
        with workers(drill) as start:
            first = start(
                WEATHER_FORECAST_URL=gate.url,
                WEATHER_FORECAST_BUDGET_SECONDS="120",
                VOYAGE_BATCH_ITEM_LEASE_SECONDS="3",
                OUTBOUND_ALLOW_LOOPBACK="1",  # the gate listens on 127.0.0.1
            )
            batch = create_batch(drill, "drill-batch-kill")
            assert gate.arrived.wait(90), "the worker never started the first item"

            # Land the kill after the assessment is written and before its item's status is: hold
            # the batch's item rows, let the assessment go on and, once the worker waits to write
            # the status, kill it and drop its connection (as PostgreSQL does on finding a client
            # gone), so the pending write never goes through.
            with psycopg.connect(drill.postgres.url) as holder:
                holder.execute("SELECT id FROM voyages_voyagebatchitem WHERE batch_id = %s FOR UPDATE", (batch["id"],))
                gate.released.set()
                deadline = time.monotonic() + 30
                while not (waiting := drill.postgres.sql(LOCK_WAITERS)):
                    assert time.monotonic() < deadline, "the worker never reached the item's status write"
                    time.sleep(0.05)
                drill.kill_worker(first)
                for (pid,) in waiting:
                    drill.postgres.sql(f"SELECT pg_terminate_backend({pid})")
                holder.rollback()

            time.sleep(3.5)  # the killed worker's lease (3 s) runs out
            report = sweep(drill)
            start()
            status = wait_for_terminal(drill, batch["id"])
    finally:
        gate.shutdown()

    found = figures(drill, batch["id"])
    units = drill.units_used("assessment") - units_before
    summary = f"status={status} units={units} {found} sweep={report}"
    assert status == "completed", f"stuck batch: {summary}"
    assert report["redispatched"] >= 1, summary
    assert found["orphans"] == 0, f"orphan assessments: {summary}"
    assert found["assessments"] == found["succeeded"] == found["linked"] == 3, summary
    assert units == 3, summary


def test_a_batch_whose_messages_were_lost_with_a_redis_restart_is_resent_by_the_sweep(drill):
    units_before = drill.units_used("assessment")
    batch = create_batch(drill, "drill-batch-lost")
    drill.redis.restart()  # Redis keeps nothing: the batch's messages are gone
    assert queue_length(drill) == 0

    with workers(drill) as start:
        start()
        report = sweep(drill, later_by=LEASE_SECONDS + 1)
        status = wait_for_terminal(drill, batch["id"])

    found = figures(drill, batch["id"])
    units = drill.units_used("assessment") - units_before
    summary = f"status={status} units={units} {found} sweep={report}"
    assert status == "completed", f"stuck batch: {summary}"
    assert report["redispatched"] == 3, summary
    assert found["orphans"] == 0 and found["assessments"] == found["succeeded"] == 3, summary
    assert units == 3, summary


def test_a_batch_past_its_deadline_with_no_worker_ends_failed_and_its_units_are_refunded(drill):
    units_before = drill.units_used("assessment")
    routes = [*ROUTES[:2], {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}}]
    batch = create_batch(drill, "drill-batch-deadline", routes)
    assert drill.units_used("assessment") - units_before == 2  # the rejected route reserved nothing

    report = sweep(drill, later_by=DEADLINE_SECONDS + 1)
    status = drill.get(f"{BATCHES}/{batch['id']}").json()["status"]
    items = drill.get(f"{BATCHES}/{batch['id']}/items").json()["items"]

    summary = f"status={status} units={drill.units_used('assessment') - units_before} sweep={report}"
    assert status == "failed", f"stuck batch: {summary}"
    assert report["expired"] == 2, summary
    assert [item["error"]["code"] for item in items] == ["deadline_exceeded", "deadline_exceeded", "validation_failed"]
    assert drill.units_used("assessment") - units_before == 0, summary

    # The batch's messages are still on the broker: a worker that comes late changes nothing.
    with workers(drill) as start:
        start()
        deadline = time.monotonic() + 60
        while queue_length(drill):
            assert time.monotonic() < deadline, "the late worker never took the stale messages"
            time.sleep(0.2)
        time.sleep(1)
    found = figures(drill, batch["id"])
    assert drill.get(f"{BATCHES}/{batch['id']}").json()["status"] == "failed"
    assert found["assessments"] == found["orphans"] == 0, found
    assert drill.units_used("assessment") - units_before == 0
