"""A keyed MCP tool is the REST call it names, made inside this process through Django's own handler.

So a tool call is authenticated, scope-checked, rate-limited, metered, idempotent and access-logged
exactly as the direct call is (the same middleware, views and services, not a second copy of
their rules), and it answers the REST call's document. The access log names the tool
(`MCP /mcp tools/call <tool>`) rather than the REST path.

Creating tools take an optional `idempotency_key` with the header's join/replay/conflict semantics
(contract 3.4); without one a fresh key is made per call, so a call is never silently replayed.
"""

from __future__ import annotations

import io
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.http import HttpResponse

from metering.access_log import TOOL_ENVIRON_KEY

_handler: WSGIHandler | None = None


@dataclass(frozen=True)
class RestAnswer:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _internal_host() -> str:
    """A Host header Django accepts: the public base URL's host when allowed, else the first allowed name."""
    public = urlsplit(settings.PUBLIC_BASE_URL).netloc
    allowed = [host for host in settings.ALLOWED_HOSTS if host not in {"*", ""}]
    if not allowed or public.split(":")[0] in allowed or "*" in settings.ALLOWED_HOSTS:
        return public or "localhost"
    return allowed[0].lstrip(".")


def fresh_idempotency_key() -> str:
    return f"mcp-{secrets.token_hex(16)}"


def call(
    tool: str,
    method: str,
    path: str,
    *,
    authorization: str | None,
    address: str,
    request_id: str,
    query: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> RestAnswer:
    """Make `method path` as the caller, inside this process; the REST answer comes back as is."""
    global _handler
    if _handler is None:
        _handler = WSGIHandler()
    payload = b"" if body is None else json.dumps(body).encode()
    host = _internal_host()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": urlencode({k: v for k, v in (query or {}).items() if v is not None}, doseq=True),
        "SERVER_NAME": host.split(":")[0],
        "SERVER_PORT": "443" if settings.PUBLIC_BASE_URL.startswith("https") else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": host,
        "REMOTE_ADDR": address or "127.0.0.1",
        "HTTP_ACCEPT": "application/json",
        "wsgi.input": io.BytesIO(payload),
        "wsgi.url_scheme": "https" if settings.PUBLIC_BASE_URL.startswith("https") else "http",
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
        TOOL_ENVIRON_KEY: tool,
    }
    if body is not None:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(payload))
    if authorization is not None:
        environ["HTTP_AUTHORIZATION"] = authorization
    if request_id:
        environ["HTTP_X_REQUEST_ID"] = request_id
    if method in {"POST", "PATCH", "DELETE"}:
        # Only an absent key gets a fresh one. A key sent is the header as sent, whatever it holds, so the
        # REST call's own check judges it: an empty or over-long key is 400 invalid_idempotency_key there,
        # as on the direct call, never a fresh key that would run (and charge) every retry again.
        environ["HTTP_IDEMPOTENCY_KEY"] = fresh_idempotency_key() if idempotency_key is None else idempotency_key
    # get_response runs the whole middleware chain and the view, but not the request_started /
    # request_finished signals: the tool call's frame (mcp_bridge.calls.run_like_a_request) does their
    # connection handling once around the whole call.
    response = _handler.get_response(WSGIRequest(environ))
    # Every non-streaming Django response is an HttpResponse; streaming ones are read by iterating.
    content = response.content if isinstance(response, HttpResponse) else b"".join(response)
    try:
        parsed = json.loads(content) if content else None
    except ValueError:
        parsed = {"code": "internal_error", "message": "The service answered a tool call without a JSON body."}
    return RestAnswer(response.status_code, {k: v for k, v in response.items()}, parsed)
