"""Notices (contract 2.8): each fires exactly when stated; the array is never padded."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from core.api.timefmt import rfc3339
from metering.quota import PaceProjection, QuotaState

# Every code a notice can carry (2.8); each has an anchor `section/Notices/<code>` in the
# Notices section of the reference page (templates/drf_spectacular/notices.md).
CODES = (
    "imo_normalized",
    "repeat_screening",
    "identity_unresolved",
    "auto_resolution",
    "identity_contested",
    "quota_pace",
    "quota_warning",
    "enrichment_latency",
    "decision_lapsed",
)
DOCS_PATH = "/api/v1/docs"


def docs_anchor(code: str) -> str:
    return f"section/Notices/{code}"


def _docs(code: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}{DOCS_PATH}#{docs_anchor(code)}"


def _notice(code: str, message: str, remedy: str, **extra: object) -> dict:
    return {"code": code, "message": message, "remedy": remedy, "docs": _docs(code), **extra}


def imo_normalized(sent: str, screened: str) -> dict:
    return _notice(
        "imo_normalized",
        f"The value {sent} carried an appended digit; the hull {screened} was screened.",
        "Fix the pipeline that appends a digit to IMO numbers; send the 7-digit IMO.",
    )


def repeat_screening(
    previous_id: str,
    previous_at: datetime,
    previous_status: str | None,
    *,
    incomplete: bool,
    answers_previous: bool = False,
) -> dict:
    """The earlier record of the hull (2.8). Key advice only where resending the original
    Idempotency-Key would replay an equivalent answer: never on an INCOMPLETE, and never when
    the earlier record was an INCOMPLETE (its key replays the INCOMPLETE, not this verdict)."""
    extra: dict[str, object] = {"previous_screening_id": previous_id, "previous_screened_at": rfc3339(previous_at)}
    if previous_status is not None:
        extra["previous_status"] = previous_status
    if previous_status == "INCOMPLETE" and not incomplete:
        if answers_previous:
            message = (
                f"This record answers the INCOMPLETE record {previous_id} of this hull (its superseded_by now "
                "names this record)."
            )
        else:
            message = f"The earlier record of this hull ({previous_id}) was INCOMPLETE; this record gives the verdict."
        return _notice(
            "repeat_screening",
            message,
            "Nothing to resend: rely on this record, which is the current verdict for this hull.",
            **extra,
        )
    if incomplete:
        return _notice(
            "repeat_screening",
            f"This answer is INCOMPLETE; the last complete answer for this hull is {previous_id}.",
            "Rely on the earlier record until this hull can be screened again.",
            **extra,
        )
    return _notice(
        "repeat_screening",
        f"This account screened the hull within 24 hours ({previous_id}) under a different Idempotency-Key.",
        "To retry the same request without spending a unit, resend it with its original Idempotency-Key.",
        **extra,
    )


def identity_unresolved(retry_after: datetime | None) -> dict:
    return _notice(
        "identity_unresolved",
        "No source names this hull and no vessel_name was sent; nothing was screened and nothing was charged.",
        "Re-screen with vessel_name set to the ship's name, or wait for the scheduled register fetch.",
        retry_after=rfc3339(retry_after),
    )


def auto_resolution(next_attempt_at: datetime, expires_at: datetime, max_attempts: int) -> dict:
    return _notice(
        "auto_resolution",
        "This INCOMPLETE is enrolled for automatic re-screening; a verdict will arrive as screening.resolved.",
        "Subscribe a webhook endpoint to screening.resolved, or poll GET /api/v1/screenings/{id}.",
        next_attempt_at=rfc3339(next_attempt_at),
        expires_at=rfc3339(expires_at),
        max_attempts=max_attempts,
        webhook_event="screening.resolved",
    )


def identity_contested() -> dict:
    return _notice(
        "identity_contested",
        "Four or more different vessel names are recorded against this IMO; no name can be chosen.",
        "Confirm the hull's identity from its documents (registry certificate) before relying on any screen.",
    )


def quota_pace(projection: PaceProjection) -> dict:
    return _notice(
        "quota_pace",
        f"At {projection.per_day} screenings a day (trailing seven days) the allowance runs out on "
        f"{projection.projected_exhaustion.isoformat()}, before it resets.",
        "Slow down, or ask for a larger allowance.",
        projected_exhaustion_date=projection.projected_exhaustion.isoformat(),
        per_day_rate=projection.per_day,
        used=projection.used,
        limit=projection.limit,
        trailing_7_day_count=projection.trailing_7_day_count,
    )


def quota_warning(state: QuotaState) -> dict:
    return _notice(
        "quota_warning",
        f"{state.used} of {state.allowance.limit} live screenings are used (at least 80%).",
        "Plan for the allowance running out; ask for a larger one if you need it.",
        quota={"used": state.used, "limit": state.allowance.limit, "resets_at": rfc3339(state.allowance.resets_at)},
    )


def enrichment_latency(seconds: float) -> dict:
    return _notice(
        "enrichment_latency",
        f"The screening with vetting enrichment took {seconds:.1f} seconds.",
        "Send include_vetting false when only the sanctions verdict is needed.",
        seconds=round(seconds, 1),
    )


def decision_lapsed(decision_id: str, source: str, source_record_id: str, why: str) -> dict:
    """A reviewer's decision on a match of this hull no longer applies: `why` is record_changed or expired."""
    cause = (
        "the listing changed since it was decided (names, identifiers or programmes)"
        if why == "record_changed"
        else "it expired"
    )
    return _notice(
        "decision_lapsed",
        f"Decision {decision_id} on {source} record {source_record_id} no longer applies: {cause}.",
        "Review the match again and record a new decision (POST /api/v1/match-decisions).",
        decision_id=decision_id,
        source=source,
        source_record_id=source_record_id,
        reason=why,
    )
