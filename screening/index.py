"""The in-memory sanctions index: exact hull identifiers and a blocked fuzzy name search.

Built once per data version (screening.datastate) and read by every screening. Exact keys:
hull IMO (vessel records only: company numbers are never indexed, contract 3.2.3) and
MMSI. Names: every listed name and alias, folded (screening.normalize), blocked by whole
tokens and 4-letter token prefixes so a query compares against a few hundred candidates
instead of every name; tokens so common they block nothing useful ("SHIPPING", "LTD")
are skipped unless a query has nothing else.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from screening.normalize import compact, normalize_vessel_name
from screening.records import RECORD_VESSEL, ListedRecord

PREFIX_LENGTH = 4
# A blocking key held by more than this share of all names is a stop key.
STOP_KEY_SHARE = 0.01
STOP_KEY_MIN_POSTINGS = 50
# Names this short are only ever matched exactly: "ABC" against "ABD" is noise.
SHORT_NAME_LENGTH = 5


@dataclass(frozen=True, slots=True)
class NameCandidate:
    record: ListedRecord
    listed_name: str  # the listed name or alias that scored
    score: float


# One typo in a name of 8+ letters (two in 16+) is a near-exact match, whatever ratio says.
TYPO_SCORE = 92.0
# Names that differ in their numbers ("SEA STAR 2" / "SEA STAR 3", "YARD NO. 1220" / "1225") are
# different hulls: their similarity is capped below every cutoff.
NUMBER_MISMATCH_CAP = 75.0
_NUMBER = re.compile(r"\d+")


def name_similarity(left: str, right: str) -> float:
    """0-100 similarity of two folded names: character edits, or the same words reordered."""
    if left == right:
        return 100.0
    left_numbers, right_numbers = _NUMBER.findall(left), _NUMBER.findall(right)
    capped = bool(left_numbers and right_numbers and sorted(left_numbers) != sorted(right_numbers))
    if left.replace(" ", "") == right.replace(" ", ""):
        return 99.0
    score = max(fuzz.ratio(left, right), fuzz.token_sort_ratio(left, right))
    shorter = min(len(left), len(right))
    allowed_edits = 2 if shorter >= 16 else 1 if shorter >= 8 else 0
    if allowed_edits and Levenshtein.distance(left, right, score_cutoff=allowed_edits) <= allowed_edits:
        score = max(score, TYPO_SCORE)
    return min(score, NUMBER_MISMATCH_CAP) if capped else score


def _blocking_keys(folded: str) -> set[str]:
    """Whole tokens, and the first and last four letters of each (a typo rarely hits both ends)."""
    keys = {f"c:{folded.replace(' ', '')}"}
    for token in folded.split():
        if len(token) >= 2:
            keys.add(f"t:{token}")
        if len(token) >= PREFIX_LENGTH:
            keys.add(f"p:{token[:PREFIX_LENGTH]}")
            keys.add(f"s:{token[-PREFIX_LENGTH:]}")
    return keys


class SanctionsIndex:
    """Exact and fuzzy look-ups over every active listed record."""

    def __init__(self, records: list[ListedRecord], version: str) -> None:
        self.records = records
        self.version = version
        self._by_imo: dict[str, list[ListedRecord]] = defaultdict(list)
        self._by_mmsi: dict[str, list[ListedRecord]] = defaultdict(list)
        self._entry_names: list[str] = []
        self._entry_listed: list[str] = []
        self._entry_record: list[int] = []
        postings: dict[str, list[int]] = defaultdict(list)
        for position, record in enumerate(records):
            if record.record_type == RECORD_VESSEL and record.imo:
                self._by_imo[record.imo].append(record)
            if record.mmsi:
                self._by_mmsi[record.mmsi].append(record)
            seen: set[str] = set()
            for listed in (record.name, *record.aliases):
                folded = normalize_vessel_name(listed) if listed else ""
                if not folded or folded in seen:
                    continue
                seen.add(folded)
                entry = len(self._entry_names)
                self._entry_names.append(folded)
                self._entry_listed.append(listed)
                self._entry_record.append(position)
                for key in _blocking_keys(folded):
                    postings[key].append(entry)
        ceiling = max(STOP_KEY_MIN_POSTINGS, int(len(self._entry_names) * STOP_KEY_SHARE))
        self._postings = dict(postings)
        self._stop = {key for key, entries in postings.items() if len(entries) > ceiling and not key.startswith("c:")}

    @classmethod
    def build(cls, records: Iterable[ListedRecord], *, version: str) -> SanctionsIndex:
        return cls(list(records), version)

    @property
    def name_count(self) -> int:
        return len(self._entry_names)

    def records_by_imo(self, imo: str) -> list[ListedRecord]:
        return list(self._by_imo.get(imo, ()))

    def records_by_mmsi(self, mmsi: str) -> list[ListedRecord]:
        return list(self._by_mmsi.get(mmsi, ()))

    def _candidates(self, folded: str) -> set[int]:
        keys = _blocking_keys(folded)
        useful = [key for key in keys if key not in self._stop]
        chosen = useful or list(keys)
        found: set[int] = set()
        for key in chosen:
            found.update(self._postings.get(key, ()))
        return found

    def search_names(self, name: str, *, cutoff: float) -> list[NameCandidate]:
        """Listed records with a name or alias scoring at least `cutoff`, best first, one per record."""
        folded = normalize_vessel_name(name)
        if not folded:
            return []
        exact_only = len(compact(folded)) < SHORT_NAME_LENGTH
        best: dict[int, NameCandidate] = {}
        for entry in self._candidates(folded):
            candidate_name = self._entry_names[entry]
            if exact_only or len(candidate_name.replace(" ", "")) < SHORT_NAME_LENGTH:
                score = 100.0 if candidate_name == folded else 0.0
            else:
                score = name_similarity(folded, candidate_name)
            if score < cutoff:
                continue
            position = self._entry_record[entry]
            held = best.get(position)
            if held is None or score > held.score:
                best[position] = NameCandidate(self.records[position], self._entry_listed[entry], score)
        return sorted(best.values(), key=lambda c: (-c.score, c.record.source, c.record.name))
