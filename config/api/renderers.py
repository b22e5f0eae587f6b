"""JSON is the only renderer on /api/v1 (the browsable API is off)."""

from __future__ import annotations

from rest_framework.renderers import JSONRenderer


class ServiceJSONRenderer(JSONRenderer):
    # Compact output and literal UTF-8: smaller bodies, names such as "Göteborg" readable.
    ensure_ascii = False
    compact = True
