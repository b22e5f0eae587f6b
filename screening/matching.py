"""Which listed records match a hull: exact IMO, exact MMSI, then names (contract 2.4).

When two names are one is decided in screening/name_rules.py (the thresholds and rules, in one
place). A record hit by an identifier is not repeated as a name hit.
"""

from __future__ import annotations

from screening.index import SanctionsIndex
from screening.name_rules import ENTITY_NAME_CUTOFF, PROBABLE_NAME_SCORE, VESSEL_NAME_CUTOFF
from screening.records import (
    CONFIDENCE_CONFIRMED,
    CONFIDENCE_POSSIBLE,
    CONFIDENCE_PROBABLE,
    MATCH_EXACT_IMO,
    MATCH_EXACT_MMSI,
    MATCH_NAME_FLAG,
    MATCH_NAME_FUZZY,
    RECORD_VESSEL,
    ListedRecord,
    MatchHit,
)


def _record_key(record: ListedRecord) -> tuple:
    return (record.source, record.source_record_id, record.name, record.imo)


def match_hull(
    index: SanctionsIndex,
    *,
    imo: str,
    mmsi: str | None,
    names: list[str],
    chosen_name: str | None,
    flag: str | None = None,
) -> list[MatchHit]:
    """Every listed record that matches the hull, identifier hits first."""
    hits: list[MatchHit] = []
    taken: set[tuple] = set()
    for record in index.records_by_imo(imo):
        taken.add(_record_key(record))
        hits.append(MatchHit(record, MATCH_EXACT_IMO, CONFIDENCE_CONFIRMED, 100.0, matched_listed_name=record.name))
    if mmsi:
        for record in index.records_by_mmsi(mmsi):
            if _record_key(record) in taken:
                continue
            taken.add(_record_key(record))
            hits.append(MatchHit(record, MATCH_EXACT_MMSI, CONFIDENCE_PROBABLE, 100.0, matched_listed_name=record.name))
    name_hits: dict[tuple, MatchHit] = {}
    for name in dict.fromkeys(n for n in names if n):
        for candidate in index.search_names(name, cutoff=VESSEL_NAME_CUTOFF):
            record = candidate.record
            key = _record_key(record)
            if key in taken:
                continue
            cutoff = VESSEL_NAME_CUTOFF if record.record_type == RECORD_VESSEL else ENTITY_NAME_CUTOFF
            if candidate.score < cutoff:
                continue
            flag_agrees = bool(flag and record.flags and record.flags[0] == flag)
            if record.record_type == RECORD_VESSEL and flag_agrees:
                match_type = MATCH_NAME_FLAG
                confidence = CONFIDENCE_PROBABLE if candidate.score >= PROBABLE_NAME_SCORE else CONFIDENCE_POSSIBLE
            else:
                match_type, confidence = MATCH_NAME_FUZZY, CONFIDENCE_POSSIBLE
            hit = MatchHit(
                record,
                match_type,
                confidence,
                candidate.score,
                screened_name=name if name != chosen_name else None,
                matched_listed_name=candidate.listed_name,
                hull_name=name,
                name_rule=candidate.rule,
            )
            held = name_hits.get(key)
            if held is None or hit.score > held.score:
                name_hits[key] = hit
    hits.extend(sorted(name_hits.values(), key=lambda h: (-h.score, h.record.source, h.record.name)))
    return hits
