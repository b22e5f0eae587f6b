"""Corridor monitors: a route re-assessed every 6 hours on a live key, each run one live voyage unit.

A run is one assessment through `voyages.services.create_assessment` (the one way to assess a route),
charged on the live voyage allowance like POST /voyage-assessments, and compared with the monitor's
baseline. Its result, the run's completion, the monitor's new state and any events commit in the
assessment's transaction (or not at all: a worker whose lease was taken over writes nothing and the
unit is not drawn).

What a run reads (`summarize`): score, risk_level, score_floor (basis and value), the JWC listed areas
the route touches, the sources answering (`sources[]` rows with status ok) and `missing_sources`.

Baseline: the first run's reading (no event). It moves only when a change is reported, so a slow drift
is reported once it adds up to a material change; on a run without a change only its source lists are
refreshed (what the next run is expected to have).

Material change (`material_changes`; any one of these, in either direction, emits corridor_risk.changed):
  risk_level      the level differs from the baseline's (low, moderate, elevated, high, severe)
  score           the score moved SCORE_THRESHOLD (10) points or more from the baseline's: half a risk
                  band (bands are 20 points wide), so a move that large is reported even within a band,
                  and day-to-day weather noise of a few points is not
  score_floor     a floor (categorical minimum) applied, lifted, or its basis changed
  listed_area     a JWC listed area entered or left (by area id)

Data degradation (`lost_sources`): a source the baseline had answering is absent from this run's
`sources` (or not ok), or a name appears in `missing_sources` that the baseline did not miss (e.g. the
live weather forecast stopped answering). The first degraded run emits corridor_data.degraded; a
degraded run keeps the baseline and emits no change (a change read on incomplete data is not
evidence). The first run whose sources are all back emits corridor_data.recovered, then is compared
with the baseline as usual (a change that happened meanwhile is reported then).

Allowance: a run when the live voyage allowance is used is deferred until the allowance resets (not an
attempt, nothing charged, corridor_monitor.deferred emitted once per deferral) and runs after it.
An assessment is always of the present, so when a later slot of the same monitor is already open an
older slot is completed as superseded without assessing or charging (a monitor deferred for days
runs once at the reset, not once per missed slot).

Events (data fields; every event carries monitor_id, customer_reference, origin_locode, dest_locode):
  corridor_risk.changed     assessment_id, slot, direction (up, down or level: the score's way),
                            changes[] ({kind, label, previous, current, direction[, delta]}),
                            previous and current ({assessment_id, assessed_at, score, risk_level,
                            score_floor, listed_areas})
  corridor_data.degraded    assessment_id, slot, degraded_sources[], message
  corridor_data.recovered   assessment_id, slot, recovered_sources[]
  corridor_monitor.deferred slot, reason (voyage_allowance_used), used, limit, resets_at, message
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import ENV_LIVE
from core.api.errors import ApiError, FieldViolation
from core.api.timefmt import rfc3339
from metering import quota
from monitoring import runs
from monitoring.models import CorridorMonitor, CorridorMonitorRun, RunStatus
from webhooks.events import emit

KIND_NAME = "corridor_monitor"
CADENCE = timedelta(hours=6)
SCORE_THRESHOLD = 10  # points on the 0-100 score: half a risk band
RISK_LEVELS = ("low", "moderate", "elevated", "high", "severe")

EVENT_CHANGED = "corridor_risk.changed"
EVENT_DEGRADED = "corridor_data.degraded"
EVENT_RECOVERED = "corridor_data.recovered"
EVENT_DEFERRED = "corridor_monitor.deferred"

OUTCOME_BASELINE = "baseline"
OUTCOME_UNCHANGED = "unchanged"
OUTCOME_CHANGED = "changed"
OUTCOME_DEGRADED = "degraded"

OPEN_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.DEFERRED)

# The parts of a reading the change detector compares (and the events carry).
COMPARED = ("assessment_id", "assessed_at", "score", "risk_level", "score_floor", "listed_areas")


# -- the reading and the detector --------------------------------------------------------------


def summarize(document: dict) -> dict:
    """What a run reads from its assessment document (2.10)."""
    floor = document.get("score_floor")
    return {
        "assessment_id": document["id"],
        "assessed_at": document["assessed_at"],
        "score": document["score"],
        "risk_level": document["risk_level"],
        "score_floor": {"basis": floor["basis"], "value": floor["value"]} if floor else None,
        "listed_areas": sorted(
            (
                {"id": a["id"], "name": a["name"], "risk_level": a["risk_level"]}
                for a in document["jwc_intersected_areas"]
            ),
            key=lambda area: area["id"],
        ),
        "sources": sorted(row["source"] for row in document.get("sources", []) if row.get("status") == "ok"),
        "missing_sources": sorted(document.get("missing_sources", [])),
        "confidence": document.get("confidence"),
    }


def lost_sources(baseline: dict, current: dict) -> list[str]:
    """Sources the baseline had that this reading lacks (empty: nothing degraded)."""
    gone = set(baseline.get("sources", [])) - set(current.get("sources", []))
    newly_missing = set(current.get("missing_sources", [])) - set(baseline.get("missing_sources", []))
    return sorted(gone | newly_missing)


def _way(previous: float, current: float) -> str:
    return "up" if current > previous else "down" if current < previous else "level"


def material_changes(baseline: dict, current: dict) -> list[dict]:
    """The material changes from the baseline to this reading (empty: nothing to report)."""
    changes: list[dict] = []
    if baseline["risk_level"] != current["risk_level"]:
        rank = {level: index for index, level in enumerate(RISK_LEVELS)}
        changes.append(
            {
                "kind": "risk_level",
                "label": "Risk level",
                "previous": baseline["risk_level"],
                "current": current["risk_level"],
                "direction": _way(rank.get(baseline["risk_level"], -1), rank.get(current["risk_level"], -1)),
            }
        )
    delta = current["score"] - baseline["score"]
    if abs(delta) >= SCORE_THRESHOLD:
        changes.append(
            {
                "kind": "score",
                "label": "Score",
                "previous": baseline["score"],
                "current": current["score"],
                "delta": delta,
                "direction": _way(baseline["score"], current["score"]),
            }
        )
    was, now = baseline.get("score_floor"), current.get("score_floor")
    if (was or {}).get("basis") != (now or {}).get("basis"):
        changes.append(
            {
                "kind": "score_floor",
                "label": "Score floor",
                "previous": was,
                "current": now,
                "direction": "applied" if was is None else "lifted" if now is None else "changed",
            }
        )
    before = {area["id"]: area for area in baseline.get("listed_areas", [])}
    after = {area["id"]: area for area in current.get("listed_areas", [])}
    for area_id in sorted(after.keys() - before.keys()):
        changes.append(
            {
                "kind": "listed_area",
                "label": "Listed area",
                "previous": None,
                "current": after[area_id],
                "direction": "entered",
            }
        )
    for area_id in sorted(before.keys() - after.keys()):
        changes.append(
            {
                "kind": "listed_area",
                "label": "Listed area",
                "previous": before[area_id],
                "current": None,
                "direction": "left",
            }
        )
    return changes


# -- one run -------------------------------------------------------------------------------------


def _about(monitor: CorridorMonitor) -> dict:
    route = (monitor.request or {}).get("route", {})
    return {
        "monitor_id": monitor.id,
        "customer_reference": monitor.customer_reference or None,
        "origin_locode": route.get("origin"),
        "dest_locode": route.get("destination"),
    }


def _compared(reading: dict) -> dict:
    return {name: reading.get(name) for name in COMPARED}


def execute(claimed: runs.Claimed) -> None:
    """Run one claimed corridor run (MonitorKind.execute)."""
    # lazy: voyages.services and voyages.requests bring the port catalogue, shapely and the voyage layers
    # (~45-60 ms); every process imports this module while Django sets up (the admin's corridor monitors),
    # only a worker running a corridor needs them
    from voyages import services
    from voyages.requests import parse_route_request  # lazy: as above

    run: CorridorMonitorRun = claimed.run
    monitor: CorridorMonitor = run.monitor
    if monitor.environment != ENV_LIVE:
        raise ApiError(403, "environment_not_allowed", "Corridor monitors run on live keys only.")
    if _superseded(claimed):
        return
    violations: list[dict] = []
    request = parse_route_request(monitor.request, violations)
    if violations or request is None:
        raise FieldViolation(violations, "The monitor's stored route is no longer valid; create it again.")
    account = monitor.account
    state = quota.current_state(account, monitor.environment, quota.KIND_ASSESSMENT)
    if state.remaining < 1:
        _defer(claimed, state)
    try:
        services.create_assessment(
            account, monitor.environment, request, in_transaction=lambda issued: _record(claimed, issued)
        )
    except ApiError as exc:
        if exc.code == "quota_exhausted":  # drawn by someone else between the check and the charge
            _defer(claimed, quota.current_state(account, monitor.environment, quota.KIND_ASSESSMENT))
        raise


def _superseded(claimed: runs.Claimed) -> bool:
    """Complete an older slot without assessing when a later slot of the monitor is open."""
    run = claimed.run
    later = (
        CorridorMonitorRun.objects.filter(monitor_id=run.monitor_id, slot__gt=run.slot, status__in=OPEN_STATUSES)
        .order_by("-slot")
        .values_list("slot", flat=True)
        .first()
    )
    if later is None:
        return False
    with transaction.atomic():
        runs.complete(
            claimed,
            error={
                "code": "superseded",
                "message": f"The slot of {rfc3339(later)} is open and assesses the route as it is now; "
                "this slot was not assessed and nothing was charged.",
            },
        )
    return True


def _defer(claimed: runs.Claimed, state: quota.QuotaState) -> None:
    """Wait for the allowance's reset; tell the customer once per deferral."""
    run, monitor = claimed.run, claimed.run.monitor
    allowance = state.allowance
    until = allowance.resets_at or (timezone.now() + CADENCE)
    reason = (
        f"The live voyage allowance is used ({state.used}/{allowance.limit}); the run waits until "
        f"{rfc3339(until)} and runs then. Nothing was charged."
    )
    with transaction.atomic():
        waiting = CorridorMonitorRun.objects.filter(monitor_id=monitor.pk, status=RunStatus.DEFERRED).exclude(pk=run.pk)
        if not waiting.exists() and not run.event_ids:
            event = emit(
                monitor.account_id,
                monitor.environment,
                EVENT_DEFERRED,
                {
                    **_about(monitor),
                    "slot": rfc3339(run.slot),
                    "reason": "voyage_allowance_used",
                    "used": state.used,
                    "limit": allowance.limit,
                    "resets_at": rfc3339(allowance.resets_at),
                    "message": reason,
                },
            )
            runs.kind_run_filter(claimed).update(event_ids=[*run.event_ids, event.id])
    raise runs.Deferred(until, reason)


def _record(claimed: runs.Claimed, issued: Any) -> None:
    """Inside the assessment's transaction: compare, emit, move the monitor on, complete the run."""
    run = claimed.run
    monitor = CorridorMonitor.objects.select_for_update().filter(pk=run.monitor_id).first()
    if monitor is None:  # deleted while the run was in flight: its run row went with it
        raise runs.LeaseLost(run.pk)
    current = summarize(json.loads(issued.body))
    about = {**_about(monitor), "assessment_id": current["assessment_id"], "slot": rfc3339(run.slot)}
    baseline = monitor.baseline
    changes: list[dict] = []
    events = []
    summary: dict = {**current, "recovered": False}
    degraded = False
    if baseline is None:
        summary["outcome"] = OUTCOME_BASELINE
        new_baseline = current
    elif lost := lost_sources(baseline, current):
        summary.update(outcome=OUTCOME_DEGRADED, degraded_sources=lost)
        degraded, new_baseline = True, baseline
        if not monitor.degraded:
            message = (
                f"{', '.join(lost)} did not answer for this run; the baseline is kept and no change is "
                "reported until they are back."
            )
            events.append(
                emit(
                    monitor.account_id,
                    monitor.environment,
                    EVENT_DEGRADED,
                    {**about, "degraded_sources": lost, "message": message},
                )
            )
    else:
        if monitor.degraded:
            summary["recovered"] = True
            events.append(
                emit(
                    monitor.account_id,
                    monitor.environment,
                    EVENT_RECOVERED,
                    {**about, "recovered_sources": _last_degraded_sources(monitor, run)},
                )
            )
        changes = material_changes(baseline, current)
        if changes:
            summary["outcome"] = OUTCOME_CHANGED
            new_baseline = current
            events.append(
                emit(
                    monitor.account_id,
                    monitor.environment,
                    EVENT_CHANGED,
                    {
                        **about,
                        "direction": _way(baseline["score"], current["score"]),
                        "changes": changes,
                        "previous": _compared(baseline),
                        "current": _compared(current),
                    },
                )
            )
        else:
            summary["outcome"] = OUTCOME_UNCHANGED
            new_baseline = {**baseline, "sources": current["sources"], "missing_sources": current["missing_sources"]}
    CorridorMonitor.objects.filter(pk=monitor.pk).update(
        baseline=new_baseline, degraded=degraded, last_run_at=timezone.now(), run_count=F("run_count") + 1
    )
    runs.complete(
        claimed,
        assessment=issued.assessment,
        summary=summary,
        changes=changes,
        event_ids=[*run.event_ids, *(event.id for event in events)],
        error=None,
    )


def _last_degraded_sources(monitor: CorridorMonitor, run: CorridorMonitorRun) -> list[str]:
    previous = (
        CorridorMonitorRun.objects.filter(monitor_id=monitor.pk, status=RunStatus.COMPLETED, summary__isnull=False)
        .exclude(pk=run.pk)
        .order_by("-completed_at")
        .values_list("summary", flat=True)
        .first()
    )
    return list((previous or {}).get("degraded_sources", []))


def scheduled(monitors: Any) -> Any:
    """The monitors the schedule runs: active ones on live keys (none on a test key)."""
    return monitors.filter(status=CorridorMonitor.Status.ACTIVE, environment=ENV_LIVE)


KIND = runs.register(
    runs.MonitorKind(
        name=KIND_NAME,
        monitor_model=CorridorMonitor,
        run_model=CorridorMonitorRun,
        cadence=CADENCE,
        scheduled=scheduled,
        execute=execute,
    )
)
