"""A real Celery worker process on the test database, for tests that run tasks end to end.

    with private_broker(tmp_path / "broker") as broker_env:
        worker = start_worker({**broker_env, "SOME_SETTING": "1"})
        ...
        stop_worker(worker)            # or stop_worker(worker, kill=True): SIGKILL, nothing acknowledged

The worker runs the service's own Celery app (`config.celery`) with `--pool=solo` on the database
the test sees (`database_url()`: the SQLite test file or the PostgreSQL test database), so a
`pytest.mark.django_db(transaction=True)` test and the worker read each other's commits.

On the embedded default the broker is a folder (`filesystem://` under var/celery-broker), which
every test run and `bin/run` on the machine share: a worker there may take another run's messages,
and ours may go to another run's worker. `private_broker(folder)` moves this process's Celery app
to a broker folder of the test's own and returns the environment that puts the worker on the same
folder. With Redis (REDIS_URL / CELERY_BROKER_URL) nothing changes: give the run a database index
of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from config.celery import app

ROOT = Path(__file__).resolve().parent.parent.parent
BROKER_DIR_ENV = "TEST_CELERY_BROKER_DIR"  # read by this module when a worker is started on it
WORKER_APP = "tests.support.worker"  # this module: the service's app, on the folder above when set


def filesystem_broker_options(folder: Path) -> dict:
    """The transport options of config/settings.py's filesystem broker, under `folder`."""
    for sub in ("in", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(folder / "in"),
        "data_folder_out": str(folder / "in"),
        "processed_folder": str(folder / "processed"),
        "control_folder": str(folder / "control"),
        "store_processed": False,
    }


def _uses_filesystem_broker() -> bool:
    return str(app.conf.broker_url or "").startswith("filesystem")


def _forget_broker_connections() -> None:
    """The next message this process sends opens a connection with the app's current options.

    The old pool is dropped, not closed: kombu keeps producer pools in a process-wide registry, and a
    closed one left there fails every later send ("Acquire on closed pool").
    """
    app._pool = None  # noqa: SLF001 - Celery keeps its connection pool here
    app.amqp._producer_pool = None  # noqa: SLF001


if os.environ.get(BROKER_DIR_ENV):  # a worker started by start_worker() on a private broker
    app.conf.broker_transport_options = filesystem_broker_options(Path(os.environ[BROKER_DIR_ENV]))


@contextmanager
def private_broker(folder: Path) -> Iterator[dict[str, str]]:
    """This process sends its tasks to a broker folder of its own while the block runs.

    Yields the environment (for `start_worker`) that puts a worker on the same broker. With a
    server broker (Redis) nothing is changed and the environment is empty.
    """
    if not _uses_filesystem_broker():
        yield {}
        return
    previous = app.conf.broker_transport_options
    app.conf.broker_transport_options = filesystem_broker_options(folder)
    _forget_broker_connections()
    try:
        yield {BROKER_DIR_ENV: str(folder)}
    finally:
        app.conf.broker_transport_options = previous
        _forget_broker_connections()


def database_url() -> str:
    """DATABASE_URL of the database this test process is on (the test database)."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{settings.get('PORT') or 5432}/{settings['NAME']}"


def start_worker(extra_env: dict, *, log_path: Path | None = None) -> subprocess.Popen:
    """A Celery worker (`--pool=solo`, its own process group) on the test database.

    Its output goes to `log_path` (a temporary file by default), named by the process's
    `log_path` attribute; `worker_log(process)` reads it.
    """
    from django.conf import settings

    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": settings.SECRET_KEY,  # so key hashes and anything signed agree with this process
        "PYTHONUNBUFFERED": "1",
        **{name: str(value) for name, value in extra_env.items()},
    }
    if log_path is None:
        handle, name = tempfile.mkstemp(prefix="celery-worker-", suffix=".log")
        os.close(handle)
        log_path = Path(name)
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                WORKER_APP if env.get(BROKER_DIR_ENV) else "config",
                "worker",
                "--pool=solo",
                "--loglevel=WARNING",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # stop_worker signals the whole group
        )
    process.log_path = log_path  # type: ignore[attr-defined]
    return process


def worker_log(process: subprocess.Popen) -> str:
    try:
        return Path(process.log_path).read_text(errors="replace")  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return ""


def stop_worker(process: subprocess.Popen, *, kill: bool = False, timeout: float = 20) -> None:
    """SIGTERM (a warm shutdown) and wait, SIGKILL after `timeout`; `kill=True` sends SIGKILL at
    once, as an out-of-memory kill or a lost machine would: nothing is acknowledged or recorded."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)
    else:
        process.wait()


def wait_until(predicate, timeout: float, what: str, every: float = 0.2, on_each=None):  # type: ignore[no-untyped-def]
    """Poll `predicate` (calling `on_each` first each round, e.g. the sweep beat would run) until it
    returns something truthy; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if on_each is not None:
            on_each()
        found = predicate()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(every)
