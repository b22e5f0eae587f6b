"""GET {mcp_url}/health for deployments where Django (gunicorn) answers the MCP host's /health.

The ASGI app answers /health itself (mcp_bridge.asgi); both give the same body.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

from mcp_bridge.asgi import health_body


@require_safe
def mcp_health(request: HttpRequest) -> JsonResponse:
    return JsonResponse(health_body())
