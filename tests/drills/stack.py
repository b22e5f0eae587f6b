"""Fault drills on the production shape: our own PostgreSQL and Redis, started by the test on free
ports, the real gunicorn app and (optionally) a real Celery worker on them. gunicorn and the worker
run the shipped Procfile's `web` and `worker` commands (deploy/procfile.py), so the drills exercise
what production runs.

Tests stop, kill and restart these servers for real; the machine's own PostgreSQL and Redis are
never touched. A live register served by the test process can hold a screening mid-flight (the
`gate`), so a fault lands at a chosen point of a real request.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import requests

from deploy.procfile import command_for, with_virtualenv_path

ROOT = Path(__file__).resolve().parent.parent.parent


def postgres_bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def missing_tools() -> str | None:
    """Why drills cannot run here, or None."""
    if postgres_bin_dir() is None:
        return "PostgreSQL server binaries (pg_ctl, initdb) are not installed"
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up within {timeout} s")


def start_from_procfile(
    name: str,
    env: dict[str, str],
    log_path: Path,
    extra: tuple[str, ...] = (),
    new_session: bool = False,
) -> subprocess.Popen:
    """Start the Procfile's process `name` in the project folder, as a supervisor would.

    Its program comes from this Python's virtualenv; `extra` arguments are appended to the command
    (a later option overrides the same option earlier in the line); output goes to `log_path`.
    """
    environment = with_virtualenv_path(env)
    with open(log_path, "ab") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            command_for(name, environment, extra),
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=new_session,
        )


def _port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class DrillPostgres:
    """A throwaway cluster in `folder`, trust auth, listening on 127.0.0.1:`port` only."""

    def __init__(self, folder: Path) -> None:
        self.bin = postgres_bin_dir()
        self.data = folder / "pgdata"
        self.socket_dir = folder / "pgsock"
        self.port = free_port()
        self.log = folder / "postgres.log"
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        self._as_postgres = os.geteuid() == 0
        for path in (folder.parent, folder, self.socket_dir):
            path.chmod(0o755)  # the postgres user must reach its data folder
        if self._as_postgres:  # initdb refuses to run as root
            shutil.chown(folder, "postgres")
            shutil.chown(self.socket_dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.start()
        self._run(
            "createdb",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "drill",
        )

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/drill"

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            "start",
        )

    def stop(self, mode: str = "immediate") -> None:
        """Stop the server: `immediate` drops every connection at once, like a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def is_up(self) -> bool:
        return _port_open(self.port)

    def ensure_up(self) -> None:
        if not self.is_up():
            self.start()

    def sql(self, statement: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            cursor = connection.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def destroy(self) -> None:
        try:
            self.stop()
        except Exception:
            pass


class DrillRedis:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait(lambda: _port_open(self.port), 20, "redis-server")

    def stop(self) -> None:
        """Kill the server (nothing is kept: a restart comes back empty, like the machine's Redis)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None
        _wait(lambda: not _port_open(self.port), 10, "redis-server shutdown")

    def restart(self) -> None:
        self.stop()
        self.start()

    def is_up(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ensure_up(self) -> None:
        if not self.is_up():
            self.start()

    def destroy(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)


class RegisterGate:
    """A live register that names any hull, but only once the test opens the gate.

    `arrived` is set when the app is inside its screening (waiting on this register); the test
    then lands its fault and calls `open()` to let the screening go on.
    """

    NAME = "DRILL GATED HULL"

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.released = threading.Event()
        self.released.set()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                imo = parse_qs(urlparse(self.path).query).get("imo", [""])[0]
                gate.arrived.set()
                gate.released.wait(120)
                body = json.dumps({"imo": imo, "name": gate.NAME}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/register"

    def close(self) -> None:
        """The next screening that reaches the register waits until open()."""
        self.arrived.clear()
        self.released.clear()

    def wait_arrival(self, timeout: float = 60) -> None:
        if not self.arrived.wait(timeout):
            raise AssertionError("the screening never reached the gated live register")

    def open(self) -> None:
        self.released.set()

    def shutdown(self) -> None:
        self.released.set()
        self.server.shutdown()


class DrillStack:
    """PostgreSQL + Redis + gunicorn (+ a Celery worker on demand) for one drill session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.server: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.postgres = DrillPostgres(folder / "pg")
        self.redis = DrillRedis(folder)
        self.gate = RegisterGate()
        try:
            self._prepare()
        except BaseException:  # a stack that fails to start must not leave its servers running
            self.destroy()
            raise

    def _prepare(self) -> None:
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": self.redis.url,
            "CELERY_BROKER_URL": self.redis.url,
            "IDEMPOTENCY_JOIN_HOLD_SECONDS": "3",
            "LIVE_REGISTER_URL_CLASSSOC_VESSEL_REGISTER": self.gate.url,
            "LIVE_REGISTER_BUDGET_SECONDS": "90",
            "OUTBOUND_ALLOW_LOOPBACK": "1",
            "ACCESS_LOG_MODE": "async",
            "DB_POOL_MAX_SIZE": "10",  # the production default (bin/test turns the pool off for pytest)
            "PYTHONUNBUFFERED": "1",
        }
        self.manage("migrate", "--no-input")
        self.manage("seed_demo")
        self.live_key = (
            self.manage("issue_key", "--email", "drill@example.com", "--environment", "live", "--opened", "2026-09-01")
            .strip()
            .splitlines()[-1]
        )
        self.port = free_port()
        self.start_server()

    # -- processes ------------------------------------------------------------------------
    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_server(self) -> None:
        """The Procfile's `web` (gunicorn with config/gunicorn.conf.py): one worker of 8 threads here.

        A drill holds requests for up to 90 s at the gated register: the worker timeout is raised so
        gunicorn never recycles a worker under a drill, and a stop takes 5 s, not the shipped 30.
        """
        env = {**self.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": "1", "GUNICORN_THREADS": "8"}
        self.server = start_from_procfile(
            "web", env, self.folder / "gunicorn.log", extra=("--timeout", "120", "--graceful-timeout", "5")
        )
        _wait(self._healthy, 120, "gunicorn")

    def _healthy(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    def _ready(self) -> bool:
        try:
            return requests.get(f"{self.url}/readyz", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def start_worker(self, *extra: str) -> subprocess.Popen:
        """The Procfile's `worker`, in one process (`--pool=solo`) so a SIGKILL to its group is a lost worker.

        Each gets its own node name; `extra` arguments follow the Procfile's and override them.
        """
        env = {**self.env, "CELERY_NODE_NAME": f"drill{len(self.workers) + 1}", "CELERY_LOG_LEVEL": "WARNING"}
        worker = start_from_procfile(
            "worker",
            env,
            self.folder / "worker.log",
            extra=("--pool=solo", "--without-heartbeat", *extra),
            new_session=True,
        )
        self.workers.append(worker)
        return worker

    def kill_worker(self, worker: subprocess.Popen) -> None:
        """SIGKILL, as an out-of-memory kill or a lost machine would: nothing is acknowledged."""
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)

    # -- calls ------------------------------------------------------------------------------
    def headers(self, idempotency_key: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.live_key}", "Content-Type": "application/json"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        return headers

    def post(self, path: str, body: dict, idempotency_key: str, timeout: float = 120) -> requests.Response:
        return requests.post(
            f"{self.url}{path}", data=json.dumps(body), headers=self.headers(idempotency_key), timeout=timeout
        )

    def get(self, path: str, timeout: float = 60) -> requests.Response:
        return requests.get(f"{self.url}{path}", headers=self.headers(), timeout=timeout)

    def units_used(self, kind: str = "screening") -> int:
        rows = self.postgres.sql(
            f"SELECT coalesce(sum(used), 0) FROM accounts_quotacounter WHERE kind = '{kind}' AND environment = 'live'"
        )
        return int(rows[0][0])

    def restore(self) -> None:
        """Bring every server back after a drill (the next drill starts from a healthy stack)."""
        self.gate.open()
        self.postgres.ensure_up()
        self.redis.ensure_up()
        if self.server is None or self.server.poll() is not None:
            self.start_server()
        _wait(self._healthy, 120, "gunicorn")
        # After an outage the app's connection pool reconnects with backoff: a drill starts only
        # once the app reaches its database, cache and broker again.
        _wait(self._ready, 90, "gunicorn readiness (database, Redis, broker)")

    def destroy(self) -> None:
        self.gate.shutdown()
        for worker in self.workers:
            if worker.poll() is None:
                try:
                    os.killpg(worker.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.server.kill()
        self.redis.destroy()
        self.postgres.destroy()
        shutil.rmtree(self.folder, ignore_errors=True)  # the cluster's files: tens of MB per session
