"""Writing events to the durable log (one function every emitter calls)."""

from __future__ import annotations

from typing import Any

from webhooks.models import Event

EVENT_TYPES = (
    "vessel_monitor.ready",
    "vessel_risk.changed",
    "vessel_data.degraded",
    "screening.resolved",
    "screening.unresolved",
    "usage.quota_warning",
    "voyage_batch.completed",
)


def emit(account_id: str, environment: str, event_type: str, data: dict[str, Any]) -> Event:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type}")
    return Event.objects.create(account_id=account_id, environment=environment, type=event_type, data=data)
