"""After every keyed request: rate-limit and quota headers, and the access-log entry."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from config.api.clientip import client_ip
from metering import access_log


class KeyedResponseMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        context = getattr(request, "key_context", None)
        if context is None:
            return response
        if context.rate is not None:
            for name, value in context.rate.headers().items():
                response[name] = value
        for name, value in context.quota_headers.items():
            response[name] = value
        access_log.record(
            account_id=context.account_id,
            environment=context.environment,
            at=timezone.now(),
            method=request.method or "",
            path=request.get_full_path(),
            status=response.status_code,
            code=getattr(request, "error_code", ""),
            request_id=getattr(request, "request_id", ""),
            key_prefix=context.display_prefix,
            client_ip=client_ip(request),
            duration_ms=(time.perf_counter() - started) * 1000,
            units_charged=context.units_charged,
        )
        return response
