"""Outbound HTTP (core/outbound.py): the address guard, pinning, redirects, caps, timeouts, retries.

Real sockets throughout: a local ThreadingHTTPServer (and an HTTPS one with a certificate made
here). `socket.getaddrinfo` is replaced only where a test must decide what a name resolves to.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from core import outbound
from core.outbound import OutboundFailed, OutboundRefused, refusal_reason
from tests.support.tls import self_signed_certificate

ROOT = Path(__file__).resolve().parent.parent.parent


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status: int, body: bytes = b"", **headers: str) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: bytes = b"") -> None:
        self.server.seen.append((self.command, self.path, dict(self.headers), body))

    def do_GET(self):  # noqa: N802
        self._record()
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if url.path == "/ok":
            self._send(200, json.dumps({"ok": True, "query": query}).encode(), Content_Type="application/json")
        elif url.path == "/redirect":
            self._send(302, Location=query["to"][0])
        elif url.path == "/flaky":  # 503 until `fails` requests have been answered
            self.server.flaky += 1
            if self.server.flaky <= int(query["fails"][0]):
                self._send(503, b"busy")
            else:
                self._send(200, b"fine")
        elif url.path == "/missing":
            self._send(404, b"no such thing")
        elif url.path == "/huge-declared":
            self.send_response(200)
            self.send_header("Content-Length", str(10**9))
            self.send_header("Connection", "close")
            self.end_headers()
        elif url.path == "/endless":  # chunked, no length: only counting while reading can stop it
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            block = b"x" * 65536
            try:
                for _ in range(2000):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            except OSError:
                pass
        elif url.path == "/slow":
            time.sleep(float(query["seconds"][0]))
            self._send(200, b"late")
        elif url.path == "/drip":  # headers at once, then one byte every 0.1 s for 5 s
            self.send_response(200)
            self.send_header("Content-Length", "50")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(50):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        else:
            self._send(500, b"unknown path")

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._record(body)
        if self.path == "/hook":
            self._send(202, b"y" * 10_000, Content_Type="text/plain")
        elif self.path == "/slow-hook":
            time.sleep(2)
            self._send(200)
        elif self.path == "/hook-moved":
            self._send(308, b"moved", Location="/hook")
        else:
            self._send(500)


def _serve(ssl_context: ssl.SSLContext | None = None, host: str = "127.0.0.1"):
    server_class = ThreadingHTTPServer
    if ":" in host:
        server_class = type("V6Server", (ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
    server = server_class((host, 0), _Handler)
    server.seen, server.flaky = [], 0
    server.handle_error = lambda *args: None
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def server():
    server = _serve()
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def loopback(settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = True


@pytest.fixture
def resolve(monkeypatch):
    """resolve({"name": ["1.2.3.4", ...]}): names resolve to those addresses; calls are counted."""
    real = socket.getaddrinfo
    calls: list[str] = []

    def install(table: dict[str, list[str]]):
        def fake(host, port, *args, **kwargs):
            if host in table:
                calls.append(host)
                return [info for address in table[host] for info in real(address, port, *args, **kwargs)]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", fake)
        return calls

    return install


# -- the address classifier --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "CGNAT"),
        ("100.127.255.254", "CGNAT"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("fd12:3456:789a::1", "private"),
        ("fc00::1", "private"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("2002:a00:1::1", "private"),
        ("2002:7f00:1::1", "loopback"),
        ("64:ff9b::a00:1", "private"),
        ("64:ff9b::a9fe:a9fe", "link-local"),
        ("64:ff9b:1::1", "private"),
        ("192.0.2.10", "private"),
    ],
)
def test_every_non_public_address_form_is_refused_with_its_reason(address, reason):
    assert refusal_reason(address) == reason


@pytest.mark.parametrize(
    "address",
    ["8.8.8.8", "151.101.1.69", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"],
)
def test_public_unicast_addresses_pass_in_every_form(address):
    assert refusal_reason(address) is None


def test_allowing_loopback_allows_loopback_and_nothing_else_private():
    assert refusal_reason("127.0.0.1", allow_loopback=True) is None
    assert refusal_reason("::1", allow_loopback=True) is None
    assert refusal_reason("::ffff:127.0.0.1", allow_loopback=True) is None
    for address in ("10.0.0.1", "169.254.169.254", "100.64.0.1", "fd00::1", "0.0.0.0"):
        assert refusal_reason(address, allow_loopback=True) is not None
    assert refusal_reason(ipaddress.ip_address("10.0.0.1"), allow_loopback=True) == "private"


# -- the guard, end to end ---------------------------------------------------------------------


def test_a_server_on_loopback_is_refused_by_default_and_never_contacted(server, settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = False
    port = server.server_address[1]
    for url in (f"http://localhost:{port}/ok", f"{server.url}/ok", f"http://[::ffff:127.0.0.1]:{port}/ok"):
        with pytest.raises(OutboundRefused, match="loopback"):
            outbound.get(url)
    with pytest.raises(OutboundRefused, match="loopback"):
        outbound.post(f"http://localhost:{port}/hook", body=b"{}")
    assert server.seen == []


def test_the_loopback_setting_lets_tests_reach_their_own_server(server, loopback):
    response = outbound.get(f"http://localhost:{server.server_address[1]}/ok", params={"imo": "9074729"})
    assert response.status_code == 200 and response.ok
    assert response.json() == {"ok": True, "query": {"imo": ["9074729"]}}


def test_a_name_with_any_private_address_among_its_answers_is_refused(resolve):
    resolve({"mixed.example": ["93.184.216.34", "10.0.0.7"]})
    with pytest.raises(OutboundRefused, match=r"10\.0\.0\.7, a private address"):
        outbound.get("http://mixed.example/")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/list.csv", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.com/", "scheme"),
        ("http://user:secret@example.com/", "credentials"),
        ("http://user@example.com/", "credentials"),
        ("http://example.com:25/", "port 25"),
        ("http://example.com:0/", "port 0"),
        ("http://example.com:99999/", "not a usable URL"),
        ("http:///nohost", "no host"),
    ],
)
def test_urls_with_another_scheme_credentials_or_a_system_port_are_refused_before_any_lookup(url, why, resolve):
    calls = resolve({})
    with pytest.raises(OutboundRefused, match=why):
        outbound.get(url)
    assert calls == []


def test_a_caller_can_narrow_the_schemes_to_https(server, loopback):
    with pytest.raises(OutboundRefused, match="scheme 'http'"):
        outbound.post(f"{server.url}/hook", body=b"{}", schemes=("https",))
    assert server.seen == []


def test_the_name_is_resolved_once_and_the_connection_goes_to_the_checked_address(server, loopback, monkeypatch):
    # A rebinding name: public-looking first (here loopback, allowed), then a private address.
    answers = iter([["127.0.0.1"]])
    real = socket.getaddrinfo
    calls: list[str] = []

    def rebinding(host, port, *args, **kwargs):
        if host == "registers.example":
            calls.append(host)
            return real(next(answers, ["10.255.255.1"])[0], port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    port = server.server_address[1]
    response = outbound.get(f"http://registers.example:{port}/ok", timeout=2)
    assert response.status_code == 200
    assert calls == ["registers.example"]  # resolved once, in the guard
    _, _, headers, _ = server.seen[0]
    assert headers["Host"] == f"registers.example:{port}"  # the name, not the address, as Host


def test_an_ipv6_loopback_server_is_reached_at_its_address(loopback):
    try:
        server = _serve(host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        response = outbound.get(f"http://[::1]:{server.server_address[1]}/ok")
    finally:
        server.shutdown()
        server.server_close()
    assert response.status_code == 200


# -- redirects ---------------------------------------------------------------------------------


def test_a_redirect_to_a_private_address_is_refused(server, loopback):
    for target in ("http://10.0.0.1/admin", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/"):
        with pytest.raises(OutboundRefused, match="redirect from .* refused"):
            outbound.get(f"{server.url}/redirect", params={"to": target})


def test_a_redirect_to_a_checked_place_is_followed_and_credentials_stay_behind_on_another_origin(
    server, loopback, resolve
):
    resolve({"mirror.example": ["127.0.0.1"]})
    port = server.server_address[1]
    same = outbound.get(f"{server.url}/redirect", params={"to": "/ok"}, headers={"Authorization": "Bearer t"})
    assert same.status_code == 200 and same.url == f"{server.url}/ok"
    assert server.seen[-1][2].get("Authorization") == "Bearer t"
    other = outbound.get(
        f"{server.url}/redirect",
        params={"to": f"http://mirror.example:{port}/ok"},
        headers={"Authorization": "Bearer t"},
    )
    assert other.status_code == 200 and "Authorization" not in server.seen[-1][2]
    assert server.seen[-1][2]["Host"] == f"mirror.example:{port}"


def test_redirects_stop_after_the_limit_and_none_are_followed_when_the_limit_is_zero(server, loopback):
    loop = f"{server.url}/redirect?to=/redirect?to=/redirect?to=/redirect?to=/ok"
    with pytest.raises(OutboundRefused, match="more than 2 redirects"):
        outbound.get(loop, max_redirects=2)
    unfollowed = outbound.get(f"{server.url}/redirect", params={"to": "/ok"}, max_redirects=0)
    assert unfollowed.status_code == 302 and unfollowed.headers["Location"] == "/ok"


def test_a_post_follows_no_redirect_and_returns_it_as_the_answer(server, loopback):
    response = outbound.post(f"{server.url}/hook-moved", body=b'{"event": 1}')
    assert response.status_code == 308 and response.headers["Location"] == "/hook"
    assert [(method, path) for method, path, _, _ in server.seen] == [("POST", "/hook-moved")]


# -- the webhook shape: one signed POST of bytes -----------------------------------------------


def test_a_post_sends_the_exact_bytes_and_headers_and_keeps_a_capped_snippet_of_the_answer(server, loopback):
    body = b'{"type":"screening.completed","id":"evt_1"}'
    response = outbound.post(
        f"{server.url}/hook",
        body=body,
        headers={"Content-Type": "application/json", "X-Signature": "t=1,v1=abc"},
        timeout=2,
        keep_bytes=100,
    )
    assert response.status_code == 202
    assert response.body == b"y" * 100 and response.truncated is True
    method, path, headers, received = server.seen[0]
    assert (method, path, received) == ("POST", "/hook", body)
    assert headers["X-Signature"] == "t=1,v1=abc" and headers["Content-Length"] == str(len(body))
    assert headers["User-Agent"].startswith("vessel-screening-service")


def test_a_post_to_a_slow_receiver_fails_within_its_timeout(server, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed):
        outbound.post(f"{server.url}/slow-hook", body=b"{}", timeout=0.3)
    assert time.monotonic() - started < 1.0


@pytest.fixture
def slow_resolver(monkeypatch):
    """Names under .slow.test take 3 s to resolve (a resolver that hangs); the rest resolve as usual."""
    real = socket.getaddrinfo

    def slow(host, port, *args, **kwargs):
        if str(host).endswith(".slow.test"):
            time.sleep(3)
            return real("127.0.0.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)


def test_a_slow_name_lookup_counts_against_the_post_timeout(slow_resolver, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed, match="resolving hooks.slow.test took longer"):
        outbound.post("https://hooks.slow.test/hook", body=b"{}", timeout=0.3)
    assert time.monotonic() - started < 1.0


def test_a_slow_name_lookup_counts_against_a_get_total_timeout(slow_resolver, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed):
        outbound.get("https://files.slow.test/list.xml", total_timeout=0.3, retries=0)
    assert time.monotonic() - started < 1.0


# -- size cap ----------------------------------------------------------------------------------


def test_an_endless_body_is_cut_at_the_cap_while_streaming(server, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed, match="larger than 200000 bytes"):
        outbound.get(f"{server.url}/endless", max_bytes=200_000, retries=3, backoff=0.5)
    assert time.monotonic() - started < 1.0  # not retried, not read to the end
    assert len(server.seen) == 1


def test_a_declared_length_over_the_cap_fails_before_reading(server, loopback):
    with pytest.raises(OutboundFailed, match="1000000000 declared"):
        outbound.get(f"{server.url}/huge-declared", max_bytes=1024)


def test_a_body_can_be_streamed_to_a_file_instead_of_memory(server, loopback, tmp_path):
    with open(tmp_path / "answer", "w+b") as sink:
        response = outbound.get(f"{server.url}/flaky", params={"fails": 1}, retries=1, backoff=0.01, stream_to=sink)
    assert response.body == b"" and response.size == 4
    assert (tmp_path / "answer").read_bytes() == b"fine"


# -- timeouts ----------------------------------------------------------------------------------


def test_a_server_that_does_not_answer_in_time_is_a_failure(server, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed):
        outbound.get(f"{server.url}/slow", params={"seconds": 2}, timeout=0.3)
    assert time.monotonic() - started < 1.0


def test_the_total_timeout_bounds_a_body_that_drips_in_under_the_read_timeout(server, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed):
        outbound.get(f"{server.url}/drip", timeout=1.0, total_timeout=0.5)
    assert time.monotonic() - started < 1.2  # each byte arrives within the 1 s read timeout


# -- retries -----------------------------------------------------------------------------------


def test_a_get_retries_5xx_with_growing_waits_and_returns_the_answer_that_came(server, loopback):
    started = time.monotonic()
    response = outbound.get(f"{server.url}/flaky", params={"fails": 2}, retries=2, backoff=0.1)
    elapsed = time.monotonic() - started
    assert response.status_code == 200 and response.body == b"fine"
    assert len(server.seen) == 3
    assert elapsed >= 0.1 + 0.2  # waited 0.1 s, then 0.2 s


def test_a_5xx_after_the_last_retry_is_a_failure_with_its_status(server, loopback):
    with pytest.raises(OutboundFailed) as failed:
        outbound.get(f"{server.url}/flaky", params={"fails": 5}, retries=1, backoff=0.01)
    assert failed.value.status_code == 503 and len(server.seen) == 2


def test_a_4xx_is_returned_once_and_not_retried(server, loopback):
    response = outbound.get(f"{server.url}/missing", retries=3, backoff=0.01)
    assert response.status_code == 404 and len(server.seen) == 1


def test_connection_errors_are_retried_with_backoff(loopback):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens here once the probe closes
    started = time.monotonic()
    with pytest.raises(OutboundFailed, match="cannot connect"):
        outbound.get(f"http://127.0.0.1:{port}/", retries=2, backoff=0.1)
    assert time.monotonic() - started >= 0.3


def test_retries_never_wait_past_the_total_timeout(server, loopback):
    started = time.monotonic()
    with pytest.raises(OutboundFailed) as failed:
        outbound.get(f"{server.url}/flaky", params={"fails": 5}, retries=5, backoff=1.0, total_timeout=0.5)
    assert failed.value.status_code == 503 and time.monotonic() - started < 0.5


def test_a_post_is_sent_once_even_when_it_fails(server, loopback):
    response = outbound.post(f"{server.url}/not-a-hook", body=b"{}")
    assert response.status_code == 500 and len(server.seen) == 1


# -- HTTPS: connect to the checked address, verify the certificate against the name -------------


@pytest.fixture
def https_server(tmp_path, monkeypatch):
    cert, key = self_signed_certificate(tmp_path, "registers.example")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    sni: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: sni.append(name)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))  # trust this certificate and nothing else
    server = _serve(context)
    server.sni = sni
    yield server
    server.shutdown()
    server.server_close()


def test_https_connects_to_the_checked_address_with_the_name_as_sni_and_certificate_name(
    https_server, loopback, resolve
):
    calls = resolve({"registers.example": ["127.0.0.1"]})
    port = https_server.server_address[1]
    response = outbound.get(f"https://registers.example:{port}/ok", timeout=2)
    assert response.status_code == 200
    assert calls == ["registers.example"]
    assert https_server.sni == ["registers.example"]
    assert https_server.seen[0][2]["Host"] == f"registers.example:{port}"


def test_https_refuses_a_certificate_for_another_name(https_server, loopback, resolve):
    resolve({"other.example": ["127.0.0.1"]})
    with pytest.raises(OutboundFailed, match="TLS"):
        outbound.get(f"https://other.example:{https_server.server_address[1]}/ok", timeout=2, retries=2, backoff=0.5)
    assert https_server.seen == []


def test_https_never_redirects_to_http(https_server, loopback, resolve):
    resolve({"registers.example": ["127.0.0.1"]})
    port = https_server.server_address[1]
    with pytest.raises(OutboundRefused, match="https to http"):
        outbound.get(f"https://registers.example:{port}/redirect", params={"to": f"http://registers.example:{port}/ok"})


# -- production ----------------------------------------------------------------------------------


def _import_settings(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **{k: v for k, v in os.environ.items() if k not in {"OUTBOUND_ALLOW_LOOPBACK", "DEBUG"}},
        "SERVICE_MODE": "production",
        "SECRET_KEY": "x" * 50,
        "SERVICE_VAR_DIR": str(tmp_path),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", "import config.settings"], cwd=ROOT, env=environment, capture_output=True, text=True
    )


def test_production_refuses_to_start_with_loopback_allowed(tmp_path):
    refused = _import_settings(tmp_path, OUTBOUND_ALLOW_LOOPBACK="1")
    assert refused.returncode != 0 and "OUTBOUND_ALLOW_LOOPBACK must be off" in refused.stderr
    assert _import_settings(tmp_path).returncode == 0
