"""Cursor pagination shared by every list endpoint: ?limit= and ?cursor=, newest first.

Body shape: {"<plural>": [...], "next_cursor": "..." | null}.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet

from core.api.errors import FieldViolation

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
# What encode_cursor writes: unpadded URL-safe base64. Published as the ?cursor= pattern.
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"
_CURSOR_SHAPE = re.compile(CURSOR_PATTERN)


def parse_limit(raw: str | None, *, default: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE) -> int:
    if raw in (None, ""):
        return default
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= maximum:
        message = f"limit must be an integer from 1 to {maximum}; resend with ?limit=1..{maximum}."
        raise FieldViolation([{"field": "limit", "message": message}])
    return int(raw)


def encode_cursor(last_key: str) -> str:
    return base64.urlsafe_b64encode(last_key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        if not _CURSOR_SHAPE.fullmatch(cursor):
            raise ValueError(cursor)  # b64decode would also take "+", "/" and padding, which we never issue
        padded = cursor + "=" * (-len(cursor) % 4)
        decoded = base64.b64decode(padded.encode(), altchars=b"-_", validate=True).decode("ascii")
        if not decoded or not decoded.isprintable():
            raise ValueError(cursor)
        return decoded
    except (binascii.Error, UnicodeDecodeError, ValueError):
        message = "cursor is not one this API issued; resend with the next_cursor of the previous page."
        raise FieldViolation([{"field": "cursor", "message": message}]) from None


def paginate(
    queryset: QuerySet,
    filters: dict[str, Any],
    *,
    plural: str,
    render: Callable[[Any], Any],
    key: str = "id",
) -> dict[str, Any]:
    """Newest first by a sortable key (ULID ids sort by creation time); `filters` as read_filters gives."""
    limit = filters.get("limit", DEFAULT_PAGE_SIZE)
    ordered = queryset.order_by(f"-{key}")
    if filters.get("cursor"):
        ordered = ordered.filter(**{f"{key}__lt": filters["cursor"]})
    rows = list(ordered[: limit + 1])
    next_cursor = encode_cursor(str(getattr(rows[limit - 1], key))) if len(rows) > limit else None
    return {plural: [render(row) for row in rows[:limit]], "next_cursor": next_cursor}
