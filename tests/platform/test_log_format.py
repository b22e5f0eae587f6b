"""Issue 30 item 6: every process logs in one format (config/settings.py's LOGGING), and static files
under uvicorn no longer warn "StreamingHttpResponse must consume synchronous iterators"."""

from __future__ import annotations

import asyncio
import logging
import logging.config
import os
import re
import runpy
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest
from asgiref.testing import ApplicationCommunicator
from django.conf import settings

from tests.support.server import _free_port, _up
from tests.support.worker import ROOT, database_url

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+ ")
STATIC = "/static/admin/css/base.css"


def plain_format() -> str:
    return settings.LOGGING["formatters"]["plain"]["format"]


def logging_goes_to_stdout() -> bool:
    return settings.LOGGING["handlers"]["console"].get("stream") == "ext://sys.stdout"


def test_static_files_under_asgi_stream_without_the_sync_iterator_warning():
    from config.asgi import application

    async def get() -> tuple[int, bytes]:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": STATIC, "raw_path": STATIC.encode(), "query_string": b"",
                 "root_path": "", "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5000),
                 "server": ("127.0.0.1", 8000)}  # fmt: skip
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await communicator.receive_output(10)
        body = b""
        while True:
            message = await communicator.receive_output(10)
            body += message.get("body", b"")
            if not message.get("more_body"):
                return start["status"], body

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, body = asyncio.run(get())
    assert status == 200 and b"{" in body  # the stylesheet, whole
    assert not [w for w in caught if "synchronous iterators" in str(w.message)]


def test_uvicorn_logs_through_the_service_handler():
    import uvicorn.config

    logging.config.dictConfig(uvicorn.config.LOGGING_CONFIG)  # what uvicorn sets up before importing the app
    from config.asgi import route_uvicorn_logs

    route_uvicorn_logs()
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        assert logger.handlers == [] and logger.propagate, name


def test_gunicorn_logs_in_the_service_format_on_stdout():
    conf = runpy.run_path(str(Path(ROOT) / "config" / "gunicorn.conf.py"))
    logconfig = conf["logconfig_dict"]
    assert logconfig["formatters"]["plain"]["format"] == plain_format()
    assert logconfig["handlers"]["stdout"]["stream"] == "ext://sys.stdout"
    assert logconfig["loggers"]["gunicorn.error"]["handlers"] == ["stdout"]
    assert logconfig["loggers"]["gunicorn.access"]["level"] == "WARNING"  # no per-request lines, as before


def test_celery_logs_through_the_service_logging():
    from config.celery import service_logging

    service_logging(loglevel=logging.WARNING)
    root = logging.getLogger()
    assert [h.formatter._fmt for h in root.handlers] == [plain_format()]  # noqa: SLF001
    assert logging.getLogger("celery").level == logging.WARNING


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_uvicorn_writes_every_line_in_one_format(tmp_path):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database_url(),
           "PUBLIC_BASE_URL": base, "ALLOWED_HOSTS": "127.0.0.1,localhost", "DB_POOL_MAX_SIZE": "0"}  # fmt: skip
    out, err = (tmp_path / "stdout.log").open("wb"), (tmp_path / "stderr.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "on"],
        cwd=ROOT, env=env, stdout=out, stderr=err,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _up(base):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        with urllib.request.urlopen(f"{base}{STATIC}", timeout=10) as response:
            assert response.status == 200 and response.read()
    finally:
        process.terminate()
        process.wait(timeout=20)
        out.close()
        err.close()
    stdout = (tmp_path / "stdout.log").read_text(errors="replace")
    stderr = (tmp_path / "stderr.log").read_text(errors="replace")
    assert "synchronous iterators" not in stdout + stderr
    lines = [line for line in (stdout + stderr).splitlines() if line.strip()]
    assert any(" uvicorn.access " in line and STATIC in line for line in lines), lines
    assert any(" uvicorn.error " in line and "Started server process" in line for line in lines), lines
    strays = [line for line in lines if not LINE.match(line)]
    assert not strays, f"lines in another format: {strays}"
    assert logging_goes_to_stdout()
    assert stderr.strip() == "", stderr
