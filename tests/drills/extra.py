"""What the fault drills need beyond tests/drills/stack.py: keys of their own, a second gunicorn on the
drill's servers with its own settings, a live register that fails on demand, workers started with
extra environment, and the beat's sweeps run as beat runs them.

Everything here runs against the DrillStack's own PostgreSQL and Redis (never the machine's).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import requests

from tests.drills.stack import DrillStack, free_port, start_from_procfile


def issue_keys(drill: DrillStack, count: int, *, prefix: str, environment: str = "live") -> list[str]:
    """`count` keys, each on a paid account of its own opened 2026-09-01 (a monthly allowance of 5,000
    live screenings, no free-account pause), so a drill's clients never share a rate window or an
    in-flight ceiling. One management command for all of them (each manage.py start costs a second)."""
    script = (
        "import json, datetime; from accounts.services import issue_key; "
        f"print(json.dumps([issue_key(email=f'{prefix}-{{n}}@example.com', environment='{environment}', "
        "plan='paid', opened_on=datetime.date(2026, 9, 1))[2] "
        f"for n in range({count})]))"
    )
    return json.loads(drill.manage("shell", "-c", script).strip().splitlines()[-1])


def account_ids(drill: DrillStack, prefix: str) -> list[str]:
    rows = drill.postgres.sql(f"SELECT id FROM accounts_account WHERE email LIKE '{prefix}-%'")
    return [row[0] for row in rows]


def keyed_headers(key: str, idempotency_key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    return headers


def is_retryable_503(response: requests.Response) -> bool:
    """A 503 in the service's JSON envelope with a positive Retry-After (contract 7: never HTML)."""
    if response.status_code != 503:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return (
        isinstance(body, dict)
        and bool(body.get("code"))
        and bool(body.get("request_id"))
        and response.headers.get("Retry-After", "").isdigit()
        and int(response.headers["Retry-After"]) > 0
    )


class ExtraServer:
    """Another gunicorn on the drill's PostgreSQL and Redis, with its own settings and worker count."""

    def __init__(self, drill: DrillStack, *, workers: int = 1, threads: int = 4, **env: str) -> None:
        self.port = free_port()
        self.log_path = drill.folder / f"gunicorn-extra-{self.port}.log"
        # The production command (the Procfile's `web`: config/gunicorn.conf.py), on a port of its own.
        environment = {
            **drill.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": str(workers),
            "GUNICORN_THREADS": str(threads), **env,
        }  # fmt: skip
        self.process = start_from_procfile(
            "web", environment, self.log_path, extra=("--timeout", "120", "--graceful-timeout", "5")
        )
        deadline = time.monotonic() + 120  # a shared machine may take a minute to boot the workers
        while not self._healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the extra gunicorn did not come up (see {self.log_path})")
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _healthy(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class ScriptedRegister:
    """A live register whose behaviour the drill sets: `name` answers the hull's name (the control),
    `error` answers 500, `hang` holds the request `hang_seconds` (past the service's budget), `drop`
    closes the connection without a word."""

    NAME = "DRILL REGISTER HULL"
    MODES = ("name", "error", "hang", "drop")

    def __init__(self, hang_seconds: float = 6.0) -> None:
        self.mode = "name"
        self.hang_seconds = hang_seconds
        self.requests = 0
        register = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                register.requests += 1
                mode = register.mode
                if mode == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if mode == "hang":
                    time.sleep(register.hang_seconds)
                if mode == "error":
                    body, status = b'{"error": "register down"}', 500
                else:
                    imo = parse_qs(urlparse(self.path).query).get("imo", [""])[0]
                    body, status = json.dumps({"imo": imo, "name": register.NAME}).encode(), 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the service gave up waiting first
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/register"

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def dead_url(path: str = "/") -> str:
    """A loopback URL nothing listens on (connection refused)."""
    return f"http://127.0.0.1:{free_port()}{path}"


@contextmanager
def workers(drill: DrillStack) -> Iterator[Callable[..., subprocess.Popen]]:
    """`start(**env)` starts a Celery worker with extra environment; every one is killed at the end."""
    started: list[subprocess.Popen] = []

    def start(**env: str) -> subprocess.Popen:
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


def run_beat_sweeps(drill: DrillStack, *, later_by: float = 0) -> dict:
    """The beat's recovery tasks (jobs.sweep, webhooks.sweep) run once, as beat would run them, by a
    management shell on the drill's servers; `later_by` runs them as if that many seconds had passed
    (leases of 120 s and more, a webhook re-send after 120 s)."""
    out = drill.manage(
        "shell",
        "-c",
        "import json; from datetime import timedelta; from django.utils import timezone; "
        "from jobs.flow import sweep_all; from webhooks import delivery; "
        f"now = timezone.now() + timedelta(seconds={later_by}); "
        "print(json.dumps({'jobs': sweep_all(now), 'webhooks': delivery.sweep(now).as_dict()}))",
    )
    return json.loads(out.strip().splitlines()[-1])


def wait_until(predicate: Callable[[], object], timeout: float, what: str, every: float = 0.3) -> object:
    """The first truthy value of `predicate()`, or AssertionError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(every)
