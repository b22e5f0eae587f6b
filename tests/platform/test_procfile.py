"""The production process files agree with each other and with the code (issue 18 item 13).

The Procfile names web, mcp, worker and beat; every program, module and option it uses exists; the
systemd units run exactly the Procfile's commands; the reverse-proxy example's limits match the
servers behind it; and the web and mcp commands, started as written, serve.
"""

from __future__ import annotations

import importlib
import os
import re
import runpy
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from celery import Celery
from django.conf import settings

from deploy.procfile import ProcfileError, command_for, expand, read_procfile, with_virtualenv_path
from tests.drills.stack import free_port, start_from_procfile

ROOT = Path(__file__).resolve().parent.parent.parent
SYSTEMD = ROOT / "deploy" / "systemd"
NGINX = ROOT / "deploy" / "nginx.conf"
UNIT_OF_PROCESS = {
    "web": "vessel-screening-web.service",
    "mcp": "vessel-screening-mcp.service",
    "worker": "vessel-screening-worker@.service",
    "beat": "vessel-screening-beat.service",
}


def defaults_environment() -> dict[str, str]:
    """No service variables set: every ${NAME:-default} takes its default; programs from this venv."""
    return with_virtualenv_path({"PATH": "/usr/bin:/bin"})


def gunicorn_defaults() -> dict:
    """config/gunicorn.conf.py's settings with none of its variables set."""
    names = ("GUNICORN_BIND", "WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_KEEPALIVE_SECONDS")
    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            patch.delenv(name, raising=False)
        return runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))


def option_value(arguments: list[str], option: str) -> str:
    for index, argument in enumerate(arguments):
        if argument == option:
            return arguments[index + 1]
        if argument.startswith(option + "="):
            return argument.split("=", 1)[1]
    raise AssertionError(f"{option} is not in {arguments}")


def unit_settings(path: Path) -> dict[str, list[str]]:
    """Key -> values of a unit file (keys may repeat); comments and section headers skipped."""
    found: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        found.setdefault(key.strip(), []).append(value.strip())
    return found


def nginx_directives(text: str, name: str) -> list[str]:
    """The values of every `name ...;` directive in the nginx file (comments removed)."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return [match.group(1).strip() for match in re.finditer(rf"(?m)^\s*{name}\s+([^;]+);", code)]


def nginx_block(text: str, opening: str) -> str:
    start = text.index(opening)
    return text[start : text.index("}", start)]


def nginx_size(value: str) -> int:
    units = {"k": 1024, "m": 1024 * 1024, "g": 1024**3}
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", value)
    assert match, value
    return int(match.group(1)) * units.get(match.group(2).lower(), 1)


def nginx_seconds(value: str) -> int:
    match = re.fullmatch(r"(\d+)(s|m)?", value)
    assert match, value
    return int(match.group(1)) * (60 if match.group(2) == "m" else 1)


# -- the Procfile -------------------------------------------------------------------------------


def test_the_procfile_names_web_mcp_worker_and_beat():
    assert list(read_procfile()) == ["web", "mcp", "worker", "beat"]


def test_each_command_runs_a_program_of_this_virtualenv():
    venv_bin = Path(sys.executable).parent
    for name in read_procfile():
        program = Path(command_for(name, defaults_environment())[0])
        assert program.parent == venv_bin, (name, program)
        assert program.name == {"web": "gunicorn", "mcp": "uvicorn"}.get(name, "celery")


def test_the_modules_and_files_the_commands_name_exist():
    env = defaults_environment()
    web = command_for("web", env)
    assert (ROOT / option_value(web, "-c")).is_file()
    module, _, attribute = web[-1].partition(":")
    assert (module, attribute) == ("config.wsgi", "application")
    assert callable(importlib.import_module(module).application)

    mcp = command_for("mcp", env)
    module, _, attribute = mcp[1].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))

    for name in ("worker", "beat"):
        arguments = command_for(name, env)
        package = option_value(arguments, "-A")
        # `celery -A config` finds the app as config.celery.app (config/__init__.py imports it).
        assert isinstance(importlib.import_module(f"{package}.celery").app, Celery)
        assert arguments[3] == name


def help_text(arguments: list[str]) -> str:
    done = subprocess.run(
        [*arguments, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120, env=defaults_environment()
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_every_option_the_commands_use_is_one_the_program_knows():
    env = defaults_environment()
    for name, arguments in ((name, command_for(name, env)) for name in read_procfile()):
        # celery's options are per subcommand: ask `celery -A config worker --help`.
        program_part = arguments[:4] if name in {"worker", "beat"} else arguments[:1]
        text = help_text(program_part)
        options = [a.split("=", 1)[0] for a in arguments[len(program_part) :] if a.startswith("-")]
        for option in options:
            assert re.search(rf"(^|[\s,]){re.escape(option)}([\s,=/]|$)", text, re.M), (name, option)


def test_expansion_follows_the_shell():
    assert expand("x ${A:-1} ${B:-2} $C ${D}", {"A": "set", "B": "", "C": "c"}) == ["x", "set", "2", "c"]
    assert expand("run '${A:-a b}'", {}) == ["run", "a b"]
    for refused in ("a && b", "a | b", "a > log", "a $(b)", "a `b`", "a ${A:=x}"):
        with pytest.raises(ProcfileError):
            expand(refused, {})


def test_a_malformed_procfile_is_refused(tmp_path):
    broken = tmp_path / "Procfile"
    broken.write_text("web: gunicorn app\nweb: gunicorn other\n")
    with pytest.raises(ProcfileError, match="twice"):
        read_procfile(broken)
    broken.write_text("just a command\n")
    with pytest.raises(ProcfileError, match="name: command"):
        read_procfile(broken)


def test_environment_variables_set_ports_and_concurrency():
    env = {**defaults_environment(), "MCP_PORT": "9101", "MCP_WORKERS": "3", "CELERY_CONCURRENCY": "7"}
    mcp = command_for("mcp", env)
    assert option_value(mcp, "--port") == "9101" and option_value(mcp, "--workers") == "3"
    assert option_value(command_for("worker", env), "--concurrency") == "7"


# -- systemd --------------------------------------------------------------------------------------


def systemd_command(exec_start: str) -> str:
    """The shell command of `ExecStart=/bin/sh -c 'exec …'`, with systemd's escapes undone."""
    arguments = shlex.split(exec_start)
    assert arguments[:2] == ["/bin/sh", "-c"] and len(arguments) == 3, exec_start
    command = arguments[2].replace("$$", "$").replace("%%", "%")
    assert command.startswith("exec "), command
    return command.removeprefix("exec ")


def test_each_process_has_a_unit_running_the_procfile_command():
    assert {path.name for path in SYSTEMD.glob("*.service")} == set(UNIT_OF_PROCESS.values())
    for name, command in read_procfile().items():
        unit = unit_settings(SYSTEMD / UNIT_OF_PROCESS[name])
        assert systemd_command(unit["ExecStart"][0]) == command, name
        assert len(unit["ExecStart"]) == 1
        # The Procfile's relative paths and modules resolve from the project folder.
        assert unit["WorkingDirectory"] == ["/opt/vessel-screening"]
        assert any(value.startswith("PATH=/opt/vessel-screening/.venv/bin:") for value in unit["Environment"])


def test_systemd_leaves_no_unescaped_dollar_or_percent_for_itself():
    """systemd would expand `${NAME:-x}` or `%h` itself; the units must hand them to the shell/celery."""
    for path in SYSTEMD.glob("*.service"):
        exec_start = unit_settings(path)["ExecStart"][0]
        assert not re.search(r"(?<!\$)\$(?!\$)\{", exec_start.replace("$$", "")), path.name
        assert "%" not in exec_start.replace("%%", ""), path.name


def test_the_target_starts_web_mcp_and_a_worker_but_never_beat():
    target = unit_settings(SYSTEMD / "vessel-screening.target")
    wanted = set(" ".join(target["Wants"]).split())
    assert wanted == {
        "vessel-screening-web.service",
        "vessel-screening-mcp.service",
        "vessel-screening-worker@1.service",
    }
    beat = unit_settings(SYSTEMD / UNIT_OF_PROCESS["beat"])
    assert beat["WantedBy"] == ["multi-user.target"]  # enabled on one host by hand, not by the target
    for name in ("web", "mcp", "worker"):
        assert unit_settings(SYSTEMD / UNIT_OF_PROCESS[name])["WantedBy"] == ["vessel-screening.target"]


def test_web_units_stop_within_gunicorns_graceful_timeout():
    web = unit_settings(SYSTEMD / UNIT_OF_PROCESS["web"])
    assert int(web["TimeoutStopSec"][0]) > gunicorn_defaults()["graceful_timeout"]


# -- nginx ------------------------------------------------------------------------------------------


def test_nginx_admits_exactly_the_body_size_the_app_does():
    text = NGINX.read_text()
    (size,) = nginx_directives(text, "client_max_body_size")
    assert nginx_size(size) == settings.MAX_REQUEST_BODY_BYTES == 1_048_576
    # nginx answers a larger body itself, in the app's envelope and naming the same limit.
    assert f"over the limit of {settings.MAX_REQUEST_BODY_BYTES} bytes" in text
    assert '"code": "request_too_large"' in text


def test_nginx_closes_idle_upstream_connections_before_the_servers_do():
    text = NGINX.read_text()
    web_block = nginx_block(text, "upstream vessel_screening_web")
    mcp_block = nginx_block(text, "upstream vessel_screening_mcp")
    gunicorn_keepalive = gunicorn_defaults()["keepalive"]
    uvicorn_keepalive = int(option_value(command_for("mcp", defaults_environment()), "--timeout-keep-alive"))
    for block, server_keepalive in ((web_block, gunicorn_keepalive), (mcp_block, uvicorn_keepalive)):
        (timeout,) = nginx_directives(block, "keepalive_timeout")
        assert nginx_seconds(timeout) < server_keepalive
        assert nginx_directives(block, "keepalive"), "upstream connections are not kept alive"
    # Kept-alive upstream connections need HTTP/1.1 and no `Connection: close` from the client.
    assert nginx_directives(text, "proxy_http_version") == ["1.1"]
    assert 'Connection ""' in nginx_directives(text, "proxy_set_header")


def test_nginx_points_at_the_default_ports_and_waits_out_a_joined_retry():
    text = NGINX.read_text()
    web_port = gunicorn_defaults()["bind"].rsplit(":", 1)[1]
    mcp_port = option_value(command_for("mcp", defaults_environment()), "--port")
    assert nginx_directives(nginx_block(text, "upstream vessel_screening_web"), "server") == [f"127.0.0.1:{web_port}"]
    assert nginx_directives(nginx_block(text, "upstream vessel_screening_mcp"), "server") == [f"127.0.0.1:{mcp_port}"]
    (read_timeout,) = nginx_directives(text, "proxy_read_timeout")
    assert nginx_seconds(read_timeout) > settings.IDEMPOTENCY_JOIN_HOLD_SECONDS + 7  # + a screening's answer
    (buffers,) = nginx_directives(text, "large_client_header_buffers")
    assert nginx_size(buffers.split()[1]) >= gunicorn_defaults()["limit_request_line"]


# -- the commands as written serve --------------------------------------------------------------


def wait_for(url: str, process: subprocess.Popen, log: Path, timeout: float = 60) -> requests.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return requests.get(url, timeout=2)
        except requests.RequestException:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"did not serve {url}:\n{log.read_text(errors='replace')[-3000:]}") from None
            time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, path, body",
    [("web", "/healthz", {"status": "ok"}), ("mcp", "/mcp/health", {"status": "ok", "version": "2026-10-08"})],
)
def test_the_procfile_command_starts_a_server_that_answers(tmp_path, name, path, body):
    port = free_port()
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": str(port),
        "MCP_WORKERS": "1",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DB_POOL_MAX_SIZE": "0",
    }
    log = tmp_path / f"{name}.log"
    process = start_from_procfile(name, env, log)
    try:
        response = wait_for(f"http://127.0.0.1:{port}{path}", process, log)
        assert response.status_code == 200 and response.json() == body
    finally:
        stop(process)
