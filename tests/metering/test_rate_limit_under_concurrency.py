"""X-RateLimit-Remaining is the count of the one window every web process shares (issue 18 defect 6).

The service runs as production serves the API (gunicorn, several worker processes, each with
threads) on the test database: with Redis when REDIS_URL is set, otherwise on the embedded
default, where the processes share the window through a file beside the SQLite database. N
requests sent at once by one key get N distinct values, 119 down to 120 - N, and the 121st request
of the minute is refused whichever process answers it.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

import pytest

from tests.support.server import running_service

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

WORKER_PROCESSES = 3


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
    with running_service({"GUNICORN_THREADS": "4"}, timeout=90, server="gunicorn", workers=WORKER_PROCESSES) as url:
        first = _send_at_once(url, raw, 40)
        assert [status for status, _ in first] == [200] * 40
        assert sorted(int(remaining) for _, remaining in first) == list(range(80, 120))  # 119 .. 80, each once

        second = _send_at_once(url, raw, 90)  # 80 more fit in the minute; 10 are refused
        statuses = [status for status, _ in second]
        assert statuses.count(200) == 80 and statuses.count(429) == 10
        admitted = sorted(int(remaining) for status, remaining in second if status == 200)
        assert admitted == list(range(0, 80))
        assert {remaining for status, remaining in second if status == 429} == {"0"}
