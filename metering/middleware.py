"""Every keyed request: authenticate first, then (after the answer) rate-limit and quota headers
and the access-log entry.

Authentication happens here, before anything can answer 404/405/406/413, for every /api/v1
request that carries an Authorization header (except the keyless endpoints, which ignore keys):
a bad key is 401 whatever else is wrong with the request, and a good key's answer carries
X-RateLimit-* even when it is an error (contract 7.3). The key is counted against its rate once,
here; the keyed views reuse what this middleware established.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import lru_cache

from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.middleware import csrf
from django.urls import Resolver404, get_urlconf, resolve
from django.utils import timezone

from core.api.clientip import client_ip
from core.api.errors import ApiError, backing_service_down, error_json_response, unavailable_error
from core.api.middleware import ServiceRequest
from metering import access_log, pace
from metering.auth import ApiKeyAuthentication, KeyContext, authenticate_header_value, count_rate

logger = logging.getLogger("service.auth")

KEYED_PREFIX = "/api/v1/"


class KeyedRequest(ServiceRequest):
    """A request as this middleware leaves it, for annotations only (see ServiceRequest).

    key_context: set by authenticate_first once the request's key authenticated (read with a
    default: keyless requests and those refused 401 never get one).
    """

    key_context: KeyContext


def _error_response(request: ServiceRequest, error: ApiError) -> HttpResponse:
    response = error_json_response(request, error.status, error.code, error.message, **error.extra)
    for name, value in error.headers.items():
        response[name] = value
    request.error_code = error.code
    return response


def _served_by_a_keyed_view(request: HttpRequest) -> bool:
    """True for keyed views and for paths no view serves (their 404 is authenticated too)."""
    return _keyed_path(getattr(request, "urlconf", None) or get_urlconf() or settings.ROOT_URLCONF, request.path_info)


@lru_cache(maxsize=4096)
def _keyed_path(urlconf: str, path_info: str) -> bool:
    """Per URLconf and path, resolved once per process (Django resolves the path again to serve it)."""
    try:
        match = resolve(path_info, urlconf)
    except Resolver404:
        return True
    view = getattr(match.func, "cls", None) or getattr(match.func, "view_class", None)
    return ApiKeyAuthentication in (getattr(view, "authentication_classes", None) or ())


@receiver(setting_changed)
def _urlconf_changed(setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _keyed_path.cache_clear()


def authenticate_first(request: KeyedRequest) -> HttpResponse | None:
    """Authenticate and count the key's rate; an answer (401, 429, 503) when that ends the request."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None or not request.path.startswith(KEYED_PREFIX) or not _served_by_a_keyed_view(request):
        return None
    try:
        context = authenticate_header_value(header, counting=True)
        request.key_context = context
        count_rate(context)
    except ApiError as error:
        return _error_response(request, error)
    except Exception as exc:  # outside ApiErrorMiddleware: answer in the envelope here
        if backing_service_down(exc):
            logger.warning("backing service unavailable during authentication: %s", exc)
            return _error_response(request, unavailable_error())
        logger.exception("authentication failed", extra={"request_id": getattr(request, "request_id", "")})
        return _error_response(
            request, ApiError(500, "internal_error", "The service failed to answer; retry only replay-safe requests.")
        )
    return None


class KeyedResponseMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: KeyedRequest) -> HttpResponse:
        started = time.perf_counter()
        response = authenticate_first(request) or self.get_response(request)
        pace.write_unwritten_pauses()  # a burst pause an enclosing transaction rolled back (cargo)
        context = getattr(request, "key_context", None)
        if context is None:
            return response
        if context.rate is not None:
            for name, value in context.rate.headers().items():
                response[name] = value
        for name, value in context.quota_headers.items():
            response[name] = value
        tool = request.META.get(access_log.TOOL_ENVIRON_KEY)  # a keyed MCP tool made this call in-process
        access_log.record(
            account_id=context.account_id,
            environment=context.environment,
            at=timezone.now(),
            method="MCP" if tool else request.method or "",
            path=f"/mcp tools/call {tool}" if tool else request.get_full_path(),
            status=response.status_code,
            code=getattr(request, "error_code", ""),
            request_id=getattr(request, "request_id", ""),
            key_prefix=context.display_prefix,
            client_ip=client_ip(request),
            duration_ms=(time.perf_counter() - started) * 1000,
            units_charged=context.units_charged,
        )
        return response


class _SkippedForKeyedRequests:
    """Django's own middleware, skipped for a request an API key authenticated.

    Sessions, CSRF, the logged-in user and messages serve the pages and the admin; a keyed API
    request uses none of them (keyed views authenticate by key and are CSRF-exempt), so it skips
    their per-request work. Every other request goes through them unchanged.
    """

    def __call__(self, request: HttpRequest):
        if getattr(request, "key_context", None) is not None:
            return self.get_response(request)  # type: ignore[attr-defined]
        return super().__call__(request)  # type: ignore[misc]


class SessionMiddleware(_SkippedForKeyedRequests, sessions.SessionMiddleware):
    pass


class CsrfViewMiddleware(_SkippedForKeyedRequests, csrf.CsrfViewMiddleware):
    def process_view(self, request, callback, callback_args, callback_kwargs):
        if getattr(request, "key_context", None) is not None:
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class AuthenticationMiddleware(_SkippedForKeyedRequests, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(_SkippedForKeyedRequests, messages.MessageMiddleware):
    pass
