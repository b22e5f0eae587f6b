"""Revocation takes effect on the next request (contract 5.5) in every deployment, under real
concurrent requests: with Redis (a request in flight during the revocation must not put the old
key row back into the shared cache) and on the embedded default with several web processes on
one SQLite file and no Redis (no process may keep its own copy of the key for seconds)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests
from django.test import Client

from accounts.models import ApiKey
from accounts.services import revoke_key

ROOT = Path(__file__).resolve().parent.parent.parent
USAGE = "/api/v1/usage"


def _lookup(raw: str) -> str:
    from accounts import keys

    return keys.parse(raw).lookup


def _hammer(raw: str, start: threading.Barrier, revoked: threading.Event, results: list) -> None:
    client = Client()
    start.wait()
    for _ in range(8):
        began = time.monotonic()
        status = client.get(USAGE, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code
        results.append((began, status))  # list.append is atomic
        if revoked.is_set() and status == 401:
            break


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (the shared key cache)")
@pytest.mark.django_db(transaction=True)
def test_a_request_in_flight_during_revocation_never_puts_the_key_back_in_the_redis_cache(issue_key):
    """Many rounds: fresh key, eight threads calling it, revocation lands mid-burst. Every request
    that starts after revoke_key returned, in any round, must be 401."""
    late_successes = []
    for round_number in range(40):
        raw = issue_key(email=f"race{round_number}@example.com")
        key = ApiKey.objects.get(lookup=_lookup(raw))
        revoked = threading.Event()
        results: list[tuple[float, int]] = []
        start = threading.Barrier(9)
        threads = [threading.Thread(target=_hammer, args=(raw, start, revoked, results)) for _ in range(8)]
        for thread in threads:
            thread.start()
        start.wait()
        time.sleep(random.uniform(0.0, 0.08))  # lands among the burst's first requests (cache misses)
        revoke_key(key)
        revoked_at = time.monotonic()
        revoked.set()
        for thread in threads:
            thread.join(30)
        after = Client().get(USAGE, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code
        late = [status for began, status in results if began > revoked_at and status != 401]
        if after != 401 or late:
            late_successes.append((round_number, after, late))
    assert not late_successes, (
        f"a revoked key kept working after revocation (round, next status, late): {late_successes}"
    )


# -- the embedded default: two web processes, one SQLite file, no Redis -----------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the web process exited at start"
        try:
            if requests.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} did not come up")


@pytest.fixture
def two_processes_on_one_sqlite_file():
    """Two gunicorn processes (one worker each) serving one SQLite file, without Redis."""
    folder = Path(tempfile.mkdtemp(prefix="revocation-"))
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "CELERY_BROKER_URL")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{folder / 'service.sqlite3'}",
            "ACCESS_LOG_MODE": "async",
            "PYTHONUNBUFFERED": "1",
        }
    )
    _manage(env, "migrate", "--no-input")
    raw = _manage(env, "issue_key", "--email", "two-processes@example.com", "--environment", "test")
    raw = raw.strip().splitlines()[-1]
    servers = []
    try:
        for index in range(2):
            port = _free_port()
            log = open(folder / f"gunicorn-{index}.log", "ab")  # noqa: SIM115
            process = subprocess.Popen(
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
                    "60",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            servers.append((process, f"http://127.0.0.1:{port}", log))
        for process, url, _ in servers:
            _wait_healthy(url, process)
        yield env, raw, [url for _, url, _ in servers]
    finally:
        for process, _, log in servers:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
            log.close()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def test_revocation_reaches_every_process_on_the_embedded_default(two_processes_on_one_sqlite_file):
    env, raw, urls = two_processes_on_one_sqlite_file
    headers = {"Authorization": f"Bearer {raw}"}
    for url in urls:  # both processes have seen (and may have cached) the key
        assert requests.get(f"{url}{USAGE}", headers=headers, timeout=10).status_code == 200

    stop = threading.Event()
    revoked_at = [float("inf")]
    results: list[tuple[str, float, int]] = []
    lock = threading.Lock()

    def hammer(url: str) -> None:
        session = requests.Session()
        while not stop.is_set():
            began = time.monotonic()
            status = session.get(f"{url}{USAGE}", headers=headers, timeout=10).status_code
            with lock:
                results.append((url, began, status))
            time.sleep(0.1)

    threads = [threading.Thread(target=hammer, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    try:
        time.sleep(0.3)
        revoking_from = time.monotonic()
        # A third process revokes, as the admin or `issue_key --replace-label` would.
        _manage(
            env,
            "shell",
            "-c",
            "from accounts.models import ApiKey; from accounts.services import revoke_key; "
            "[revoke_key(k) for k in ApiKey.objects.all()]",
        )
        revoked_at[0] = time.monotonic()
        time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(20)
    before = [status for _, began, status in results if began < revoking_from]
    assert before and all(status == 200 for status in before), "the key did not work before revocation"
    late = [(url, status) for url, began, status in results if began > revoked_at[0] and status != 401]
    assert not late, f"requests after the revocation still succeeded: {late[:5]} ({len(late)} in all)"
    for url in urls:
        assert requests.get(f"{url}{USAGE}", headers=headers, timeout=10).status_code == 401
