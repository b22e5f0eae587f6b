"""JSON is the renderer on /api/v1 (the browsable API is off); an operation that also answers a PDF
(the evidence pack) adds PdfRenderer to its own renderers."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer


class ServiceJSONRenderer(JSONRenderer):
    # Compact output and literal UTF-8: smaller bodies, names such as "Göteborg" readable.
    ensure_ascii = False
    compact = True


# What nearly every client sends (or nothing): answered without parsing the header.
_PLAIN_ACCEPTS = frozenset({None, "*/*", "application/json"})


class JSONContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with the common case decided at once: no ?format= and an Accept of
    nothing, */* or application/json picks the JSON renderer with its own media type, exactly as
    the full negotiation would. Anything else (406 included) goes through DRF's."""

    def select_renderer(self, request, renderers, format_suffix=None):
        if (
            format_suffix is None
            and len(renderers) == 1
            and renderers[0].media_type == "application/json"
            and request.META.get("HTTP_ACCEPT") in _PLAIN_ACCEPTS
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
        ):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)


class PdfRenderer(BaseRenderer):
    """Accept: application/pdf on an operation that lists it; the view hands over the PDF's bytes
    (an error still answers the JSON envelope: the exception handler picks the JSON renderer)."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else b""
