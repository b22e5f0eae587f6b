"""Every HTTP call the service makes out: source downloads, live registers, the weather forecast,
webhook deliveries.

    outbound.get(url, *, params, headers, timeout, total_timeout, max_bytes, retries, ...)
    outbound.post(url, *, body, headers, timeout, keep_bytes, ...)

Both return a `Response` (status_code, headers, body, final url) or raise `OutboundRefused` (the guard
said no: scheme, credentials in the URL, port, an address that is not public, a redirect to such
a place) or `OutboundFailed` (DNS, connection, TLS, timeout, a body over the cap, 5xx after the
retries).

The guard, on every request and every redirect hop:
- http and https only (a caller may narrow to https), no user:password@ in the URL, port 80, 443
  or 1024 and up;
- the host is resolved once here and EVERY address it resolves to must be public unicast
  (`refusal_reason`: private, loopback, link-local, CGNAT, multicast, reserved, unspecified and the
  IPv4-mapped, 6to4 and NAT64 forms of those are refused);
- the connection goes to an address that was checked, never to a second resolution of the name
  (no DNS rebinding); for https the certificate is still verified against the name, which is also
  sent as SNI and as the Host header.

`OUTBOUND_ALLOW_LOOPBACK` lets tests reach servers on 127.0.0.1 / ::1; production refuses to start
with it on (config/settings.py). Proxies from the environment are not used (a proxy would resolve
the name itself); CA certificates come from REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE when set, as
requests does, otherwise from certifi.

Built on urllib3 (the transport under requests, pinned in requirements.txt): one connection
pool per exchange, opened on the checked address and closed when the exchange ends.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import urlencode, urljoin, urlsplit

import certifi
import idna
import urllib3
from django.conf import settings
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError, SSLError
from urllib3.exceptions import HTTPError as Urllib3Error

logger = logging.getLogger("service.outbound")

USER_AGENT = "vessel-screening-service/1"
DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 3
BACKOFF_CAP_SECONDS = 30.0
SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHUNK = 64 * 1024
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # well-known prefix: the last 32 bits are an IPv4 address
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use translation prefix


class OutboundError(Exception):
    """Base of both outcomes below."""


class OutboundRefused(OutboundError):
    """The guard refused the URL, an address it resolves to, or a redirect."""


class OutboundFailed(OutboundError):
    """The exchange did not succeed: DNS, connection, TLS, timeout, too large, 5xx after retries."""

    def __init__(self, message: str, *, status_code: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status_code = status_code  # the HTTP status when the failure is one
        self.retryable = retryable


@dataclass(frozen=True)
class Response:
    status_code: int
    headers: Mapping[str, str]  # case-insensitive
    body: bytes  # empty when the body went to `stream_to`
    url: str  # the URL that answered (after any redirects)
    size: int = 0  # bytes of (decoded) body received and kept
    truncated: bool = False  # post(): the body was longer than keep_bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        import json

        return json.loads(self.body)


# -- the guard ---------------------------------------------------------------------------------


def refusal_reason(
    address: str | ipaddress.IPv4Address | ipaddress.IPv6Address, *, allow_loopback: bool = False
) -> str | None:
    """Why the service must not connect to `address`, or None for a public unicast address."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        if ip in _NAT64_LOCAL:
            return "private"
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return refusal_reason(embedded, allow_loopback=allow_loopback)
    if ip.is_loopback:
        return None if allow_loopback else "loopback"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.version == 4 and ip in _CGNAT:
        return "CGNAT"
    if ip.is_reserved:
        return "reserved"
    if ip.version == 6 and ip.is_site_local:
        return "site-local"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "non-global"
    return None


@dataclass(frozen=True)
class _Target:
    url: str
    scheme: str
    host: str  # ASCII (IDNA) host name or address literal, no brackets
    port: int
    host_header: str
    path: str  # path and query
    addresses: tuple[str, ...] = field(default=())


def _allow_loopback() -> bool:
    return bool(getattr(settings, "OUTBOUND_ALLOW_LOOPBACK", False))


class _Deadline:
    def __init__(self, seconds: float | None) -> None:
        self.at = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self.at is None else self.at - time.monotonic()

    def cap(self, seconds: float) -> float:
        remaining = self.remaining()
        if remaining is None:
            return seconds
        if remaining <= 0:
            raise OutboundFailed("the time budget ran out", retryable=False)
        return min(seconds, remaining)


# getaddrinfo takes no timeout and a slow resolver can hang for tens of seconds: the lookup runs on
# a small pool so the caller waits only as long as its budget allows (the lookup itself may go on).
_RESOLVER = ThreadPoolExecutor(max_workers=8, thread_name_prefix="outbound-dns")
RESOLVE_TIMEOUT_SECONDS = 5.0


def _resolve(host: str, port: int, seconds: float) -> list[tuple]:
    lookup = _RESOLVER.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        return lookup.result(timeout=seconds)
    except FutureTimeout as exc:
        raise OutboundFailed(f"resolving {host} took longer than {seconds:.1f} s", retryable=True) from exc


def check(url: str, *, schemes: tuple[str, ...] = SCHEMES, deadline: _Deadline | None = None) -> _Target:
    """Parse and check `url`, resolve its host and check every address; what to connect to.

    The lookup waits at most RESOLVE_TIMEOUT_SECONDS, and never past `deadline`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise OutboundRefused(f"not a usable URL: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise OutboundRefused(f"scheme {scheme or '(none)'!r} is not allowed (allowed: {', '.join(schemes)})")
    if "@" in parts.netloc:
        raise OutboundRefused("credentials in the URL are not allowed")
    if not parts.hostname:
        raise OutboundRefused("the URL names no host")
    port = port if port is not None else _DEFAULT_PORTS[scheme]
    if port == 0 or (port < 1024 and port not in (80, 443)):
        raise OutboundRefused(f"port {port} is not allowed (80, 443 or 1024 and up)")
    try:
        host = parts.hostname if parts.hostname.isascii() else idna.encode(parts.hostname, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise OutboundRefused(f"invalid host name: {exc}") from exc
    try:
        infos = _resolve(host, port, (deadline or _Deadline(None)).cap(RESOLVE_TIMEOUT_SECONDS))
    except (socket.gaierror, UnicodeError) as exc:
        raise OutboundFailed(f"cannot resolve {host}: {exc}", retryable=True) from exc
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise OutboundFailed(f"{host} resolves to no address", retryable=True)
    allow_loopback = _allow_loopback()
    for address in addresses:
        reason = refusal_reason(address, allow_loopback=allow_loopback)
        if reason:
            raise OutboundRefused(f"{host} resolves to {address}, a {reason} address")
    literal = f"[{host}]" if ":" in host else host
    host_header = literal if parts.port is None or port == _DEFAULT_PORTS[scheme] else f"{literal}:{port}"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(url, scheme, host, port, host_header, path, addresses)


# -- one exchange ------------------------------------------------------------------------------


def _ca_bundle() -> str:
    return os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or certifi.where()


def _pool(target: _Target, address: str) -> urllib3.HTTPConnectionPool:
    """A pool that connects to the checked `address` and speaks to `target.host`."""
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address,
            target.port,
            maxsize=1,
            retries=False,
            server_hostname=target.host,  # SNI
            assert_hostname=target.host,  # the certificate must name the host, not the address
            cert_reqs="CERT_REQUIRED",
            ca_certs=_ca_bundle(),
        )
    return urllib3.HTTPConnectionPool(address, target.port, maxsize=1, retries=False)


def _exchange(
    method: str,
    target: _Target,
    *,
    headers: Mapping[str, str],
    body: bytes | None,
    timeout: float,
    deadline: _Deadline,
    limit: int,
    truncate: bool,
    stream_to: IO[bytes] | None = None,
) -> Response:
    sent = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"}
    sent.update({k: v for k, v in headers.items() if k.lower() != "host"})
    sent["Host"] = target.host_header
    last: Exception | None = None
    for address in target.addresses:  # every one was checked; the next only when one cannot be reached
        pool = _pool(target, address)
        try:
            try:
                step = deadline.cap(timeout)
                raw = pool.urlopen(
                    method,
                    target.path,
                    body=body,
                    headers=sent,
                    redirect=False,
                    retries=False,
                    assert_same_host=False,
                    preload_content=False,
                    decode_content=True,
                    timeout=urllib3.Timeout(connect=step, read=step),
                )
            except (NewConnectionError, ConnectTimeoutError) as exc:
                last = exc
                continue
            except SSLError as exc:
                raise OutboundFailed(f"TLS with {target.host} failed: {exc}") from exc
            except Urllib3Error as exc:
                raise OutboundFailed(f"{method} {target.url} failed: {exc}", retryable=True) from exc
            try:
                return _read(
                    raw, target, timeout=timeout, deadline=deadline, limit=limit, truncate=truncate, stream_to=stream_to
                )
            finally:
                raw.release_conn()
        finally:
            pool.close()
    raise OutboundFailed(f"cannot connect to {target.host}:{target.port}: {last}", retryable=True)


def _read(
    raw: urllib3.BaseHTTPResponse,
    target: _Target,
    *,
    timeout: float,
    deadline: _Deadline,
    limit: int,
    truncate: bool,
    stream_to: IO[bytes] | None,
) -> Response:
    headers = urllib3.HTTPHeaderDict(raw.headers)
    if raw.status in _REDIRECTS and headers.get("Location") and not truncate:  # get() reads no redirect's body
        return Response(raw.status, headers, b"", target.url)
    declared = headers.get("Content-Length", "")
    if not truncate and declared.isdigit() and int(declared) > limit and not headers.get("Content-Encoding"):
        raise OutboundFailed(f"{target.url} is larger than {limit} bytes ({declared} declared)")
    chunks: list[bytes] = []
    size, cut = 0, False
    try:
        while True:
            sock = getattr(raw.connection, "sock", None)
            if sock is not None:  # each read waits at most `timeout`, and never past the deadline
                sock.settimeout(deadline.cap(timeout))
            data = raw.read1(_CHUNK)
            if not data:
                break
            if size + len(data) > limit:
                if not truncate:
                    raise OutboundFailed(f"{target.url} is larger than {limit} bytes")
                data, cut = data[: limit - size], True
            size += len(data)
            if stream_to is not None:
                stream_to.write(data)
            else:
                chunks.append(data)
            if cut:
                break
            deadline.cap(timeout)
    except Urllib3Error as exc:
        raise OutboundFailed(f"reading {target.url} failed: {exc}", retryable=True) from exc
    except OSError as exc:  # a socket timeout or reset outside urllib3's own wrapping
        raise OutboundFailed(f"reading {target.url} failed: {exc}", retryable=True) from exc
    return Response(raw.status, headers, b"".join(chunks), target.url, size=size, truncated=cut)


# -- the public calls --------------------------------------------------------------------------


def _with_params(url: str, params: Mapping[str, Any] | None) -> str:
    if not params:
        return url
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params, doseq=True)}"


def _origin(target: _Target) -> tuple[str, str, int]:
    return (target.scheme, target.host, target.port)


def get(
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    total_timeout: float | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    retries: int = 0,
    backoff: float = 1.0,
    max_redirects: int = DEFAULT_MAX_REDIRECTS,
    schemes: tuple[str, ...] = SCHEMES,
    stream_to: IO[bytes] | None = None,
) -> Response:
    """GET `url` through the guard; any status below 500 is returned for the caller to judge.

    `timeout` bounds the connection and each read; `total_timeout` (optional) the whole call,
    retries and redirects included. A body over `max_bytes` (after decoding) fails without a
    retry. Connection errors, timeouts and 5xx are tried again up to `retries` times, waiting
    `backoff`, 2x, 4x ... seconds (at most 30). Up to `max_redirects` redirects are followed, each
    hop checked like the first; https never redirects to http, and credentials headers are not
    carried to another origin. With `stream_to` (a seekable binary file) the body is written
    there instead of held in memory (rewound on a retry).
    """
    deadline = _Deadline(total_timeout)
    first = _with_params(url, params)
    attempt = 0
    while True:
        try:
            response = _follow(
                first, dict(headers or {}), timeout, deadline, max_bytes, max_redirects, schemes, stream_to
            )
        except OutboundFailed as exc:
            failure = exc
        else:
            if response.status_code < 500:
                return response
            failure = OutboundFailed(
                f"{response.url} answered {response.status_code}", status_code=response.status_code, retryable=True
            )
        if not failure.retryable or attempt >= retries:
            raise failure
        wait = min(BACKOFF_CAP_SECONDS, backoff * 2**attempt)
        remaining = deadline.remaining()
        if remaining is not None and remaining <= wait:
            raise failure
        logger.info("GET %s: %s; retrying in %.1f s", first, failure, wait)
        time.sleep(wait)
        attempt += 1
        if stream_to is not None:
            stream_to.seek(0)
            stream_to.truncate()


def _follow(
    url: str,
    headers: dict[str, str],
    timeout: float,
    deadline: _Deadline,
    max_bytes: int,
    max_redirects: int,
    schemes: tuple[str, ...],
    stream_to: IO[bytes] | None,
) -> Response:
    target = check(url, schemes=schemes, deadline=deadline)
    for hop in range(max_redirects + 1):
        response = _exchange(
            "GET", target, headers=headers, body=None, timeout=timeout, deadline=deadline,
            limit=max_bytes, truncate=False, stream_to=stream_to,
        )  # fmt: skip
        location = response.headers.get("Location") if response.status_code in _REDIRECTS else None
        if not location or max_redirects == 0:
            return response
        if hop == max_redirects:
            raise OutboundRefused(f"more than {max_redirects} redirects from {url}")
        following = urljoin(target.url, location)
        if target.scheme == "https" and urlsplit(following).scheme.lower() == "http":
            raise OutboundRefused(f"{target.url} redirects from https to http ({following})")
        try:
            nxt = check(following, schemes=schemes, deadline=deadline)
        except OutboundRefused as exc:
            raise OutboundRefused(f"redirect from {target.url} refused: {exc}") from exc
        if _origin(nxt) != _origin(target):
            headers = {k: v for k, v in headers.items() if k.lower() not in _CREDENTIAL_HEADERS}
        target = nxt
    raise AssertionError("unreachable")  # pragma: no cover


def post(
    url: str,
    *,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    timeout: float = 5.0,
    keep_bytes: int = 4096,
    schemes: tuple[str, ...] = SCHEMES,
) -> Response:
    """POST `body` once through the guard; whatever status comes back is returned.

    Made for webhook deliveries: no retry (the caller schedules the next attempt), no redirect
    (a 3xx is returned as the answer), `timeout` bounds the whole exchange, and only the first
    `keep_bytes` of the answer are kept (`truncated` says when there was more).
    """
    deadline = _Deadline(timeout)
    target = check(url, schemes=schemes, deadline=deadline)
    return _exchange(
        "POST", target, headers=dict(headers or {}), body=body, timeout=timeout, deadline=deadline,
        limit=keep_bytes, truncate=True,
    )  # fmt: skip
