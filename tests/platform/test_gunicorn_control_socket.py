"""gunicorn's control socket (gunicornc) is one per gunicorn, not one per host (issue 25 item 8d).

gunicorn 25.1+ opens a control socket in its master at $XDG_RUNTIME_DIR/gunicorn.ctl (else
~/.gunicorn/gunicorn.ctl) unless told otherwise: a second gunicorn on the host (a second service, a
drill's extra web server, a USR2 re-exec) removed the first one's socket and bound its own there, and
the first one to stop removed the other's. config/gunicorn.conf.py names the socket per process.
"""

from __future__ import annotations

import os
import re
import runpy
import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from gunicorn.ctl.client import ControlClient

from tests.support.server import running_service

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent.parent
CONFIG = ROOT / "config" / "gunicorn.conf.py"


@pytest.fixture
def runtime_dir():
    # Short: a Unix socket path holds at most 107 bytes.
    folder = Path(tempfile.mkdtemp(prefix="gctl-", dir="/tmp"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _sockets(folder: Path, count: int, timeout: float = 15) -> list[Path]:
    """The control sockets in `folder` once there are `count` (the master opens its socket after its
    workers start, a moment after the server answers)."""
    deadline = time.monotonic() + timeout
    while True:
        found = sorted(path for path in folder.iterdir() if path.is_socket())
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _served_port(socket_path: Path) -> int:
    """The port the gunicorn behind this control socket listens on (gunicornc's `show listeners`)."""
    with ControlClient(str(socket_path), timeout=10) as client:
        listeners = client.send_command("show listeners")["listeners"]
    (listener,) = listeners
    return int(re.search(r":(\d+)$", listener["address"]).group(1))


def _port(url: str) -> int:
    return urlsplit(url).port  # type: ignore[return-value]


def test_two_gunicorns_on_one_host_each_keep_their_own_control_socket(runtime_dir, django_db_blocker, monkeypatch):
    monkeypatch.delenv("GUNICORN_CONTROL_SOCKET", raising=False)  # the servers take this process's environment
    env = {"XDG_RUNTIME_DIR": str(runtime_dir)}
    with django_db_blocker.unblock(), ExitStack() as stack:
        first = stack.enter_context(running_service(env, server="gunicorn"))
        with running_service(env, server="gunicorn") as second:
            sockets = _sockets(runtime_dir, 2)
            assert len(sockets) == 2, f"one control socket for two gunicorns: {sockets}"
            assert sorted(_served_port(path) for path in sockets) == sorted([_port(first), _port(second)])
        # The second one stopped and removed its own socket only: the first one still answers on its own.
        (remaining,) = _sockets(runtime_dir, 1)
        assert _served_port(remaining) == _port(first)


def test_the_config_names_the_socket_after_the_process_in_gunicorns_own_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("GUNICORN_CONTROL_SOCKET", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    path = Path(runpy.run_path(str(CONFIG))["control_socket"])
    assert path.parent == tmp_path and str(os.getpid()) in path.name

    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    path = Path(runpy.run_path(str(CONFIG))["control_socket"])
    assert path.parent == tmp_path / ".gunicorn" and str(os.getpid()) in path.name


def test_an_operator_may_name_the_socket(monkeypatch, tmp_path):
    monkeypatch.setenv("GUNICORN_CONTROL_SOCKET", str(tmp_path / "web.ctl"))
    assert runpy.run_path(str(CONFIG))["control_socket"] == str(tmp_path / "web.ctl")
