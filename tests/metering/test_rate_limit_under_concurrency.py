"""X-RateLimit-Remaining is the count of the one window every web process shares (issue 18 defect 6).

The service runs as production serves the API (gunicorn, several worker processes, each with
threads) on the test database: with Redis when REDIS_URL is set, otherwise on the embedded
default, where the processes share the window through a file beside the SQLite database. N
requests sent at once by one key get N distinct values, 119 down to 120 - N, and the 121st request
of the minute is refused whichever process answers it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.worker import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent.parent
WORKER_PROCESSES = 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


@contextmanager
def gunicorn_with_several_workers(timeout: float = 90) -> Iterator[str]:
    """config.wsgi under the shipped gunicorn settings with WORKER_PROCESSES processes."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "PUBLIC_BASE_URL": url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ACCESS_LOG_MODE": "sync",
        "DB_POOL_MAX_SIZE": "0",
        "GUNICORN_THREADS": "4",
    }
    log = tempfile.NamedTemporaryFile(prefix="svc-gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
    command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}",
               "--workers", str(WORKER_PROCESSES), "config.wsgi:application"]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while not _up(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start:\n{Path(log.name).read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        os.unlink(log.name)


def _send_at_once(url: str, raw_key: str, count: int) -> list[tuple[int, str | None]]:
    """`count` GET /api/v1/usage by one key, each on its own connection, released together."""
    start = threading.Barrier(count)
    answers: list[tuple[int, str | None]] = []
    lock = threading.Lock()

    def send() -> None:
        request = urllib.request.Request(f"{url}/api/v1/usage", headers={"Authorization": f"Bearer {raw_key}"})
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = (response.status, response.headers["X-RateLimit-Remaining"])
        except urllib.error.HTTPError as refused:
            answer = (refused.code, refused.headers["X-RateLimit-Remaining"])
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=send) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_concurrent_requests_by_one_key_get_distinct_remaining_values_across_worker_processes(issue_key):
    raw = issue_key()
    with gunicorn_with_several_workers() as url:
        first = _send_at_once(url, raw, 40)
        assert [status for status, _ in first] == [200] * 40
        assert sorted(int(remaining) for _, remaining in first) == list(range(80, 120))  # 119 .. 80, each once

        second = _send_at_once(url, raw, 90)  # 80 more fit in the minute; 10 are refused
        statuses = [status for status, _ in second]
        assert statuses.count(200) == 80 and statuses.count(429) == 10
        admitted = sorted(int(remaining) for status, remaining in second if status == 200)
        assert admitted == list(range(0, 80))
        assert {remaining for status, remaining in second if status == 429} == {"0"}
