"""The client address, honouring only as many X-Forwarded-For hops as proxies we trust."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    return resolve_client_ip(request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", ""))


def resolve_client_ip(peer: str | None, forwarded_for: str | None) -> str:
    """The client address from the socket peer and X-Forwarded-For (also used by the /mcp ASGI app)."""
    trusted = settings.TRUSTED_PROXY_COUNT
    peer = peer or "0.0.0.0"
    if trusted <= 0:
        return peer
    forwarded = [part.strip() for part in (forwarded_for or "").split(",") if part.strip()]
    if len(forwarded) < trusted:
        return forwarded[0] if forwarded else peer
    # The entry our outermost trusted proxy appended is the real client.
    return forwarded[-trusted]
