"""vessel_behaviour.flagged: a monitored hull's AIS shows something new worth a reviewer's look.

When an AIS load commits, its detection's new events (behaviour.services.events_detected, sent inside
the load's transaction) are matched to live vessel monitors by the IMO the ship transmitted, on either
side of a meeting. Each new event of medium or high severity is sent once per monitor, in the same
transaction: an event rolled back with its load is never delivered. Port calls outside sanctioned
states (info) and weak signals (low) are kept in the behaviour report but not pushed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from behaviour.detectors.base import Severity
from behaviour.models import AisLoad, BehaviourEvent
from behaviour.selectors import event_document
from behaviour.services import events_detected
from monitoring.models import VesselMonitor
from webhooks.events import emit

BEHAVIOUR_FLAGGED = "vessel_behaviour.flagged"
FLAGGED_SEVERITIES = frozenset({Severity.MEDIUM.value, Severity.HIGH.value})


def flag_new_events(new_events: list[BehaviourEvent], **_: Any) -> int:
    """Emit vessel_behaviour.flagged for each (monitor, new flagged event); how many were emitted."""
    flagged = [event for event in new_events if event.severity in FLAGGED_SEVERITIES]
    by_imo: dict[str, list[BehaviourEvent]] = defaultdict(list)
    for event in flagged:
        for imo in {event.imo, event.other_imo} - {""}:
            by_imo[imo].append(event)
    if not by_imo:
        return 0
    emitted = 0
    monitors = VesselMonitor.objects.filter(mode=VesselMonitor.Mode.LIVE, imo__in=list(by_imo)).order_by("id")
    for monitor in monitors:
        for event in by_imo[monitor.imo]:
            emit(
                monitor.account_id,
                monitor.environment,
                BEHAVIOUR_FLAGGED,
                {
                    "vessel_monitor_id": monitor.id,
                    "imo": monitor.imo,
                    "customer_reference": monitor.customer_reference or None,
                    "event": event_document(event),
                },
            )
            emitted += 1
    return emitted


def connect() -> None:
    events_detected.connect(_on_events_detected, sender=AisLoad, dispatch_uid="monitoring.behaviour_flags")


def _on_events_detected(sender: type, load: AisLoad, new_events: list[BehaviourEvent], **kwargs: Any) -> None:
    flag_new_events(new_events)
