"""The sanctions verdict from the hits: contract 3.1 and rules 3.2.1–3.2.5.

RED    an exact hull IMO on a designating list (OFAC, UN, EU, UK).
AMBER  shape 1: a name-only hit on a vessel record that survives the collision filter
                (an exact MMSI on a designating list's vessel record that names no other
                IMO is read alike: a possible match against a vessel record, not confirmed)
       shape 2: an exact identifier listing on a non-designating watchlist (the Ukrainian
                watchlist, or an aggregated record tagged only as a watchlist entry)
       shape 3: an exact identifier on an aggregated record tagged as a designation that
                no primary list in the current copies corroborates
The detail names the shape in words true of the hits: a designating list (OFAC, UN, EU,
UK) is never called a watchlist.
GREEN  nothing drives; coverage_complete false when a supplementary source is missing
INCOMPLETE a core source (OFAC SDN, aggregated dataset, EU list) is missing and nothing
       confirmed stands. A confirmed designation is RED even then: a missing list cannot
       make a listing on a present one less true (coverage_complete false names the gap).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.db import models

from core.api.timefmt import rfc3339
from screening.display_names import in_words
from screening.name_rules import RULE_SENTENCES, NameRule
from screening.records import (
    DESIGNATION_TAGS,
    MATCH_EXACT_IMO,
    MATCH_EXACT_MMSI,
    RECORD_VESSEL,
    ROLE_AGGREGATED,
    ROLE_DESIGNATING,
    ROLE_WATCHLIST,
    MatchHit,
)


class Verdict(models.TextChoices):
    """sanctions.status (contract 3.1)."""

    GREEN = "GREEN"
    AMBER = "AMBER"
    RED = "RED"
    INCOMPLETE = "INCOMPLETE"


SANCTIONS_SOURCES = ("ofac_sdn", "un_sanctions", "eu_sanctions", "uk_sanctions", "opensanctions", "ua_war_sanctions")
CORE_SOURCES = frozenset({"ofac_sdn", "opensanctions", "eu_sanctions"})
SOURCE_ROLES = {
    "ofac_sdn": ROLE_DESIGNATING,
    "un_sanctions": ROLE_DESIGNATING,
    "eu_sanctions": ROLE_DESIGNATING,
    "uk_sanctions": ROLE_DESIGNATING,
    "opensanctions": ROLE_AGGREGATED,
    "ua_war_sanctions": ROLE_WATCHLIST,
}

FLOOR_CONFIRMED = "confirmed_sanctions_match"
FLOOR_WATCHLIST = "watchlist_exact_imo"

# Why a hit is in the list (internal; drives drove_verdict and detail).
_RED = "red"
_AMBER_NAME = "amber_name"  # shape 1: a name-only hit on a listed vessel record
_AMBER_VESSEL_ID = "amber_vessel_id"  # an exact MMSI on a designating list's vessel record (IMO not listed)
_AMBER_WATCHLIST = "amber_watchlist"  # shape 2: an exact identifier listed on a non-designating watchlist
_AMBER_AGGREGATED = "amber_aggregated"  # shape 3: an uncorroborated designation tag on an aggregated record
_NONE = "none"
_AMBER_KINDS = (_AMBER_WATCHLIST, _AMBER_AGGREGATED, _AMBER_VESSEL_ID, _AMBER_NAME)  # order of the detail

Editions = Mapping[str, Mapping[str, object]]  # source -> edition label -> datastate.EditionInfo


@dataclass
class SanctionsOutcome:
    status: str
    detail: str
    coverage_complete: bool
    coverage_gaps: list[str]
    matches: list[dict] = field(default_factory=list)
    floor_basis: str | None = None


def editions_for(state: object) -> dict[str, dict[str, object]]:
    """source -> edition -> EditionInfo, for the list_edition of each match."""
    return {name: dict(info.editions) for name, info in state.sources.items()}  # type: ignore[attr-defined]


def _role(source: str) -> str:
    return SOURCE_ROLES.get(source, ROLE_WATCHLIST)


def _hull_imo_listing(hit: MatchHit, hull_imo: str) -> bool:
    """An exact IMO hit that lists this hull: a vessel record whose hull IMO it is, never a company number.

    The index keys only vessel records' hull IMOs; this holds the rule here too, so a record a
    parser typed wrongly (or a number a list also gives as some company's) can never make RED.
    """
    record = hit.record
    return (
        hit.match_type == MATCH_EXACT_IMO
        and record.record_type == RECORD_VESSEL
        and record.imo == hull_imo
        and hull_imo not in record.company_numbers
    )


@dataclass(frozen=True)
class Classified:
    """Why a hit is in the list: its kind (internal) and the rule of the contract that decides whether it
    drives the verdict, as matches[].explanation states it."""

    kind: str
    rule: str  # a section of the contract: "3.1", "3.2.1", ...
    reason: str


def _classify(hit: MatchHit, hull_imo: str, identity_basis: str, corroborated_imos: set[str]) -> Classified:
    record = hit.record
    role = _role(record.source)
    designated = bool(set(record.tags) & DESIGNATION_TAGS)
    if hit.match_type == MATCH_EXACT_IMO and not _hull_imo_listing(hit, hull_imo):
        return Classified(_NONE, "3.2.3", "the number is listed as a company's IMO number, which never lists a hull")
    if hit.match_type == MATCH_EXACT_IMO:
        if role == ROLE_DESIGNATING:
            return Classified(_RED, "3.1", "this hull's IMO is listed on a vessel record of a designating list: RED")
        if role == ROLE_AGGREGATED and designated:
            if hull_imo in corroborated_imos:
                return Classified(
                    _NONE, "3.1", "a designating list already carries this IMO; the aggregated record repeats it"
                )
            return Classified(
                _AMBER_AGGREGATED,
                "3.1",
                "an aggregated record tags this hull's IMO as sanctioned and no designating list corroborates it: "
                "AMBER (shape 3)",
            )
        return Classified(
            _AMBER_WATCHLIST, "3.1", "this hull's IMO is listed on a non-designating watchlist: AMBER (shape 2)"
        )
    if record.record_type != RECORD_VESSEL:
        return Classified(
            _NONE, "3.2.1", "a name hit on a company or person record never makes AMBER by itself, at any score"
        )
    if record.imo and record.imo != hull_imo and identity_basis != "user":
        return Classified(
            _NONE, "3.2.2", f"the record lists IMO {record.imo}, another hull than this one: a name collision"
        )
    caller_named = record.imo and record.imo != hull_imo
    if hit.match_type == MATCH_EXACT_MMSI:
        if role == ROLE_DESIGNATING:
            kind, shape = _AMBER_VESSEL_ID, "this hull's MMSI is on a designating list's vessel record: AMBER"
        elif role == ROLE_AGGREGATED and designated:
            kind, shape = _AMBER_AGGREGATED, "this hull's MMSI is on an uncorroborated aggregated record: AMBER"
        else:
            kind, shape = _AMBER_WATCHLIST, "this hull's MMSI is on a non-designating watchlist: AMBER (shape 2)"
        return Classified(kind, "3.1", shape)
    if caller_named:
        return Classified(
            _AMBER_NAME,
            "3.2.2",
            f"the record lists IMO {record.imo}, but this hull's name was supplied by the caller, so the hit cannot "
            "be ruled a collision and drives AMBER",
        )
    return Classified(_AMBER_NAME, "3.2.1", "a name-only hit on a vessel record makes AMBER (shape 1)")


_NOT_DRIVING = {
    Verdict.RED: ("3.2.5", "on RED only the confirmed designations drive the verdict"),
    Verdict.INCOMPLETE: ("3.2.5", "on INCOMPLETE no row drives the verdict"),
    Verdict.GREEN: ("3.2.5", "on GREEN no row drives the verdict"),
}


def explanation(hit: MatchHit, rule: str, reason: str, drove: bool | None) -> dict:
    """matches[].explanation: which name of the hull met which name of the record, how, and which rule of
    the contract decided drove_verdict."""
    block: dict = {"listed_name": hit.matched_listed_name or hit.record.name, "score": round(hit.score, 1)}
    if hit.match_type in {MATCH_EXACT_IMO, MATCH_EXACT_MMSI}:
        block["basis"] = hit.match_type
    else:
        name_rule = NameRule(hit.name_rule or NameRule.NONE)
        block["hull_name"] = hit.hull_name
        block["basis"] = name_rule.value
        block["basis_text"] = RULE_SENTENCES[name_rule]
    if drove is None:
        rule, reason = "3.2.5", reason + "; the record has no stable id to join on, so drove_verdict is absent"
    block["verdict_rule"] = rule
    block["verdict_reason"] = reason
    return block


def _list_edition(hit: MatchHit, editions: Editions) -> dict | None:
    by_label = editions.get(hit.record.source) or {}
    info = by_label.get(hit.record.dataset or "") or next(iter(by_label.values()), None)
    if info is None:
        return None
    block = {"published": rfc3339(info.published_at), "retrieved_at": rfc3339(info.retrieved_at)}  # type: ignore[attr-defined]
    if hit.record.source == "eu_sanctions":
        block["file"] = hit.record.dataset or getattr(info, "edition", "") or "eu_fsf"
    return block


def _programs(hit: MatchHit) -> list[str]:
    record = hit.record
    if record.source == "eu_sanctions" and record.dataset in {"eu_journal_sanctions", "eu_sanctions_map"}:
        return [record.dataset]
    return list(record.programs)


def render_match(hit: MatchHit, drove: bool | None, editions: Editions, why: tuple[str, str]) -> dict:
    """One sanctions.matches[] element (contract 2.4), with its explanation; `why` is (contract rule, reason)."""
    record = hit.record
    row: dict = {
        "name": hit.matched_listed_name or record.name,
        "source": record.source,
        "programs": _programs(hit),
        "match_type": hit.match_type,
        "confidence_class": hit.confidence_class,
        "record_type": record.record_type,
    }
    if drove is not None:
        row["drove_verdict"] = drove
    if hit.screened_name:
        row["screened_name"] = hit.screened_name
    if record.source_record_id:
        row["source_record_id"] = record.source_record_id
    if record.source_url:
        row["source_url"] = record.source_url
    row["listed_on"] = record.listed_on
    edition = _list_edition(hit, editions)
    if edition is not None:
        row["list_edition"] = edition
    row["explanation"] = explanation(hit, *why, drove)
    return row


def _drove(driving: bool, hit: MatchHit) -> bool | None:
    """Rule 3.2.5: absent when a driving record has no stable id to join on."""
    if driving and not hit.record.source_record_id:
        return None
    return driving


def _names(hits: Iterable[MatchHit]) -> str:
    """The sources of `hits` in words: 'the EU sanctions list and the OFAC SDN list'."""
    return in_words(h.record.source for h in hits)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _coverage_sentence(gaps: list[str], status: str) -> str:
    """What a missing source means for this verdict (3.1): a listing on a loaded list stands;
    a GREEN is not a clean pass; an AMBER may be missing a listing as well."""
    if not gaps:
        return ""
    missing = f" Coverage is incomplete: {in_words(gaps)} could not be loaded"
    if status == Verdict.RED:
        return missing + "; the listing above stands whatever the missing source holds."
    if status == Verdict.GREEN:
        return missing + ", so this is not a clean pass; re-screen once it is back."
    return missing + "; re-screen once it is back."


def _amber_sentence(kind: str, hits: list[MatchHit], hull_imo: str) -> str:
    """One shape of 3.1 in words that are true of the hits that carried it."""
    identifiers = sorted(
        {"IMO " + hull_imo if h.match_type == MATCH_EXACT_IMO else "MMSI " + (h.record.mmsi or "") for h in hits}
    )
    ids = " and ".join(identifiers)
    if kind == _AMBER_WATCHLIST:
        return (
            f"identifier listing on a non-designating watchlist: this hull's {ids} is listed on {_names(hits)}, "
            "which flags vessels without designating them; the listing is about this hull"
        )
    if kind == _AMBER_AGGREGATED:
        return (
            f"identifier hit on an aggregated record: {_names(hits)} tags this hull's {ids} as sanctioned, but no "
            "designating list in the current copies corroborates that designation; the record is about this hull"
        )
    if kind == _AMBER_VESSEL_ID:
        return (
            f"identifier match against a listed vessel record: this hull's {ids} is on a vessel record of "
            f"{_names(hits)} (a designating list) that does not list this hull's IMO {hull_imo}; an MMSI can be "
            "reassigned, so the match is not confirmed: compare IMO, flag and particulars"
        )
    other_imo = sorted({h.record.imo for h in hits if h.record.imo and h.record.imo != hull_imo})
    caveat = (
        f"; the record names IMO {' and '.join(other_imo)}, but this hull's name was supplied by the caller, so "
        "the match cannot be ruled a different hull"
        if other_imo
        else ""
    )
    return (
        f"name-only match against a listed vessel record: a name of this hull resembles a vessel record on "
        f"{_names(hits)}{caveat}; compare IMO, flag and particulars"
    )


def _ruled_out_sentence(hits: list[MatchHit]) -> str:
    """GREEN: what the rows in matches[] are, since none of them drove the verdict."""
    entities = sum(1 for h in hits if h.record.record_type != RECORD_VESSEL)
    vessels = len(hits) - entities
    parts = []
    if entities:
        parts.append(
            _plural(
                entities,
                "name resemblance to a company or individual record",
                "name resemblances to company or individual records",
            )
            + " (never a hull listing by itself)"
        )
    if vessels:
        parts.append(
            _plural(vessels, "match on a listed vessel record", "matches on listed vessel records")
            + " carrying another IMO (a different hull)"
        )
    return " Ruled out: " + "; ".join(parts) + "." if parts else ""


def decide_sanctions(
    hits: list[MatchHit],
    *,
    hull_imo: str,
    identity_basis: str,
    available_sources: Iterable[str],
    unavailable_sources: Iterable[str],
    editions: Editions,
) -> SanctionsOutcome:
    gaps = sorted(set(unavailable_sources) & set(SANCTIONS_SOURCES))
    corroborated = {
        h.record.imo
        for h in hits
        if h.record.imo is not None  # always so when _hull_imo_listing holds (record.imo == hull_imo)
        and _hull_imo_listing(h, hull_imo)
        and _role(h.record.source) == ROLE_DESIGNATING
    }
    classified = [_classify(hit, hull_imo, identity_basis, corroborated) for hit in hits]
    kinds = [c.kind for c in classified]
    red = [h for h, k in zip(hits, kinds, strict=True) if k == _RED]
    amber = [h for h, k in zip(hits, kinds, strict=True) if k in _AMBER_KINDS]
    watchlist_imo = any(
        k in {_AMBER_WATCHLIST, _AMBER_AGGREGATED} and h.match_type == MATCH_EXACT_IMO
        for h, k in zip(hits, kinds, strict=True)
    )
    core_gaps = [g for g in gaps if g in CORE_SOURCES]
    if red:
        status = Verdict.RED
        as_vessel = " as a vessel" if all(h.record.record_type == RECORD_VESSEL for h in red) else ""
        list_word = "a designating list" if len({h.record.source for h in red}) == 1 else "designating lists"
        detail = (
            f"Confirmed: IMO {hull_imo} is listed{as_vessel} on {list_word}: {_names(red)}. "
            "Do not deal with this hull." + _coverage_sentence(gaps, status)
        )
        driving = {id(h) for h in red}
    elif core_gaps:
        return incomplete_outcome(hits, editions=editions, reason="coverage", unavailable_sources=gaps)
    elif amber:
        status = Verdict.AMBER
        driving = {id(h) for h in amber}
        shapes = [
            _amber_sentence(kind, [h for h, k in zip(hits, kinds, strict=True) if k == kind], hull_imo)
            for kind in _AMBER_KINDS
            if kind in kinds
        ]
        detail = (
            "Possible match needing review. "
            + " ".join(shape[0].upper() + shape[1:] + "." for shape in shapes)
            + _coverage_sentence(gaps, status)
        )
    else:
        status = Verdict.GREEN
        driving = set()
        where = "on the sanctions sources that loaded" if gaps else "on any sanctions source"
        detail = f"No listing matches this hull {where}." + _ruled_out_sentence(hits) + _coverage_sentence(gaps, status)
    # A hit drives, or says why it cannot (an entity, a collision), or is outranked by the verdict's own rule.
    why = {
        id(h): (c.rule, c.reason) if id(h) in driving or c.kind == _NONE else _NOT_DRIVING[status]
        for h, c in zip(hits, classified, strict=True)
    }
    ordered = sorted(hits, key=lambda h: (id(h) not in driving, -h.score))
    matches = [render_match(h, _drove(id(h) in driving, h), editions, why[id(h)]) for h in ordered]
    floor = FLOOR_CONFIRMED if red else (FLOOR_WATCHLIST if watchlist_imo else None)
    return SanctionsOutcome(status, detail, not gaps, gaps, matches, floor)


_INCOMPLETE_DETAIL = {
    "check_digit": "The seventh digit of this IMO number fails its check digit, so the number was screened only as a "
    "bare identifier against the lists, never as a name. Check the number at its source.",
    "contested": "Four or more different vessel names are recorded against this IMO, so no name can be trusted and "
    "name screening did not run; the IMO was still checked as an identifier.",
    "identity": "No register names this hull, so name-based screening could not run. Send vessel_name to screen "
    "under the name you hold.",
    "coverage": "A core sanctions source could not be loaded, so no clear verdict can be given.",
}


def incomplete_outcome(
    hits: list[MatchHit],
    *,
    editions: Editions,
    reason: str,
    unavailable_sources: Iterable[str],
) -> SanctionsOutcome:
    """INCOMPLETE: every row drove nothing (3.2.5); exact identifier hits are still shown."""
    gaps = sorted(set(unavailable_sources) & set(SANCTIONS_SOURCES))
    detail = _INCOMPLETE_DETAIL[reason]
    if reason == "coverage":
        core = [g for g in gaps if g in CORE_SOURCES]
        other = [g for g in gaps if g not in CORE_SOURCES]
        detail += f" Missing core source: {in_words(core)}." if core else ""
        detail += f" Also unavailable: {in_words(other)}." if other else ""
    elif gaps:
        detail += f" Coverage is incomplete as well: {in_words(gaps)} could not be loaded."
    exact = [h for h in hits if h.match_type in {MATCH_EXACT_IMO, MATCH_EXACT_MMSI}]
    if exact:
        detail += f" Identifier listings found on {_names(exact)}: review them."
    matches = [render_match(h, False, editions, _NOT_DRIVING[Verdict.INCOMPLETE]) for h in hits]
    return SanctionsOutcome(Verdict.INCOMPLETE, detail, not gaps, gaps, matches, None)
