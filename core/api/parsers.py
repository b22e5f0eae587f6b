"""The JSON body parser of every API view: bounded nesting and only text PostgreSQL can store.

json.loads recurses once per nesting level, so a body of a few thousand brackets would exhaust the
stack; strings holding U+0000 cannot be stored in PostgreSQL text or jsonb, and an unpaired UTF-16
surrogate (a lone "\\ud800" escape) cannot be encoded as UTF-8 at all. Each is refused here, before
any view runs: 400 invalid_json for nesting, 422 validation_failed naming the field for the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.parsers import JSONParser

from core.api.errors import ApiError, FieldViolation

MAX_JSON_DEPTH = 32
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def too_deep() -> ApiError:
    return ApiError(400, "invalid_json", f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels.")


def _problem(text: str) -> str | None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "contains a NUL character (U+0000), which is not allowed; remove it and resend."
    return "contains an unpaired UTF-16 surrogate (not valid Unicode text); send valid text and resend."


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    key = _UNSTORABLE.sub("\ufffd", key)  # the answer names the field in text that can be sent back
    return f"{parent}.{key}" if parent else key


def check_document(data: Any) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH (400) and unstorable text (422 naming the field)."""
    violations: list[dict[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, (dict, list)) and depth > MAX_JSON_DEPTH:
            raise too_deep()
        if isinstance(node, dict):
            for key, value in node.items():
                field = _path(where, key)
                problem = _problem(key)
                if problem:
                    violations.append({"field": field, "message": f"the name {problem}"})
                stack.append((value, field, depth + 1))
        elif isinstance(node, list):
            stack.extend((value, _path(where, index), depth + 1) for index, value in enumerate(node))
        elif isinstance(node, str):
            problem = _problem(node)
            if problem:
                violations.append({"field": where or "(body)", "message": problem})
    if violations:
        raise FieldViolation(sorted(violations, key=lambda v: v["field"]))


class ServiceJSONParser(JSONParser):
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise too_deep() from None
        check_document(data)
        return data
