"""Shared pieces of the back-office admin pages (no registrations here: the admin modules import it)."""

from __future__ import annotations

import json
from functools import cached_property

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils.html import format_html

COUNT_CAP = 10_000


class CappedCountPaginator(Paginator):
    """Counts at most COUNT_CAP + 1 rows (a bounded subquery), never the whole table."""

    @cached_property
    def count(self) -> int:
        head = self.object_list[: COUNT_CAP + 1]
        if isinstance(head, QuerySet):  # the admin's list: count the bounded slice in SQL
            return head.count()
        return len(self.object_list)  # a plain sequence: its length is already in memory


class ReadOnlyAdmin(admin.ModelAdmin):
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
