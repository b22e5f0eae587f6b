"""Writing events to the durable log (one function every emitter calls) and queueing their deliveries."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from webhooks.delivery import fan_out
from webhooks.models import Event

# The types an endpoint may list in event_types (contract part 6, plus completions as they arrive).
# A type added here later is never sent to an endpoint that listed its own types.
EVENT_TYPES = (
    "vessel_monitor.ready",
    "vessel_risk.changed",
    "vessel_data.degraded",
    "screening.resolved",
    "screening.unresolved",
    "usage.quota_warning",
    "voyage_batch.completed",
    "screening_batch.completed",
    "export.completed",
    "corridor_risk.changed",
    "corridor_data.degraded",
    "corridor_data.recovered",
    "corridor_monitor.deferred",
    "sanctions_list.updated",
    "vessel_behaviour.flagged",
)


def emit(account_id: str, environment: str, event_type: str, data: dict[str, Any]) -> Event:
    """Record the event and a pending delivery per receiving endpoint, in the caller's transaction.

    The deliveries' tasks are sent once that transaction commits (transactional outbox): an
    event rolled back is never delivered, an event committed is never lost.
    """
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type}")
    with transaction.atomic():  # the event and its deliveries commit together, called alone or nested
        event = Event.objects.create(account_id=account_id, environment=environment, type=event_type, data=data)
        fan_out(event)
    return event
