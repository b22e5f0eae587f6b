"""Reads of the behaviour app: a hull's AIS identities, coverage and events over a window.

Everything here reads the database only (summaries, links, events), never the columnar store, so a
behaviour report costs a handful of indexed queries however many positions lie behind it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max, Min, Q, Sum

from behaviour.detectors.base import EventKind, Severity
from behaviour.models import AisLink, AisLoad, AisVesselDay, BehaviourEvent
from behaviour.report_track import track_svg
from core.api.pagination import encode_cursor
from core.api.timefmt import rfc3339
from screening.behaviour_block import TRACK_DAYS, WINDOW_DAYS
from screening.models import RegisterEntry, SourceSnapshot

# The deceptive practice of the US Global Maritime Sanctions Advisory of 14 May 2020 (OFAC, State,
# Coast Guard) each kind of event answers; the UK guidance (March 2024), Regulation (EU) 833/2014
# and the Price Cap Coalition's advisories name the same practices.
ADVISORY_PRACTICE: dict[str, str] = {
    EventKind.DARK_PERIOD: "Disabling or manipulating the Automatic Identification System (AIS)",
    EventKind.POSITION_JUMP: "Manipulating AIS: transmitting false positions (spoofing)",
    EventKind.POSITION_ON_LAND: "Manipulating AIS: transmitting false positions (spoofing)",
    EventKind.SHARED_MMSI: "Altering a vessel's identity: one MMSI transmitted by two ships",
    EventKind.IDENTITY_CHANGE: "Altering a vessel's identity; falsely flagging and flag hopping",
    EventKind.STS_MEETING: "Ship-to-ship transfers",
    EventKind.DRAUGHT_CHANGE_AT_SEA: "Ship-to-ship transfers (cargo loaded or discharged away from any port)",
    EventKind.PORT_CALL: "Voyage irregularities (calls in sanctioned jurisdictions)",
}

SEVERITY_ORDER = {Severity.INFO: 0, Severity.LOW: 1, Severity.MEDIUM: 2, Severity.HIGH: 3}
FREE_WINDOW_DAYS = 30
MAX_WINDOW_DAYS = 366
STRONGEST_SHOWN = 3


@dataclass(frozen=True)
class HullMmsi:
    mmsi: int
    basis: str
    first_seen_at: datetime | None
    last_seen_at: datetime | None
    names: tuple[str, ...]


def _register_mmsis(imo: str) -> list[int]:
    """MMSIs the registers we hold give for the IMO (their serving snapshots)."""
    found = []
    rows = RegisterEntry.objects.filter(imo=imo, snapshot__status=SourceSnapshot.Status.ACTIVE).values_list(
        "record", flat=True
    )
    for record in rows:
        value = str((record or {}).get("mmsi") or "").strip()
        if len(value) == 9 and value.isdigit():
            found.append(int(value))
    return sorted(set(found))


def hull_mmsis(imo: str) -> list[HullMmsi]:
    """Every MMSI linked to the hull: by the IMO its static messages carried, and by the registers."""
    links = [
        HullMmsi(row.mmsi, row.basis, row.first_seen_at, row.last_seen_at, tuple(row.names))
        for row in AisLink.objects.filter(imo=imo, basis=AisLink.Basis.STATIC_IMO).order_by("first_seen_at", "mmsi")
    ]
    seen = {link.mmsi for link in links}
    links.extend(
        HullMmsi(mmsi, AisLink.Basis.REGISTER_MMSI, None, None, ()) for mmsi in _register_mmsis(imo) if mmsi not in seen
    )
    return links


def event_document(event: BehaviourEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "kind": event.kind,
        "severity": event.severity,
        "started_at": rfc3339(event.started_at),
        "ended_at": rfc3339(event.ended_at),
        "position": {"lat": round(event.lat, 5), "lon": round(event.lon, 5)},
        "mmsi": str(event.mmsi),
        "other_vessel": (
            {"mmsi": str(event.other_mmsi), "imo": event.other_imo or None} if event.other_mmsi is not None else None
        ),
        "summary": event.summary,
        "advisory_practice": ADVISORY_PRACTICE.get(event.kind, ""),
        "evidence": event.evidence,
        "detector_version": event.detector_version,
    }


def _window_events(mmsis: list[int], start: datetime, end: datetime) -> Q:
    return Q(mmsi__in=mmsis, started_at__lt=end, ended_at__gte=start)


def _coverage(mmsis: list[int], start: datetime, end: datetime) -> dict[str, Any]:
    days = AisVesselDay.objects.filter(mmsi__in=mmsis, day__gte=start.date(), day__lte=end.date()).filter(
        last_position_at__gte=start, first_position_at__lte=end
    )
    totals = days.aggregate(
        positions=Sum("positions"),
        first=Min("first_position_at"),
        last=Max("last_position_at"),
        longest_gap=Max("longest_gap_seconds"),
    )
    load_ids = sorted(set(days.values_list("load_id", flat=True)))
    loads = AisLoad.objects.filter(pk__in=load_ids, status=AisLoad.Status.COMMITTED).order_by("finished_at")
    return {
        "positions": int(totals["positions"] or 0),
        "days_with_positions": days.values("day").distinct().count(),
        "first_position_at": rfc3339(totals["first"]),
        "last_position_at": rfc3339(totals["last"]),
        "longest_gap_hours": round((totals["longest_gap"] or 0) / 3600, 1),
        "files": [
            {
                "file_name": load.file_name,
                "format": load.format,
                "origin": load.origin,
                "loaded_at": rfc3339(load.finished_at),
            }
            for load in loads
        ],
    }


def _summary(mmsis: list[int], start: datetime, end: datetime) -> dict[str, Any]:
    rows = BehaviourEvent.objects.filter(_window_events(mmsis, start, end))
    by_kind: Counter[str] = Counter(rows.values_list("kind", flat=True))
    severities = set(rows.values_list("severity", flat=True))
    highest = max(severities, key=lambda level: SEVERITY_ORDER[Severity(level)], default=None)
    strongest = sorted(
        rows.exclude(severity=Severity.INFO).order_by("-started_at")[:200],
        key=lambda event: (-SEVERITY_ORDER[Severity(event.severity)], -event.started_at.timestamp(), event.id),
    )[:STRONGEST_SHOWN]
    return {
        "events": sum(by_kind.values()),
        "by_kind": {kind.value: by_kind.get(kind.value, 0) for kind in EventKind},
        "highest_severity": highest,
        "strongest": [event_document(event) for event in strongest],
    }


def behaviour_report(
    imo: str, start: datetime, end: datetime, *, limit: int, after: str | None = None
) -> dict[str, Any]:
    """The behaviour of a hull between two instants: identities, coverage, a summary, and a page of its
    events (oldest first; `after` is the cursor key of the previous page)."""
    identities = hull_mmsis(imo)
    mmsis = [identity.mmsi for identity in identities]
    coverage = _coverage(mmsis, start, end)
    events = BehaviourEvent.objects.filter(_window_events(mmsis, start, end)).order_by("started_at", "id")
    if after:
        stamp, _, event_id = after.partition("|")
        last_start = datetime.fromisoformat(stamp)
        events = events.filter(Q(started_at__gt=last_start) | Q(started_at=last_start, id__gt=event_id))
    page = list(events[: limit + 1])
    next_cursor = None
    if len(page) > limit:
        page = page[:limit]
        last = page[-1]
        next_cursor = encode_cursor(f"{last.started_at.isoformat()}|{last.id}")
    return {
        "imo": imo,
        "from": rfc3339(start),
        "to": rfc3339(end),
        "observed": coverage["positions"] > 0,
        "identities": [
            {
                "mmsi": str(identity.mmsi),
                "basis": identity.basis,
                "first_seen_at": rfc3339(identity.first_seen_at),
                "last_seen_at": rfc3339(identity.last_seen_at),
                "names": list(identity.names),
            }
            for identity in identities
        ],
        "coverage": coverage,
        "summary": _summary(mmsis, start, end),
        "events": [event_document(event) for event in page],
        "next_cursor": next_cursor,
    }


def window_days(start: datetime, end: datetime) -> float:
    return (end - start) / timedelta(days=1)


def screening_block(imo: str, until: datetime) -> dict[str, Any]:
    """The `behaviour` block of a screening: the last 90 days of the hull's AIS, counted by kind, with the
    strongest events (screening/behaviour_block.py)."""
    start = until - timedelta(days=WINDOW_DAYS)
    mmsis = [identity.mmsi for identity in hull_mmsis(imo)]
    coverage = _coverage(mmsis, start, until)
    summary = _summary(mmsis, start, until)
    return {
        "window_days": WINDOW_DAYS,
        "from": rfc3339(start),
        "to": rfc3339(until),
        "observed": coverage["positions"] > 0,
        "mmsis": [str(mmsi) for mmsi in mmsis],
        "last_position_at": coverage["last_position_at"],
        "counts": summary["by_kind"],
        "highest_severity": summary["highest_severity"],
        "strongest": summary["strongest"],
        "report": f"/api/v1/vessels/{imo}/behaviour?from={rfc3339(start)}&to={rfc3339(until)}",
    }


def report_panel(imo: str, until: datetime) -> dict[str, Any]:
    """The vessel report page's panel: the hull's track over the TRACK_DAYS before `until`, with its events
    marked, and the events listed (behaviour/report_track.py draws the map)."""
    start = until - timedelta(days=TRACK_DAYS)
    mmsis = [identity.mmsi for identity in hull_mmsis(imo)]
    coverage = _coverage(mmsis, start, until)
    events = list(BehaviourEvent.objects.filter(_window_events(mmsis, start, until)).order_by("-started_at")[:50])
    return {
        "window_days": TRACK_DAYS,
        "observed": coverage["positions"] > 0,
        "coverage": coverage,
        "mmsis": [str(mmsi) for mmsi in mmsis],
        "svg": track_svg(mmsis, start, until, events) if coverage["positions"] else "",
        "events": [event_document(event) for event in events],
    }


class _Reader:
    """What screening reads of AIS (screening/behaviour_block.py)."""

    screening_block = staticmethod(screening_block)
    report_panel = staticmethod(report_panel)


SCREENING_READER = _Reader()
