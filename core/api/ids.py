"""Opaque, sortable resource ids with a type prefix (scr_, vas_, ...) and request ids."""

from __future__ import annotations

import re
from typing import TypeGuard

from ulid import ULID

_REQUEST_ID_SHAPE = re.compile(r"^[A-Za-z0-9._:\-]{8,128}$")


def new_id(prefix: str) -> str:
    """A new id such as scr_01JD3X...; ULIDs sort by creation time, so ids page in order."""
    return f"{prefix}_{str(ULID()).lower()}"


def new_request_id() -> str:
    return new_id("req")


def is_well_formed_request_id(value: str | None) -> TypeGuard[str]:
    """Caller-sent X-Request-Id values are echoed only when short and of safe characters."""
    if not value:
        return False
    return bool(_REQUEST_ID_SHAPE.match(value))
