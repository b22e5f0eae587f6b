"""The in-memory sanctions index: exact hull identifiers and a blocked fuzzy name search.

Built once per data version (screening.datastate) and read by every screening. Exact keys:
hull IMO (vessel records only: company numbers are never indexed, contract 3.2.3) and
MMSI. Names: every listed name and alias, folded (screening.normalize), blocked by whole
tokens and 4-letter token prefixes and suffixes so a query compares against a few hundred
candidates instead of every name; tokens so common they block nothing useful ("SHIPPING",
"LTD") are skipped unless a query has nothing else.

Scoring the candidates is vectorised: everything a name needs (its folded form, its words
sorted, its length and character counts) is computed once at build; bounds drawn from those
and rapidfuzz's `cdist` discard every candidate that cannot reach the cutoff, and only the
few that can are scored by `name_similarity`, the one definition of a name's score. The
result is the same as scoring every blocked candidate with `name_similarity`
(tests/screening/test_matching_candidates.py).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process
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


# Character counts of folded names: one column per character a folded name is written with, and
# one for anything else (lumping characters together only loosens the bound drawn from the counts).
_ALPHABET = b" 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_COLUMN = np.full(256, len(_ALPHABET), dtype=np.intp)
_COLUMN[np.frombuffer(_ALPHABET, dtype=np.uint8)] = np.arange(len(_ALPHABET))
_COLUMNS = len(_ALPHABET) + 1
_NO_ENTRIES = np.empty(0, dtype=np.int32)


def _letter_counts(names: list[str]) -> np.ndarray:
    """A (names x _COLUMNS) matrix of how often each character occurs in each name (at most 255).

    Clipping the counts only loosens the bound drawn from them, never tightens it.
    """
    lengths = np.fromiter(map(len, names), np.intp, len(names))
    characters = np.frombuffer("".join(names).encode("ascii", "replace"), dtype=np.uint8)
    rows = np.repeat(np.arange(len(names), dtype=np.intp), lengths)
    counts = np.bincount(rows * _COLUMNS + _COLUMN[characters], minlength=len(names) * _COLUMNS)
    return np.minimum(counts, 255).astype(np.uint8).reshape(len(names), _COLUMNS)


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
        self._postings = {key: np.asarray(entries, dtype=np.int32) for key, entries in postings.items()}
        self._stop = {key for key, entries in postings.items() if len(entries) > ceiling and not key.startswith("c:")}
        # Per-name facts computed once here rather than for every candidate of every query: the
        # words sorted (token-sort ratio), the length and character counts (bounds), shortness.
        self._entry_sorted = [" ".join(sorted(name.split())) for name in self._entry_names]
        self._entry_length = np.fromiter((len(name) for name in self._entry_names), np.int32, len(self._entry_names))
        self._entry_letters = _letter_counts(self._entry_names)
        self._entry_short = np.fromiter(
            (len(name.replace(" ", "")) < SHORT_NAME_LENGTH for name in self._entry_names),
            np.bool_,
            len(self._entry_names),
        )
        exact: dict[str, list[int]] = defaultdict(list)
        for entry, name in enumerate(self._entry_names):
            exact[name].append(entry)
        self._exact = dict(exact)

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

    def _candidates(self, folded: str) -> np.ndarray:
        """Every entry sharing a useful blocking key with the folded name, ascending."""
        keys = _blocking_keys(folded)
        useful = [key for key in keys if key not in self._stop]
        postings = [self._postings[key] for key in (useful or keys) if key in self._postings]
        if not postings:
            return _NO_ENTRIES
        if len(postings) == 1:
            return postings[0]
        return np.unique(np.concatenate(postings))

    def _reachable(self, folded: str, candidates: np.ndarray, cutoff: float) -> np.ndarray:
        """The candidates whose name_similarity can reach `cutoff` (a superset of those that do), ascending.

        A name's score is 100 (same name), 99 (same letters, other spacing), else at most the
        higher of ratio and token-sort ratio, raised to TYPO_SCORE by the typo rule, and capped
        by the number rule; so a candidate reaching the cutoff shares the compact name, or scores
        the cutoff on ratio or token-sort ratio, or is within the typo rule's edits. Two bounds
        from character counts drop most candidates before any string is compared: with D the
        letters one name has and the other lacks (counted both ways), both ratios are at most
        100 * (1 - D / (sum of lengths)) (the words sorted keep the letters), and an edit
        changes D by at most 2.
        """
        if cutoff <= 0:
            return candidates  # every score (0 included) reaches it
        # Names under five letters only ever match exactly, and exact names meet in the compact key.
        same_letters = self._postings.get(f"c:{folded.replace(' ', '')}", _NO_ENTRIES)
        keep = candidates[~self._entry_short[candidates]]
        query_length = len(folded)
        lengths = self._entry_length[keep].astype(np.int64)
        unshared = np.abs(self._entry_letters[keep].astype(np.int16) - _letter_counts([folded])[0]).sum(axis=1)
        total = lengths + query_length
        slack = 1e-6  # rounding never drops a candidate: survivors are scored exactly below
        possible = 100.0 * (total - unshared) >= (cutoff - slack) * total
        typo_counts = TYPO_SCORE >= cutoff
        if typo_counts:
            shorter = np.minimum(lengths, query_length)
            allowed = np.where(shorter >= 16, 2, np.where(shorter >= 8, 1, 0))
            possible |= (allowed > 0) & (unshared <= 2 * allowed)
        keep = keep[possible]
        if keep.size:
            entries = keep.tolist()
            names = [self._entry_names[entry] for entry in entries]
            reaches = process.cdist([folded], names, scorer=fuzz.ratio, dtype=np.float64)[0] >= cutoff - slack
            sorted_names = [self._entry_sorted[entry] for entry in entries]
            query_sorted = " ".join(sorted(folded.split()))
            reaches |= (
                process.cdist([query_sorted], sorted_names, scorer=fuzz.ratio, dtype=np.float64)[0] >= cutoff - slack
            )
            if typo_counts:
                edits = process.cdist([folded], names, scorer=Levenshtein.distance, score_cutoff=2, dtype=np.int32)[0]
                reaches |= edits <= allowed[possible]
            keep = keep[reaches]
        if same_letters.size:
            keep = np.union1d(keep, same_letters)
        return keep

    def search_names(self, name: str, *, cutoff: float) -> list[NameCandidate]:
        """Listed records with a name or alias scoring at least `cutoff`, best first, one per record."""
        folded = normalize_vessel_name(name)
        if not folded:
            return []
        best: dict[int, NameCandidate] = {}
        if len(compact(folded)) < SHORT_NAME_LENGTH:
            # Matched only exactly (an exact name is always a candidate: it shares the compact key).
            exact = self._exact.get(folded, ())
            if cutoff > 0:
                scored = [(entry, 100.0) for entry in exact]
            else:  # every candidate reaches a cutoff of 0, with a score of 0 when not exact
                scored = [(entry, 100.0 if entry in exact else 0.0) for entry in self._candidates(folded).tolist()]
        else:
            scored = []
            for entry in self._reachable(folded, self._candidates(folded), cutoff).tolist():
                candidate_name = self._entry_names[entry]
                if self._entry_short[entry]:
                    score = 100.0 if candidate_name == folded else 0.0
                else:
                    score = name_similarity(folded, candidate_name)
                scored.append((entry, score))
        for entry, score in scored:
            if score < cutoff:
                continue
            position = self._entry_record[entry]
            held = best.get(position)
            if held is None or score > held.score:
                best[position] = NameCandidate(self.records[position], self._entry_listed[entry], score)
        return sorted(best.values(), key=lambda c: (-c.score, c.record.source, c.record.name))
