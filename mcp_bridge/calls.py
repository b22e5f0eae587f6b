"""What every tool call shares: reading the HTTP request behind the MCP context, refusals in the API's
words, and running a tool's synchronous body framed like a Django request."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from core.api.clientip import resolve_client_ip


def _http(ctx: Context) -> Any:
    return getattr(ctx.request_context, "request", None)


def ctx_header(ctx: Context, name: str) -> str | None:
    headers = ctx.headers or {}
    return headers.get(name)


def ctx_address(ctx: Context) -> str:
    request = _http(ctx)
    peer = request.client.host if request is not None and request.client else ""
    return resolve_client_ip(peer, ctx_header(ctx, "x-forwarded-for"))


def ctx_request_id(ctx: Context) -> str:
    return ctx_header(ctx, "x-request-id") or ""


class Refusal(ToolError):
    """A tool error in the API's words: `<code>: <message>`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


async def run_like_a_request(body: Callable[..., Any], *args: Any) -> Any:
    """Run a tool's synchronous body in asgiref's worker thread as Django runs a request: a connection
    left broken or obsolete is dropped first (one the database closed since, after a restart or a
    failover), and the connection is handed back when the body ends. Django does this around its
    requests through the request_started/request_finished signals, which a tool call never sends."""

    @functools.wraps(body)
    def framed(*inner: Any) -> Any:
        close_old_connections()
        try:
            return body(*inner)
        finally:
            close_old_connections()

    return await sync_to_async(framed)(*args)
