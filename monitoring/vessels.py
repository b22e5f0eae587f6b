"""Vessel monitors: the change detector, the daily run through the one screening path, and simulation.

A verdict (what a monitor keeps and compares) is read from a screening document:
    {screening_id, screened_at, sanctions: {status, coverage_complete, coverage_gaps},
     ownership_opacity, vetting_grade}

The detector (contract 3.5, 6), shared by live runs and POST /vessel-monitors/{id}/simulate:
- no baseline yet and a verdict: the baseline is established, `vessel_monitor.ready`, never a change;
- an INCOMPLETE reading: `vessel_data.degraded`, the baseline is kept;
- sanctions status, ownership opacity or vetting grade moved against the baseline: the hull is
  screened again and only the fields both screens agree on are a change — `vessel_risk.changed`
  with those fields (both directions) and the baseline moves for them; when the second screen
  agrees on none, nothing is emitted (a single reading never emits anything).

Severity of a change (the event's severity is its highest):
- Sanctions status: critical when RED is on either side; high otherwise (GREEN <-> AMBER).
- Ownership opacity: high when it becomes HIGH; low otherwise.
- Vetting grade: high when it becomes E or moves two grades or more; low otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.utils import timezone

from core.api.errors import ApiError
from core.api.timefmt import rfc3339
from metering import pace
from monitoring import runs
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from screening import editions, engine
from screening.decisions import Review
from screening.services import ORIGIN_LIST_UPDATE, ORIGIN_MONITOR, Issued, ScreeningRequest, create_screening
from screening.verdict import Verdict
from webhooks.events import emit

CADENCE = timedelta(hours=24)
# The camelCase duplicates of sanctions.coverage_complete / coverage_gaps on monitor rows (contract 2.11, 9.6).
CAMEL_CASE_COVERAGE_UNTIL = date(2026, 12, 23)
DEFER_WHEN_PAUSED = timedelta(minutes=10)
DEFER_WITHOUT_RESET = timedelta(hours=6)  # a one-time allowance: look again for new room


@dataclass(frozen=True)
class Watched:
    """A field the detector compares: its label in events and where it lives in a verdict."""

    label: str
    key: str


SANCTIONS = Watched("Sanctions status", "sanctions_status")
OPACITY = Watched("Ownership opacity", "ownership_opacity")
GRADE = Watched("Vetting grade", "vetting_grade")
WATCHED = (SANCTIONS, OPACITY, GRADE)
SEVERITY_ORDER = ("low", "high", "critical")
GRADES = "ABCDE"


def verdict_of(document: dict) -> dict:
    """The verdict a monitor keeps, from a screening document."""
    sanctions = document["sanctions"]
    return {
        "screening_id": document.get("id"),
        "screened_at": document.get("screened_at"),
        "sanctions": {
            "status": sanctions["status"],
            "coverage_complete": bool(sanctions.get("coverage_complete")),
            "coverage_gaps": list(sanctions.get("coverage_gaps") or []),
        },
        "ownership_opacity": (document.get("ownership") or {}).get("opacity"),
        "vetting_grade": (document.get("vetting") or {}).get("grade"),
    }


def _value(verdict: dict, watched: Watched) -> Any:
    return verdict["sanctions"]["status"] if watched is SANCTIONS else verdict.get(watched.key)


def _with_value(verdict: dict, watched: Watched, value: Any) -> dict:
    moved = {**verdict, "sanctions": dict(verdict["sanctions"])}
    if watched is SANCTIONS:
        moved["sanctions"]["status"] = value
    else:
        moved[watched.key] = value
    return moved


def severity(watched: Watched, previous: Any, current: Any) -> str:
    if watched is SANCTIONS:
        return "critical" if Verdict.RED in (previous, current) else "high"
    if watched is OPACITY:
        return "high" if current == "HIGH" else "low"
    if current == "E":
        return "high"
    # A grade may be None (no vetting): only two letter grades have a distance.
    graded = isinstance(previous, str) and isinstance(current, str) and previous in GRADES and current in GRADES
    if graded and abs(GRADES.index(current) - GRADES.index(previous)) >= 2:
        return "high"
    return "low"


def render_verdict(verdict: dict | None, today: date | None = None) -> dict | None:
    """A verdict as rows carry it: with the camelCase coverage duplicates until 2026-12-23."""
    if verdict is None:
        return None
    rendered = {**verdict, "sanctions": dict(verdict["sanctions"])}
    if (today or timezone.now().date()) < CAMEL_CASE_COVERAGE_UNTIL:
        rendered["sanctions"]["coverageComplete"] = rendered["sanctions"]["coverage_complete"]
        rendered["sanctions"]["coverageGaps"] = list(rendered["sanctions"]["coverage_gaps"])
    return rendered


def _event_verdict(verdict: dict) -> dict:
    return {**verdict, "sanctions": dict(verdict["sanctions"])}


# -- the detector ------------------------------------------------------------------------------


@dataclass
class Detection:
    outcome: str
    changes: list[dict] = field(default_factory=list)
    baseline: dict | None = None  # the monitor's baseline after this run
    previous: dict | None = None  # the monitor's previous_verdict after this run
    events: list[tuple[str, dict]] = field(default_factory=list)


def _cause(run: VesselMonitorRun) -> dict | None:
    """What started an out-of-cycle run, as its events say: the list edition."""
    snapshot = run.list_snapshot if run.trigger == VesselMonitorRun.Trigger.LIST_UPDATE else None
    if snapshot is None:
        return None
    return {
        "type": "sanctions_list.updated",
        "source": snapshot.source,
        "edition": snapshot.edition or None,
        "list_snapshot_id": snapshot.pk,
        "published": rfc3339(snapshot.published_at),
    }


def detect(
    monitor: VesselMonitor,
    reading: dict,
    confirmation: dict | None,
    *,
    cause: dict | None = None,
    sanctions_cleared: bool = False,
) -> Detection:
    """What a reading (and, when it moved, its confirming re-screen) means against the baseline.

    `cause` (a list edition, on an out-of-cycle run) is carried on the events as `trigger`.
    `sanctions_cleared`: the account cleared every match that drove the reading's verdict
    (screening/decisions.py), so a sanctions status move is no move."""
    base: dict[str, Any] = {
        "vessel_monitor_id": monitor.id,
        "imo": monitor.imo,
        "customer_reference": monitor.customer_reference or None,
    }
    if cause is not None:
        base["trigger"] = cause
    baseline = monitor.baseline_verdict
    if reading["sanctions"]["status"] == Verdict.INCOMPLETE:
        data = {
            **base,
            "screening_id": reading.get("screening_id"),
            "coverage_complete": reading["sanctions"]["coverage_complete"],
            "coverage_gaps": reading["sanctions"]["coverage_gaps"],
            "baseline_verdict": _event_verdict(baseline) if baseline else None,
        }
        return Detection(
            VesselMonitorRun.Outcome.DEGRADED, baseline=baseline, previous=monitor.previous_verdict,
            events=[("vessel_data.degraded", data)],
        )  # fmt: skip
    if baseline is None:
        data = {**base, "baseline_verdict": _event_verdict(reading)}
        return Detection(VesselMonitorRun.Outcome.BASELINE, baseline=reading, events=[("vessel_monitor.ready", data)])
    moved = [
        w for w in WATCHED if _value(reading, w) != _value(baseline, w) and not (w is SANCTIONS and sanctions_cleared)
    ]
    if not moved:
        return Detection(VesselMonitorRun.Outcome.UNCHANGED, baseline=baseline, previous=monitor.previous_verdict)
    agreed = [
        w
        for w in moved
        if confirmation is not None
        and confirmation["sanctions"]["status"] != Verdict.INCOMPLETE
        and _value(confirmation, w) == _value(reading, w)
    ]
    if not agreed:
        return Detection(VesselMonitorRun.Outcome.UNCONFIRMED, baseline=baseline, previous=monitor.previous_verdict)
    new_baseline = {**baseline, "sanctions": dict(baseline["sanctions"])}
    changes = []
    for watched in agreed:
        before, after = _value(baseline, watched), _value(reading, watched)
        changes.append(
            {"label": watched.label, "previous": before, "current": after, "severity": severity(watched, before, after)}
        )
        new_baseline = _with_value(new_baseline, watched, after)
    new_baseline.update(screening_id=reading.get("screening_id"), screened_at=reading.get("screened_at"))
    if SANCTIONS in agreed:  # the coverage that goes with the status read
        new_baseline["sanctions"].update(
            coverage_complete=reading["sanctions"]["coverage_complete"],
            coverage_gaps=reading["sanctions"]["coverage_gaps"],
        )
    data = {
        **base,
        "screening_id": reading.get("screening_id"),
        "severity": max((c["severity"] for c in changes), key=SEVERITY_ORDER.index),
        "changes": changes,
        "previous_verdict": _event_verdict(baseline),
        "current_verdict": _event_verdict(new_baseline),
    }
    return Detection(VesselMonitorRun.Outcome.CHANGED, changes, new_baseline, baseline, [("vessel_risk.changed", data)])


def apply(monitor: VesselMonitor, detection: Detection, reading: dict, now: datetime) -> list[str]:
    """Write what the detector concluded onto the monitor and emit its events; inside a transaction."""
    event_ids = [emit(monitor.account_id, monitor.environment, kind, data).id for kind, data in detection.events]
    fields: dict[str, Any] = {
        "last_verdict": reading,
        "last_run_at": now,
        "baseline_verdict": detection.baseline,
        "previous_verdict": detection.previous,
    }
    if detection.baseline is not None:
        fields["status"] = VesselMonitor.Status.WATCHING
    VesselMonitor.objects.filter(pk=monitor.pk).update(run_count=monitor.run_count + 1, **fields)
    return event_ids


# -- a live run --------------------------------------------------------------------------------


def _screen(monitor: VesselMonitor, now: datetime) -> engine.ScreenResult:
    return engine.screen_hull(
        monitor.imo, check_digit_valid=True, vessel_name=monitor.vessel_name or None, include_vetting=True, now=now
    )


def _deferred(error: ApiError, now: datetime) -> runs.Deferred:
    """The allowance is used: wait for its reset (Retry-After), or look again later on a one-time one."""
    retry_after = str(error.headers.get("Retry-After", ""))
    wait = timedelta(seconds=int(retry_after)) if retry_after.isdigit() else DEFER_WITHOUT_RESET
    return runs.Deferred(now + wait, f"{error.code}: {error.message}")


def execute(claimed: runs.Claimed) -> None:
    """One live run: screen (one unit unless INCOMPLETE), re-screen a move, detect, write it all at once.

    A run a new list edition triggered (monitoring/list_updates.py) is the service's own: it charges
    nothing, so neither a used allowance nor a paused account holds it back."""
    run: VesselMonitorRun = claimed.run
    monitor: VesselMonitor = run.monitor
    account = monitor.account
    now = timezone.now()
    list_update = run.trigger == VesselMonitorRun.Trigger.LIST_UPDATE
    if list_update:
        editions.read_newest_editions()
    else:
        try:
            pace.ensure_not_paused(account, monitor.environment)
        except ApiError as error:
            raise runs.Deferred(now + DEFER_WHEN_PAUSED, f"the account is paused: {error.message}") from None
    first = _screen(monitor, now)
    confirmation = None
    reading_preview = verdict_of({"id": None, **first.document()})
    baseline = monitor.baseline_verdict
    if (
        baseline is not None
        and reading_preview["sanctions"]["status"] != Verdict.INCOMPLETE
        and any(_value(reading_preview, w) != _value(baseline, w) for w in WATCHED)
    ):
        confirmation = verdict_of({"id": None, **_screen(monitor, timezone.now()).document()})

    def write(issued: Issued) -> None:
        document = _loaded(issued.screening.document)
        reading = verdict_of(document)
        cleared = document["sanctions"].get("review") == Review.ALL_CLEARED
        detection = detect(monitor, reading, confirmation, cause=_cause(run), sanctions_cleared=cleared)
        event_ids = apply(monitor, detection, reading, now)
        runs.complete(
            claimed,
            outcome=detection.outcome,
            screening=issued.screening,
            verdict=reading,
            changes=detection.changes,
            event_ids=event_ids,
            error=None,
        )

    request = ScreeningRequest(imo=monitor.imo, vessel_name=monitor.vessel_name or None)
    try:
        create_screening(account, monitor.environment, request, origin=ORIGIN_LIST_UPDATE if list_update else
                         ORIGIN_MONITOR, now=now, result=first, in_transaction=write)  # fmt: skip
    except ApiError as error:
        if error.status == 402:
            raise _deferred(error, now) from None
        raise


def _loaded(document: bytes | memoryview | dict) -> dict:
    import json

    return document if isinstance(document, dict) else json.loads(bytes(document))


KIND = runs.register(
    runs.MonitorKind(
        name="vessel_monitor",
        monitor_model=VesselMonitor,
        run_model=VesselMonitorRun,
        cadence=CADENCE,
        scheduled=lambda monitors: monitors.filter(mode=VesselMonitor.Mode.LIVE, environment="live"),
        execute=execute,
    )
)


# -- simulation --------------------------------------------------------------------------------


def simulate(
    monitor: VesselMonitor, hypothetical: dict, *, confirmed: bool, now: datetime | None = None
) -> VesselMonitorRun:
    """Feed a hypothetical next verdict into the detector as a live run would (no screening, no unit).

    `confirmed` false plays a re-screen that does not agree (a single reading: nothing is emitted).
    Call inside a transaction holding the monitor row.
    """
    now = now or timezone.now()
    reading = {"screening_id": None, "screened_at": rfc3339(now), **hypothetical}
    confirmation = reading if confirmed else _disagreeing(monitor, reading)
    detection = detect(monitor, reading, confirmation)
    event_ids = apply(monitor, detection, reading, now)
    return VesselMonitorRun.objects.create(
        monitor=monitor,
        slot=now,
        simulated=True,
        status=RunStatus.COMPLETED,
        outcome=detection.outcome,
        attempts=1,
        verdict=reading,
        changes=detection.changes,
        event_ids=event_ids,
        completed_at=now,
    )


def _disagreeing(monitor: VesselMonitor, reading: dict) -> dict | None:
    """A re-screen that reads the baseline again on every moved field."""
    baseline = monitor.baseline_verdict
    if baseline is None:
        return None
    disagreeing = reading
    for watched in WATCHED:
        disagreeing = _with_value(disagreeing, watched, _value(baseline, watched))
    return disagreeing
