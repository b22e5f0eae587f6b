"""Drill: the access log keeps every keyed request's entry through a PostgreSQL outage.

Keyed requests run before, during and after a real stop of the drill's PostgreSQL (an immediate
stop drops every connection, like a crash). Each request carries its own X-Request-Id; once the
database is back, every one of them must be in accounts_accesslogentry exactly once (issue 19,
item 5: the async writer used to drop a batch it could not write; a sync write that failed
turned the answer into an error).

Timing: the key lookup is cached in Redis for 30 s, so the outage must end within 30 s of the
last request made with the database up (later requests could not be authenticated, so they
would not be keyed requests). Each drill first spends its own key's rate window (120/minute)
with the database up, so that during the outage requests answer 429 from Redis alone and
never wait on the database (with PostgreSQL down, borrowing a connection from the pool takes
its 10 s timeout).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.drills.stack import ROOT, free_port

pytestmark = pytest.mark.slow

PATH = "/api/v1/usage"
RATE_PER_MINUTE = 120  # the per-key rate limit
KEY_CACHE_SECONDS = 30  # how long a key lookup is cached in Redis
CLIENTS = 8
# The outage outlasts two of the writer's attempts (each waits the pool's 10 s for a connection)
# and ends inside the key cache; each client sends about ten requests a second meanwhile.
OUTAGE_SECONDS = 21
CLIENT_PAUSE_SECONDS = 0.1
AFTER = 40
CATCH_UP_SECONDS = 30


def _own_key(drill) -> str:
    """A key of its own, so this drill's requests (and its rate window) touch no other drill's key."""
    email = f"access-log-drill-{uuid.uuid4().hex[:8]}@example.com"
    return drill.manage("issue_key", "--email", email, "--environment", "test").strip().splitlines()[-1]


def _send(base_url: str, key: str, request_id: str) -> int:
    headers = {"Authorization": f"Bearer {key}", "X-Request-Id": request_id}
    try:
        response = requests.get(f"{base_url}{PATH}", headers=headers, timeout=60)
    except requests.RequestException:
        return 0
    assert response.headers.get("X-Request-Id") == request_id, "the app must echo our request id"
    return response.status_code


def _logged(drill, prefix: str) -> dict[str, int]:
    rows = drill.postgres.sql(
        "SELECT request_id, count(*) FROM accounts_accesslogentry "
        f"WHERE request_id LIKE '{prefix}%' GROUP BY request_id"
    )
    return {request_id: int(count) for request_id, count in rows}


def _wait_logged(drill, prefix: str, expected: int) -> dict[str, int]:
    deadline = time.monotonic() + CATCH_UP_SECONDS
    logged = _logged(drill, prefix)
    while time.monotonic() < deadline and len(logged) < expected:
        time.sleep(0.5)
        logged = _logged(drill, prefix)
    return logged


def _verdict(ids: list[str], logged: dict[str, int]) -> tuple[list[str], dict[str, int]]:
    missing = [request_id for request_id in ids if request_id not in logged]
    doubled = {request_id: count for request_id, count in logged.items() if count != 1}
    return missing, doubled


def test_no_access_log_entry_is_lost_or_doubled_across_a_postgres_outage(drill):
    """ACCESS_LOG_MODE=async (the drill's gunicorn): entries are kept through the outage."""
    key = _own_key(drill)
    prefix = f"drill-alog-{uuid.uuid4().hex[:10]}-"
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    counter = iter(range(10**6))

    def send() -> None:
        request_id = f"{prefix}{next(counter):05d}"
        status = _send(drill.url, key, request_id)
        with lock:
            statuses[request_id] = status

    with ThreadPoolExecutor(CLIENTS) as pool:
        # The database up: the key lookup is cached and the rate window spent (all answer 200).
        started = time.monotonic()
        for future in [pool.submit(send) for _ in range(RATE_PER_MINUTE)]:
            future.result()
        assert Counter(statuses.values()) == {200: RATE_PER_MINUTE}, Counter(statuses.values())

        # Stop PostgreSQL at once: the last entries are still queued or being written.
        drill.postgres.stop()
        outage_started = time.monotonic()
        readiness: dict = {}

        def probe() -> None:
            response = requests.get(f"{drill.url}/readyz", timeout=60)
            readiness.update(status=response.status_code, body=response.json())

        prober = threading.Thread(target=probe)
        prober.start()

        def keep_sending() -> None:
            while time.monotonic() - outage_started < OUTAGE_SECONDS:
                send()
                time.sleep(CLIENT_PAUSE_SECONDS)

        for future in [pool.submit(keep_sending) for _ in range(CLIENTS)]:
            future.result()
        prober.join()
        drill.postgres.start()
        outage_seconds = time.monotonic() - outage_started
        during = len(statuses) - RATE_PER_MINUTE
        assert time.monotonic() - started < KEY_CACHE_SECONDS, (
            "the outage outran the key cache: later requests in it were not keyed requests"
        )

        for future in [pool.submit(send) for _ in range(AFTER)]:
            future.result()

    ids = sorted(statuses)
    assert all(statuses.values()), "every request must be answered"
    logged = _wait_logged(drill, prefix, len(ids))
    missing, doubled = _verdict(ids, logged)
    summary = (
        f"async: {len(ids)} keyed requests ({during} during a {outage_seconds:.1f} s PostgreSQL outage; "
        f"answers {sorted(Counter(statuses.values()).items())}): "
        f"{len(missing)} entries dropped, {len(doubled)} written more than once"
    )
    print(summary)
    assert not missing and not doubled, summary

    # /readyz during the outage: not ready (database), and the kept entries are reported...
    assert readiness["status"] == 503, readiness
    assert readiness["body"]["access_log"]["pending"] > 0, readiness
    # ...and after it, nothing waits and nothing was lost.
    after = requests.get(f"{drill.url}/readyz", timeout=30).json()
    assert after["access_log"] == {"pending": 0, "dropped": 0, "rejected": 0}, after


@pytest.fixture
def sync_server(drill):
    """A second gunicorn on the drill's PostgreSQL and Redis, writing the access log inline."""
    port = free_port()
    with open(drill.folder / "gunicorn-sync.log", "ab") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--threads",
                "4",
                "--worker-class",
                "gthread",
                "--timeout",
                "120",
            ],
            cwd=ROOT,
            env={**drill.env, "ACCESS_LOG_MODE": "sync"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return requests.get(f"{url}/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    try:
        deadline = time.monotonic() + 60
        while not healthy():
            assert server.poll() is None and time.monotonic() < deadline, "the sync-mode gunicorn did not come up"
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


def test_a_sync_write_that_fails_keeps_the_answer_and_the_entry(drill, sync_server):
    """ACCESS_LOG_MODE=sync with PostgreSQL down: the answer is not turned into an error, and the
    entries are written by the background writer once the database is back."""
    key = _own_key(drill)
    prefix = f"drill-alog-sync-{uuid.uuid4().hex[:10]}-"
    started = time.monotonic()
    with ThreadPoolExecutor(CLIENTS) as pool:
        warm = list(pool.map(lambda n: _send(sync_server, key, f"{prefix}warm-{n:03d}"), range(RATE_PER_MINUTE)))
    assert warm.count(200) == RATE_PER_MINUTE, Counter(warm)
    # The rate window is spent: with the database down the next requests answer 429 from Redis.
    drill.postgres.stop()
    # The first request pays the failed inline write (the pool's 10 s); the next ones queue
    # behind it for the writer and answer at once.
    outage = [f"{prefix}down-{n:03d}" for n in range(10)]
    statuses = [_send(sync_server, key, request_id) for request_id in outage]
    drill.postgres.start()
    elapsed = time.monotonic() - started
    print(f"sync mode, PostgreSQL down: answers {sorted(Counter(statuses).items())}, drill took {elapsed:.1f} s")
    assert statuses == [429] * len(outage), "a failed inline log write must not change the answer"
    assert elapsed < KEY_CACHE_SECONDS, f"the drill took {elapsed:.0f} s: the key cache and rate window moved on"

    logged = _wait_logged(drill, prefix, RATE_PER_MINUTE + len(outage))
    missing, doubled = _verdict(outage, logged)
    print(f"sync: {len(outage)} keyed requests during the outage: {len(missing)} entries dropped")
    assert not missing and not doubled, (missing, doubled)
