"""One ASGI application: Django (API, pages, admin) plus the MCP endpoint under /mcp and its /health.

In production the REST API runs under gunicorn (WSGI) and this app serves /mcp; the
embedded default serves everything from here.

Request bodies reach both apps through `with_body_limit`, the ASGI side of config.wsgi's
RequestBodies. A body sent with `Transfer-Encoding: chunked` has no Content-Length, and Django's
ASGIHandler spools whatever arrives (no limit) while DRF reads a request without a Content-Length as
empty. Such a body is read here up to MAX_REQUEST_BODY_BYTES and handed on with its length; once
it passes the limit, reading stops and the answer is 413 request_too_large in the envelope (the
server drops the rest of the body). A declared Content-Length past the limit is never read either:
/mcp is refused here, and Django gets the request without its body and answers the 413 itself,
after authenticating the key and with the access log entry, as under gunicorn. The size check is
`core.api.middleware.oversized_body`, shared with the WSGI entry point and ApiErrorMiddleware.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


async def _read_in_a_thread(content: Iterable[bytes]) -> AsyncIterator[bytes]:
    """A sync streaming body (a file) read chunk by chunk in a worker thread, never on the event loop."""
    chunks = iter(content)
    step = sync_to_async(_next_chunk, thread_sensitive=False)
    while (chunk := await step(chunks)) is not None:
        yield chunk


def _next_chunk(chunks: Iterator[bytes]) -> bytes | None:
    return next(chunks, None)


class ServiceASGIHandler(ASGIHandler):
    """Django's ASGI handler, with sync streaming responses handed on as async iterators.

    WhiteNoise (static files) and FileResponse (downloads) stream from a file, a sync iterator; Django's
    ASGI handler then warns "StreamingHttpResponse must consume synchronous iterators" on every such
    response and reads the whole body into memory in one thread call. Each is read here in chunks
    (block_size, 64 KiB under ASGI) in a worker thread instead: no warning, no whole file in memory.
    """

    async def run_get_response(self, request):
        response = await super().run_get_response(request)
        if response.streaming and not response.is_async:
            response.streaming_content = _read_in_a_thread(response.streaming_content)
        return response


os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does
django_asgi_application = ServiceASGIHandler()

from core.api.middleware import oversized_body, too_large_answer  # noqa: E402
from core.log_redaction import RedactKeys  # noqa: E402
from core.security_headers import with_security_headers  # noqa: E402
from mcp_bridge.asgi import build_mcp_application  # noqa: E402  (needs Django set up first)


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _with_body(receive, body: bytes):
    """A receive that hands the app `body` as the whole request body, then only what is not body
    (the disconnect): whatever the client still sends of a body not passed on is dropped."""
    delivered = False

    async def replay() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message

    return replay


async def _refuse(scope: dict[str, Any], send, message: str) -> None:
    """Answer 413 request_too_large in the envelope, with the API's security headers."""
    headers, payload = too_large_answer(_header(scope, b"x-request-id"), message)

    async def answer(scope, receive, send) -> None:
        encoded = [(name.lower().encode(), value.encode("latin-1")) for name, value in headers]
        await send({"type": "http.response.start", "status": 413, "headers": encoded})
        await send({"type": "http.response.body", "body": payload})

    await with_security_headers(answer)(scope, _nothing, send)


async def _nothing() -> dict[str, Any]:
    return {"type": "http.disconnect"}


def with_body_limit(app, *, refuse_declared: bool):
    """Hold an ASGI app's request bodies to MAX_REQUEST_BODY_BYTES (module docstring).

    refuse_declared: a Content-Length past the limit is answered 413 here (/mcp); otherwise the app
    gets the request without its body and answers from the declared length (Django's middleware).
    """

    async def limited(scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                refusal = oversized_body(int(declared))
            except ValueError:
                refusal = None  # not a number: the app answers it (400 under /api)
            if refusal is None:
                await app(scope, receive, send)
            elif refuse_declared:
                await _refuse(scope, send, refusal)
            else:
                await app(scope, _with_body(receive, b""), send)
            return
        if "chunked" not in (_header(scope, b"transfer-encoding") or "").lower():
            await app(scope, receive, send)
            return

        body = bytearray()
        while True:  # at most the limit plus one message (the server hands on 64 KiB or so at a time)
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away mid-body: nobody to answer
            body += message.get("body", b"")
            refusal = oversized_body(len(body), chunked=True)
            if refusal is not None:
                await _refuse(scope, send, refusal)  # and read no further
                return
            if not message.get("more_body", False):
                break
        headers = [*scope.get("headers", []), (b"content-length", str(len(body)).encode())]
        await app({**scope, "headers": headers}, _with_body(receive, bytes(body)), send)

    return limited


django_application = with_body_limit(django_asgi_application, refuse_declared=False)
# /mcp is served beside Django, not through it: its answers get the same security headers here.
mcp_application = with_security_headers(with_body_limit(build_mcp_application(), refuse_declared=True))
logging.getLogger("uvicorn.access").addFilter(RedactKeys())


def route_uvicorn_logs() -> None:
    """uvicorn's own lines (server start and stop, errors, the access log) go through the service's
    LOGGING handler (config/settings.py): one format and one stream with every other line, not
    uvicorn's "INFO:     ..." handlers (the access log keeps its key-redacting filter)."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True


route_uvicorn_logs()


async def application(scope, receive, send):
    path = scope.get("path", "") if scope["type"] in {"http", "websocket"} else ""
    if scope["type"] == "lifespan":
        await mcp_application(scope, receive, send)
        return
    if path == "/mcp" or path.startswith("/mcp/") or path.rstrip("/") == "/health":
        await mcp_application(scope, receive, send)
        return
    await django_application(scope, receive, send)
