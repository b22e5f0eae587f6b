"""Secrets never reach the logs: a realistic run with every logger at DEBUG, then a search of
everything written for each password, key, key secret, webhook secret, session cookie and link token.

In-process: sign-up and confirmation, a key made on the key page, keyed requests (good, wrong secret,
revoked, a request that fails with a 500), a webhook endpoint with a secret rotation and a signed
delivery to a real local HTTPS receiver, failed and successful logins on /login and /admin/login/,
a password reset. Captured: every log record (its message, arguments and extra fields) and
everything written to the process's stdout and stderr. Then the same against a real uvicorn serving
config.asgi with LOG_LEVEL=DEBUG and uvicorn's debug and access logs, including a keyed MCP tool call.
"""

from __future__ import annotations

import http.cookiejar
import json
import logging
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from accounts.models import ApiKey
from accounts.services import revoke_key
from tests.accounts.test_key_pages import create_key, raw_key_in
from tests.accounts.test_signup import (  # noqa: F401  (mail_dir: autouse fixture)
    PASSWORD,
    RESET_LINK,
    confirm,
    last_mail_to,
    link_in,
    mail_dir,
    path_of,
    sign_up,
)
from tests.security.conftest import GREEN, send
from tests.support.server import _free_port, _up  # the launcher's own helpers
from tests.support.tls import start_https_receiver
from tests.support.worker import database_url

ROOT = Path(__file__).resolve().parent.parent.parent
EMAIL = "skipper@shipping.example"
OPERATOR_PASSWORD = "operator-Password-for-logs-1"
GUESSED_PASSWORD = "guessed-Password-that-is-wrong-7"


def _wrong_secret(raw: str) -> str:
    prefix, secret = raw[: len("svc_test_")], raw[len("svc_test_") :]
    return prefix + secret[:12] + secret[12:][::-1]


def _secret_parts(raw_key: str) -> list[str]:
    """The full key, its secret part, and the secret part after the 12-character lookup prefix."""
    secret = raw_key.split("_", 2)[2]
    return [raw_key, secret, secret[12:]]


def _leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [label for label, value in secrets.items() if value and value in text]


@pytest.fixture
def everything_logged(caplog):
    """Every logger at DEBUG, each record kept whole (non-propagating loggers included)."""
    caplog.set_level(logging.DEBUG)
    names = list(logging.root.manager.loggerDict)
    for name in names:
        caplog.set_level(logging.DEBUG, logger=name)
    detached = []
    for name in names:
        logger = logging.getLogger(name)
        if not logger.propagate:
            logger.addHandler(caplog.handler)
            detached.append(logger)
    yield caplog
    for logger in detached:
        logger.removeHandler(caplog.handler)


def _records_text(caplog) -> str:  # type: ignore[no-untyped-def]
    chunks = [caplog.text]
    for record in caplog.records:
        chunks.append(record.getMessage())
        chunks.append(repr(record.args))
        chunks.append(repr({k: v for k, v in record.__dict__.items() if k not in {"msg", "args"}}))
        if record.exc_info:
            chunks.append(logging.Formatter().formatException(record.exc_info))
    return "\n".join(chunks)


def test_a_realistic_run_writes_no_secret_to_any_log(
    demo_world,
    client,
    everything_logged,
    capfd,
    mail_dir,  # noqa: F811  (the sign-up tests' fixture)
    tmp_path,
    settings,
    monkeypatch,
    django_user_model,
):
    receiver = start_https_receiver(tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(receiver.certificate))
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    secrets: dict[str, str] = {"sign-up password": PASSWORD, "operator password": OPERATOR_PASSWORD,
                               "guessed password": GUESSED_PASSWORD}  # fmt: skip
    try:
        # Sign up, confirm with the password, make keys on the key page.
        assert sign_up(client, EMAIL).status_code == 302
        confirmation = link_in(last_mail_to(mail_dir, EMAIL))
        secrets["confirmation token"] = confirmation.rstrip("/").rsplit("/", 1)[-1]
        assert confirm(client, mail_dir, EMAIL).status_code == 302
        secrets["session cookie"] = client.cookies["sessionid"].value
        raw = raw_key_in(create_key(client, "live"))
        revoked = raw_key_in(create_key(client, "live"))
        for label, raw_key in (("key", raw), ("revoked key", revoked)):
            secrets.update(
                zip((label, f"{label} secret", f"{label} secret after lookup"), _secret_parts(raw_key), strict=True)
            )
        revoke_key(ApiKey.objects.get(lookup=revoked.split("_", 2)[2][:12]))

        # Keyed requests: good, a wrong secret for the real lookup, revoked, and one that fails with a 500.
        assert send(client, "get", raw, "/api/v1/usage").status_code == 200
        assert send(client, "post", raw, "/api/v1/screenings", {"imo": GREEN}).status_code == 201
        assert send(client, "get", _wrong_secret(raw), "/api/v1/usage").status_code == 401
        assert send(client, "get", revoked, "/api/v1/usage").status_code == 401
        from metering import quota

        with monkeypatch.context() as broken:
            broken.setattr(quota, "current_states", lambda *a, **k: 1 / 0)
            assert send(client, "get", raw, "/api/v1/usage").status_code == 500

        # Webhooks: an endpoint on the local receiver, a rotation, a signed delivery.
        created = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": f"{receiver.url}/hook"}).json()
        secrets["webhook secret"] = created["secret"]
        rotated = send(client, "post", raw, f"/api/v1/webhook-endpoints/{created['id']}/rotate-secret", {}).json()
        secrets["rotated webhook secret"] = rotated["secret"]
        queued = send(client, "post", raw, f"/api/v1/webhook-endpoints/{created['id']}/test").json()
        from webhooks import delivery

        assert delivery.send(queued["id"]) == delivery.SENT_DELIVERED
        assert receiver.received and "X-Service-Signature" in receiver.received[0].headers

        # Logins: a wrong password on both login pages, an operator's good one, a password reset.
        client.logout()
        assert client.post("/login", {"username": EMAIL, "password": GUESSED_PASSWORD}).status_code == 200
        django_user_model.objects.create_user("operator", password=OPERATOR_PASSWORD, is_staff=True)
        assert client.post("/admin/login/", {"username": "operator", "password": GUESSED_PASSWORD}).status_code == 200
        assert client.post("/admin/login/", {"username": "operator", "password": OPERATOR_PASSWORD}).status_code == 302
        secrets["operator session cookie"] = client.cookies["sessionid"].value
        client.logout()
        client.post("/password-reset", {"email": EMAIL})
        reset = link_in(last_mail_to(mail_dir, EMAIL), RESET_LINK)
        secrets["password reset token"] = path_of(reset).rstrip("/").rsplit("/", 1)[-1]
        client.get(path_of(reset))
    finally:
        receiver.close()

    written = capfd.readouterr()
    logged = "\n".join([_records_text(everything_logged), written.out, written.err])
    assert not _leaks(logged, secrets), f"secrets in the logs: {_leaks(logged, secrets)}"
    # The run was logged at DEBUG: the 500 with its traceback, the delivery's connection, template lookups.
    loggers = {record.name for record in everything_logged.records}
    assert {"django.request", "django.template"} <= loggers and any(name.startswith("urllib3") for name in loggers)
    assert "ZeroDivisionError" in logged and "Internal Server Error: /api/v1/usage" in logged


def _opener() -> urllib.request.OpenerDirector:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect())


def _call(opener, method: str, url: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, bytes]:  # type: ignore[no-untyped-def]
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def _form_post(opener, base: str, path: str, fields: dict) -> int:  # type: ignore[no-untyped-def]
    _, page = _call(opener, "GET", f"{base}{path}")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Referer": f"{base}{path}"}
    return _call(opener, "POST", f"{base}{path}", body, headers)[0]


class DebugServer:
    """uvicorn serving config.asgi on the test database, LOG_LEVEL=DEBUG, its output kept in a file."""

    def __init__(self, log: Path) -> None:
        self.base = f"http://127.0.0.1:{_free_port()}"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database_url(),
               "PUBLIC_BASE_URL": self.base, "ALLOWED_HOSTS": "127.0.0.1,localhost", "ACCESS_LOG_MODE": "sync",
               "DB_POOL_MAX_SIZE": "0", "LOG_LEVEL": "DEBUG"}  # fmt: skip
        self.log = log
        self._output = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
             "--port", self.base.rsplit(":", 1)[1], "--lifespan", "on", "--log-level", "debug", "--access-log"],
            cwd=ROOT, env=env, stdout=self._output, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not _up(self.base):
            assert self.process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._output.close()
        return self.log.read_text(errors="replace")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_server_at_debug_writes_no_secret_to_its_output(issue_key, django_user_model, tmp_path):
    raw = issue_key("live", email="server@example.com", plan="paid")
    django_user_model.objects.create_user("operator", password=OPERATOR_PASSWORD, is_staff=True)
    secrets = dict(zip(("key", "key secret", "key secret after lookup"), _secret_parts(raw), strict=True))
    secrets["operator password"], secrets["guessed password"] = OPERATOR_PASSWORD, GUESSED_PASSWORD
    server = DebugServer(tmp_path / "server.log")
    base = server.base
    try:
        opener = _opener()
        bearer = {"Authorization": f"Bearer {raw}", "Content-Type": "application/json"}
        assert _call(opener, "GET", f"{base}/api/v1/usage", headers=bearer)[0] == 200
        assert _call(opener, "GET", f"{base}/api/v1/usage", headers={"Authorization": f"Bearer {_wrong_secret(raw)}"})[0] == 401  # fmt: skip
        hook = json.dumps({"url": "https://receiver.invalid/hook"}).encode()
        status, body = _call(opener, "POST", f"{base}/api/v1/webhook-endpoints", hook, {**bearer, "Idempotency-Key": "log-1"})  # fmt: skip
        assert status == 201
        created = json.loads(body)
        secrets["webhook secret"] = created["secret"]
        rotate = f"{base}/api/v1/webhook-endpoints/{created['id']}/rotate-secret"
        status, body = _call(opener, "POST", rotate, b"{}", {**bearer, "Idempotency-Key": "log-2"})
        secrets["rotated webhook secret"] = json.loads(body)["secret"]
        tool_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_usage", "arguments": {}}}  # fmt: skip
        mcp_headers = {**bearer, "Accept": "application/json, text/event-stream"}
        status, body = _call(opener, "POST", f"{base}/mcp", json.dumps(tool_call).encode(), mcp_headers)
        assert status == 200 and b'"isError":false' in body.replace(b" ", b""), body[:500]
        assert _form_post(opener, base, "/login", {"username": "nobody@example.com", "password": GUESSED_PASSWORD}) == 200  # fmt: skip
        assert _form_post(opener, base, "/admin/login/", {"username": "operator", "password": GUESSED_PASSWORD}) == 200  # fmt: skip
        assert _form_post(opener, base, "/admin/login/", {"username": "operator", "password": OPERATOR_PASSWORD}) == 302  # fmt: skip
        cookie = next(c for c in opener.handlers if isinstance(c, urllib.request.HTTPCookieProcessor)).cookiejar
        secrets["operator session cookie"] = next(c.value for c in cookie if c.name == "sessionid")
    finally:
        output = server.stop()
    assert "GET /api/v1/usage" in output and "DEBUG" in output  # the access log and debug records were written
    assert not _leaks(output, secrets), f"secrets in the server's output: {_leaks(output, secrets)}"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_key_sent_in_the_url_by_mistake_is_not_written_to_the_logs(issue_key, tmp_path):
    raw = issue_key("live", email="careless@example.com")
    server = DebugServer(tmp_path / "server.log")
    try:
        assert _call(_opener(), "GET", f"{server.base}/api/v1/usage?api_key={raw}")[0] == 401
    finally:
        output = server.stop()
    assert "/api/v1/usage" in output
    secrets = dict(zip(("key", "key secret", "key secret after lookup"), _secret_parts(raw), strict=True))
    assert not _leaks(output, secrets)
