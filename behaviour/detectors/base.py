"""What every detector returns, and what it may ask about the world.

A detector is a pure function `detect(positions, statics, context) -> list[DetectedEvent]` over the
frames of `behaviour.ais.frames` (positions sorted by mmsi then ts; statics sorted by mmsi then ts),
with every threshold read from `behaviour.thresholds`. It never touches the database or the store:
`behaviour.services` reads the frames and saves the events.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np


class EventKind(enum.StrEnum):
    DARK_PERIOD = "dark_period"
    STS_MEETING = "sts_meeting"
    IDENTITY_CHANGE = "identity_change"
    SHARED_MMSI = "shared_mmsi"
    POSITION_JUMP = "position_jump"
    POSITION_ON_LAND = "position_on_land"
    PORT_CALL = "port_call"
    DRAUGHT_CHANGE_AT_SEA = "draught_change_at_sea"


class Severity(enum.StrEnum):
    INFO = "info"  # a fact worth showing (an ordinary port call)
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass(frozen=True)
class DetectedEvent:
    """One finding a reviewer can check point by point from `evidence`."""

    kind: EventKind
    mmsi: int
    started_at: int  # UTC epoch seconds
    ended_at: int
    lat: float  # where it happened (the gap's start, the meeting's centre, the jump's landing ...)
    lon: float
    severity: Severity
    summary: str  # one sentence: what, when, where, with whom
    evidence: dict[str, Any] = field(default_factory=dict)  # JSON-ready: times RFC 3339, positions, thresholds
    other_mmsi: int | None = None  # the other vessel (a meeting, a shared MMSI's second track)


@dataclass(frozen=True)
class PortHit:
    locode: str
    name: str
    country_code: str
    distance_km: float
    sanctioned: bool  # the port's country is under a sanctions regime of the voyage layers
    regimes: tuple[str, ...] = ()


class DetectionContext(Protocol):
    """The geography the detectors need, answered from the layers the voyage engine already holds."""

    def high_risk_areas(self, lats: np.ndarray, lons: np.ndarray) -> list[str | None]:
        """For each point, the name of the high-risk area it lies in (a listed area, a sanctioned
        state's EEZ, a known STS hub), or None."""
        ...

    def nearest_ports(self, lats: np.ndarray, lons: np.ndarray) -> list[PortHit | None]:
        """For each point, the nearest catalogued port within `thresholds.PORT_SEARCH_KM`, or None."""
        ...

    def on_land(self, lats: np.ndarray, lons: np.ndarray) -> np.ndarray:
        """For each point, whether it lies clearly on land (bool array)."""
        ...
