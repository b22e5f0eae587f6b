"""Request threads never import redis lazily: a fresh web process whose first requests reach the
Django cache and the shared state at the same moment must not break its redis package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_REQUESTS_AT_ONCE = r"""
import threading
from config.wsgi import application  # what a gunicorn worker loads before its threads start
from django.core.cache import cache

failures = []


def note(exc):
    # Redis not answering is fine here (none may run); an import failure or a half-imported package is not.
    if not type(exc).__module__.startswith("redis."):
        failures.append(repr(exc))

start = threading.Barrier(16)

def through_cache():
    start.wait()
    try:
        cache.get("probe")
    except Exception as exc:
        note(exc)

def through_shared_state():
    start.wait()
    try:
        from metering import shared_state

        shared_state.redis_client().ping()
    except Exception as exc:
        note(exc)

threads = [threading.Thread(target=through_cache if n % 2 else through_shared_state) for n in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("FAILURES", failures)
"""


def test_first_requests_reaching_the_cache_and_shared_state_at_once_do_not_break_redis():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15",
    }
    for _ in range(4):  # the race broke 6 fresh processes in 8 before redis was imported on load
        finished = subprocess.run(
            [sys.executable, "-c", FIRST_REQUESTS_AT_ONCE], cwd=ROOT, env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert finished.returncode == 0, finished.stderr[-2000:]
        assert "FAILURES []" in finished.stdout, finished.stdout[-2000:]
