"""One ASGI application: Django (API, pages, admin) plus the MCP endpoint under /mcp and its /health.

In production the REST API runs under gunicorn (WSGI) and this app serves /mcp; the
embedded default serves everything from here.
"""

from __future__ import annotations

import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from config.log_redaction import RedactKeys  # noqa: E402
from config.security_headers import with_security_headers  # noqa: E402
from mcp_bridge.asgi import build_mcp_application  # noqa: E402  (needs Django set up first)

# /mcp is served beside Django, not through it: its answers get the same security headers here.
mcp_application = with_security_headers(build_mcp_application())
logging.getLogger("uvicorn.access").addFilter(RedactKeys())


async def application(scope, receive, send):  # type: ignore[no-untyped-def]
    path = scope.get("path", "") if scope["type"] in {"http", "websocket"} else ""
    if scope["type"] == "lifespan":
        await mcp_application(scope, receive, send)
        return
    if path == "/mcp" or path.startswith("/mcp/") or path.rstrip("/") == "/health":
        await mcp_application(scope, receive, send)
        return
    await django_application(scope, receive, send)
