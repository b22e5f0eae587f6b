"""Writing screening records: one transaction per record (charge, record, follow-up)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import QuerySet, Subquery
from django.utils import timezone

from accounts.models import Account
from core.api.errors import FieldViolation
from core.api.ids import new_id
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from core.compiled_query import CompiledQuery
from core.leases import LeaseLost
from metering import concurrency, pace, quota
from screening import behaviour_block, decisions, engine, notices, replay, resolution
from screening.imo import ImoInputError, parse_screening_imo
from screening.models import FollowUp, Screening
from screening.verdict import Verdict
from webhooks.events import emit

logger = logging.getLogger("service.screening")

ORIGIN_API = Screening.Origin.API
ORIGIN_BATCH = Screening.Origin.BATCH
ORIGIN_MONITOR = Screening.Origin.MONITOR
ORIGIN_RESOLUTION = Screening.Origin.RESOLUTION
ORIGIN_LIST_UPDATE = Screening.Origin.LIST_UPDATE
# The service's own initiatives, which the burst line (contract 7.5) does not count.
SERVICE_ORIGINS = frozenset({ORIGIN_RESOLUTION, ORIGIN_LIST_UPDATE})
REPEAT_WINDOW = timedelta(hours=24)


# How to resolve a refused IMO; {call} is the caller's own operation (contract part 7: each violation
# names the call that resolves it), e.g. "POST /api/v1/vessel-monitors".
IMO_REMEDY = "send the 7-digit IMO number (e.g. 9074729, IMO9074729 or 'IMO 9074729') and resend {call}"


@dataclass(frozen=True)
class CallerInput:
    """What a caller sends to screen a hull (REST body, MCP arguments), before any parsing."""

    imo: str
    vessel_name: str | None = None
    customer_reference: str | None = None
    include_vetting: bool = True
    as_of: datetime | None = None
    include_behaviour: bool = False


@dataclass(frozen=True)
class ScreeningRequest:
    imo: str
    check_digit_valid: bool = True
    normalized_from: str | None = None
    vessel_name: str | None = None
    customer_reference: str | None = None
    include_vetting: bool = True
    as_of: datetime | None = None  # screen against the lists in force then (screening/replay.py)
    include_behaviour: bool = False  # the AIS behaviour block (screening/behaviour_block.py)


@dataclass(frozen=True)
class Issued:
    """Everything a door needs: the record and its bytes, the units charged and the quota state."""

    screening: Screening
    body: bytes
    quota: quota.QuotaState
    result: engine.ScreenResult

    @property
    def units_charged(self) -> int:
        return 1 if self.screening.unit_charged else 0

    @property
    def quota_headers(self) -> dict[str, str]:
        return self.quota.headers()


def _newest_record_with_open_follow_up(account_id: str, environment: str, imo: str) -> QuerySet:
    pending = FollowUp.objects.filter(
        account_id=account_id, environment=environment, imo=imo, status=FollowUp.Status.PENDING
    )
    return (
        # A screening as of a past instant answers another question: it is no part of the hull's history.
        Screening.objects.filter(account_id=account_id, environment=environment, imo=imo, as_of__isnull=True)
        .annotate(open_follow_up_id=Subquery(pending.values("id")[:1]))
        .order_by("-screened_at")
        .values("id", "screened_at", "status", "open_follow_up_id")[:1]
    )


# Read on every screening; its SQL is built once per process (core/compiled_query.py).
_HULL_HISTORY = CompiledQuery(_newest_record_with_open_follow_up, "account_id", "environment", "imo")


@dataclass(frozen=True)
class HullHistory:
    """The account's newest record of a hull and the hull's open follow-up (one query)."""

    previous: dict | None
    open_follow_up_id: int | None

    @classmethod
    def read(cls, account_id: str, environment: str, imo: str) -> HullHistory:
        newest = _HULL_HISTORY.first(Screening.objects.db, account_id=account_id, environment=environment, imo=imo)
        # A follow-up always belongs to a record of the hull, so no record means none is open.
        return cls(newest, newest["open_follow_up_id"] if newest else None)

    def repeat_notice(self, now: datetime, incomplete: bool, answered_id: str | None = None) -> dict | None:
        """repeat_screening (2.8): the same account screened the hull in the last 24 hours.
        `answered_id`: the INCOMPLETE this record answers (its supersedes), if any."""
        previous = self.previous
        if previous is None or previous["screened_at"] < now - REPEAT_WINDOW:
            return None
        if incomplete and previous["status"] == Verdict.INCOMPLETE:
            return None
        return notices.repeat_screening(
            previous["id"],
            previous["screened_at"],
            previous["status"],
            incomplete=incomplete,
            answers_previous=answered_id is not None and answered_id == previous["id"],
        )


def parse_caller_imo(
    value: str, *, correction: bool, field: str = "imo", resend: str = "the request"
) -> tuple[str, str | None, bool]:
    """The IMO rules of 4.3 as a validation_failed naming the field and the call that resolves it:
    (imo, normalized_from, check_digit_valid). `resend` is the caller's own method and path, e.g.
    "POST /api/v1/screenings"; a door that has none to name gets "resend the request", never another's."""
    try:
        parsed = parse_screening_imo(value, appended_digit_correction=correction)
    except ImoInputError as exc:
        remedy = IMO_REMEDY.format(call=resend)
        raise FieldViolation([{"field": field, "message": f"{exc}; {remedy}."}]) from None
    return parsed.imo, parsed.normalized_from, parsed.check_digit_valid


def _resolved_event_data(answer: Screening, original: Screening, document: dict) -> dict:
    return {
        "screening_id": answer.id,
        "supersedes_screening_id": original.id,
        "imo": answer.imo,
        "customer_reference": document.get("customer_reference") or original.customer_reference or None,
        "vessel_name": document.get("vessel_name"),
        "identity_basis": document.get("identity_basis"),
        "sanctions_status": document["sanctions"]["status"],
        "vetting_grade": document["vetting"].get("grade"),
        "ownership_opacity": document["ownership"].get("opacity"),
        "screened_at": document["screened_at"],
        "unit_charged": document["unit_charged"],
    }


def _past_instant(as_of: datetime | None) -> datetime | None:
    """as_of must lie in the past (422 naming it otherwise)."""
    if as_of is not None and as_of >= timezone.now():
        raise FieldViolation(
            [
                {
                    "field": "as_of",
                    "message": "as_of must be a past date or timestamp (leave it out to screen against the lists "
                    "as they stand now); correct it and resend POST /api/v1/screenings.",
                }
            ]
        )
    return as_of


def screen(
    account: Account,
    environment: str,
    ask: CallerInput,
    *,
    in_transaction: Callable[[Issued], None] | None = None,
) -> Issued:
    """The one way a caller screens a hull (REST and MCP): IMO rules, pace pause, the in-flight
    ceiling, then the record. 422 on a bad IMO, 402 when paused or the allowance is used."""
    imo, normalized_from, check_digit_valid = parse_caller_imo(
        ask.imo, correction=account.appended_digit_correction, resend="POST /api/v1/screenings"
    )
    request = ScreeningRequest(
        imo=imo,
        check_digit_valid=check_digit_valid,
        normalized_from=normalized_from,
        vessel_name=ask.vessel_name,
        customer_reference=ask.customer_reference,
        include_vetting=ask.include_vetting,
        as_of=_past_instant(ask.as_of),
        include_behaviour=ask.include_behaviour,
    )
    pace.ensure_not_paused(account, environment)
    with concurrency.customer_slot("screening", account.pk, environment):
        return create_screening(account, environment, request, in_transaction=in_transaction)


def create_screening(
    account: Account,
    environment: str,
    request: ScreeningRequest,
    *,
    origin: str = ORIGIN_API,
    now: datetime | None = None,
    result: engine.ScreenResult | None = None,
    in_transaction: Callable[[Issued], None] | None = None,
) -> Issued:
    """Screen the hull (unless `result` is given) and issue the record; 402 if the allowance is used.

    One transaction: the hull's history (one read), the charge, the follow-up when one opens,
    the record inserted once with its final document, and `in_transaction` (what it writes — an
    idempotency completion, a batch item's status — commits or rolls back with the record).
    """
    now = now or timezone.now()
    replayed = replay.state_as_of(request.as_of) if request.as_of is not None else None
    result = result or engine.screen_hull(
        request.imo,
        check_digit_valid=request.check_digit_valid,
        vessel_name=request.vessel_name,
        include_vetting=request.include_vetting,
        now=now,
        state=replayed.state if replayed is not None else None,
    )
    incomplete = result.status == Verdict.INCOMPLETE
    # A re-screen the service starts because a list changed is never charged (an INCOMPLETE never is).
    units = 0 if incomplete or origin == ORIGIN_LIST_UPDATE else 1
    # A screening as of a past instant is never followed up: the lists of that instant will not change.
    enroll_cause = (
        result.enroll_cause
        if incomplete and result.check_digit_valid and not result.identity.contested and replayed is None
        else None
    )
    screening_id = new_id("scr")
    # The free-account burst line (contract 7.5) is held inside this transaction: past it, the
    # transaction rolls back and the account is paused (402). The service's own re-screens are not counted.
    with pace.burst_line(account, environment, counted=origin not in SERVICE_ORIGINS) as line, transaction.atomic():
        history = HullHistory.read(account.pk, environment, request.imo)
        # The service's own re-screens are ledger entries of their own, which the pace rules do not count.
        reason = quota.Reason.RESCREEN if origin in SERVICE_ORIGINS else quota.Reason.CHARGE
        state = quota.charge(account, environment, quota.KIND_SCREENING, units, imo=request.imo, reason=reason)
        admission = line.admit()  # after the charge inserted this screening's metering event
        answered = None
        if not incomplete and history.open_follow_up_id is not None and replayed is None:
            answered = resolution.open_follow_up_locked(history.open_follow_up_id)
        if incomplete and origin == ORIGIN_API and state.remaining < 1:
            raise quota.exhausted_error(state)  # nothing ran for the caller: 402 as a charged answer would be
        follow_up = (
            resolution.enroll(
                account.pk,
                environment,
                request.imo,
                screening_id,
                enroll_cause,
                result.retry_after,
                now,
                open_follow_up_id=history.open_follow_up_id,
            )
            if enroll_cause
            else None
        )
        screening = Screening(
            id=screening_id,
            account=account,
            environment=environment,
            imo=request.imo,
            status=result.status,
            vessel_name=result.identity.chosen_name or "",
            customer_reference=request.customer_reference or "",
            unit_charged=units > 0,
            origin=origin,
            screened_at=now,
            expires_at=engine.expiry_of(now),
            supersedes_id=answered.screening_id if answered else None,
            follow_up=follow_up,
            as_of=request.as_of,
        )
        notice_list = (
            _notices_for(account, request, result, state, history, now, answered) if origin == ORIGIN_API else []
        )
        if follow_up is not None and origin == ORIGIN_API:
            notice_list.append(
                notices.auto_resolution(follow_up.next_attempt_at, follow_up.expires_at, follow_up.max_attempts)
            )
        decided = decisions.overlay(account.pk, environment, request.imo, result.sanctions.matches, result.hits, now)
        if origin == ORIGIN_API:
            notice_list.extend(decided.lapsed)
        document = _assemble(screening, request, result, follow_up, notice_list, answered, decided, replayed)
        screening.document = to_json_bytes(document)
        screening.save(force_insert=True)
        if answered is not None:
            original = answered.screening
            resolution.supersede(answered, screening)
            emit(account.pk, environment, "screening.resolved", _resolved_event_data(screening, original, document))
        if state.crossed_warning:
            emit(account.pk, environment, "usage.quota_warning", {"used": state.used, "limit": state.allowance.limit})
        issued = Issued(screening, bytes(screening.document), state, result)
        if in_transaction is not None:
            in_transaction(issued)
    _after_commit(admission.check_walk, account)
    return issued


def _after_commit(step: Callable[[Account], object], account: Account) -> None:
    """A step after the record committed must not turn the committed answer into an error."""
    try:
        step(account)
    except Exception:
        logger.exception("%s failed after a screening was committed", getattr(step, "__qualname__", step))


def _assemble(
    screening: Screening,
    request: ScreeningRequest,
    result: engine.ScreenResult,
    follow_up: FollowUp | None,
    notice_list: list[dict],
    answered: FollowUp | None,
    decided: decisions.Overlay,
    replayed: replay.Replayed | None = None,
) -> dict:
    """The record in contract 2.3 order, with the account's decisions on its matches."""
    document: dict = {"id": screening.id, "imo": request.imo}
    if request.normalized_from:
        document["imo_normalized_from"] = request.normalized_from
    core = result.document()
    core.pop("imo")
    core["sanctions"].update(matches=decided.matches, review=str(decided.review))
    document.update(core)
    if request.include_behaviour:
        document["behaviour"] = behaviour_block.block(request.imo, request.as_of or screening.screened_at)
    if request.customer_reference is not None:
        document["customer_reference"] = request.customer_reference
    document["screened_at"] = rfc3339(screening.screened_at)
    document["expires_at"] = rfc3339(screening.expires_at)
    document["methodology_version"] = engine.METHODOLOGY_VERSION
    document["engine_version"] = engine.ENGINE_VERSION
    if replayed is not None:
        document["as_of"] = rfc3339(request.as_of)
        document["as_of_editions"] = replayed.editions
    document["unit_charged"] = screening.unit_charged
    document["notices"] = notice_list
    if follow_up is not None:
        document["resolution"] = resolution.block(follow_up)
    if answered is not None:
        document["supersedes"] = answered.screening_id
    return document


def _notices_for(
    account: Account,
    request: ScreeningRequest,
    result: engine.ScreenResult,
    state: quota.QuotaState,
    history: HullHistory,
    now: datetime,
    answered: FollowUp | None = None,
) -> list[dict]:
    found: list[dict] = []
    if request.normalized_from:
        found.append(notices.imo_normalized(request.normalized_from, request.imo))
    repeat = history.repeat_notice(
        now,
        incomplete=result.status == Verdict.INCOMPLETE,
        answered_id=answered.screening_id if answered is not None else None,
    )
    if repeat:
        found.append(repeat)
    if result.identity.contested:
        found.append(notices.identity_contested())
    elif result.check_digit_valid and not result.identity.named:
        found.append(notices.identity_unresolved(result.retry_after))
    if quota.warning_due(state):
        found.append(notices.quota_warning(state))
    else:
        projection = quota.pace_projection(account, state, now)
        if projection is not None:
            found.append(notices.quota_pace(projection))
    if result.include_vetting and result.enrichment_seconds >= engine.ENRICHMENT_LATENCY_SECONDS:
        found.append(notices.enrichment_latency(result.enrichment_seconds))
    return found


def _unresolved_remedy(follow_up: FollowUp) -> str:
    if follow_up.cause == "identity":
        return "No register names this hull: re-screen with vessel_name set to the ship's name."
    return (
        "A core sanctions source stayed unavailable for the whole schedule; re-screen under a new "
        "Idempotency-Key once the outage named in coverage_gaps has ended."
    )


def attempt_follow_up(follow_up: FollowUp, now: datetime | None = None) -> resolution.AttemptOutcome:
    """One scheduled re-screen of an open INCOMPLETE, as read by the caller, under a claim.

    Returns resolved, pending, waiting or unresolved; skipped when another run holds the attempt
    or the follow-up moved on since it was read (nothing is written or charged then)."""
    now = now or timezone.now()
    claimed = resolution.claim(follow_up, now)
    if claimed is None:
        return resolution.AttemptOutcome.SKIPPED
    try:
        return _attempt_claimed(claimed, now)
    except LeaseLost:
        logger.warning("follow-up %s attempt (claim %s) was taken over; nothing written", claimed.pk, claimed.claims)
        return resolution.AttemptOutcome.SKIPPED
    except BaseException:
        resolution.release(claimed)
        raise


def _attempt_claimed(claimed: FollowUp, now: datetime) -> resolution.AttemptOutcome:
    account = claimed.account
    if now >= claimed.expires_at:
        return _give_up(claimed, now)
    state = quota.current_state(account, claimed.environment, quota.KIND_SCREENING, now)
    if state.remaining < 1:
        # A slot due while the allowance is exhausted waits for the reset and does not count.
        reset = state.allowance.resets_at or now + timedelta(days=1)
        if reset > claimed.expires_at:
            return _give_up(claimed, now)
        with transaction.atomic():
            resolution.settle(claimed, now, next_attempt_at=reset)
        return resolution.AttemptOutcome.WAITING
    original = claimed.screening
    result = engine.screen_hull(original.imo, check_digit_valid=True, include_vetting=True, now=now)
    if result.status == Verdict.INCOMPLETE:
        outcome = resolution.after_incomplete_attempt(claimed, now)
        if outcome.get("status") == FollowUp.Status.UNRESOLVED:
            return _give_up(claimed, now, attempts=outcome["attempts"])
        with transaction.atomic():
            resolution.settle(claimed, now, **outcome)
        return resolution.AttemptOutcome.PENDING
    request = ScreeningRequest(imo=original.imo, customer_reference=original.customer_reference or None)
    with transaction.atomic():
        # The claim is settled (and the follow-up row locked) first: the record that answers it,
        # its unit and screening.resolved commit with it, or none of them does.
        resolution.settle(claimed, now)
        create_screening(account, claimed.environment, request, origin=ORIGIN_RESOLUTION, now=now, result=result)
    return resolution.AttemptOutcome.RESOLVED


def _give_up(claimed: FollowUp, now: datetime, **fields: object) -> resolution.AttemptOutcome:
    """The schedule ran out: unresolved, and screening.unresolved, in one transaction under the claim."""
    with transaction.atomic():
        resolution.settle(claimed, now, status=FollowUp.Status.UNRESOLVED, **fields)
        original = claimed.screening
        emit(
            claimed.account_id,
            claimed.environment,
            "screening.unresolved",
            {
                "screening_id": original.id,
                "imo": original.imo,
                "customer_reference": original.customer_reference or None,
                "cause": claimed.cause,
                "attempts": claimed.attempts,
                "remedy": _unresolved_remedy(claimed),
            },
        )
    return resolution.AttemptOutcome.UNRESOLVED
