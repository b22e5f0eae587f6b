"""Validated query input for list endpoints: one filter serializer per list, read the same way.

`ListFilter` carries ?limit= and ?cursor=; an endpoint's filter serializer adds its own fields
and is also what its OpenAPI document lists as query parameters (`parameters=[MyFilter]`), so
the published parameters and the validation cannot drift apart. A parameter the filter does not
name is refused (core.api.strict_input).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.drainage import set_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.pagination import CURSOR_PATTERN, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, decode_cursor, parse_limit
from core.api.strict_input import refuse_unknown_parameters
from core.api.timefmt import parse_rfc3339, rfc3339


class QueryLimitField(serializers.Field):
    """?limit=: an integer from 1 to the list's maximum (default 50, maximum 200)."""

    def __init__(self, *, default_size: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE, **kwargs: Any) -> None:
        self.default_size, self.maximum = default_size, maximum
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", f"1–{maximum}, default {default_size}")
        super().__init__(**kwargs)
        # Per list, so the published range is the one parse_limit enforces for this list.
        set_override(self, "field", {"type": "integer", "minimum": 1, "maximum": maximum, "default": default_size})

    def get_default(self) -> int:
        return self.default_size

    def to_internal_value(self, data: Any) -> int:
        return parse_limit(data, default=self.default_size, maximum=self.maximum)

    def to_representation(self, value: Any) -> int:
        return int(value)


@extend_schema_field({"type": "string", "pattern": CURSOR_PATTERN})
class QueryCursorField(serializers.CharField):
    """?cursor=: the next_cursor of the previous page, decoded to the last key seen.

    Only a cursor this API issued is accepted: one of the published shape that the API did not
    issue (it does not decode to a key) is 422 validation_failed on `cursor`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "next_cursor of the previous page (only a cursor this API issued)")
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        return decode_cursor(super().to_internal_value(data))


@extend_schema_field(OpenApiTypes.BOOL)
class QueryBooleanField(serializers.ChoiceField):
    """A query flag spelled true or false (nothing else)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(choices=["true", "false"], **kwargs)

    # The stubs fix a ChoiceField's value type to str; this one turns the choice into a bool.
    def to_internal_value(self, data: Any) -> bool:  # type: ignore[override]
        return super().to_internal_value(data) == "true"


@extend_schema_field(OpenApiTypes.DATETIME)
class QueryTimestampField(serializers.Field):
    """An RFC 3339 instant such as 2026-11-01T00:00:00Z."""

    default_error_messages = {"invalid": "must be an RFC 3339 timestamp such as 2026-11-01T00:00:00Z"}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> datetime:
        try:
            return parse_rfc3339(str(data))
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value: datetime) -> str:
        return rfc3339(value) or ""


class ListFilter(serializers.Serializer):
    limit = QueryLimitField()
    cursor = QueryCursorField()


def read_filters(filter_class: type[ListFilter], query_params: Any) -> dict[str, Any]:
    """The validated filters of a list request (422 validation_failed naming the parameter, an unknown
    one included: `?stauts=RED` is refused, never read as no filter)."""
    names = list(filter_class().fields)
    refuse_unknown_parameters(query_params, names)
    data = {name: query_params.get(name) for name in names if query_params.get(name) not in (None, "")}
    form = filter_class(data=data)
    form.is_valid(raise_exception=True)
    return dict(form.validated_data)


def read_body(serializer_class: type[serializers.Serializer], data: Any, *, partial: bool = False) -> dict[str, Any]:
    """The validated body of a request (422 validation_failed naming each field)."""
    form = serializer_class(data=data, partial=partial)
    form.is_valid(raise_exception=True)
    return dict(form.validated_data)
