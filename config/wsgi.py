"""WSGI entry point: gunicorn serves the REST API and pages from here in production.

`RequestBodies` does two things Django does not:
- A body sent with `Transfer-Encoding: chunked` has no Content-Length, and Django reads a request
  without one as empty. Such a body is read here (gunicorn decodes the chunks) up to the same size
  limit as any other and handed to Django with its length; a longer one is refused 413 in the
  envelope (`core.api.middleware.oversized_body`, the check config.asgi makes too).
- A request refused before its body was read (413, 401, 404 ...) leaves the body on the
  connection. gunicorn drains at most 64 KiB of it and otherwise closes the keep-alive connection
  without a `Connection: close` (a client reusing it gets a transport error). The rest of the body
  is read and dropped here before the answer goes out, up to DRAIN_MAX_BYTES within
  DRAIN_MAX_SECONDS; past that the connection is closed after the answer.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from django.core.wsgi import get_wsgi_application

from core.api.middleware import oversized_body, too_large_answer

if TYPE_CHECKING:
    from _typeshed.wsgi import InputStream

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


DRAIN_MAX_BYTES = 16 * 1024 * 1024
DRAIN_MAX_SECONDS = 10.0
_DRAIN_CHUNK = 64 * 1024


def drain(stream: Any) -> None:
    """Read and drop what is left of a request body, within the byte and time bounds."""
    deadline = time.monotonic() + DRAIN_MAX_SECONDS
    drained = 0
    try:
        while drained < DRAIN_MAX_BYTES and time.monotonic() < deadline:
            data = stream.read(_DRAIN_CHUNK)
            if not data:
                return
            drained += len(data)
    except (OSError, ValueError):  # the client went away or sent a malformed chunk: gunicorn closes
        return


class RequestBodies:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        original = environ.get("wsgi.input")
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            from django.conf import settings

            stream = cast("InputStream", original)  # PEP 3333: a server always provides wsgi.input
            body = stream.read(settings.MAX_REQUEST_BODY_BYTES + 1)
            refusal = oversized_body(len(body), chunked=True)
            if refusal is not None:
                drain(original)
                headers, payload = too_large_answer(environ.get("HTTP_X_REQUEST_ID"), refusal)
                start_response("413 Request Entity Too Large", headers)
                return [payload]
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        answer = self.app(environ, start_response)
        if original is not None and environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            drain(original)
        return answer


application = RequestBodies(get_wsgi_application())
