"""What a hull's AIS shows, as screening's record and report page carry it.

AIS is read by the behaviour app, which sits above screening (its detectors need the voyage layers), so
it registers its reader here when Django starts (behaviour.apps). The `behaviour` block of a screening
(`include_behaviour: true`) is a documented extension of the record: it never changes `sanctions.status`,
and the vetting grade keeps the contract's five factors (2.9), so AIS never moves the grade.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured

WINDOW_DAYS = 90  # the screening block's window
TRACK_DAYS = 30  # the report page's track


class BehaviourReader(Protocol):
    def screening_block(self, imo: str, until: datetime) -> dict:
        """The record's `behaviour` block: the WINDOW_DAYS before `until`."""
        ...

    def report_panel(self, imo: str, until: datetime) -> dict:
        """The report page's panel: the track of the TRACK_DAYS before `until` (an SVG) and its events."""
        ...


_reader: BehaviourReader | None = None


def register(reader: BehaviourReader) -> None:
    global _reader
    _reader = reader


def reader() -> BehaviourReader:
    if _reader is None:
        raise ImproperlyConfigured("the behaviour app is not installed: add behaviour.apps.BehaviourConfig")
    return _reader


def block(imo: str, until: datetime) -> dict:
    """The hull's behaviour over the WINDOW_DAYS before `until` (the screening's instant, or its as_of)."""
    return reader().screening_block(imo, until)
