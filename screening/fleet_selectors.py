"""Reads of fleets, scoped to the caller: the fleet, its exposure and its verdict moves.

Both exposure and changes read the screening records the owner (account and environment)
already holds for the fleet's hulls; nothing is screened here (re-screening is the caller's or
a monitor's act). Records are taken in the order they were issued (their ids sort by time).

Exposure: each hull's latest record, whatever its status. Distributions count the screened
hulls; coverage names the hulls never screened, those whose latest record is INCOMPLETE and
those whose latest record is past its expires_at. Hulls are listed worst first: RED, AMBER,
INCOMPLETE, GREEN; within a status vetting grade E to A, then not assessed; then ownership
opacity HIGH to LOW, then not assessed; then IMO. `?limit=` (default 100, up to the fleet cap
of 5,000) bounds the hull rows; distributions and coverage always cover the whole fleet.

Changes: the moves of the fleet's current hulls, in issue order. Only verdicts (GREEN, AMBER,
RED) move a hull; an INCOMPLETE record moves nothing (exposure reports it under coverage). A
record moves a hull when its sanctions status differs from the hull's previous verdict, or it
carries a vetting grade or ownership opacity that differs from the last one recorded (a record
without them, vetting not requested or not assessed, leaves the last known values standing).
A hull's first verdict is a move with `previous` null. The cursor is the id of the last record
examined: stable (a record's place in the order never changes) and resumable (the same cursor
always yields the same moves, and the next page starts right after it). Without a cursor the
feed starts at the fleet's creation; `previous` still comes from the hull's earlier records. A
record becomes visible CHANGES_SETTLE_SECONDS after it was issued, so a record still being
committed cannot fall behind a cursor already handed out. `next_cursor` is always present: call
again at once while `has_more` is true, later otherwise.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import F, Max, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone
from ulid import ULID

from accounts.tenancy import Owner
from core.api.errors import FieldViolation
from core.api.filters import ListFilter, QueryCursorField, QueryLimitField
from core.api.pagination import encode_cursor, paginate
from core.api.timefmt import rfc3339
from screening.models import Fleet, FleetMember, Screening
from screening.verdict import Verdict

EXPOSURE_DEFAULT_HULLS = 100
EXPOSURE_MAX_HULLS = 5000
CHANGES_SETTLE_SECONDS = 5
CHANGES_SCAN_LIMIT = 5000  # records examined by one call at most (has_more stays true past it)
PRIOR_ROUNDS = 20  # earlier records read per hull at most to find its last grade and opacity
SCAN_CHUNK = 500

VERDICTS = (Verdict.RED, Verdict.AMBER, Verdict.GREEN)
STATUS_ORDER = (Verdict.RED, Verdict.AMBER, Verdict.INCOMPLETE, Verdict.GREEN)
GRADES = ("A", "B", "C", "D", "E")
OPACITIES = ("LOW", "MEDIUM", "HIGH")
NOT_ASSESSED = "not_assessed"


class FleetFilter(ListFilter):
    pass


class ExposureFilter(ListFilter):
    limit = QueryLimitField(default_size=EXPOSURE_DEFAULT_HULLS, maximum=EXPOSURE_MAX_HULLS)
    # A ranking, not a list: `limit` bounds the hull rows. DRF drops an inherited declared field set
    # to None, which the stubs cannot express (they see an attribute of the base's field type).
    cursor = None  # type: ignore[assignment]


class ChangesFilter(ListFilter):
    cursor = QueryCursorField(
        help_text="next_cursor of the previous call; without it the feed starts at the fleet's creation"
    )


# --- fleets ----------------------------------------------------------------------------------


def fleet_document(fleet: Fleet, imos: list[str] | None = None) -> dict:
    """A fleet; `imos` (sorted) on create, update and GET by id, not on list rows."""
    document: dict[str, Any] = {
        "id": fleet.id,
        "name": fleet.name,
        "hull_count": fleet.hull_count,
        "created_at": rfc3339(fleet.created_at),
        "updated_at": rfc3339(fleet.updated_at),
        "exposure_url": f"/api/v1/fleets/{fleet.id}/exposure",
        "changes_url": f"/api/v1/fleets/{fleet.id}/changes",
    }
    if imos is not None:
        document["imos"] = imos
    return document


def owned_fleet(owner: Owner, fleet_id: str, *, for_update: bool = False) -> Fleet:
    return Fleet.objects.owned_one(owner, fleet_id, for_update=for_update)


def _member_imos(fleet: Fleet) -> QuerySet:
    return FleetMember.objects.filter(fleet=fleet).values("imo")


def fleet_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    return paginate(Fleet.objects.owned_by(owner), filters, plural="fleets", render=fleet_document)


def fleet_detail(owner: Owner, fleet_id: str) -> dict:
    fleet = owned_fleet(owner, fleet_id)
    return fleet_document(fleet, imos=sorted(FleetMember.objects.filter(fleet=fleet).values_list("imo", flat=True)))


# --- what a record says ----------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """The parts of a record a fleet reads: its status, grade and opacity (None: not assessed)."""

    status: str
    grade: str | None
    opacity: str | None
    coverage_complete: bool | None = None
    vessel_name: str | None = None


# The four values a fleet reads. SQLite extracts them in one json_extract (4,900 latest records:
# 145 ms against 310 ms parsing every document here). PostgreSQL does not: its JSON parse of a
# stored document costs more than fetching it and parsing it here (650 ms for jsonb, 590 for json,
# against 175 + 155), so there the whole document comes back and is parsed in Python.
_READING_PATHS = ("$.vetting.grade", "$.ownership.opacity", "$.sanctions.coverage_complete", "$.vessel_name")
_READING_SQL = {
    "sqlite": "json_extract(CAST({col} AS TEXT), " + ", ".join(f"'{p}'" for p in _READING_PATHS) + ")",
}


def with_reading(records: QuerySet) -> QuerySet:
    """`records` with `reading`: what read_record takes (the extracted values, or the document)."""
    template = _READING_SQL.get(connection.vendor)
    if template is None:
        return records.annotate(reading=F("document"))
    column = f"{connection.ops.quote_name(Screening._meta.db_table)}.{connection.ops.quote_name('document')}"
    return records.annotate(reading=RawSQL(template.format(col=column), ()))


def read_record(status: str, reading: str | bytes | memoryview) -> Reading:
    """A record's Reading from its `reading` annotation (with_reading)."""
    if isinstance(reading, str):
        grade, opacity, coverage_complete, vessel_name = json.loads(reading)
        return Reading(status, grade, opacity, coverage_complete, vessel_name)
    record = json.loads(bytes(reading))
    return Reading(
        status=status,
        grade=(record.get("vetting") or {}).get("grade"),
        opacity=(record.get("ownership") or {}).get("opacity"),
        coverage_complete=(record.get("sanctions") or {}).get("coverage_complete"),
        vessel_name=record.get("vessel_name"),
    )


# --- exposure --------------------------------------------------------------------------------


def _rank(row: dict) -> tuple:
    grade, opacity = row["vetting_grade"], row["ownership_opacity"]
    return (
        STATUS_ORDER.index(row["sanctions_status"]),
        GRADES[::-1].index(grade) if grade in GRADES else len(GRADES),
        OPACITIES[::-1].index(opacity) if opacity in OPACITIES else len(OPACITIES),
        row["imo"],
    )


def fleet_exposure(owner: Owner, fleet_id: str, filters: dict[str, Any], now: datetime | None = None) -> dict:
    """The latest record per hull, summed up; hull rows worst first (see the module's docstring)."""
    fleet = owned_fleet(owner, fleet_id)
    now = now or timezone.now()
    members = set(FleetMember.objects.filter(fleet=fleet).values_list("imo", flat=True))
    held = Screening.objects.owned_by(owner).filter(as_of__isnull=True).filter(imo__in=_member_imos(fleet))
    latest = held.values("imo").annotate(latest=Max("id")).values("latest")
    rows = []
    for record_id, imo, status, screened_at, expires_at, reading in (
        with_reading(Screening.objects.filter(pk__in=latest))
        .values_list("id", "imo", "status", "screened_at", "expires_at", "reading")
        .iterator(chunk_size=1000)
    ):
        found = read_record(status, reading)
        rows.append(
            {
                "imo": imo,
                "vessel_name": found.vessel_name,
                "sanctions_status": status,
                "coverage_complete": found.coverage_complete,
                "vetting_grade": found.grade,
                "ownership_opacity": found.opacity,
                "screening_id": record_id,
                "screened_at": rfc3339(screened_at),
                "expires_at": rfc3339(expires_at),
                "expired": expires_at <= now,
            }
        )
    rows.sort(key=_rank)
    statuses = dict.fromkeys(STATUS_ORDER, 0)
    grades = dict.fromkeys((*GRADES, NOT_ASSESSED), 0)
    opacities = dict.fromkeys((*OPACITIES, NOT_ASSESSED), 0)
    for row in rows:
        statuses[row["sanctions_status"]] += 1
        grades[row["vetting_grade"] if row["vetting_grade"] in GRADES else NOT_ASSESSED] += 1
        opacities[row["ownership_opacity"] if row["ownership_opacity"] in OPACITIES else NOT_ASSESSED] += 1
    screened = {row["imo"] for row in rows}
    never = sorted(members - screened)
    incomplete = sorted(row["imo"] for row in rows if row["sanctions_status"] == Verdict.INCOMPLETE)
    expired = sorted(row["imo"] for row in rows if row["expired"])
    return {
        "fleet_id": fleet.id,
        "name": fleet.name,
        "hull_count": len(members),
        "as_of": rfc3339(now),
        "distributions": {
            "sanctions_status": statuses,
            "vetting_grade": grades,
            "ownership_opacity": opacities,
        },
        "coverage": {
            "screened": len(rows),
            "never_screened": {"count": len(never), "imos": never},
            "incomplete": {"count": len(incomplete), "imos": incomplete},
            "expired": {"count": len(expired), "imos": expired},
        },
        "hulls": rows[: filters["limit"]],
    }


# --- changes ---------------------------------------------------------------------------------


def id_at(moment: datetime, prefix: str = "scr") -> str:
    """The smallest id of `prefix` minted at `moment` (ids are ULIDs: time first)."""
    return f"{prefix}_{str(ULID.from_timestamp(moment.timestamp()))[:10].lower()}{'0' * 16}"


@dataclass(frozen=True)
class HullState:
    """What a hull's records have said so far: its last verdict, and its last grade and opacity."""

    screening_id: str
    status: str
    grade: str | None
    opacity: str | None

    def view(self) -> dict:
        return {"sanctions_status": self.status, "vetting_grade": self.grade, "ownership_opacity": self.opacity}


def _prior_states(owner: Owner, imos: set[str], up_to: str) -> dict[str, HullState]:
    """Each hull's state from its verdict records issued at or before `up_to` (hulls without one are absent).

    The last verdict's status comes from the ids alone; the grade and opacity from the newest
    records that carry them, read newest first, one record per hull per round.
    """
    history: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for imo, record_id, status in (
        Screening.objects.owned_by(owner)
        .filter(as_of__isnull=True)
        .filter(imo__in=imos, id__lte=up_to, status__in=VERDICTS)
        .order_by("imo", "-id")
        .values_list("imo", "id", "status")
    ):
        history[imo].append((record_id, status))
    states = {imo: HullState(rows[0][0], rows[0][1], None, None) for imo, rows in history.items()}
    pending = {imo: 0 for imo in states}
    for _ in range(PRIOR_ROUNDS):
        if not pending:
            break
        wanted = {history[imo][depth][0]: imo for imo, depth in pending.items()}
        for record_id, status, stored in with_reading(Screening.objects.filter(pk__in=list(wanted))).values_list(
            "id", "status", "reading"
        ):
            imo = wanted[record_id]
            reading, state = read_record(status, stored), states[imo]
            states[imo] = replace(state, grade=state.grade or reading.grade, opacity=state.opacity or reading.opacity)
        for imo in list(pending):
            state = states[imo]
            pending[imo] += 1
            if (state.grade and state.opacity) or pending[imo] >= len(history[imo]):
                del pending[imo]
    return states


def _move(before: HullState | None, record_id: str, reading: Reading) -> tuple[HullState, list[str]]:
    """The hull's state after this verdict record, and the fields it moved."""
    after = HullState(
        record_id,
        reading.status,
        reading.grade or (before.grade if before else None),
        reading.opacity or (before.opacity if before else None),
    )
    if before is None:
        moved = ["sanctions_status"] + [
            name for name, value in (("vetting_grade", after.grade), ("ownership_opacity", after.opacity)) if value
        ]
    else:
        moved = [
            name
            for name, old, new in (
                ("sanctions_status", before.status, after.status),
                ("vetting_grade", before.grade, after.grade),
                ("ownership_opacity", before.opacity, after.opacity),
            )
            if old != new
        ]
    return after, moved


def _start_of(fleet: Fleet, cursor: str | None) -> str:
    if cursor is None:
        return id_at(fleet.created_at)
    if not cursor.startswith("scr_") or len(cursor) != 30:
        raise FieldViolation(
            [
                {
                    "field": "cursor",
                    "message": "cursor is not one this API issued; resend with the next_cursor of the previous "
                    "call, or without a cursor to start at the fleet's creation.",
                }
            ]
        )
    return cursor


def fleet_changes(owner: Owner, fleet_id: str, filters: dict[str, Any], now: datetime | None = None) -> dict:
    """Verdict moves of the fleet's hulls after the cursor, oldest first (see the module's docstring)."""
    fleet = owned_fleet(owner, fleet_id)
    limit = filters["limit"]
    start = _start_of(fleet, filters.get("cursor"))
    ceiling = id_at((now or timezone.now()) - timedelta(seconds=CHANGES_SETTLE_SECONDS))
    records = (
        with_reading(Screening.objects.owned_by(owner).filter(as_of__isnull=True))
        .filter(imo__in=_member_imos(fleet), id__lt=ceiling, status__in=VERDICTS)
        .order_by("id")
        .values_list("id", "imo", "status", "screened_at", "reading")
    )
    states: dict[str, HullState | None] = {}
    changes: list[dict] = []
    position, scanned, has_more = start, 0, False
    while not has_more:
        chunk = list(records.filter(id__gt=position)[:SCAN_CHUNK])
        if not chunk:
            break
        unknown = {imo for _, imo, *_ in chunk if imo not in states}
        if unknown:
            found = _prior_states(owner, unknown, start)
            states.update({imo: found.get(imo) for imo in unknown})
        for record_id, imo, status, screened_at, stored in chunk:
            position, scanned = record_id, scanned + 1
            before = states[imo]
            after, moved = _move(before, record_id, read_record(status, stored))
            states[imo] = after
            if moved:
                changes.append(
                    {
                        "imo": imo,
                        "changed_at": rfc3339(screened_at),
                        "screening_id": record_id,
                        "previous_screening_id": before.screening_id if before else None,
                        "changed": moved,
                        "previous": before.view() if before else None,
                        "current": after.view(),
                    }
                )
            if len(changes) >= limit or scanned >= CHANGES_SCAN_LIMIT:
                has_more = True
                break
    return {"changes": changes, "next_cursor": encode_cursor(position), "has_more": has_more}
