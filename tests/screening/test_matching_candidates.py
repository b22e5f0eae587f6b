"""The fast name search finds exactly what judging every blocked candidate finds.

SanctionsIndex.search_names drops candidates by bounds and rapidfuzz's cdist before judging the
rest with screening.name_rules.judge. The reference below is the plain algorithm, written out
here on its own (token, 4-letter prefix and suffix, compact-name, transliteration and one-letter
deletion blocking, stop keys, every blocked candidate judged): on a seeded synthetic world and on
the real OFAC snapshot, both must return the same records with the same scores, so a later
speed-up cannot silently drop a match. The world and queries are built so that each rule decides
some results (near variants, any edit, word order, spacing, transliteration, series mismatch,
names under five letters, entity records).
"""

from __future__ import annotations

import importlib.util
import random
from collections import defaultdict
from pathlib import Path

import pytest

from screening.index import STOP_KEY_MIN_POSTINGS, STOP_KEY_SHARE, SanctionsIndex
from screening.name_rules import ANY_EDIT_FROM, SHORT_NAME_LENGTH, judge, spaced_alike, transliteration_key
from screening.normalize import normalize_vessel_name
from screening.records import RECORD_VESSEL, ListedRecord

CUTOFFS = (90.0, 92.0, 80.0, 60.0)


def _dropped(name: str) -> set[str]:
    return {name[:at] + name[at + 1 :] for at in range(len(name))}


def _reference_keys(folded: str) -> set[str]:
    compact = folded.replace(" ", "")
    keys = {f"c:{spaced}" for spaced in spaced_alike(folded)} | {f"f:{transliteration_key(folded)}"}
    for token in folded.split():
        if len(token) >= 2:
            keys.add(f"t:{token}")
        if len(token) >= 4:
            keys.add(f"p:{token[:4]}")
            keys.add(f"s:{token[-4:]}")
    if SHORT_NAME_LENGTH <= len(compact) <= ANY_EDIT_FROM:
        keys |= {f"d:{name}" for name in _dropped(compact)}
    return keys


def _reference_query_keys(folded: str) -> set[str]:
    keys = _reference_keys(folded) | {f"c:{transliteration_key(folded)}"}
    compact = folded.replace(" ", "")
    if SHORT_NAME_LENGTH - 1 <= len(compact) <= ANY_EDIT_FROM + 1:
        keys |= {f"d:{compact}"} | {f"c:{name}" for name in _dropped(compact)} | {f"d:{n}" for n in _dropped(compact)}
    return keys


class _ReferenceIndex:
    """Every blocked candidate judged one by one: slow, obviously complete."""

    def __init__(self, records: list[ListedRecord]) -> None:
        self.names: list[tuple[int, str, str]] = []  # (record position, folded, listed)
        postings: dict[str, set[int]] = defaultdict(set)
        for position, record in enumerate(records):
            seen: set[str] = set()
            for listed in (record.name, *record.aliases):
                folded = normalize_vessel_name(listed) if listed else ""
                if not folded or folded in seen:
                    continue
                seen.add(folded)
                for key in _reference_keys(folded):
                    postings[key].add(len(self.names))
                self.names.append((position, folded, listed))
        ceiling = max(STOP_KEY_MIN_POSTINGS, int(len(self.names) * STOP_KEY_SHARE))
        self.postings = postings
        self.stop = {k for k, v in postings.items() if len(v) > ceiling and not k.startswith(("c:", "f:"))}

    def search(self, name: str, cutoff: float) -> dict[int, dict[str, tuple[float, str]]]:
        """record position -> {listed name: (score, rule)} for every listed name reaching the cutoff."""
        folded = normalize_vessel_name(name)
        if not folded:
            return {}
        keys = _reference_query_keys(folded)
        chosen = [k for k in keys if k not in self.stop] or keys
        found: dict[int, dict[str, tuple[float, str]]] = defaultdict(dict)
        for entry in set().union(*(self.postings.get(k, ()) for k in chosen)):
            position, candidate, listed = self.names[entry]
            judged = judge(folded, candidate)
            if judged.score >= cutoff:
                found[position][listed] = (judged.score, judged.rule.value)
        return dict(found)


def _synthetic_module():
    path = Path(__file__).resolve().parents[2] / "bench" / "synthetic_world.py"
    spec = importlib.util.spec_from_file_location("synthetic_world", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _synthetic_world() -> list[ListedRecord]:
    world = _synthetic_module()
    records = world.listed_records(12000, seed=23)
    rng = random.Random(29)
    vessels = [r for r in records if r.record_type == RECORD_VESSEL]
    extra = []
    for number, base in enumerate(rng.sample(vessels, 400)):
        # Numbered sister ships ("X 2" / "X 3"), spacing variants and short names.
        name = f"{base.name} {rng.randint(1, 9)}" if number % 4 else f"{base.name.replace(' ', '')}"
        if number % 10 == 0:
            name = base.name.split()[0][:4]
        first = base.name.split()[0]
        spaced = " ".join(first[i : i + 2] for i in range(0, len(first), 2))  # "AN AR BE L" / "ANARBEL"
        extra.append(
            ListedRecord(
                source="ofac_sdn",
                record_type=RECORD_VESSEL,
                name=name,
                source_record_id=f"extra-{number}",
                aliases=(f"M/V {base.name} {rng.randint(10, 99)}", spaced),
                imo=world.imo_with_check_digit(rng.randint(100000, 999999)),
            )
        )
    return records + extra


def _mutations(name: str, rng: random.Random) -> list[str]:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    position = rng.randrange(len(name))
    words = name.split()
    return [
        name,
        name[:position] + rng.choice(letters) + name[position + 1 :],  # substitution
        name[:position] + name[position + 1 :],  # deletion
        name[:position] + rng.choice(letters) + name[position:],  # insertion
        name[:position] + rng.choice(letters) + rng.choice(letters) + name[position + 2 :],  # two edits
        " ".join(reversed(words)),  # reordered words
        name.replace(" ", ""),  # spacing
        name[:position] + name[position + 1 : position + 2] + name[position : position + 1] + name[position + 2 :],
        name.replace("U", "OU").replace("SH", "SCH"),  # transliteration
        f"{name} III",  # a numbered sister ship
        f"MV {name} {rng.randint(1, 9)}",  # prefix and a number
        f"{name} LTD",
        name[:4],  # a short name
    ]


def _queries(records: list[ListedRecord], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    queries: list[str] = []
    for record in rng.sample(records, count):
        listed = rng.choice((record.name, *record.aliases))
        queries.extend(_mutations(listed, rng))
    return queries


def _compare(records: list[ListedRecord], queries: list[str]) -> dict[str, int]:
    index = SanctionsIndex.build(records, version="test")
    reference = _ReferenceIndex(records)
    position_of = {id(record): position for position, record in enumerate(records)}
    decided = defaultdict(int)
    for cutoff in CUTOFFS:
        for query in queries:
            expected = reference.search(query, cutoff)
            got = index.search_names(query, cutoff=cutoff)
            got_scores = {position_of[id(c.record)]: c.score for c in got}
            want_scores = {
                position: max(score for score, _ in scores.values()) for position, scores in expected.items()
            }
            assert got_scores == want_scores, f"{query!r} at cutoff {cutoff}"
            for candidate in got:  # the listed name shown is one that scored the record's score, by its rule
                held = expected[position_of[id(candidate.record)]][candidate.listed_name]
                assert held == (candidate.score, candidate.rule.value)
            assert [(-c.score, c.record.source, c.record.name) for c in got] == sorted(
                (-c.score, c.record.source, c.record.name) for c in got
            )
            for scores in expected.values():
                for _, rule in scores.values():
                    decided[rule] += 1
    return dict(decided)


def test_fast_search_equals_scoring_every_blocked_candidate_on_a_synthetic_world():
    records = _synthetic_world()
    decided = _compare(records, _queries(records, 250, seed=31))
    # Every rule decided some results, so a search that lost one of them would show.
    print(f"\nsynthetic world, results decided by each rule: {decided}")
    rules = ("exact", "spacing", "transliteration", "word_order", "dropped_letter", "added_letter")
    rules += ("transposed_letters", "replaced_letter", "series_mismatch", "similar")
    assert all(decided.get(rule, 0) >= 20 for rule in rules), decided


@pytest.mark.shared_data
def test_fast_search_equals_scoring_every_blocked_candidate_on_the_ofac_snapshot(shared_data):
    from screening.sources.ofac import parse_sdn_csv

    records = parse_sdn_csv((shared_data / "ofac" / "sdn-2024-05-03.csv").read_bytes()).records
    vessels = [r for r in records if r.record_type == RECORD_VESSEL]
    queries = _queries(vessels, 150, seed=37) + _queries(records, 100, seed=41)
    decided = _compare(records, queries)
    print(f"\nOFAC snapshot, results decided by each rule: {decided}")
    assert all(decided.get(rule, 0) > 0 for rule in ("dropped_letter", "replaced_letter", "similar")), decided


def test_fast_search_equals_judging_every_blocked_candidate_when_every_bound_runs(monkeypatch):
    """The length and grouped-letter bounds run only on thousands of candidates (an index of a million
    names); run them on every query here so they are held to the same result."""
    import screening.index

    monkeypatch.setattr(screening.index, "_LENGTH_FIRST_FROM", 0)
    records = _synthetic_world()[:6000]
    decided = _compare(records, _queries(records, 120, seed=43))
    assert decided.get("similar", 0) > 0 and decided.get("replaced_letter", 0) > 0, decided
