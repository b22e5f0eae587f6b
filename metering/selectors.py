"""Reads of what an account's keys did: the access log, scoped to the caller's environment."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework import serializers

from accounts.tenancy import Owner
from core.api.filters import ListFilter, QueryTimestampField
from core.api.pagination import paginate
from core.api.timefmt import rfc3339
from metering import access_log
from metering.models import AccessLogEntry


class AccessLogFilter(ListFilter):
    since = QueryTimestampField(help_text="RFC 3339; entries at or after")
    until = QueryTimestampField(help_text="RFC 3339; entries before")
    status = serializers.IntegerField(required=False, min_value=100, max_value=599, help_text="HTTP status to match")
    path = serializers.CharField(required=False, max_length=500, help_text="Path prefix, e.g. /api/v1/screenings")


def entry_document(entry: AccessLogEntry) -> dict:
    return {
        "id": entry.id,
        "at": rfc3339(entry.at),
        "method": entry.method,
        "path": entry.path,
        "status": entry.status,
        "code": entry.code or None,
        "request_id": entry.request_id,
        "key_prefix": entry.key_prefix,
        "client_ip": entry.client_ip,
        "duration_ms": entry.duration_ms,
        "units_charged": entry.units_charged,
    }


def filtered_entries(owner: Owner, filters: dict[str, Any]) -> QuerySet[AccessLogEntry]:
    """The caller's environment's entries matching the filters (a page of them, or an export of all)."""
    access_log.flush()  # this process's own queued entries are readable at once
    entries = AccessLogEntry.objects.filter(account_id=owner.account_id, environment=owner.environment)
    if "since" in filters:
        entries = entries.filter(at__gte=filters["since"])
    if "until" in filters:
        entries = entries.filter(at__lt=filters["until"])
    if "status" in filters:
        entries = entries.filter(status=filters["status"])
    if "path" in filters:
        entries = entries.filter(path__startswith=filters["path"])
    return entries


def access_log_page(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    return paginate(filtered_entries(owner, filters), filters, plural="entries", render=entry_document)
