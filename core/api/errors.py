"""The error envelope {code, message, request_id[, field_violations]} and the one handler
that turns every exception raised under /api/v1 into it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from kombu.exceptions import OperationalError as BrokerError
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response

logger = logging.getLogger("service.errors")

UNAVAILABLE_CODE = "service_unavailable"
UNAVAILABLE_RETRY_AFTER_SECONDS = 5


class ApiError(Exception):
    """An error answered in the envelope. Raise it from services, views or permissions."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})


class FieldViolation(ApiError):
    """422 validation_failed naming one or more fields and how to resolve each."""

    def __init__(self, violations: list[dict[str, str]], message: str | None = None) -> None:
        fields = ", ".join(dict.fromkeys(v["field"] for v in violations))
        super().__init__(
            422,
            "validation_failed",
            message or f"The request has invalid fields: {fields}.",
            extra={"field_violations": violations},
        )


def request_id_of(request: Any) -> str:
    raw = getattr(request, "_request", request)
    return getattr(raw, "request_id", "") or ""


def envelope(code: str, message: str, request_id: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message, "request_id": request_id}
    body.update(extra)
    return body


def error_json_response(request: Any, status: int, code: str, message: str, **extra: Any) -> JsonResponse:
    """The envelope as a plain Django response, for middleware and non-DRF paths."""
    return JsonResponse(envelope(code, message, request_id_of(request), **extra), status=status)


def _resolution_hint(request: Any) -> str:
    method = getattr(request, "method", "POST")
    path = getattr(request, "path", "")
    return f"correct it and resend {method} {path}"


def _flatten_validation(detail: Any, request: Any, prefix: str = "") -> list[dict[str, str]]:
    """DRF's nested error dict → [{field: 'route.origin', message: '…; correct it and resend …'}]."""
    violations: list[dict[str, str]] = []
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            if key == "non_field_errors":
                name = prefix or "body"
            elif isinstance(key, int):  # DRF keys a list's item errors by index: name them items[3]
                name = f"{prefix}[{key}]"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            violations.extend(_flatten_validation(value, request, name))
    elif isinstance(detail, list):
        if all(not isinstance(item, (Mapping, list)) for item in detail):
            for item in detail:
                violations.append({"field": prefix or "body", "message": f"{item} — {_resolution_hint(request)}."})
        else:
            for index, item in enumerate(detail):
                violations.extend(_flatten_validation(item, request, f"{prefix}[{index}]"))
    else:
        violations.append({"field": prefix or "body", "message": f"{detail} — {_resolution_hint(request)}."})
    return violations


def redis_unavailable(exc: BaseException) -> bool:
    """True when `exc` is Redis (or a library over it) failing to answer, not a bug of ours."""
    return isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError))


def backing_service_down(exc: BaseException) -> bool:
    """The database, cache or broker did not answer: a temporary outage, not a bug."""
    return isinstance(exc, (OperationalError, InterfaceError, BrokerError)) or redis_unavailable(exc)


def unavailable_error() -> ApiError:
    return ApiError(
        503,
        UNAVAILABLE_CODE,
        "A backing service (database, cache or queue) is briefly unavailable and nothing was committed. "
        "Retry after Retry-After; a keyed POST is safe to resend under the same Idempotency-Key.",
        headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER_SECONDS)},
    )


def _translate(exc: Exception, request: Any) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if backing_service_down(exc):
        logger.warning("backing service unavailable: %s", exc, extra={"request_id": request_id_of(request)})
        return unavailable_error()
    if isinstance(exc, drf_exceptions.ParseError):
        return ApiError(400, "invalid_json", f"The request body is not valid JSON: {exc.detail}")
    if isinstance(exc, drf_exceptions.UnsupportedMediaType):
        return ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    if isinstance(exc, drf_exceptions.ValidationError):
        violations = _flatten_validation(exc.detail, request)
        return FieldViolation(violations)
    if isinstance(exc, (drf_exceptions.NotFound, Http404)):
        return ApiError(404, "not_found", "No such resource.")
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return ApiError(405, "method_not_allowed", f"Method {getattr(request, 'method', '')} is not allowed here.")
    if isinstance(exc, drf_exceptions.NotAcceptable):
        return ApiError(406, "not_acceptable", "This API answers only application/json.")
    if isinstance(exc, (drf_exceptions.NotAuthenticated, drf_exceptions.AuthenticationFailed)):
        return ApiError(401, "unauthorized", str(exc.detail))
    if isinstance(exc, (drf_exceptions.PermissionDenied, DjangoPermissionDenied)):
        return ApiError(403, "forbidden", "This key may not perform this operation.")
    if isinstance(exc, drf_exceptions.Throttled):
        return ApiError(429, "rate_limit_exceeded", "Too many requests.")
    if isinstance(exc, drf_exceptions.APIException):
        return ApiError(exc.status_code, str(exc.default_code), str(exc.detail))
    logger.exception("unhandled error", extra={"request_id": request_id_of(request)})
    return ApiError(500, "internal_error", "The service failed to answer; retry only replay-safe requests.")


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response:
    """DRF EXCEPTION_HANDLER: every error of every API view becomes the envelope."""
    request = context.get("request")
    error = _translate(exc, request)
    response = Response(envelope(error.code, error.message, request_id_of(request), **error.extra), status=error.status)
    for name, value in error.headers.items():
        response[name] = value
    if request is not None:
        # Remember the code so the access log and metering can read it.
        raw = getattr(request, "_request", request)
        raw.error_code = error.code
    return response
