"""One way to screen a hull: identity → matching → verdict → vetting and ownership.

Pure with respect to accounts: it reads the data state and the register stores and
returns the parts of a screening record that do not depend on who asked. The keyed
screening, batches, monitors, the keyless check and MCP tools all call `screen_hull`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from core.api.timefmt import rfc3339
from screening import datastate, ownership, vetting
from screening.identity import BASIS_NONE, Identity, resolve_identity
from screening.matching import match_hull
from screening.records import MatchHit
from screening.schedule import next_register_refresh, next_source_refresh
from screening.sources_rows import sanctions_source_rows, vessel_vetting_row
from screening.verdict import (
    SANCTIONS_SOURCES,
    SanctionsOutcome,
    Verdict,
    decide_sanctions,
    editions_for,
    incomplete_outcome,
)

ENGINE_VERSION = 34
METHODOLOGY_VERSION = "vessel_screening_external_v1"
ENRICHMENT_LATENCY_SECONDS = 6.0

CAUSE_IDENTITY = "identity"
CAUSE_COVERAGE = "coverage"


@dataclass
class ScreenResult:
    imo: str
    check_digit_valid: bool
    identity: Identity
    sanctions: SanctionsOutcome
    retry_after: datetime | None
    ownership: ownership.OwnershipResult | None
    vetting: dict
    sources: list[dict]
    enrichment_seconds: float
    include_vetting: bool
    enroll_cause: str | None = None  # why an INCOMPLETE can be resolved later
    hits: list[MatchHit] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.sanctions.status

    @property
    def chargeable(self) -> bool:
        return self.status != Verdict.INCOMPLETE

    def document(self) -> dict:
        """The record's fields that do not depend on the caller (2.3 order)."""
        identity = self.identity
        return {
            "imo": self.imo,
            "imo_check_digit_valid": self.check_digit_valid,
            "vessel_name": identity.chosen_name if identity.basis != BASIS_NONE else None,
            "identity_basis": identity.basis,
            "identity_sources": identity.rows if self.check_digit_valid else [],
            "sanctions": {
                "status": self.sanctions.status,
                "detail": self.sanctions.detail,
                "coverage_complete": self.sanctions.coverage_complete,
                "coverage_gaps": list(self.sanctions.coverage_gaps),
                "matches": self.sanctions.matches,
                "retry_after": rfc3339(self.retry_after),
            },
            "ownership": _ownership_block(self.ownership),
            "vetting": self.vetting,
            "sources": self.sources,
        }


def _ownership_block(result: ownership.OwnershipResult | None) -> dict:
    if result is None or not result.assessed:
        return {"opacity": None, "score": None, "factors": None}
    return {"opacity": result.opacity, "score": result.score, "factors": result.factors}


def screen_hull(
    imo: str,
    *,
    check_digit_valid: bool,
    vessel_name: str | None = None,
    include_vetting: bool = True,
    now: datetime | None = None,
    state: datastate.DataState | None = None,
) -> ScreenResult:
    """`state`: the lists to screen against (default: as they serve now; screening/replay.py gives
    them as they stood at a past instant)."""
    started = time.perf_counter()  # enrichment_latency (2.8) times the whole screening
    now = now or timezone.now()
    state = state or datastate.current()
    editions = editions_for(state)
    available = [name for name, info in state.sources.items() if info.available]
    unavailable = [name for name in datastate_sanctions_sources() if not state.source(name).available]
    if not check_digit_valid:
        # A bare identifier: exact identifier checks only, never a name (3.2.6).
        hits = match_hull(state.sanctions, imo=imo, mmsi=None, names=[], chosen_name=None)
        outcome = incomplete_outcome(
            hits,
            editions=editions,
            reason="check_digit",
            unavailable_sources=unavailable,
        )
        return _finish(
            imo, False, Identity(imo=imo), outcome, None, include_vetting, state, now, hits=hits, started=started
        )
    identity = resolve_identity(state, imo, user_name=vessel_name)
    if identity.contested:
        hits = match_hull(state.sanctions, imo=imo, mmsi=None, names=[], chosen_name=None)
        outcome = incomplete_outcome(hits, editions=editions, reason="contested", unavailable_sources=unavailable)
        return _finish(imo, True, identity, outcome, None, include_vetting, state, now, hits=hits, started=started)
    hits = match_hull(
        state.sanctions,
        imo=imo,
        mmsi=identity.mmsi,
        names=identity.names,
        chosen_name=identity.chosen_name,
        flag=identity.flag,
    )
    if not identity.named:
        outcome = incomplete_outcome(hits, editions=editions, reason="identity", unavailable_sources=unavailable)
        return _finish(
            imo,
            True,
            identity,
            outcome,
            next_register_refresh(now),
            include_vetting,
            state,
            now,
            hits=hits,
            enroll_cause=CAUSE_IDENTITY,
            started=started,
        )
    outcome = decide_sanctions(
        hits,
        hull_imo=imo,
        identity_basis=identity.basis,
        available_sources=available,
        unavailable_sources=unavailable,
        editions=editions,
    )
    retry_after = None
    enroll = None
    if outcome.status == Verdict.INCOMPLETE:
        retry_after = next_source_refresh(outcome.coverage_gaps, now)
        enroll = CAUSE_COVERAGE
    return _finish(
        imo,
        True,
        identity,
        outcome,
        retry_after,
        include_vetting,
        state,
        now,
        hits=hits,
        enroll_cause=enroll,
        started=started,
    )


def datastate_sanctions_sources() -> tuple[str, ...]:
    return SANCTIONS_SOURCES


def _finish(
    imo: str,
    check_digit_valid: bool,
    identity: Identity,
    outcome: SanctionsOutcome,
    retry_after: datetime | None,
    include_vetting: bool,
    state: datastate.DataState,
    now: datetime,
    *,
    hits: list[MatchHit],
    started: float,
    enroll_cause: str | None = None,
) -> ScreenResult:
    """Vetting and ownership on top of the verdict; `started` is when screen_hull began, so
    enrichment_seconds covers identity, matching, the verdict and the enrichment together."""
    owner_result: ownership.OwnershipResult | None = None
    vetting_error = None
    detention_count = sum(1 for inspection in identity.inspections if inspection.detained)
    try:
        age = vetting.vessel_age(identity.records, now.date())
    except Exception:  # a malformed build year never withholds the verdict either
        age = None
    if not include_vetting:
        vetting_block = vetting.vetting_not_requested(detention_count=detention_count, vessel_age=age)
    elif not identity.named or identity.contested:
        vetting_block = vetting.vetting_not_assessed(detention_count=detention_count)
    else:
        try:
            owner_result = ownership.assess_ownership(identity.records)
            vetting_block = vetting.assess_vetting(
                records=identity.records,
                inspections=identity.inspections,
                ownership=owner_result,
                floor_basis=outcome.floor_basis,
                today=now.date(),
            )
        except Exception as exc:  # enrichment that cannot finish never withholds the verdict
            vetting_error = f"{type(exc).__name__}"
            vetting_block = vetting.vetting_error(detention_count=detention_count, vessel_age=age)
            owner_result = None
    elapsed = time.perf_counter() - started
    sources = sanctions_source_rows(state) + [
        vessel_vetting_row(
            include_vetting=include_vetting,
            error=vetting_error,
            inspections=identity.inspections,
            records=identity.records,
            now=now,
        )
    ]
    return ScreenResult(
        imo=imo,
        check_digit_valid=check_digit_valid,
        identity=identity,
        sanctions=outcome,
        retry_after=retry_after,
        ownership=owner_result,
        vetting=vetting_block,
        sources=sources,
        enrichment_seconds=elapsed,
        include_vetting=include_vetting,
        enroll_cause=enroll_cause,
        hits=hits,
    )


def expiry_of(screened_at: datetime) -> datetime:
    """A verdict is current for a day: monitors re-screen on that cadence too."""
    return screened_at + timedelta(hours=24)
