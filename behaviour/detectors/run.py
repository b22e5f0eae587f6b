"""Run every detector over one positions/statics pair."""

from __future__ import annotations

import pandas as pd

from behaviour.detectors.base import DetectedEvent, DetectionContext
from behaviour.detectors.dark import detect_dark_periods
from behaviour.detectors.draught import detect_draught_changes
from behaviour.detectors.identity import detect_identity_changes
from behaviour.detectors.port_calls import detect_port_calls
from behaviour.detectors.spoofing import detect_spoofing
from behaviour.detectors.sts import detect_sts_meetings


def detect_all(positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext) -> list[DetectedEvent]:
    """All events, sorted by (mmsi, started_at, kind). Port calls run first: the draught detector
    needs them (a change of draught in port is not one at sea), and it consults the STS meetings."""
    port_calls = detect_port_calls(positions, statics, context)
    meetings = detect_sts_meetings(positions, statics, context)
    events = [
        *port_calls,
        *meetings,
        *detect_dark_periods(positions, statics, context),
        *detect_spoofing(positions, statics, context),
        *detect_identity_changes(positions, statics, context),
        *detect_draught_changes(positions, statics, context, port_calls=port_calls, meetings=meetings),
    ]
    events.sort(key=lambda e: (e.mmsi, e.started_at, str(e.kind), e.other_mmsi or 0))
    return events
