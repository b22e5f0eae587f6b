"""Name-matching quality on the real snapshots of ../shared/data: the report of issue 29.

    .venv/bin/python bench/matching_quality.py [--seed 29] [--per-family N] [--write]

Builds the SanctionsIndex over every record of the OFAC SDN 2024-05-03 snapshot (entities
included, as production does) and screens names only, as `vessel_name` on an IMO no record
lists, through screening.matching.match_hull: the path a screening takes.

Measured:
  1. Recall at rank 1 per variant family. From each vessel record's listed name one variant
     per family is drawn (seeded, so the same seed gives the same queries): a typing slip (one
     letter replaced by a neighbouring key), two adjacent letters swapped, one letter dropped, a
     space removed or a long word split, a hull prefix ("MT ", "M/T ", "MV ", "M.V. ",
     "TANKER "), a number 1-20 rewritten (arabic / roman / English word; names with a number
     only), one transliteration rule (IY->Y, Y->IY at word end, KH->H, SH->SCH, OU->U, U->OU;
     names where it applies only), one letter accented; and every a.k.a./f.k.a. name of a vessel
     record queried alone. Two more edit families are reported, not targeted: any letter
     replaced, and a letter added (screening/name_rules.py says why short names do not take
     them). A query is found when the first vessel hit (the first hit overall when no vessel is
     hit) is the record the variant came from. A variant that folds to a name another vessel
     record lists ("MARIA" with a letter dropped is the listed "MARA"), any variant of a name
     two vessel records list (TERIBERKA), and a variant exactly as near to another vessel record
     ("ANREACH": FANREACH and CANREACH) cannot tell the records apart: it is counted as
     "ambiguous" and left out of recall (both records are listed at the same score). The edit families are broken down by the listed name's
     length.
  2. False AMBER on real ship names: every distinct `vessel_name` of the piracy CSV ("NA" is the
     file's empty marker) screened alone. A vessel hit at VESSEL_NAME_CUTOFF drives AMBER. When
     the rule that matched says the names are the same name written another way (exact,
     spacing, transliteration, word order), the hit is on a genuine list record of that name;
     when it says the name was taken for a variant of another (an edit, a similar name), it is
     a false AMBER. Both are listed with their rule.
  3. The ten worst misses and the ten worst false hits, each with its reason.
  4. The thresholds in force (screening.name_rules.rules_in_force).

--write regenerates the published report: the README section between its markers and
screening/matching_quality.json (the figures the reference page prints and
tests/screening/test_matching_quality.py holds every later change to).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import SHARED_DATA  # noqa: E402

from screening.index import SanctionsIndex  # noqa: E402
from screening.matching import match_hull  # noqa: E402
from screening.name_rules import (  # noqa: E402
    ANY_EDIT_FROM,
    KEYBOARD_NEIGHBOURS,
    RULE_SENTENCES,
    SHORT_NAME_LENGTH,
    TWO_EDITS_FROM,
    VESSEL_NAME_CUTOFF,
    NameRule,
    judge,
    rules_in_force,
)
from screening.normalize import compact, normalize_vessel_name  # noqa: E402
from screening.records import RECORD_VESSEL, ListedRecord, MatchHit  # noqa: E402
from screening.sources.ofac import parse_sdn_csv  # noqa: E402

SDN = SHARED_DATA / "ofac" / "sdn-2024-05-03.csv"
PIRACY = SHARED_DATA / "piracy" / "pirate-attacks-1993-2020.csv"
UNLISTED_IMO = "0000000"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
HULL_PREFIXES = ("MT ", "M/T ", "MV ", "M.V. ", "TANKER ")
ROMAN = ("I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX").split()
WORDS = (
    "ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE THIRTEEN FOURTEEN FIFTEEN "
    "SIXTEEN SEVENTEEN EIGHTEEN NINETEEN TWENTY"
).split()
NUMERAL_FORMS = {
    "arabic": [str(n) for n in range(1, 21)],
    "roman": ROMAN,
    "word": WORDS,
}
# Transliteration rules: (label, pattern, replacement); a rule applies where its pattern occurs.
TRANSLITERATIONS = (
    ("IY->Y", re.compile(r"IY"), "Y"),
    ("Y->IY (word end)", re.compile(r"(?<![IY])Y\b"), "IY"),
    ("KH->H", re.compile(r"KH"), "H"),
    ("SH->SCH", re.compile(r"(?<!C)SH"), "SCH"),
    ("OU->U", re.compile(r"OU"), "U"),
    ("U->OU", re.compile(r"(?<!O)U"), "OU"),
)
ACCENTS = {"A": "ÁÀÄÂ", "E": "ÉÈÊ", "I": "ÍÎ", "O": "ÖÓÔ", "U": "ÜÚ", "N": "Ñ", "C": "Ç", "S": "Š", "Z": "Ž"}
FAMILIES = (
    "typo",
    "transposition",
    "dropped letter",
    "spacing/joining",
    "hull prefix",
    "numerals",
    "transliteration",
    "diacritics",
    "former names",
)
# Edits reported for what they cost, not targeted (screening/name_rules.py: why short names do not take them).
REPORTED_ONLY = ("replaced letter", "added letter")
EDIT_FAMILIES = ("typo", "transposition", "dropped letter", *REPORTED_ONLY)


@dataclass(frozen=True)
class Query:
    family: str
    detail: str  # which rule, prefix or numeral form made the variant
    variant: str
    expected: ListedRecord
    source_name: str  # the expected record's listed name (or alias) the variant was made from


@dataclass(frozen=True)
class Outcome:
    query: Query
    found: bool
    # The variant, or the name it was made from, folds to a name another vessel record lists: left out of recall.
    ambiguous: bool
    first: MatchHit | None  # the first vessel hit, else the first hit overall
    expected_rank: int | None  # 1-based among all hits, None when the expected record is not hit
    expected_score: float  # the expected record's best name scored against the variant


# Variant makers: a listed name and a seeded random source to (detail, variant), or None where the
# family does not apply to that name.
Maker = Callable[[str, random.Random], tuple[str, str] | None]


def _letter_positions(name: str) -> list[int]:
    """Where a letter can be mistyped: not inside a roman numeral after the first word ("STAR III"), which
    is the hull's number (a changed number names another hull: screening.name_rules, series mismatch)."""
    numeral_letters = {
        at
        for match in re.finditer(r"(?<=\s)[IVX]+\b", name)
        if match.group() in ROMAN
        for at in range(match.start(), match.end())
    }
    return [i for i, ch in enumerate(name) if ch in LETTERS and i not in numeral_letters]


def typo(name: str, rng: random.Random) -> tuple[str, str] | None:
    """A typing slip: one letter replaced by a key touching it."""
    positions = _letter_positions(name)
    if not positions:
        return None
    at = rng.choice(positions)
    letter = rng.choice(sorted(KEYBOARD_NEIGHBOURS[name[at]]))
    return "slipped", name[:at] + letter + name[at + 1 :]


def replaced_letter(name: str, rng: random.Random) -> tuple[str, str] | None:
    positions = _letter_positions(name)
    if not positions:
        return None
    at = rng.choice(positions)
    letter = rng.choice([ch for ch in LETTERS if ch != name[at]])
    return "replaced", name[:at] + letter + name[at + 1 :]


def added_letter(name: str, rng: random.Random) -> tuple[str, str] | None:
    positions = _letter_positions(name)
    if not positions:
        return None
    at = rng.choice(positions + [positions[-1] + 1])
    return "added", name[:at] + rng.choice(LETTERS) + name[at:]


def transposition(name: str, rng: random.Random) -> tuple[str, str] | None:
    pairs = [
        i for i in range(len(name) - 1) if name[i] in LETTERS and name[i + 1] in LETTERS and name[i] != name[i + 1]
    ]
    if not pairs:
        return None
    at = rng.choice(pairs)
    return "swapped", name[:at] + name[at + 1] + name[at] + name[at + 2 :]


def dropped_letter(name: str, rng: random.Random) -> tuple[str, str] | None:
    positions = _letter_positions(name)
    if len(positions) < 2:
        return None
    at = rng.choice(positions)
    return "dropped", name[:at] + name[at + 1 :]


def spacing(name: str, rng: random.Random) -> tuple[str, str] | None:
    options: list[tuple[str, str]] = []
    for match in re.finditer(r"(?<=[A-Z0-9]) (?=[A-Z0-9])", name):
        options.append(("joined", name[: match.start()] + name[match.end() :]))
    for match in re.finditer(r"[A-Z]{6,}", name):
        at = match.start() + rng.randrange(3, len(match.group()) - 2)
        options.append(("split", name[:at] + " " + name[at:]))
    return rng.choice(options) if options else None


def hull_prefix(name: str, rng: random.Random) -> tuple[str, str] | None:
    prefix = rng.choice(HULL_PREFIXES)
    return prefix.strip(), prefix + name


def numerals(name: str, rng: random.Random) -> tuple[str, str] | None:
    found = []
    for match in re.finditer(r"\b[A-Z0-9]+\b", name):
        for form, spellings in NUMERAL_FORMS.items():
            if match.group() in spellings:
                found.append((match, form, spellings.index(match.group())))
    if not found:
        return None
    match, form, value = rng.choice(found)
    target = rng.choice([other for other in NUMERAL_FORMS if other != form])
    return f"{form}->{target}", name[: match.start()] + NUMERAL_FORMS[target][value] + name[match.end() :]


def transliteration(name: str, rng: random.Random) -> tuple[str, str] | None:
    applicable = [(label, pattern, new) for label, pattern, new in TRANSLITERATIONS if pattern.search(name)]
    if not applicable:
        return None
    label, pattern, new = rng.choice(applicable)
    match = rng.choice(list(pattern.finditer(name)))
    return label, name[: match.start()] + new + name[match.end() :]


def diacritics(name: str, rng: random.Random) -> tuple[str, str] | None:
    positions = [i for i, ch in enumerate(name) if ch in ACCENTS]
    if not positions:
        return None
    at = rng.choice(positions)
    return name[at], name[:at] + rng.choice(ACCENTS[name[at]]) + name[at + 1 :]


MAKERS: dict[str, Maker] = {
    "typo": typo,
    "transposition": transposition,
    "dropped letter": dropped_letter,
    "spacing/joining": spacing,
    "hull prefix": hull_prefix,
    "numerals": numerals,
    "transliteration": transliteration,
    "diacritics": diacritics,
    "replaced letter": replaced_letter,
    "added letter": added_letter,
}


def length_bucket(name: str) -> str:
    """The folded name's letters, in the bands the rules treat differently (exact only, near variants, any edit)."""
    letters = len(compact(normalize_vessel_name(name)))
    if letters < SHORT_NAME_LENGTH:
        return f"<{SHORT_NAME_LENGTH} letters"
    if letters < ANY_EDIT_FROM:
        return f"{SHORT_NAME_LENGTH}-{ANY_EDIT_FROM - 1} letters"
    return f"{ANY_EDIT_FROM}-{TWO_EDITS_FROM - 1} letters" if letters < TWO_EDITS_FROM else f"{TWO_EDITS_FROM}+ letters"


def build_queries(vessels: list[ListedRecord], seed: int, per_family: int | None) -> list[Query]:
    """One variant per vessel record and family (every alias for "former names"), in record order."""
    queries: list[Query] = []
    for family in FAMILIES + REPORTED_ONLY:
        rng = random.Random(f"{seed}:{family}")  # a family's draws do not depend on the others
        drawn: list[Query] = []
        for record in vessels:
            if family == "former names":
                drawn.extend(Query(family, "alias", alias, record, alias) for alias in record.aliases)
                continue
            made = MAKERS[family](record.name.upper(), rng)
            if made and normalize_vessel_name(made[1]):
                detail = length_bucket(record.name) if family in EDIT_FAMILIES else made[0]
                drawn.append(Query(family, detail, made[1], record, record.name))
        if per_family is not None and len(drawn) > per_family:
            keep = sorted(rng.sample(range(len(drawn)), per_family))
            drawn = [drawn[i] for i in keep]
        queries.extend(drawn)
    return queries


def indexed_score(query: str, listed: str) -> float:
    left, right = normalize_vessel_name(query), normalize_vessel_name(listed)
    return judge(left, right).score if left and right else 0.0


def best_name_score(query: str, record: ListedRecord) -> float:
    return max(indexed_score(query, listed) for listed in (record.name, *record.aliases))


def first_hit(hits: list[MatchHit]) -> MatchHit | None:
    vessel_hits = [h for h in hits if h.record.record_type == RECORD_VESSEL]
    return vessel_hits[0] if vessel_hits else (hits[0] if hits else None)


def vessel_names(vessels: list[ListedRecord]) -> dict[str, set[str]]:
    """Folded listed name -> the source_record_ids of the vessel records listing it (name or alias)."""
    owners: dict[str, set[str]] = defaultdict(set)
    for record in vessels:
        for listed in (record.name, *record.aliases):
            folded = normalize_vessel_name(listed)
            if folded and record.source_record_id:
                owners[folded].add(record.source_record_id)
    return owners


def run_query(index: SanctionsIndex, query: Query, owners: dict[str, set[str]]) -> Outcome:
    hits = match_hull(index, imo=UNLISTED_IMO, mmsi=None, names=[query.variant], chosen_name=query.variant)
    first = first_hit(hits)
    wanted = query.expected.source_record_id
    rank = next((i + 1 for i, h in enumerate(hits) if h.record.source_record_id == wanted), None)
    expected_score = best_name_score(query.variant, query.expected)
    found = first is not None and first.record.source_record_id == wanted
    # Another vessel record exactly as near (FANREACH and CANREACH for "ANREACH") cannot be told apart either.
    tied = (
        not found and first is not None and first.record.record_type == RECORD_VESSEL and first.score == expected_score
    )
    return Outcome(
        query,
        found=found,
        ambiguous=tied
        or any(
            owners.get(normalize_vessel_name(name), set()) - {wanted} for name in (query.variant, query.source_name)
        ),
        first=first,
        expected_rank=rank,
        expected_score=expected_score,
    )


def score_reason(query: str, listed: str) -> str:
    """Which rule of screening.name_rules gave the pair its score."""
    judged = judge(normalize_vessel_name(query), normalize_vessel_name(listed))
    return f"{judged.rule.value} {judged.score:.1f}"


def miss_reason(outcome: Outcome) -> str:
    first = outcome.first
    if first is None:
        folded = normalize_vessel_name(outcome.query.variant)
        if len(compact(folded)) < SHORT_NAME_LENGTH:
            return "short name: exact only"
        return f"below cutoff ({score_reason(outcome.query.variant, outcome.query.expected.name)})"
    if first.record.record_type != RECORD_VESSEL:
        return "no vessel hit, an entity first"
    if first.score == outcome.expected_score:
        return "tie, sorted after by name"
    return f"outscored ({score_reason(outcome.query.variant, first.matched_listed_name or first.record.name)})"


FIGURES_FILE = ROOT / "screening" / "matching_quality.json"
README = ROOT / "README.md"
README_START = "<!-- matching-quality:start -->"
README_END = "<!-- matching-quality:end -->"


@dataclass
class FamilyFigures:
    family: str
    targeted: bool
    queries: int  # ambiguous ones left out
    ambiguous: int
    found: int
    no_hit: int
    other_first: int
    tied: int
    by_detail: dict[str, tuple[int, int]]  # detail -> (found, queries)

    @property
    def recall(self) -> float:
        return self.found / self.queries if self.queries else 1.0

    @property
    def recall_from_short(self) -> float | None:
        """Recall over listed names of SHORT_NAME_LENGTH letters or more (edit families only)."""
        if self.family not in EDIT_FAMILIES:
            return None
        kept = [counts for detail, counts in self.by_detail.items() if not detail.startswith("<")]
        total = sum(queries for _, queries in kept)
        return sum(found for found, _ in kept) / total if total else None


@dataclass
class QualityReport:
    records: int
    vessels: int
    vessel_aliases: int
    indexed_names: int
    seed: int
    families: list[FamilyFigures]
    worst_misses: list[Outcome]
    negatives: int
    genuine: list[tuple[str, MatchHit]]  # (query, hit): the listed name written another way
    false_hits: list[tuple[str, MatchHit]]  # (query, hit): a different name taken for a variant
    seconds: float

    @property
    def false_amber_names(self) -> int:
        return len({query for query, _ in self.false_hits})

    @property
    def false_amber_rate(self) -> float:
        return self.false_amber_names / self.negatives if self.negatives else 0.0

    def figures(self) -> dict:
        """What is published and held: recall per family, the false-AMBER rate, the rules."""
        return {
            "snapshot": "OFAC SDN 2024-05-03",
            "negative_set": "piracy/pirate-attacks-1993-2020.csv vessel_name",
            "seed": self.seed,
            "recall_at_1": {f.family: round(f.recall, 3) for f in self.families},
            "recall_at_1_from_short_name_length": {
                f.family: round(f.recall_from_short, 3) for f in self.families if f.recall_from_short is not None
            },
            "targeted_families": [f.family for f in self.families if f.targeted],
            "queries": {f.family: f.queries for f in self.families},
            "negative_names": self.negatives,
            "false_amber_names": self.false_amber_names,
            "false_amber_rate": round(self.false_amber_rate, 4),
            "genuine_name_hits": len({query for query, _ in self.genuine}),
            "rules": rules_in_force(),
        }


def family_figures(family: str, drawn: list[Outcome]) -> FamilyFigures:
    group = [o for o in drawn if not o.ambiguous]
    missed = [o for o in group if not o.found]
    other = [o for o in missed if o.first is not None]
    details: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in group:
        details[outcome.query.detail][0] += outcome.found
        details[outcome.query.detail][1] += 1
    return FamilyFigures(
        family=family,
        targeted=family in FAMILIES,
        queries=len(group),
        ambiguous=len(drawn) - len(group),
        found=len(group) - len(missed),
        no_hit=len(missed) - len(other),
        other_first=len(other),
        tied=sum(o.first is not None and o.first.score == o.expected_score for o in other),
        by_detail={detail: (found, total) for detail, (found, total) in sorted(details.items())},
    )


def worst_misses(outcomes: list[Outcome]) -> list[Outcome]:
    missed = [o for o in outcomes if not o.found and not o.ambiguous and o.query.family in FAMILIES]

    def badness(outcome: Outcome) -> tuple:
        # A wrong vessel first (it would be reported as the match) is worse than no vessel hit.
        first = outcome.first
        wrong_vessel = first is not None and first.record.record_type == RECORD_VESSEL
        return (
            not wrong_vessel,
            -(first.score if wrong_vessel and first else 0.0),
            outcome.expected_score,
            outcome.query.family,
            outcome.query.variant,
        )

    return sorted(missed, key=badness)[:10]


def piracy_names() -> list[str]:
    """Distinct vessel_name values (first spelling of each folded name), "NA" (the empty marker) left out."""
    seen: dict[str, str] = {}
    with PIRACY.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            raw = (row.get("vessel_name") or "").strip()
            folded = normalize_vessel_name(raw) if raw and raw != "NA" else ""
            if folded and folded not in seen:
                seen[folded] = raw
    return list(seen.values())


# Rules saying two names are one name written another way: a hit by them is on a genuine record of that name.
SAME_NAME_RULES = frozenset({NameRule.EXACT, NameRule.SPACING, NameRule.TRANSLITERATION, NameRule.WORD_ORDER})


def screen_negatives(index: SanctionsIndex) -> tuple[int, list[tuple[str, MatchHit]], list[tuple[str, MatchHit]]]:
    names = piracy_names()
    genuine: list[tuple[str, MatchHit]] = []
    false_hits: list[tuple[str, MatchHit]] = []
    for name in names:
        hits = match_hull(index, imo=UNLISTED_IMO, mmsi=None, names=[name], chosen_name=name)
        for hit in hits:
            if hit.record.record_type == RECORD_VESSEL and hit.score >= VESSEL_NAME_CUTOFF:
                (genuine if hit.name_rule in SAME_NAME_RULES else false_hits).append((name, hit))
    order = lambda item: (-item[1].score, normalize_vessel_name(item[0]), item[1].record.source_record_id)  # noqa: E731
    return len(names), sorted(genuine, key=order), sorted(false_hits, key=order)


def measure(seed: int = 29, per_family: int | None = None) -> QualityReport:
    """The whole measurement (needs ../shared/data)."""
    started = time.perf_counter()
    records = parse_sdn_csv(SDN.read_bytes()).records
    index = SanctionsIndex.build(records, version="ofac-2024-05-03")
    assert not index.records_by_imo(UNLISTED_IMO), "the probe IMO must be unlisted"
    vessels = [r for r in records if r.record_type == RECORD_VESSEL]
    queries = build_queries(vessels, seed, per_family)
    owners = vessel_names(vessels)
    outcomes = [run_query(index, query, owners) for query in queries]
    by_family: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_family[outcome.query.family].append(outcome)
    negatives, genuine, false_hits = screen_negatives(index)
    return QualityReport(
        records=len(records),
        vessels=len(vessels),
        vessel_aliases=sum(len(r.aliases) for r in vessels),
        indexed_names=index.name_count,
        seed=seed,
        families=[family_figures(family, by_family.get(family, [])) for family in FAMILIES + REPORTED_ONLY],
        worst_misses=worst_misses(outcomes),
        negatives=negatives,
        genuine=genuine,
        false_hits=false_hits,
        seconds=time.perf_counter() - started,
    )


def markdown_table(headers: list[str], rows: Iterable[Iterable[object]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "/") for cell in row) + " |" for row in rows]
    return lines


def hit_reason(query: str, hit: MatchHit) -> str:
    rule = NameRule(hit.name_rule or NameRule.NONE)
    return f"{rule.value}: {RULE_SENTENCES[rule]}"


def render(report: QualityReport) -> str:
    """The published report, as Markdown (the README section)."""
    lines = [
        f"Measured by `bench/matching_quality.py` on the OFAC SDN 2024-05-03 snapshot ({report.records:,} records, "
        f"{report.vessels} vessels with {report.vessel_aliases} a.k.a. names, {report.indexed_names:,} indexed names), "
        f"names only, on an IMO no record lists; seed {report.seed}. Targets: recall at rank 1 >= 0.99 per "
        "family, false AMBER <= 0.2 %.",
        "",
    ]
    rows = []
    for f in report.families:
        breakdown = ", ".join(f"{detail} {found}/{total}" for detail, (found, total) in f.by_detail.items())
        rows.append(
            [
                f.family if f.targeted else f"{f.family} (reported only)",
                f.queries,
                f"{f.recall:.3f}",
                "" if f.recall_from_short is None else f"{f.recall_from_short:.3f}",
                f.no_hit,
                f.other_first,
                f.ambiguous,
                breakdown if len(f.by_detail) > 1 else "",
            ]
        )
    lines += markdown_table(
        [
            "variant family",
            "queries",
            "recall@1",
            f"recall@1, {SHORT_NAME_LENGTH}+ letters",
            "no hit",
            "other first",
            "ambiguous",
            "found / queries",
        ],
        rows,
    )
    genuine_names = len({query for query, _ in report.genuine})
    lines += [
        "",
        f"**False AMBER on real ship names**: {report.false_amber_names} of {report.negatives:,} distinct ship names "
        f"of the piracy records ({100 * report.false_amber_rate:.2f} %) were taken for a variant of a listed vessel "
        f"name. Another {genuine_names} carry a listed vessel name as it is written (exact, spacing, "
        "transliteration, word order): those AMBERs are genuine name matches a reviewer settles by IMO.",
        "",
        "Worst false hits (every one when fewer than ten):",
        "",
    ]
    lines += markdown_table(
        ["ship name", "listed name", "record", "score", "reason"],
        [
            [
                query,
                hit.matched_listed_name or hit.record.name,
                hit.record.source_record_id,
                f"{hit.score:g}",
                hit_reason(query, hit),
            ]
            for query, hit in report.false_hits[:10]
        ],
    )
    lines += ["", "Worst misses:", ""]
    lines += markdown_table(
        ["family", "variant", "listed name", "came first", "reason"],
        [
            [
                o.query.family,
                o.query.variant,
                o.query.expected.name,
                f"{o.first.matched_listed_name or o.first.record.name} ({o.first.score:g})" if o.first else "nothing",
                miss_reason(o),
            ]
            for o in report.worst_misses
        ],
    )
    rules = rules_in_force()
    lines += [
        "",
        "Thresholds in force (`screening/name_rules.py`): " + ", ".join(f"{k} {v}" for k, v in rules.items()) + ".",
    ]
    return "\n".join(lines) + "\n"


def write_published(report: QualityReport) -> None:
    FIGURES_FILE.write_text(json.dumps(report.figures(), indent=2, sort_keys=True) + "\n")
    text = README.read_text()
    start, end = text.index(README_START) + len(README_START), text.index(README_END)
    README.write_text(text[:start] + "\n" + render(report) + text[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--per-family", type=int, default=None, help="at most this many queries per family")
    parser.add_argument("--write", action="store_true", help="regenerate the README section and the figures file")
    args = parser.parse_args()
    if not SDN.exists() or not PIRACY.exists():
        print("skipped: ../shared/data is absent")
        return 0
    report = measure(args.seed, args.per_family)
    print(render(report))
    print(f"time: {report.seconds:.1f} s")
    if args.write:
        write_published(report)
        print(f"written: {FIGURES_FILE.relative_to(ROOT)} and the README section")
    return 0


if __name__ == "__main__":
    sys.exit(main())
