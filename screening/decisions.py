"""Reviewers' decisions on matches: recorded, revoked, and shown on every later screening of the hull.

A compliance analyst reviews a possible match and decides: `cleared` (not this hull, a false positive)
or `confirmed` (this hull is the listed one), with a reason, a reviewer's name and, optionally, an
expiry. The decision belongs to the (account, environment), like every resource, and binds to the
listing as the serving edition has it: its names, identifiers and programmes, fingerprinted
(screening.records.listing_fingerprint).

A decision applies to a match of a later screening of the hull while it is not revoked, not expired,
and the match's listing still has the fingerprint it was decided on. When a later edition changed the
listing, or the decision expired, it stops applying: the match is shown without it and the record
carries the notice `decision_lapsed` (on the API's own screenings; batch and monitor records carry no
notices, contract 2.3).

A decision never changes `sanctions.status`: the verdict stays the engine's (contract 3.2). It is shown
beside the match (`decision`) and summed up in `sanctions.review`: `confirmed` (a match is confirmed),
`all_cleared` (every match that drove the verdict is cleared), `partly_cleared` (some match is
cleared), or `none`. Vessel monitors read a move whose driving matches are all cleared as no move.

Records are never rewritten: revoking sets who, when and why once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.tenancy import Owner
from core.api.errors import ApiError, FieldViolation
from core.api.pagination import paginate
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from screening import datastate, engine, notices
from screening.models import MatchDecision, Screening
from screening.records import MatchHit, listing_content, listing_fingerprint

RESEND = "resend POST /api/v1/match-decisions"
RECORDS_SEARCHED = 50  # the hull's latest records of the account searched for the match decided on


class DecisionState(StrEnum):
    ACTIVE = "active"  # applies to the matching listing
    EXPIRED = "expired"
    LAPSED = "lapsed"  # the listing changed since (or left the list)
    REVOKED = "revoked"


class Review(StrEnum):
    """sanctions.review of a screening."""

    NONE = "none"
    PARTLY_CLEARED = "partly_cleared"
    ALL_CLEARED = "all_cleared"
    CONFIRMED = "confirmed"


@dataclass(frozen=True)
class Saved:
    document: dict
    body: bytes


def _saved(decision: MatchDecision, now: datetime) -> Saved:
    document = decision_document(decision, now)
    return Saved(document, to_json_bytes(document))


# -- reading --------------------------------------------------------------------------------------


def state_of(decision: MatchDecision, now: datetime) -> DecisionState:
    """Where the decision stands now, against the serving edition of its list."""
    if decision.revoked_at is not None:
        return DecisionState.REVOKED
    if decision.expires_at is not None and decision.expires_at <= now:
        return DecisionState.EXPIRED
    listing = datastate.current().sanctions.record(decision.source, decision.source_record_id)
    if listing is None or listing_fingerprint(listing) != decision.record_fingerprint:
        return DecisionState.LAPSED
    return DecisionState.ACTIVE


def decision_document(decision: MatchDecision, now: datetime | None = None) -> dict:
    now = now or timezone.now()
    revoked = (
        {"at": rfc3339(decision.revoked_at), "by": decision.revoked_by, "reason": decision.revoke_reason or None}
        if decision.revoked_at is not None
        else None
    )
    return {
        "id": decision.id,
        "imo": decision.imo,
        "source": decision.source,
        "source_record_id": decision.source_record_id,
        "outcome": decision.outcome,
        "reason": decision.reason,
        "reviewer": decision.reviewer,
        "decided_at": rfc3339(decision.created_at),
        "expires_at": rfc3339(decision.expires_at),
        "state": str(state_of(decision, now)),
        "record": decision.record,
        "record_fingerprint": decision.record_fingerprint,
        "revoked": revoked,
    }


def owned_decision(owner: Owner, decision_id: str, *, for_update: bool = False) -> MatchDecision:
    return MatchDecision.objects.owned_one(owner, decision_id, for_update=for_update)


def decision_detail(owner: Owner, decision_id: str) -> dict:
    return decision_document(owned_decision(owner, decision_id))


def decision_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first; `active` true keeps decisions neither revoked nor expired (a lapsed one is listed
    with its state: whether its listing changed is read against the serving edition)."""
    now = timezone.now()
    decisions = MatchDecision.objects.owned_by(owner)
    for name in ("imo", "source", "outcome"):
        if filters.get(name):
            decisions = decisions.filter(**{name: filters[name]})
    if "active" in filters:
        standing = decisions.filter(revoked_at__isnull=True).exclude(expires_at__lte=now)
        decisions = standing if filters["active"] else decisions.exclude(pk__in=standing.values("pk"))
    return paginate(decisions, filters, plural="match_decisions", render=lambda d: decision_document(d, now))


# -- writing --------------------------------------------------------------------------------------


def _violation(field: str, message: str) -> FieldViolation:
    return FieldViolation([{"field": field, "message": f"{message}; {RESEND}."}])


def _hull_matches_listing(owner: Owner, imo: str, source: str, record_id: str) -> bool:
    """The account has screened the hull with this match, or the hull matches it now."""
    held = Screening.objects.owned_by(owner).filter(imo=imo).order_by("-id").values_list("document", flat=True)
    for stored in held[:RECORDS_SEARCHED]:
        document = json.loads(bytes(stored)) if not isinstance(stored, dict) else stored
        for match in (document.get("sanctions") or {}).get("matches") or ():
            if match.get("source") == source and match.get("source_record_id") == record_id:
                return True
    result = engine.screen_hull(imo, check_digit_valid=True, vessel_name=None, include_vetting=False)
    return any(hit.record.source == source and hit.record.source_record_id == record_id for hit in result.hits)


def record_decision(owner: Owner, values: dict, *, in_transaction: Callable[[Saved], None] | None = None) -> Saved:
    """Store a decision on a match of the hull (422 when the hull has no such match; 409 when one stands)."""
    now = timezone.now()
    imo, source, record_id = values["imo"], values["source"], values["source_record_id"]
    expires_at = values.get("expires_at")
    if expires_at is not None and expires_at <= now:
        raise _violation("expires_at", "expires_at must be in the future (leave it out for no expiry)")
    listing = datastate.current().sanctions.record(source, record_id)
    if listing is None:
        raise _violation(
            "source_record_id",
            f"{source} holds no record {record_id} in its serving edition, so there is nothing to decide on",
        )
    if not _hull_matches_listing(owner, imo, source, record_id):
        raise _violation(
            "source_record_id",
            f"IMO {imo} has no match on {source} record {record_id} (in this account's screenings of the hull or "
            "a screening now); send the source and source_record_id of one of its matches",
        )
    with transaction.atomic():
        standing = (
            MatchDecision.objects.owned_by(owner)
            .select_for_update()
            .filter(imo=imo, source=source, source_record_id=record_id, revoked_at__isnull=True)
            .first()
        )
        if standing is not None:
            state = state_of(standing, now)
            if state == DecisionState.ACTIVE:
                raise ApiError(
                    409,
                    "decision_exists",
                    f"Decision {standing.id} on this match applies; revoke it "
                    f"(POST /api/v1/match-decisions/{standing.id}/revoke) before recording another.",
                )
            # An expired or lapsed decision gives way, as a revocation on record.
            MatchDecision.objects.filter(pk=standing.pk).update(
                revoked_at=now, revoked_by=values["reviewer"], revoke_reason=f"{state}; superseded by a new decision"
            )
        try:
            with transaction.atomic():
                decision = MatchDecision.objects.create(
                    account_id=owner.account_id,
                    environment=owner.environment,
                    imo=imo,
                    source=source,
                    source_record_id=record_id,
                    outcome=values["outcome"],
                    reason=values["reason"],
                    reviewer=values["reviewer"],
                    expires_at=expires_at,
                    record=listing_content(listing),
                    record_fingerprint=listing_fingerprint(listing),
                    created_at=now,
                )
        except IntegrityError:  # a concurrent decision on the same match won
            raise ApiError(409, "decision_exists", "Another decision on this match was recorded meanwhile.") from None
        saved = _saved(decision, now)
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def revoke_decision(
    owner: Owner, decision_id: str, values: dict, *, in_transaction: Callable[[Saved], None] | None = None
) -> Saved:
    """Revoke a decision (who and why, once); 409 when it is revoked already."""
    now = timezone.now()
    with transaction.atomic():
        decision = owned_decision(owner, decision_id, for_update=True)
        if decision.revoked_at is not None:
            raise ApiError(
                409, "decision_revoked", f"Decision {decision.id} was revoked on {rfc3339(decision.revoked_at)}."
            )
        decision.revoked_at = now
        decision.revoked_by = values["reviewer"]
        decision.revoke_reason = values.get("reason") or ""
        decision.save(update_fields=["revoked_at", "revoked_by", "revoke_reason"])
        saved = _saved(decision, now)
        if in_transaction is not None:
            in_transaction(saved)
    return saved


# -- on a screening -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Overlay:
    matches: list[dict]
    review: Review
    lapsed: list[dict]  # decision_lapsed notices


def _decision_block(decision: MatchDecision) -> dict:
    return {
        "id": decision.id,
        "outcome": decision.outcome,
        "reviewer": decision.reviewer,
        "decided_at": rfc3339(decision.created_at),
        "expires_at": rfc3339(decision.expires_at),
    }


def review_of(matches: Iterable[dict]) -> Review:
    rows = list(matches)
    outcomes = [(row.get("decision") or {}).get("outcome") for row in rows]
    if MatchDecision.Outcome.CONFIRMED in outcomes:
        return Review.CONFIRMED
    driving = [row for row in rows if row.get("drove_verdict")]
    cleared = [(row.get("decision") or {}).get("outcome") == MatchDecision.Outcome.CLEARED for row in driving]
    if driving and all(cleared):
        return Review.ALL_CLEARED
    if MatchDecision.Outcome.CLEARED in outcomes:
        return Review.PARTLY_CLEARED
    return Review.NONE


def overlay(
    account_id: str, environment: str, imo: str, matches: list[dict], hits: list[MatchHit], now: datetime
) -> Overlay:
    """The matches with the decisions that apply to them, the review, and a notice per lapsed decision.

    One query, and none when no match has a record id a decision could name: the hull's unrevoked
    decisions in this account and environment."""
    if not any(match.get("source_record_id") for match in matches):
        return Overlay(matches, Review.NONE, [])
    decisions = {
        (d.source, d.source_record_id): d
        for d in MatchDecision.objects.filter(
            account_id=account_id, environment=environment, imo=imo, revoked_at__isnull=True
        )
    }
    if not decisions:
        return Overlay(matches, Review.NONE, [])
    listings = {(h.record.source, h.record.source_record_id): h.record for h in hits if h.record.source_record_id}
    shown: list[dict] = []
    lapsed: list[dict] = []
    for match in matches:
        key = (str(match.get("source")), str(match.get("source_record_id")))
        decision = decisions.get(key)
        if decision is None:
            shown.append(match)
            continue
        listing = listings.get(key)
        if decision.expires_at is not None and decision.expires_at <= now:
            lapsed.append(notices.decision_lapsed(decision.id, decision.source, decision.source_record_id, "expired"))
            shown.append(match)
        elif listing is None or listing_fingerprint(listing) != decision.record_fingerprint:
            lapsed.append(
                notices.decision_lapsed(decision.id, decision.source, decision.source_record_id, "record_changed")
            )
            shown.append(match)
        else:
            shown.append({**match, "decision": _decision_block(decision)})
    return Overlay(shown, review_of(shown), lapsed)
