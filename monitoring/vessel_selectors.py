"""Reads of vessel monitors and their runs, scoped to the caller (tenancy)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.tenancy import Owner
from core.api.errors import FieldViolation
from core.api.filters import ListFilter
from core.api.pagination import paginate
from core.api.timefmt import rfc3339
from monitoring.models import VesselMonitor, VesselMonitorRun
from monitoring.vessels import render_verdict


class VesselMonitorFilter(ListFilter):
    imo = serializers.RegexField(r"^\d{7}$", required=False, help_text="7-digit IMO")
    mode = serializers.ChoiceField(choices=VesselMonitor.Mode.values, required=False)


class RunFilter(ListFilter):
    pass


def monitor_document(monitor: VesselMonitor) -> dict:
    return {
        "id": monitor.id,
        "imo": monitor.imo,
        "vessel_name": monitor.vessel_name or None,
        "customer_reference": monitor.customer_reference or None,
        "mode": monitor.mode,
        "status": monitor.status,
        "baseline_verdict": render_verdict(monitor.baseline_verdict),
        "previous_verdict": render_verdict(monitor.previous_verdict),
        "last_run_at": rfc3339(monitor.last_run_at),
        "next_run_at": rfc3339(monitor.next_run_at) if monitor.mode == VesselMonitor.Mode.LIVE else None,
        "run_count": monitor.run_count,
        "created_at": rfc3339(monitor.created_at),
    }


def run_document(run: VesselMonitorRun) -> dict:
    return {
        "id": str(run.pk),
        "vessel_monitor_id": run.monitor_id,
        "slot": rfc3339(run.slot),
        "simulated": run.simulated,
        "trigger": run.trigger,
        "list_snapshot_id": run.list_snapshot_id,
        "status": run.status,
        "outcome": run.outcome or None,
        "screening_id": run.screening_id,
        "verdict": render_verdict(run.verdict),
        "changes": list(run.changes),
        "event_ids": list(run.event_ids),
        "error": run.error,
        "completed_at": rfc3339(run.completed_at),
    }


def owned_monitor(owner: Owner, monitor_id: str, *, for_update: bool = False) -> VesselMonitor:
    return VesselMonitor.objects.owned_one(owner, monitor_id, for_update=for_update)


def monitor_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    monitors = VesselMonitor.objects.owned_by(owner)
    for name in ("imo", "mode"):
        if name in filters:
            monitors = monitors.filter(**{name: filters[name]})
    return paginate(monitors, filters, plural="vessel_monitors", render=monitor_document)


def monitor_detail(owner: Owner, monitor_id: str) -> dict:
    return monitor_document(owned_monitor(owner, monitor_id))


def run_list(owner: Owner, monitor_id: str, filters: dict[str, Any]) -> dict[str, Any]:
    """The monitor's history, newest run first."""
    monitor = owned_monitor(owner, monitor_id)
    cursor = filters.get("cursor")
    if cursor and not (cursor.isascii() and cursor.isdigit()):
        # Run ids are integers: any other cursor decoded from ?cursor= was not issued here (not a 500).
        message = "cursor is not one this API issued; resend with the next_cursor of the previous page."
        raise FieldViolation([{"field": "cursor", "message": message}])
    return paginate(VesselMonitorRun.objects.filter(monitor=monitor), filters, plural="runs", render=run_document)
