"""The sanctions verdict from the hits: contract 3.1 and rules 3.2.1–3.2.5.

RED    an exact hull IMO on a designating list (OFAC, UN, EU, UK).
AMBER  shape 1: a name-only hit on a vessel record that survives the collision filter
       shape 2: an exact identifier listing on a non-designating watchlist (or an
                exact MMSI on a vessel record that names no other IMO)
       shape 3: an exact IMO on an aggregated record tagged as a designation that no
                primary list in the current copies corroborates
GREEN  nothing drives; coverage_complete false when a supplementary source is missing
INCOMPLETE a core source (OFAC SDN, aggregated dataset, EU list) is missing and nothing
       confirmed stands. A confirmed designation is RED even then: a missing list cannot
       make a listing on a present one less true (coverage_complete false names the gap).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.db import models

from config.api.timefmt import rfc3339
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
SOURCE_LABELS = {
    "ofac_sdn": "OFAC SDN list",
    "un_sanctions": "UN Security Council list",
    "eu_sanctions": "EU sanctions list",
    "uk_sanctions": "UK Sanctions List",
    "opensanctions": "aggregated sanctions dataset",
    "ua_war_sanctions": "Ukrainian war-sanctions watchlist",
}

FLOOR_CONFIRMED = "confirmed_sanctions_match"
FLOOR_WATCHLIST = "watchlist_exact_imo"

# Why a hit is in the list (internal; drives drove_verdict and detail).
_RED = "red"
_AMBER_NAME = "amber_name"
_AMBER_IDENTIFIER = "amber_identifier"
_AMBER_AGGREGATED = "amber_aggregated"
_NONE = "none"

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


def _classify(hit: MatchHit, hull_imo: str, identity_basis: str, corroborated_imos: set[str]) -> str:
    record = hit.record
    role = _role(record.source)
    if hit.match_type == MATCH_EXACT_IMO:
        if role == ROLE_DESIGNATING:
            return _RED
        if role == ROLE_AGGREGATED:
            designated = bool(set(record.tags) & DESIGNATION_TAGS)
            if designated and hull_imo in corroborated_imos:
                return _NONE  # the primary list already carries it: RED comes from there
            return _AMBER_AGGREGATED if designated else _AMBER_IDENTIFIER
        return _AMBER_IDENTIFIER
    if record.record_type != RECORD_VESSEL:
        return _NONE  # 3.2.1: an entity name hit never makes AMBER by itself
    if record.imo and record.imo != hull_imo and identity_basis != "user":
        return _NONE  # 3.2.2: a collision with another listed hull
    if hit.match_type == MATCH_EXACT_MMSI:
        return _AMBER_IDENTIFIER
    return _AMBER_NAME


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


def render_match(hit: MatchHit, drove: bool | None, editions: Editions) -> dict:
    """One sanctions.matches[] element (contract 2.4)."""
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
    return row


def _drove(driving: bool, hit: MatchHit) -> bool | None:
    """Rule 3.2.5: absent when a driving record has no stable id to join on."""
    if driving and not hit.record.source_record_id:
        return None
    return driving


def _names(hits: Iterable[MatchHit]) -> str:
    labels = sorted({SOURCE_LABELS.get(h.record.source, h.record.source) for h in hits})
    return ", ".join(labels)


def _coverage_sentence(gaps: list[str]) -> str:
    if not gaps:
        return ""
    return f" Coverage is incomplete: {', '.join(gaps)} could not be loaded; re-screen once it is back."


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
        if h.match_type == MATCH_EXACT_IMO and _role(h.record.source) == ROLE_DESIGNATING and h.record.imo
    }
    kinds = [_classify(hit, hull_imo, identity_basis, corroborated) for hit in hits]
    red = [h for h, k in zip(hits, kinds, strict=True) if k == _RED]
    amber = [h for h, k in zip(hits, kinds, strict=True) if k.startswith("amber")]
    watchlist_imo = any(
        k in {_AMBER_IDENTIFIER, _AMBER_AGGREGATED} and h.match_type == MATCH_EXACT_IMO
        for h, k in zip(hits, kinds, strict=True)
    )
    core_gaps = [g for g in gaps if g in CORE_SOURCES]
    if red:
        status = Verdict.RED
        detail = (
            f"Confirmed: IMO {hull_imo} is listed as a vessel on the {_names(red)}. Do not deal with this hull."
            + _coverage_sentence(gaps)
        )
        driving = {id(h) for h in red}
    elif core_gaps:
        return incomplete_outcome(hits, editions=editions, reason="coverage", unavailable_sources=gaps)
    elif amber:
        status = Verdict.AMBER
        driving = {id(h) for h in amber}
        shapes = []
        amber_kinds = {k for k in kinds if k.startswith("amber")}
        if _AMBER_IDENTIFIER in amber_kinds:
            shapes.append(
                "this hull's identifier is listed on a non-designating watchlist "
                f"({_names(h for h, k in zip(hits, kinds, strict=True) if k == _AMBER_IDENTIFIER)})"
            )
        if _AMBER_AGGREGATED in amber_kinds:
            shapes.append(
                "an aggregated record tags this IMO as sanctioned, but no primary list in the current "
                "copies corroborates the designation"
            )
        if _AMBER_NAME in amber_kinds:
            shapes.append(
                "a name of this hull resembles a listed vessel record "
                f"({_names(h for h, k in zip(hits, kinds, strict=True) if k == _AMBER_NAME)}); "
                "compare IMO, flag and particulars"
            )
        detail = "Possible match needing review: " + "; ".join(shapes) + "." + _coverage_sentence(gaps)
    else:
        status = Verdict.GREEN
        driving = set()
        noted = f" {len(hits)} name resemblance(s) were ruled out (companies or other hulls)." if hits else ""
        detail = (
            "No listing matches this hull on any loaded sanctions source." + noted + _coverage_sentence(gaps)
            if gaps
            else "No listing matches this hull on any sanctions source." + noted
        )
    ordered = sorted(hits, key=lambda h: (id(h) not in driving, -h.score))
    matches = [render_match(h, _drove(id(h) in driving, h), editions) for h in ordered]
    floor = FLOOR_CONFIRMED if red else (FLOOR_WATCHLIST if watchlist_imo else None)
    return SanctionsOutcome(status, detail, not gaps, gaps, matches, floor)


_INCOMPLETE_DETAIL = {
    "check_digit": "The seventh digit of this IMO number fails its check digit, so the number was screened only as a "
    "bare identifier against the lists, never as a name. Check the number at its source.",
    "contested": "Four or more different vessel names are recorded against this IMO, so no name can be trusted and "
    "name screening did not run.",
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
        detail += f" Missing: {', '.join(gaps)}."
    elif gaps:
        detail += _coverage_sentence(gaps)
    exact = [h for h in hits if h.match_type in {MATCH_EXACT_IMO, MATCH_EXACT_MMSI}]
    if exact:
        detail += f" Identifier listings found: {_names(exact)} (review them)."
    matches = [render_match(h, False, editions) for h in hits]
    return SanctionsOutcome(Verdict.INCOMPLETE, detail, not gaps, gaps, matches, None)
