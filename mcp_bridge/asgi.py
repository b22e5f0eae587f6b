"""The assistant-tool endpoint at /mcp: MCP Streamable HTTP, stateless, JSON responses.

GET /mcp answers 405; GET {mcp_url}/health (also /mcp/health) reports the endpoint version;
every response carries X-Request-Id and X-Service-API-Version, like the REST API's. Tools are
registered in mcp_bridge.tools and call the same services as the REST API.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings

from core.api.ids import is_well_formed_request_id, new_request_id
from mcp_bridge.tools import build_server

MCP_ENDPOINT_VERSION = "2026-10-08"
HEALTH_PATHS = frozenset({"/health", "/mcp/health"})

Receive = Callable[[], Awaitable[dict[str, Any]]]  # an ASGI receive callable


def health_body() -> dict[str, str]:
    """What GET {mcp_url}/health answers (the Django route for /health answers the same)."""
    return {"status": "ok", "version": MCP_ENDPOINT_VERSION}


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _send_json(send, status: int, body: dict, request_id: str, extra: list | None = None) -> None:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        (b"x-request-id", request_id.encode()),
        (b"x-service-api-version", settings.SERVICE_API_VERSION.encode()),
    ] + (extra or [])
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def transport_security() -> TransportSecuritySettings:
    """The SDK's Host check mirrors Django's ALLOWED_HOSTS plus the host of MCP_BASE_URL ('*' turns it off)."""
    hosts = list(settings.ALLOWED_HOSTS)
    mcp_host = urlsplit(settings.MCP_BASE_URL).netloc
    if mcp_host:
        hosts.append(mcp_host)
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed: list[str] = []
    for host in hosts:
        bare = host.lstrip(".")
        allowed.extend([bare, f"{bare}:*"])
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=allowed, allowed_origins=[])


def _transport_refusal(scope: dict, request_id: str) -> tuple[int, dict] | None:
    """The SDK's DNS-rebinding checks, answered in the API's envelope instead of its plain text.

    A request whose Host is not served here is 421; one carrying an Origin header (a browser page)
    is 403 origin_not_allowed: assistants and server-side clients send none.
    """
    from django.http.request import split_domain_port, validate_host

    security = transport_security()
    if not security.enable_dns_rebinding_protection:
        return None
    host = _header(scope, b"host") or ""
    domain, _ = split_domain_port(host)
    allowed = list(settings.ALLOWED_HOSTS) + [urlsplit(settings.MCP_BASE_URL).hostname or ""]
    if not domain or not validate_host(domain, [name for name in allowed if name]):
        message = f"This endpoint does not serve the host {host or '(none)'}; send requests to its own address."
        return 421, {"code": "misdirected_request", "message": message, "request_id": request_id}
    if _header(scope, b"origin"):
        message = (
            "Requests from browser pages (an Origin header) are refused here; call /mcp from an assistant or a server."
        )
        return 403, {"code": "origin_not_allowed", "message": message, "request_id": request_id}
    return None


INVALID_REQUEST = -32600  # JSON-RPC 2.0


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that hands the same body on (then the client's own messages)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: hand that on as it came
            pending = [message]
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            pending = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
            break

    async def replay() -> dict:
        return pending.pop(0) if pending else await receive()

    return b"".join(chunks), replay


def _invalid_request_id(scope: dict, body: bytes) -> dict | None:
    """The JSON-RPC invalid-request answer for a request whose "id" is not a string or an integer.

    JSON-RPC 2.0 makes a message with "id" a request (answered), and MCP narrows the id to a string
    or an integer, never null. Left to the SDK, a message whose id is an object, an array, a boolean,
    null or a decimal number fails its request model and is taken for a notification: 202 and no answer, so
    the caller waits for a reply that never comes. Anything else (no method, not JSON) is the SDK's.
    """
    content_type = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return None
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    value = message["id"]
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    got = {dict: "an object", list: "an array", bool: "a boolean", float: "a decimal number"}.get(type(value), "null")
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": INVALID_REQUEST,
            "message": f'Invalid Request: "id" must be a string or an integer, not {got}; '
            'leave "id" out only for a notification.',
        },
    }


def build_mcp_application():
    def fresh_inner():
        return build_server().streamable_http_app(
            streamable_http_path="/mcp",
            json_response=True,
            stateless_http=True,
            transport_security=transport_security(),
        )

    # The SDK's session manager runs once per instance; each lifespan (a server start, a test)
    # gets its own, so the app can be started again in the same process.
    current = {"inner": fresh_inner()}

    async def app(scope: dict[str, Any], receive, send) -> None:
        if scope["type"] == "lifespan":
            current["inner"] = fresh_inner()
            await current["inner"](scope, receive, send)
            return
        inner = current["inner"]
        sent = _header(scope, b"x-request-id")
        request_id = sent if sent is not None and is_well_formed_request_id(sent) else new_request_id()
        path = scope.get("path", "")
        method = scope.get("method", "GET")
        if path.rstrip("/") in HEALTH_PATHS:
            await _send_json(send, 200, health_body(), request_id)
            return
        if path.rstrip("/") != "/mcp":
            await _send_json(
                send, 404, {"code": "not_found", "message": "No such endpoint.", "request_id": request_id}, request_id
            )
            return
        if method != "POST":
            await _send_json(
                send,
                405,
                {
                    "code": "method_not_allowed",
                    "message": "POST JSON-RPC 2.0 messages to /mcp.",
                    "request_id": request_id,
                },
                request_id,
                [(b"allow", b"POST")],
            )
            return

        refused = _transport_refusal(scope, request_id)
        if refused is not None:
            status, refusal = refused
            await _send_json(send, status, refusal, request_id)
            return

        body, receive = await _read_body(receive)
        invalid = _invalid_request_id(scope, body)
        if invalid is not None:
            await _send_json(send, 400, invalid, request_id)
            return

        stamped = [
            (b"x-request-id", request_id.encode()),
            (b"x-service-api-version", settings.SERVICE_API_VERSION.encode()),
        ]
        stamped_names = {name for name, _ in stamped}

        async def send_with_request_id(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in stamped_names]
                message["headers"] = kept + stamped
            await send(message)

        # Tools read the request id the same way the REST views do: from the request headers.
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"x-request-id"]
        scope = dict(scope, headers=headers + [(b"x-request-id", request_id.encode())])
        if path != "/mcp":
            scope = dict(scope, path="/mcp", raw_path=b"/mcp")
        await inner(scope, receive, send_with_request_id)

    return app
