"""Success responses whose bytes we control (stored documents replay byte-for-byte)."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse


def to_json_bytes(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def json_bytes_response(body: bytes | Any, status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    content = body if isinstance(body, bytes) else to_json_bytes(body)
    response = HttpResponse(content, status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response[name] = value
    return response
