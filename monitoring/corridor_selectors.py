"""Reads of corridor monitors and their runs, scoped to the caller (tenancy)."""

from __future__ import annotations

from typing import Any

from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from accounts.tenancy import Owner
from core.api.errors import FieldViolation
from core.api.filters import ListFilter, QueryBooleanField
from core.api.pagination import paginate
from core.api.timefmt import rfc3339
from monitoring import corridors
from monitoring.models import CorridorMonitor, CorridorMonitorRun, RunStatus

CADENCE_HOURS = int(corridors.CADENCE.total_seconds() // 3600)


class CorridorMonitorFilter(ListFilter):
    customer_reference = serializers.CharField(required=False, max_length=200, help_text="Only this reference")
    degraded = QueryBooleanField(help_text="Only monitors whose last run lacked a source (true) or not (false)")


class CorridorRunFilter(ListFilter):
    status = serializers.ChoiceField(choices=RunStatus.values, required=False, help_text="Only runs in this status")


def runs_url(monitor_id: str) -> str:
    return f"/api/v1/corridor-monitors/{monitor_id}/runs"


def monitor_document(monitor: CorridorMonitor, *, latest_run: CorridorMonitorRun | None = None) -> dict:
    document = {
        "id": monitor.id,
        "customer_reference": monitor.customer_reference or None,
        "status": monitor.status,
        "route": dict((monitor.request or {}).get("route", {})),
        "cadence_hours": CADENCE_HOURS,
        "baseline": monitor.baseline,
        "degraded": monitor.degraded,
        "run_count": monitor.run_count,
        "last_run_at": rfc3339(monitor.last_run_at),
        "next_run_at": rfc3339(monitor.next_run_at),
        "created_at": rfc3339(monitor.created_at),
        "runs_url": runs_url(monitor.id),
    }
    if latest_run is not None:
        document["latest_run"] = run_document(latest_run)
    return document


def run_document(run: CorridorMonitorRun) -> dict:
    return {
        "slot": rfc3339(run.slot),
        "status": run.status,
        "attempts": run.attempts,
        "deferred_until": rfc3339(run.lease_expires_at) if run.status == RunStatus.DEFERRED else None,
        "assessment_id": run.assessment_id,
        "summary": run.summary,
        "changes": list(run.changes or []),
        "event_ids": list(run.event_ids or []),
        "error": run.error,
        "created_at": rfc3339(run.created_at),
        "completed_at": rfc3339(run.completed_at),
    }


def owned_monitor(owner: Owner, monitor_id: str, *, for_update: bool = False) -> CorridorMonitor:
    return CorridorMonitor.objects.owned_one(owner, monitor_id, for_update=for_update)


def monitor_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first; filter by customer_reference and degraded."""
    monitors = CorridorMonitor.objects.owned_by(owner)
    if "customer_reference" in filters:
        monitors = monitors.filter(customer_reference=filters["customer_reference"])
    if "degraded" in filters:
        monitors = monitors.filter(degraded=filters["degraded"])
    return paginate(monitors, filters, plural="corridor_monitors", render=monitor_document)


def monitor_detail(owner: Owner, monitor_id: str) -> dict:
    monitor = owned_monitor(owner, monitor_id)
    return monitor_document(monitor, latest_run=monitor.runs.order_by("-slot").first())


def run_list(owner: Owner, monitor_id: str, filters: dict[str, Any]) -> dict[str, Any]:
    """The monitor's runs, newest slot first (the cursor is the last slot seen)."""
    monitor = owned_monitor(owner, monitor_id)
    monitor_runs = CorridorMonitorRun.objects.filter(monitor=monitor)
    if "status" in filters:
        monitor_runs = monitor_runs.filter(status=filters["status"])
    if filters.get("cursor") and _slot_of(filters["cursor"]) is None:
        message = "cursor is not one this API issued; resend with the next_cursor of the previous page."
        raise FieldViolation([{"field": "cursor", "message": message}])
    return paginate(monitor_runs, filters, plural="runs", render=run_document, key="slot")


def _slot_of(cursor: str) -> Any:
    try:
        return parse_datetime(cursor)
    except ValueError:
        return None
