"""Request ids, the API version header, body-size limits and JSON errors for paths that
never reach a DRF view (unknown paths, Django's own 404/405/500)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.api.errors import FieldViolation, backing_service_down, envelope, error_json_response, unavailable_error
from core.api.ids import is_well_formed_request_id, new_request_id
from core.changelog import deprecation_for

logger = logging.getLogger("service.errors")

API_PREFIX = "/api/"
MAX_PATH_CHARS = 1024
MAX_QUERY_CHARS = 4096


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIX)


def oversized_body(size: int, *, chunked: bool = False) -> str | None:
    """The one request-body size check: None when `size` bytes are within MAX_REQUEST_BODY_BYTES,
    otherwise the message of the 413 request_too_large.

    Used by ApiErrorMiddleware on a declared Content-Length, and by the servers' entry points on
    chunked bodies (config.wsgi.RequestBodies, config.asgi), which read such a body only up to one
    byte past the limit: their message names the limit, not a size they never learned.
    """
    limit = settings.MAX_REQUEST_BODY_BYTES
    if size <= limit:
        return None
    if chunked:
        return f"The chunked request body is over the limit of {limit} bytes."
    return f"The request body is {size} bytes; the limit is {limit} bytes."


def too_large_answer(sent_request_id: str | None, message: str) -> tuple[list[tuple[str, str]], bytes]:
    """Headers and body of a 413 request_too_large that a server entry point answers before Django
    sees the request (WSGI and ASGI alike): the envelope, the caller's X-Request-Id when well formed."""
    request_id = sent_request_id if is_well_formed_request_id(sent_request_id) else new_request_id()
    payload = json.dumps(envelope("request_too_large", message, request_id)).encode()
    headers = [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(payload))),
        ("X-Request-Id", request_id),
        ("X-Service-API-Version", settings.SERVICE_API_VERSION),
    ]
    return headers, payload


class ServiceRequest(HttpRequest):
    """An HttpRequest with the attributes the service's middleware set on it, for annotations only:
    Django builds the request object; nothing instantiates this class.

    request_id: set by RequestIdMiddleware on every request.
    error_code: set when the answer is an error with a known code, for the access log (read with a
    default, since most requests never set it).
    """

    request_id: str
    error_code: str


class RequestIdMiddleware:
    """Echo a well-formed caller X-Request-Id, otherwise mint one; stamp every response with it, the
    API version and, on answers that carry a deprecated part, the Deprecation header (contract 9.2)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: ServiceRequest) -> HttpResponse:
        sent = request.headers.get("X-Request-Id")
        request.request_id = sent if is_well_formed_request_id(sent) else new_request_id()
        response = self.get_response(request)
        response["X-Request-Id"] = request.request_id
        response["X-Service-API-Version"] = settings.SERVICE_API_VERSION
        match = getattr(request, "resolver_match", None)
        if match is not None and match.url_name and response.status_code < 300:
            deprecation = deprecation_for(match.url_name, request.method or "", timezone.now().date())
            if deprecation is not None:
                response["Deprecation"] = deprecation.header_value()
                response["Link"] = '</changelog>; rel="deprecation"; type="text/html"'
        return response


_GENERIC_ERRORS = {
    400: ("bad_request", "The request could not be read."),
    403: ("forbidden", "This request is not allowed."),
    404: ("not_found", "No such endpoint or resource."),
    405: ("method_not_allowed", "This method is not allowed on this path."),
    413: ("request_too_large", "The request body is too large."),
    500: ("internal_error", "The service failed to answer; retry only replay-safe requests."),
}


class ApiErrorMiddleware:
    """Under /api/: refuse oversized bodies, and turn any non-JSON error into the envelope."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: ServiceRequest) -> HttpResponse:
        if not is_api_path(request.path):
            return self.get_response(request)
        too_large = self._oversized(request)
        if too_large is not None:
            request.error_code = "request_too_large"  # the access log's code for a keyed 413
            return too_large
        unreadable = self._unreadable_url(request)
        if unreadable is not None:
            request.error_code = json.loads(unreadable.content)["code"]
            return unreadable
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").startswith("application/json"):
            code, message = _GENERIC_ERRORS.get(response.status_code, ("error", "The request failed."))
            request.error_code = code
            if response.status_code == 405:
                allowed = response.get("Allow")
                message = f"Method {request.method} is not allowed on this path."
                replaced = error_json_response(request, 405, code, message)
                if allowed:
                    replaced["Allow"] = allowed
                return replaced
            return error_json_response(request, response.status_code, code, message)
        return response

    def _oversized(self, request: HttpRequest) -> HttpResponse | None:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_json_response(request, 400, "bad_request", "Content-Length is not a number.")
        message = oversized_body(length)
        if message is not None:
            return error_json_response(request, 413, "request_too_large", message)
        return None

    def _unreadable_url(self, request: HttpRequest) -> HttpResponse | None:
        """URLs no resource can have: too long (414), a NUL in the path (404) or in a parameter (422)."""
        query = request.META.get("QUERY_STRING", "")
        if len(request.path) > MAX_PATH_CHARS or len(query) > MAX_QUERY_CHARS:
            message = (
                f"The URL is too long (path up to {MAX_PATH_CHARS} characters, query up to {MAX_QUERY_CHARS}); "
                "send shorter filter values."
            )
            return error_json_response(request, 414, "uri_too_long", message)
        if "\x00" in request.path:
            return error_json_response(request, 404, *_GENERIC_ERRORS[404])
        bad = [name for name, values in request.GET.lists() if "\x00" in name or any("\x00" in v for v in values)]
        if bad:
            violations = [
                {"field": name.replace("\x00", ""), "message": "contains a NUL character (U+0000); remove it."}
                for name in bad
            ]
            refused = FieldViolation(violations)
            return error_json_response(request, 422, refused.code, refused.message, field_violations=violations)
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_api_path(request.path):
            return None
        if backing_service_down(exception):
            logger.warning("backing service unavailable outside DRF: %s", exception)
            error = unavailable_error()
            response = error_json_response(request, error.status, error.code, error.message)
            for name, value in error.headers.items():
                response[name] = value
            return response
        logger.exception("unhandled error outside DRF", extra={"request_id": getattr(request, "request_id", "")})
        return error_json_response(request, 500, *_GENERIC_ERRORS[500])
