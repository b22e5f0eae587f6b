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
few that can are judged by screening.name_rules (`judge`, the one definition of a name's score). The
result is the same as judging every blocked candidate
(tests/screening/test_matching_candidates.py).
"""

from __future__ import annotations

import ctypes
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from screening.name_rules import (
    ANY_EDIT_FROM,
    NEAR_VARIANT_SCORE,
    SHORT_NAME_LENGTH,
    TWO_EDITS_FROM,
    NameRule,
    judge,
    spaced_alike,
    transliteration_key,
)
from screening.normalize import compact, normalize_vessel_name
from screening.records import RECORD_VESSEL, ListedRecord

PREFIX_LENGTH = 4
# A blocking key held by more than this share of all names is a stop key.
STOP_KEY_SHARE = 0.01
STOP_KEY_MIN_POSTINGS = 50


@dataclass(frozen=True, slots=True)
class NameCandidate:
    record: ListedRecord
    listed_name: str  # the listed name or alias that scored
    score: float
    rule: NameRule = NameRule.NONE  # which rule of screening.name_rules made the names one


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


def _deletions(compact_name: str) -> set[str]:
    return {compact_name[:at] + compact_name[at + 1 :] for at in range(len(compact_name))}


def _blocking_keys(folded: str) -> set[str]:
    """The keys a name is indexed under: whole tokens, and the first and last four letters of each (a typo
    rarely hits both ends); the name without spaces, and without spaces and transliteration variants where
    that differs. A short name (SHORT_NAME_LENGTH to ANY_EDIT_FROM letters), whose ends a single edit
    can both reach, is also indexed under each way of dropping one of its letters."""
    compact_name = folded.replace(" ", "")
    keys = {f"c:{spaced}" for spaced in spaced_alike(folded)}
    spelled = transliteration_key(folded)
    if spelled != compact_name:
        keys.add(f"f:{spelled}")
    for token in folded.split():
        if len(token) >= 2:
            keys.add(f"t:{token}")
        if len(token) >= PREFIX_LENGTH:
            keys.add(f"p:{token[:PREFIX_LENGTH]}")
            keys.add(f"s:{token[-PREFIX_LENGTH:]}")
    if SHORT_NAME_LENGTH <= len(compact_name) <= ANY_EDIT_FROM:
        keys.update(f"d:{dropped}" for dropped in _deletions(compact_name))
    return keys


def _query_keys(folded: str) -> set[str]:
    """The keys a query looks up: the ones it would be indexed under, and for a short query the names one
    edit away (one letter dropped from either name, or from both at one place: a letter replaced or two
    swapped)."""
    keys = _blocking_keys(folded)
    compact_name = folded.replace(" ", "")
    if SHORT_NAME_LENGTH - 1 <= len(compact_name) <= ANY_EDIT_FROM + 1:
        dropped = _deletions(compact_name)
        keys.add(f"d:{compact_name}")
        keys.update(f"c:{name}" for name in dropped)
        keys.update(f"d:{name}" for name in dropped)
    return keys


# Edits allowed by a name's length (with its spaces), for lengths 0 to TWO_EDITS_FROM (and beyond).
_EDITS_BY_LENGTH = np.array(
    [
        2 if length >= TWO_EDITS_FROM else 1 if length >= SHORT_NAME_LENGTH else 0
        for length in range(TWO_EDITS_FROM + 1)
    ],
    dtype=np.int64,
)


def _edits_allowed(lengths: np.ndarray, query_length: int) -> np.ndarray:
    """Edits a pair of names may differ by and still match, judged on the longer name with its spaces (never
    less than the rules allow on the shorter one without them); a swap counts as two plain edits."""
    return _EDITS_BY_LENGTH[np.minimum(np.maximum(lengths, query_length), TWO_EDITS_FROM)]


# Rounding never drops a candidate: the survivors of the bounds are judged exactly.
_SLACK = 1e-6
# The letter-count columns summed into eight groups of about equal weight in ship names; summing counts
# only loosens the bound drawn from them (|a + b - c - d| <= |a - c| + |b - d|).
_GROUPS = 8
_GROUP_OF = {"A": 0, "E": 1, "I": 2, "Y": 2, "U": 2, "O": 3, " ": 3, "R": 4, "L": 4, "N": 5, "M": 5, "H": 5}
_GROUP_OF |= {"S": 6, "T": 6, "C": 6}
_GROUPING = np.zeros((_COLUMNS, _GROUPS), dtype=np.uint16)
for _column in range(_COLUMNS):
    _character = chr(_ALPHABET[_column]) if _column < len(_ALPHABET) else ""
    _GROUPING[_column, _GROUP_OF.get(_character, 7)] = 1


# A group's count is kept up to 31, so eight differences (at most 248) sum inside one byte: the bound is read
# with one multiplication per name (_grouped_unshared). Capping only shrinks differences: still a lower bound.
_GROUP_CAP = 31
_BYTE_SUM = np.uint64(0x0101010101010101)
_TOP_BYTE = np.uint64(56)
# Bump when the arrays' meaning changes: a saved index of another format is rebuilt, never read.
INDEX_FORMAT = 2


def _signatures(letter_counts: np.ndarray) -> np.ndarray:
    """Each name's letter counts summed into _GROUPS groups (at most _GROUP_CAP), packed into one uint64."""
    grouped = np.minimum(letter_counts.astype(np.uint16) @ _GROUPING, _GROUP_CAP).astype(np.uint8)
    return np.ascontiguousarray(grouped).view(np.uint64).reshape(-1)


def _grouped_unshared(signatures: np.ndarray, query_signature: np.ndarray) -> np.ndarray:
    """For each name, the sum over the eight groups of |its count - the query's|: byte-wise differences of
    the packed words (max - min, no int16 copy), summed by multiplying with 0x0101...01 and taking the top
    byte (exact: the sum never exceeds 8 x _GROUP_CAP < 256)."""
    names = signatures.view(np.uint8).reshape(-1, _GROUPS)
    query = query_signature.view(np.uint8)
    differences = (np.maximum(names, query) - np.minimum(names, query)).view(np.uint64).reshape(-1)
    return ((differences * _BYTE_SUM) >> _TOP_BYTE).astype(np.int64)


_BUILD_CHUNK = 100_000
_LENGTH_FIRST_FROM = 2_000


def _key_hash(key: str) -> int:
    """A blocking key's 64-bit hash, the same in every process (Python's str hash is salted per
    process), so that an index written by one process reads right in another."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little", signed=True)


def _return_scratch_memory() -> None:
    """Hand the build's freed scratch (millions of keys and temporary arrays) back to the OS, so a worker
    holding an index of a million names stays under 300 MB (bench/run.py matching --names 1000000);
    glibc keeps freed heap otherwise. Elsewhere there is nothing to call and nothing is lost."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class PackedNames(Sequence[str]):
    """Folded names as one UTF-8 buffer and their offsets: no Python object per name, and two arrays
    a file can hold and every process can map."""

    def __init__(self, buffer: np.ndarray, offsets: np.ndarray) -> None:
        self.buffer = buffer
        self.offsets = offsets

    @classmethod
    def pack(cls, names: Sequence[str]) -> PackedNames:
        encoded = [name.encode() for name in names]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(item) for item in encoded], out=offsets[1:])
        return cls(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        start, end = int(self.offsets[index]), int(self.offsets[index + 1])
        return self.buffer[start:end].tobytes().decode()


class NameIndex:
    """Folded names, blocked and searchable by `screening.name_rules.judge`; each entry belongs to an owner (an int).

    Lean by construction, so that an index of a million names fits a worker (monitoring/list_updates.py
    holds one of every monitored hull): the blocking keys are stored as their hashes in sorted arrays
    (a key's postings are one slice), not as a dictionary of strings; per-name facts are arrays; a
    name's words sorted are computed only for the few candidates that survive the bounds. Two keys
    whose hashes collide share postings: more candidates, each still scored exactly, never fewer.

    `stop_key_share`: a blocking key held by more than this share of all names (at least
    STOP_KEY_MIN_POSTINGS) is skipped unless a query has nothing else; None keeps every key (an index
    searched for every name a listing can match, not for speed on one query). `portable`: the keys are
    hashed the same in every process, so the index can be saved and loaded elsewhere (a little slower
    than Python's own per-process hash, which an index held in memory only uses).
    """

    def __init__(
        self,
        owned_names: Iterable[tuple[int, str]],
        *,
        keep_listed: bool = True,
        stop_key_share: float | None = STOP_KEY_SHARE,
        portable: bool = False,
    ) -> None:
        names: list[str] = []
        self.names: Sequence[str] = names
        self._hash: Callable[[str], int] = _key_hash if portable else hash
        self.listed: Sequence[str] | None = [] if keep_listed else None
        owners: list[int] = []
        key_hashes: list[np.ndarray] = []
        key_entries: list[np.ndarray] = []
        key_compact: list[np.ndarray] = []
        pending: list[tuple[int, int, bool]] = []

        def flush() -> None:
            if pending:
                block = np.asarray(pending, dtype=np.int64)
                key_hashes.append(block[:, 0])
                key_entries.append(block[:, 1].astype(np.int32))
                key_compact.append(block[:, 2].astype(np.bool_))
                pending.clear()

        for owner, listed in owned_names:
            folded = normalize_vessel_name(listed) if listed else ""
            if not folded:
                continue
            entry = len(names)
            names.append(folded)
            if isinstance(self.listed, list):
                self.listed.append(listed)
            owners.append(owner)
            for key in _blocking_keys(folded):
                pending.append((self._hash(key), entry, key.startswith(("c:", "f:"))))
            if len(pending) >= _BUILD_CHUNK:
                flush()
        flush()
        self.owners = np.asarray(owners, dtype=np.int32)
        hashes = np.concatenate(key_hashes) if key_hashes else np.empty(0, np.int64)
        entries = np.concatenate(key_entries) if key_entries else _NO_ENTRIES
        compact_keys = np.concatenate(key_compact) if key_compact else np.empty(0, np.bool_)
        for blocks in (key_hashes, key_entries, key_compact):  # copied into the arrays above
            blocks.clear()
        order = np.lexsort((entries, hashes))  # by key, then entry: each key's postings ascending
        self._posting_entries = entries[order]
        sorted_hashes = hashes[order]
        self._keys, starts = np.unique(sorted_hashes, return_index=True)
        self._starts = np.append(starts, len(sorted_hashes)).astype(np.int64)
        key_is_compact = compact_keys[order][starts] if len(starts) else np.empty(0, np.bool_)
        del order, sorted_hashes, hashes, entries, compact_keys
        sizes = np.diff(self._starts)
        if stop_key_share is None:
            self._stop = np.zeros(len(self._keys), dtype=np.bool_)
        else:
            ceiling = max(STOP_KEY_MIN_POSTINGS, int(len(self.names) * stop_key_share))
            self._stop = (sizes > ceiling) & ~key_is_compact
        self._length = np.fromiter((len(name) for name in self.names), np.int32, len(self.names))
        self._letters = _letter_counts(names)
        self._signature = _signatures(self._letters)
        self._short = np.fromiter(
            (len(name.replace(" ", "")) < SHORT_NAME_LENGTH for name in names), np.bool_, len(names)
        )
        # Packed, a million names take about a fifth of the memory they take as Python strings.
        self.names = PackedNames.pack(names)
        if self.listed is not None:
            self.listed = PackedNames.pack(self.listed)
        names.clear()
        _return_scratch_memory()

    _ARRAYS = (
        "owners",
        "_posting_entries",
        "_keys",
        "_starts",
        "_stop",
        "_length",
        "_letters",
        "_signature",
        "_short",
    )

    def save(self, folder: Path) -> None:
        """Write the index into `folder` (an empty directory) for `load`; names are packed."""
        if self.listed is not None or self._hash is not _key_hash:
            raise ValueError("only a portable index without listed names can be saved")
        packed = self.names if isinstance(self.names, PackedNames) else PackedNames.pack(self.names)
        for name in self._ARRAYS:
            np.save(folder / f"{name.lstrip('_')}.npy", getattr(self, name))
        np.save(folder / "names_buffer.npy", packed.buffer)
        np.save(folder / "names_offsets.npy", packed.offsets)

    @classmethod
    def load(cls, folder: Path) -> NameIndex:
        """An index `save` wrote, its arrays mapped read-only: processes that load one folder share
        its pages instead of each holding a copy."""
        index = cls.__new__(cls)
        for name in cls._ARRAYS:
            setattr(index, name, np.load(folder / f"{name.lstrip('_')}.npy", mmap_mode="r"))
        index.names = PackedNames(
            np.load(folder / "names_buffer.npy", mmap_mode="r"), np.load(folder / "names_offsets.npy", mmap_mode="r")
        )
        index.listed = None
        index._hash = _key_hash
        return index

    def __len__(self) -> int:
        return len(self.names)

    def _slot(self, key: str) -> int | None:
        hashed = self._hash(key)
        position = int(np.searchsorted(self._keys, hashed))
        return position if position < len(self._keys) and self._keys[position] == hashed else None

    def _postings(self, key: str) -> np.ndarray | None:
        """The entries holding a blocking key (ascending), or None."""
        position = self._slot(key)
        if position is None:
            return None
        return self._posting_entries[self._starts[position] : self._starts[position + 1]]

    def _candidates(self, folded: str) -> np.ndarray:
        """Every entry sharing a useful blocking key with the folded name, ascending."""
        # The keys are looked up together (one search); a key the index lacks has no postings.
        hashed = np.fromiter(map(self._hash, _query_keys(folded)), dtype=np.int64)
        if not len(self._keys):
            return _NO_ENTRIES
        positions = np.minimum(np.searchsorted(self._keys, hashed), len(self._keys) - 1)
        found = self._keys[positions] == hashed
        stop = found & self._stop[positions]
        # A key the index lacks is no stop key: only when every key is a stop key are they all used.
        chosen = positions[found & ~stop] if not stop.all() else positions[found]
        postings = [self._posting_entries[self._starts[slot] : self._starts[slot + 1]] for slot in chosen.tolist()]
        if not postings:
            return _NO_ENTRIES
        if len(postings) == 1:
            return postings[0]
        merged = np.concatenate(postings)
        if len(merged) * 4 > len(self.names):
            # Postings covering much of the index: marking a mask beats sorting their union.
            marked = np.zeros(len(self.names), dtype=np.bool_)
            marked[merged] = True
            return np.flatnonzero(marked).astype(np.int32)
        # Sorting and dropping repeats is several times faster than np.unique's hashing on a few thousand entries.
        merged.sort()
        return merged[np.concatenate(([True], merged[1:] != merged[:-1]))]

    def _spelled_alike(self, folded: str) -> np.ndarray:
        """Entries with the same letters as the folded name, or the same once transliteration variants are
        folded: every name the exact, spacing and transliteration rules can match."""
        spelled = transliteration_key(folded)
        keys = {f"c:{spelled}", f"f:{spelled}", *(f"c:{spaced}" for spaced in spaced_alike(folded))}
        found = [postings for key in keys if (postings := self._postings(key)) is not None]
        if not found:
            return _NO_ENTRIES
        return found[0] if len(found) == 1 else np.unique(np.concatenate(found))

    @staticmethod
    def _may_reach(
        unshared: np.ndarray, lengths: np.ndarray, query_length: int, cutoff: float, edits_count: bool
    ) -> np.ndarray:
        """Which candidates a lower bound `unshared` on the letters two names do not share leaves able to
        reach `cutoff`: by ratio, or (when an edit's score reaches it) within the edits the rules allow."""
        total = lengths + query_length
        possible = 100.0 * (total - unshared) >= (cutoff - _SLACK) * total
        if edits_count:
            possible |= unshared <= 2 * _edits_allowed(lengths, query_length)
        return possible

    def _reachable(self, folded: str, candidates: np.ndarray, cutoff: float) -> np.ndarray:
        """The candidates whose name_similarity can reach `cutoff` (a superset of those that do), ascending.

        A name's score (screening.name_rules.judge) above the series cap is 100, 99 or 98 for names
        spelled alike (found through the compact and transliteration keys), 96 for the same words
        reordered, NEAR_VARIANT_SCORE within one edit (two on long names), else the higher of ratio
        and token-sort ratio. Two bounds from character counts drop most candidates before any string
        is compared: with D the letters one name has and the other lacks (counted both ways), both
        ratios are at most 100 * (1 - D / (sum of lengths)) (the words sorted keep the letters), and
        an edit changes D by at most 2. Names under SHORT_NAME_LENGTH letters match only when spelled
        alike (the exact, spacing and transliteration rules).
        """
        if cutoff <= 0:
            return candidates  # every score (0 included) reaches it
        same_letters = self._spelled_alike(folded)
        query_length = len(folded)
        edits_count = NEAR_VARIANT_SCORE >= cutoff
        keep = candidates
        lengths = self._length[keep]
        if len(keep) > _LENGTH_FIRST_FROM:
            # The letters bound below is at least the length difference: on many candidates (an index of
            # a million names) dropping by length first spares most of the letter counts. The bound depends
            # on the length alone, so it is worked out once per length and looked up.
            every_length = np.arange(int(lengths.max()) + 1, dtype=np.int64)
            by_length = self._may_reach(
                np.abs(every_length - query_length), every_length, query_length, cutoff, edits_count
            )
            passes = by_length[lengths] & ~self._short[keep]
        else:
            passes = ~self._short[keep]
        keep, lengths = keep[passes], lengths[passes].astype(np.int64)
        query_counts = _letter_counts([folded])
        if len(keep) > _LENGTH_FIRST_FROM:
            # Letters counted in eight groups first (one 8-byte word per name): a weaker bound, read at a
            # fraction of the cost, that leaves the full counts to the few it cannot drop.
            unshared = _grouped_unshared(self._signature[keep], _signatures(query_counts))
            passes = self._may_reach(unshared, lengths, query_length, cutoff, edits_count)
            keep, lengths = keep[passes], lengths[passes]
        unshared = np.abs(self._letters[keep].astype(np.int16) - query_counts[0]).sum(axis=1)
        possible = self._may_reach(unshared, lengths, query_length, cutoff, edits_count)
        keep, lengths = keep[possible], lengths[possible]
        if keep.size:
            entries = keep.tolist()
            names = [self.names[entry] for entry in entries]
            reaches = process.cdist([folded], names, scorer=fuzz.ratio, dtype=np.float64)[0] >= cutoff - _SLACK
            sorted_names = [" ".join(sorted(name.split())) for name in names]
            query_sorted = " ".join(sorted(folded.split()))
            reaches |= (
                process.cdist([query_sorted], sorted_names, scorer=fuzz.ratio, dtype=np.float64)[0] >= cutoff - _SLACK
            )
            if edits_count:
                edits = process.cdist([folded], names, scorer=Levenshtein.distance, score_cutoff=4, dtype=np.int32)[0]
                reaches |= edits <= 2 * _edits_allowed(lengths, query_length)
            keep = keep[reaches]
        if same_letters.size:
            keep = np.union1d(keep, same_letters)
        return keep

    def search(self, name: str, *, cutoff: float) -> list[tuple[int, float, NameRule]]:
        """(entry, score, rule) of every name scoring at least `cutoff` against `name`, in entry order."""
        folded = normalize_vessel_name(name)
        if not folded:
            return []
        if len(compact(folded)) < SHORT_NAME_LENGTH and cutoff > 0:
            candidates = self._spelled_alike(folded)
        else:
            candidates = self._reachable(folded, self._candidates(folded), cutoff)
        scored = []
        for entry in candidates.tolist():
            judged = judge(folded, self.names[entry])
            if judged.score >= cutoff:
                scored.append((entry, judged.score, judged.rule))
        return scored


class SanctionsIndex:
    """Exact and fuzzy look-ups over every active listed record."""

    def __init__(self, records: list[ListedRecord], version: str) -> None:
        self.records = records
        self.version = version
        by_imo: dict[str, list[ListedRecord]] = defaultdict(list)
        by_mmsi: dict[str, list[ListedRecord]] = defaultdict(list)
        # source -> id -> record: the records' own strings are the keys (no tuple per record).
        self._by_id: dict[str, dict[str, ListedRecord]] = defaultdict(dict)
        for record in records:
            if record.source_record_id:
                self._by_id[record.source].setdefault(record.source_record_id, record)
            if record.record_type == RECORD_VESSEL and record.imo:
                by_imo[record.imo].append(record)
            if record.mmsi:
                by_mmsi[record.mmsi].append(record)
        # Tuples: a third of the memory of the lists they were gathered in (hundreds of thousands of hulls).
        self._by_imo = {imo: tuple(found) for imo, found in by_imo.items()}
        self._by_mmsi = {mmsi: tuple(found) for mmsi, found in by_mmsi.items()}
        del by_imo, by_mmsi
        self._names = NameIndex(self._owned_names(records))

    @staticmethod
    def _owned_names(records: list[ListedRecord]) -> Iterable[tuple[int, str]]:
        for position, record in enumerate(records):
            seen: set[str] = set()
            for listed in (record.name, *record.aliases):
                folded = normalize_vessel_name(listed) if listed else ""
                if folded and folded not in seen:
                    seen.add(folded)
                    yield position, listed

    @classmethod
    def build(cls, records: Iterable[ListedRecord], *, version: str) -> SanctionsIndex:
        return cls(list(records), version)

    @property
    def name_count(self) -> int:
        return len(self._names)

    def records_by_imo(self, imo: str) -> list[ListedRecord]:
        return list(self._by_imo.get(imo, ()))

    def records_by_mmsi(self, mmsi: str) -> list[ListedRecord]:
        return list(self._by_mmsi.get(mmsi, ()))

    def record(self, source: str, source_record_id: str) -> ListedRecord | None:
        """The listing a source numbers `source_record_id`, as the serving edition has it."""
        return self._by_id.get(source, {}).get(source_record_id)

    def search_names(self, name: str, *, cutoff: float) -> list[NameCandidate]:
        """Listed records with a name or alias scoring at least `cutoff`, best first, one per record."""
        best: dict[int, NameCandidate] = {}
        listed = self._names.listed
        assert listed is not None
        for entry, score, rule in self._names.search(name, cutoff=cutoff):
            position = int(self._names.owners[entry])
            held = best.get(position)
            if held is None or score > held.score:
                best[position] = NameCandidate(self.records[position], listed[entry], score, rule)
        return sorted(best.values(), key=lambda c: (-c.score, c.record.source, c.record.name))
