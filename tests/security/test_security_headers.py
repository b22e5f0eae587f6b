"""Security headers on the API, its error envelope, the pages, the admin and /mcp (core/security_headers.py).

The middleware is put in place with the `security_headers` fixture wherever settings.MIDDLEWARE does
not list it yet; /mcp is not served through Django (config.asgi sends it to the MCP SDK's app), so it
is checked through `with_security_headers`, the wrapper config.asgi puts around that app.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from django.http import HttpResponse
from django.template import engines
from django.test import RequestFactory

from core.security_headers import API_POLICY, SecurityHeadersMiddleware, page_policy, with_security_headers
from tests.browser.conftest import CHROMIUM
from tests.security.conftest import RECEIVER_URL, send

pytestmark = pytest.mark.django_db

COMMON = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}


def assert_api_headers(response, label: str) -> None:  # type: ignore[no-untyped-def]
    for name, value in {**COMMON, "Content-Security-Policy": API_POLICY, "Cache-Control": "no-store"}.items():
        assert response.get(name) == value, f"{label}: {name} is {response.get(name)!r}"


def assert_page_headers(response, label: str) -> None:  # type: ignore[no-untyped-def]
    for name, value in COMMON.items():
        assert response.get(name) == value, f"{label}: {name} is {response.get(name)!r}"
    policy = response["Content-Security-Policy"]
    for directive in ("default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"):
        assert directive in policy, f"{label}: {directive} missing from {policy}"
    assert "http:" not in policy and "https:" not in policy and "*" not in policy  # nothing from elsewhere


def test_api_answers_and_error_envelopes_carry_the_api_headers(security_headers, client, issue_key, settings):
    raw = issue_key("live")
    settings.MAX_REQUEST_BODY_BYTES = 100
    answers = {
        "keyed 200": send(client, "get", raw, "/api/v1/usage"),
        "keyless 200": client.get("/api/v1/ports?query=Rotterdam"),
        "openapi document": client.get("/api/v1/openapi.json"),
        "404 envelope (unknown path)": client.get("/api/v1/nowhere"),
        "401 envelope": client.get("/api/v1/usage"),
        "404 envelope (unknown id)": send(client, "get", raw, "/api/v1/screenings/scr_01JZZZZZZZZZZZZZZZZZZZZZZZ"),
        "405 envelope": client.delete("/api/v1/ports"),
        "413 envelope": send(client, "post", raw, "/api/v1/screenings", {"imo": "9300776", "pad": "x" * 200}),
        "healthz": client.get("/healthz"),
    }
    for label, response in answers.items():
        assert_api_headers(response, label)


def test_answers_carrying_a_webhook_secret_are_never_stored_by_a_cache(security_headers, client, issue_key):
    raw = issue_key("live")
    created = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": RECEIVER_URL})
    rotated = send(client, "post", raw, f"/api/v1/webhook-endpoints/{created.json()['id']}/rotate-secret", {})
    for response in (created, rotated):
        assert "secret" in response.json() and response["Cache-Control"] == "no-store"


@pytest.mark.parametrize("page", ["/api/v1/docs", "/signup", "/login", "/admin/login/", "/changelog"])
def test_html_pages_carry_a_content_security_policy_and_the_frame_and_sniffing_headers(security_headers, client, page):
    response = client.get(page)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert_page_headers(response, page)


def test_a_views_own_cache_control_is_kept(security_headers, client):
    response = client.get("/signup")  # never_cache: its own, stricter than no-store alone
    assert "no-store" in response["Cache-Control"] and "must-revalidate" in response["Cache-Control"]


@pytest.mark.parametrize(("production", "secure", "sent"), [(True, True, True), (True, False, False), (False, True, False)])  # fmt: skip
def test_strict_transport_security_is_sent_over_https_in_production_only(
    security_headers, client, settings, production, secure, sent
):
    settings.IS_PRODUCTION = production
    for path in ("/api/v1/ports?query=Rotterdam", "/signup"):
        response = client.get(path, secure=secure)
        assert ("Strict-Transport-Security" in response) is sent, path
        if sent:
            assert response["Strict-Transport-Security"] == "max-age=31536000"


def test_https_behind_a_proxy_counts_as_https_for_strict_transport_security(security_headers, client, settings):
    settings.IS_PRODUCTION = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert "Strict-Transport-Security" in client.get("/signup", HTTP_X_FORWARDED_PROTO="https")


def test_a_page_that_renders_the_nonce_allows_only_scripts_carrying_it():
    template = engines["django"].from_string('<script nonce="{{ request.csp_nonce }}">go()</script>')

    def view(request):  # type: ignore[no-untyped-def]
        return HttpResponse(template.render({}, request))

    request = RequestFactory().get("/page")
    response = SecurityHeadersMiddleware(view)(request)
    nonce = request.csp_nonce.value
    assert f'nonce="{nonce}"' in response.content.decode()
    assert f"script-src 'self' 'nonce-{nonce}';" in response["Content-Security-Policy"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"].split("script-src", 1)[1].split(";")[0]
    plain = SecurityHeadersMiddleware(lambda request: HttpResponse("<p>no scripts</p>"))(RequestFactory().get("/"))
    assert plain["Content-Security-Policy"] == page_policy()
    assert "script-src 'self';" in plain["Content-Security-Policy"]  # no inline script runs on any page


@pytest.mark.parametrize("page", ["/api/v1/docs", "/changelog", "/signup", "/admin/login/"])
def test_no_page_allows_inline_scripts_without_its_nonce(security_headers, client, page):
    response = client.get(page)
    scripts = response["Content-Security-Policy"].split("script-src ", 1)[1].split(";")[0]
    assert "'unsafe-inline'" not in scripts and "'unsafe-hashes'" not in scripts
    html = response.content.decode()
    for tag in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html):  # every inline script carries the nonce
        nonce = re.search(r'nonce="([^"]+)"', tag)
        assert nonce and f"'nonce-{nonce.group(1)}'" in scripts, (page, tag)
    assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", html), page  # no event-handler attributes


def _asgi_get(app, method: str, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[str, str]]:  # type: ignore[no-untyped-def]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *headers], "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send_message(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send_message))
    start = next(message for message in sent if message["type"] == "http.response.start")
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}


@pytest.mark.parametrize(
    ("method", "path", "headers", "status"),
    [
        ("GET", "/mcp", [], 405),
        ("GET", "/health", [], 200),
        ("POST", "/mcp", [(b"origin", b"https://evil.example"), (b"content-type", b"application/json")], 403),
    ],
)
def test_the_mcp_endpoint_answers_carry_the_api_headers(method, path, headers, status):
    from mcp_bridge.asgi import build_mcp_application

    got, sent = _asgi_get(with_security_headers(build_mcp_application()), method, path, headers)
    assert got == status
    assert "x-request-id" in sent  # the bridge's own headers are kept
    for name, value in {**COMMON, "Content-Security-Policy": API_POLICY, "Cache-Control": "no-store"}.items():
        assert sent.get(name.lower()) == value, f"{method} {path}: {name}"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (bin/test installs it on CI)")
@pytest.mark.django_db(transaction=True)
def test_the_reference_page_renders_in_a_browser_under_its_policy(security_headers):
    from django.core.handlers.wsgi import WSGIHandler

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
            pass

    server = make_server("127.0.0.1", 0, WSGIHandler(), handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/api/v1/docs"
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--virtual-time-budget=15000",
             "--dump-dom", url],
            capture_output=True, timeout=90, check=False,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    html, log = result.stdout.decode(), result.stderr.decode()
    assert "voyage-assessments" in html  # Redoc ran (its script, styles and search worker) and drew the document
    violations = [line for line in log.splitlines() if "Content Security Policy" in line]
    # Only Redoc's "powered by" logo, an image on a CDN the page must not load anyway, is refused.
    assert all("img-src" in line and "cdn.redoc.ly" in line for line in violations), violations
