"""Drill: a Celery worker SIGKILLed in the middle of a screening batch item and of an export.

The kill lands at the worst point: inside the transaction that writes the item's result (the
screening inserted and its unit drawn; the export's file already renamed into place), held there by
a row lock the drill takes on the item, so the worker is killed with its write pending and its
connection dropped (as PostgreSQL does on finding a client gone). Expected, and checked: the sweep
(run as beat runs it, as if the lease had run out) queues the item again, a fresh worker runs it,
the job ends completed; the screening batch leaves no screening without its item and charges each
hull exactly once (its INCOMPLETE hull refunded); the export
completes once (one export.completed event, one file holding every row).
"""

from __future__ import annotations

import itertools
import time

import psycopg
import pytest
import redis
import requests

from screening import demo
from tests.drills.extra import issue_keys, keyed_headers, run_beat_sweeps, wait_until, workers

pytestmark = pytest.mark.slow

SCREENING_LEASE_SECONDS = 120  # SCREENING_BATCH_ITEM_LEASE_SECONDS
EXPORT_LEASE_SECONDS = 900  # EXPORT_ITEM_LEASE_SECONDS
TERMINAL = {"completed", "partial", "failed"}
_stems = itertools.count(990_000 + (int(time.time()) % 500) * 20)


def fresh_imo() -> str:
    """A valid IMO no store names: its screening asks the drill's gated live register."""
    return demo.imo_from_stem(next(_stems))


def lock_waiters(drill, statement: str, table: str, timeout: float = 60) -> list[tuple]:
    """The backends waiting on a lock the drill holds, in a `statement` (SELECT, UPDATE) on `table`."""
    query = (
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'drill' "
        f"AND query LIKE '{statement} %\"{table}\"%'"
    )
    return wait_until(lambda: drill.postgres.sql(query), timeout, f"no worker waited on {table}")  # type: ignore[return-value]


def kill_while_waiting(drill, worker, table: str) -> None:
    """SIGKILL the worker once its update of `table` waits, then drop its connection, whose pending
    write must never go through."""
    waiting = lock_waiters(drill, "UPDATE", table)
    drill.kill_worker(worker)
    for (pid,) in waiting:
        drill.postgres.sql(f"SELECT pg_terminate_backend({pid})")


def account_units(drill, account: str) -> int:
    rows = drill.postgres.sql(
        f"SELECT coalesce(sum(used), 0) FROM accounts_quotacounter WHERE account_id = '{account}' AND kind = 'screening'"
    )
    return int(rows[0][0])


def drain_broker(drill) -> None:
    """Drop whatever earlier drills left on the broker (re-sent duplicates), so the worker this
    drill starts takes this drill's messages only."""
    redis.Redis.from_url(drill.redis.url).delete("celery")


def poll(base_url: str, key: str, path: str) -> dict:
    response = requests.get(f"{base_url}{path}", headers=keyed_headers(key), timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_worker_killed_inside_a_screening_batch_item_charges_each_hull_once(drill):
    (key,) = issue_keys(drill, 1, prefix="kill-screening-batch")
    (account,) = drill.postgres.sql(
        "SELECT id FROM accounts_account WHERE email = 'kill-screening-batch-0@example.com'"
    )[0]
    items = [{"imo": fresh_imo()}, {"imo": fresh_imo()}, {"imo": demo.BAD_CHECK_DIGIT}]
    drain_broker(drill)
    drill.gate.close()
    response = requests.post(
        f"{drill.url}/api/v1/screening-batches",
        json={"items": items},
        headers=keyed_headers(key, "kill-batch"),
        timeout=60,
    )
    assert response.status_code == 202, response.text
    batch = response.json()["id"]
    assert account_units(drill, account) == 3, "each hull reserves its unit at creation"

    with workers(drill) as start:
        first = start()
        drill.gate.wait_arrival(90)  # the worker is inside the first hull's screening
        with psycopg.connect(drill.postgres.url) as holder:
            holder.execute("SELECT id FROM screening_screeningbatchitem WHERE batch_id = %s FOR UPDATE", (batch,))
            drill.gate.open()  # the screening goes on, draws its unit and waits to write the item
            kill_while_waiting(drill, first, "screening_screeningbatchitem")
            holder.rollback()
        (written,) = drill.postgres.sql(f"SELECT count(*) FROM screening_screening WHERE account_id = '{account}'")[0]
        assert written == 0, "the killed worker's screening was committed without its item"

        report = run_beat_sweeps(drill, later_by=SCREENING_LEASE_SECONDS + 1)
        start()
        status = wait_until(
            lambda: (
                (found := poll(drill.url, key, f"/api/v1/screening-batches/{batch}")["status"]) in TERMINAL and found
            ),
            90,
            "the batch never ended",
            every=1,  # the polls stay well within the key's 120 requests a minute
        )

    rows = poll(drill.url, key, f"/api/v1/screening-batches/{batch}/items")["items"]
    summary = (
        f"status={status} sweep={report} items={[(row['status'], row.get('screening', {}).get('id')) for row in rows]}"
    )
    assert status == "completed", summary
    assert report["jobs"]["screening_batch"]["redispatched"] >= 1, summary
    assert [row["status"] for row in rows] == ["succeeded", "succeeded", "succeeded"], summary
    verdicts = [row["screening"]["sanctions"]["status"] for row in rows]
    assert verdicts == ["GREEN", "GREEN", "INCOMPLETE"], summary
    screenings = drill.postgres.sql(
        f"SELECT id, unit_charged FROM screening_screening WHERE account_id = '{account}' ORDER BY id"
    )
    linked = sorted(row["screening"]["id"] for row in rows)
    assert sorted(found for found, _ in screenings) == linked, f"a screening without its item: {summary}"
    charged = sum(1 for _, flag in screenings if flag)
    assert account_units(drill, account) == charged == 2, f"units {account_units(drill, account)}: {summary}"
    (attempts,) = drill.postgres.sql(
        f"SELECT max(attempts) FROM screening_screeningbatchitem WHERE batch_id = '{batch}'"
    )[0]
    assert attempts == 2, "the killed hull ran a second time"


def test_a_worker_killed_as_an_export_completes_leaves_one_completed_export(drill):
    (key,) = issue_keys(drill, 1, prefix="kill-export")
    (account,) = drill.postgres.sql("SELECT id FROM accounts_account WHERE email = 'kill-export-0@example.com'")[0]
    for imo in (demo.GREEN_CLEAN, demo.RED_OFAC):
        screened = requests.post(
            f"{drill.url}/api/v1/screenings",
            json={"imo": imo},
            headers=keyed_headers(key, f"kill-export-{imo}"),
            timeout=60,
        )
        assert screened.status_code == 201, screened.text
    drain_broker(drill)
    response = requests.post(
        f"{drill.url}/api/v1/exports",
        json={"resource": "screenings", "format": "jsonl"},
        headers=keyed_headers(key, "kill-export"),
        timeout=60,
    )
    assert response.status_code == 202, response.text
    export = response.json()["id"]

    with workers(drill) as start:
        # Hold the worker at its first read of the rows (after its claim), then hold the item's row
        # and let it go on: it writes and renames the file, then waits to mark the item succeeded.
        with psycopg.connect(drill.postgres.url) as reads, psycopg.connect(drill.postgres.url) as item:
            reads.execute("LOCK TABLE screening_screening IN ACCESS EXCLUSIVE MODE")
            first = start()
            lock_waiters(drill, "SELECT", "screening_screening")
            item.execute("SELECT id FROM exports_exportitem WHERE export_id = %s FOR UPDATE", (export,))
            reads.rollback()
            kill_while_waiting(drill, first, "exports_exportitem")
            item.rollback()
        assert poll(drill.url, key, f"/api/v1/exports/{export}")["status"] == "running"

        report = run_beat_sweeps(drill, later_by=EXPORT_LEASE_SECONDS + 1)
        start()
        done = wait_until(
            lambda: (found := poll(drill.url, key, f"/api/v1/exports/{export}"))["status"] in TERMINAL and found,
            90,
            "the export never ended",
            every=1,
        )

    summary = f"{done} sweep={report}"
    assert done["status"] == "completed", summary
    assert report["jobs"]["export"]["redispatched"] == 1, summary
    (events,) = drill.postgres.sql(
        "SELECT count(*) FROM webhooks_event WHERE type = 'export.completed' "
        f"AND account_id = '{account}' AND data->>'export_id' = '{export}'"
    )[0]
    assert events == 1, f"export.completed emitted {events} times"
    url = done["download_url"] if done["download_url"].startswith("http") else f"{drill.url}{done['download_url']}"
    download = requests.get(url, headers=keyed_headers(key), timeout=60)
    assert download.status_code == 200, download.text
    assert len(download.content.splitlines()) == done["row_count"] == done["rows_written"] == 2, summary
