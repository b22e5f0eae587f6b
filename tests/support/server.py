"""The service running for real (uvicorn serving config.asgi) on the test database, for tests whose
clients must talk to it over real HTTP (the MCP SDK clients)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.worker import database_url

ROOT = Path(__file__).resolve().parent.parent.parent


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
def running_service(
    extra_env: dict[str, str] | None = None, timeout: float = 60, *, server: str = "uvicorn", workers: int = 1
) -> Iterator[str]:
    """Start the service on a free port; yields its base URL and stops it after the block.

    server "uvicorn": config.asgi (API, pages and /mcp), as bin/run serves them. server "gunicorn":
    config.wsgi with the shipped config/gunicorn.conf.py and `workers` processes, as production
    serves the API.
    """
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
        **(extra_env or {}),
    }
    log = tempfile.NamedTemporaryFile(prefix="svc-uvicorn-", suffix=".log", delete=False)  # noqa: SIM115
    commands = {
        "uvicorn": ["uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
                    "--lifespan", "on", "--log-level", "warning"],
        "gunicorn": ["gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                     "config.wsgi:application"],
    }  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", *commands[server]], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + timeout
        while not _up(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{server} did not start:\n{Path(log.name).read_text(errors='replace')[-3000:]}")
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
