"""Shared pieces of the back-office admin pages (no registrations here: the admin modules import it)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.html import format_html

COUNT_CAP = 10_000
ISO_SUFFIX = "_utc"  # the display callable standing in for a DateTimeField: `created_at` -> `created_at_utc`


def iso_time(value: dt.datetime | None) -> str:
    """YYYY-MM-DD HH:MM:SS UTC: every time in the back office, to the second and with its zone."""
    if value is None:
        return ""
    if timezone.is_aware(value):
        value = value.astimezone(dt.UTC)
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _iso_display(field: models.DateTimeField, empty: str) -> Callable[[models.Model], str]:
    @admin.display(description=field.verbose_name, ordering=field.name)
    def show(obj: models.Model) -> str:
        return iso_time(getattr(obj, field.attname)) or empty

    return show


class IsoTimesMixin:
    """Date-times in list columns and read-only detail fields shown as `2026-05-04 20:00:07 UTC`.

    The admin renders a DateTimeField through the locale's DATETIME_FORMAT ("N j, Y, P": "May 4, 2026,
    8 p.m."), which hides the minutes and the zone. Here each such field named in list_display or among
    the read-only fields is shown by a display callable (`<name>_utc`, sortable on the field) instead;
    editable date-times keep their widgets.
    """

    model: type[models.Model]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        empty = self.get_empty_value_display()  # type: ignore[attr-defined]
        self._iso_names: set[str] = set()
        for field in self.model._meta.concrete_fields:
            if isinstance(field, models.DateTimeField):
                self._iso_names.add(field.name)
                setattr(self, field.name + ISO_SUFFIX, _iso_display(field, empty))

    def _iso(self, names: Sequence[Any], readonly: Sequence[str] | None = None) -> list[Any]:
        mapped: list[Any] = []
        for name in names:
            if isinstance(name, list | tuple):
                mapped.append(tuple(self._iso(name, readonly)))
                continue
            if isinstance(name, str) and name in self._iso_names and (readonly is None or name in readonly):
                name = name + ISO_SUFFIX
            if name not in mapped:
                mapped.append(name)
        return mapped

    def get_list_display(self, request):
        return self._iso(super().get_list_display(request))

    def get_readonly_fields(self, request, obj=None):
        # The field itself stays read-only (kept out of the form); its display callable is what is shown.
        readonly = list(super().get_readonly_fields(request, obj))
        return [*readonly, *(name + ISO_SUFFIX for name in readonly if name in self._iso_names)]

    def get_fieldsets(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        return [
            (title, {**options, "fields": self._iso(options["fields"], readonly)})
            for title, options in super().get_fieldsets(request, obj)
        ]


class CappedCountPaginator(Paginator):
    """Counts at most COUNT_CAP + 1 rows (a bounded subquery), never the whole table."""

    @cached_property
    def count(self) -> int:
        head = self.object_list[: COUNT_CAP + 1]
        if isinstance(head, QuerySet):  # the admin's list: count the bounded slice in SQL
            return head.count()
        return len(self.object_list)  # a plain sequence: its length is already in memory


class IsoTimesAdmin(IsoTimesMixin, admin.ModelAdmin):
    """A ModelAdmin showing its date-times as YYYY-MM-DD HH:MM:SS UTC."""


class IsoTimesInline(IsoTimesMixin, admin.TabularInline):
    """A tabular inline showing its date-times as YYYY-MM-DD HH:MM:SS UTC."""


class ReadOnlyAdmin(IsoTimesAdmin):
    """Shown, never added, changed or deleted here; list pages without a full count."""

    show_full_result_count = False
    paginator = CappedCountPaginator
    list_per_page = 50

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def pretty_json(value: object) -> str:
    if isinstance(value, bytes | memoryview):
        value = json.loads(bytes(value))
    return format_html("<pre style='white-space:pre-wrap;max-width:1100px'>{}</pre>", json.dumps(value, indent=2))
