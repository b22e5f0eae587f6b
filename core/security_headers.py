"""Security headers on every response: one place for the API, the pages, the admin and /mcp.

Django's SecurityMiddleware already sends X-Content-Type-Options, Referrer-Policy and
Cross-Origin-Opener-Policy, and XFrameOptionsMiddleware X-Frame-Options, but only on responses that
pass through them (the API's early answers — a 401 before the view, a 413, an unknown path's
envelope — come from middleware outside the clickjacking one), and neither sends a
Content-Security-Policy, Strict-Transport-Security without SECURE_HSTS_SECONDS, or Cache-Control.
This middleware sits right after SecurityMiddleware, so it sees every Django response, and adds
what a response does not already carry (a view's own choice always wins):

- X-Content-Type-Options: nosniff, Referrer-Policy: same-origin, X-Frame-Options: DENY;
- Content-Security-Policy: HTML pages get PAGE_POLICY (everything from our own origin; no plug-ins,
  no framing, no <base> or form posts elsewhere); every other response (JSON, CSV, the OpenAPI
  document) gets API_POLICY, which lets a document rendered from it do nothing at all;
- Cache-Control: no-store on everything a view did not decide on, so no browser or proxy keeps a
  key, a webhook secret or an account's records (static files keep WhiteNoise's caching headers);
- Strict-Transport-Security in production (SERVICE_MODE=production) on requests that arrived over
  HTTPS (directly or through a proxy's X-Forwarded-Proto, as settings trust it).

Scripts on pages come from our origin only: a page that needs an inline script renders
`{{ request.csp_nonce }}` into its script tag (the reference page's Redoc start-up, the new-key
page's copy button), and that page's policy then also allows scripts carrying the nonce (CSP
level 2). An injected inline script or event-handler attribute never runs. Inline styles stay
allowed (style attributes in the templates, Redoc's generated styles).

/mcp is served by the MCP SDK's ASGI app beside Django (config.asgi), not through this middleware:
`with_security_headers(app)` wraps an ASGI app to send the same API headers.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HSTS_SECONDS = 31_536_000  # one year; no includeSubDomains: the deployer's other hosts are not ours to pin

API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
PAGE_POLICY_PARTS = (
    "default-src 'self'",
    "script-src {scripts}",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",  # Redoc runs its search index in a worker made from a blob: URL
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)

ALWAYS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)


class CspNonce:
    """A per-request nonce that remembers whether a template rendered it."""

    def __init__(self) -> None:
        self.value = secrets.token_urlsafe(18)
        self.rendered = False

    def __str__(self) -> str:
        self.rendered = True
        return self.value


def page_policy(nonce: CspNonce | None = None) -> str:
    """The HTML pages' policy: scripts from our origin, and those carrying the nonce the page rendered."""
    scripts = f"'self' 'nonce-{nonce.value}'" if nonce is not None and nonce.rendered else "'self'"
    return "; ".join(PAGE_POLICY_PARTS).format(scripts=scripts)


def _hsts_applies(is_secure: bool) -> bool:
    return bool(getattr(settings, "IS_PRODUCTION", False)) and is_secure


class SecurityHeadersMiddleware:
    """Adds the headers above to every response that lacks them (MIDDLEWARE: after SecurityMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = CspNonce()
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        for name, value in ALWAYS:
            response.headers.setdefault(name, value)
        is_html = response.get("Content-Type", "").startswith("text/html")
        response.headers.setdefault("Content-Security-Policy", page_policy(nonce) if is_html else API_POLICY)
        response.headers.setdefault("Cache-Control", "no-store")
        if _hsts_applies(request.is_secure()):
            response.headers.setdefault("Strict-Transport-Security", f"max-age={HSTS_SECONDS}")
        return response


AsgiApp = Callable[[dict[str, Any], Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]


def _asgi_is_secure(scope: dict[str, Any]) -> bool:
    if scope.get("scheme") in {"https", "wss"}:
        return True
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not proxy_header:
        return False
    name = proxy_header[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
    return any(key.lower() == name and value.decode("latin-1") == proxy_header[1] for key, value in scope["headers"])


def with_security_headers(app: AsgiApp) -> AsgiApp:
    """Wrap an ASGI app (the MCP endpoint) so its HTTP responses carry the API's security headers."""

    async def wrapped(scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        added = [*ALWAYS, ("Content-Security-Policy", API_POLICY), ("Cache-Control", "no-store")]
        if _hsts_applies(_asgi_is_secure(scope)):
            added.append(("Strict-Transport-Security", f"max-age={HSTS_SECONDS}"))

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {bytes(key).lower() for key, _ in headers}
                headers += [
                    (name.lower().encode(), value.encode())
                    for name, value in added
                    if name.lower().encode() not in present
                ]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_with_headers)

    return wrapped
