"""Name-matching quality on the real snapshots of ../shared/data (issue 29 baseline).

    .venv/bin/python bench/matching_quality.py [--seed 29] [--per-family N]

Builds the SanctionsIndex over every record of the OFAC SDN 2024-05-03 snapshot (entities
included, as production does) and screens names only, as `vessel_name` on an IMO no record
lists, through screening.matching.match_hull. Nothing in the matching code is changed.

Measured:
  1. Recall at rank 1 per variant family. From each vessel record's listed name one variant
     per family is drawn (seeded, so the same seed gives the same queries): one substituted
     letter, two adjacent letters swapped, one letter dropped, a space removed or a long word
     split, a hull prefix ("MT ", "M/T ", "MV ", "M.V. ", "TANKER "), a number 1-20 rewritten
     (arabic / roman / English word; names with a number only), one transliteration rule
     (IY->Y, Y->IY at word end, KH->H, SH->SCH, OU->U, U->OU; names where it applies only),
     one letter accented; and every a.k.a./f.k.a. name of a vessel record queried alone.
     A query is found when the first vessel hit (the first hit overall when no vessel is
     hit) is the record the variant came from. Misses are split into "no hit at all" and
     "another record first" (of which "tied": the expected record scored the same as the
     record that came first, which sorts ahead by name). A variant that folds to a name
     another vessel record lists ("MARIA" with a letter dropped is the listed "MARA") cannot
     tell the two apart, nor can any variant of a name two vessel records list (TERIBERKA):
     it is counted as "ambiguous" and left out of recall. The one-edit families are also
     broken down by the listed name's length (names under 5 letters match exactly only; the
     typo rule starts at 8), the others by rule. --per-family N draws at most N queries per
     family (ambiguous ones included).
  2. False AMBER candidates: every distinct `vessel_name` of the piracy CSV (folded with
     normalize_vessel_name, "NA" is the file's empty marker) screened alone; a name hitting a
     vessel record at >= VESSEL_NAME_CUTOFF would drive AMBER shape 1. Whether a hit is the
     same hull cannot be told from the data, so every one is counted; the ten highest, and
     every non-exact one, are listed with the rule of name_similarity that gave the score.
  3. The ten worst misses: another vessel record first (highest wrong score first), then the
     misses with no vessel hit (lowest score against the expected record first).
  4. The thresholds in force (imported, not copied) and the time taken.
Figures go in the issue's closing note; nothing is asserted.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import SHARED_DATA  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402
from rapidfuzz.distance import Levenshtein  # noqa: E402

from screening.index import (  # noqa: E402
    NUMBER_MISMATCH_CAP,
    SHORT_NAME_LENGTH,
    TYPO_SCORE,
    SanctionsIndex,
    name_similarity,
)
from screening.matching import (  # noqa: E402
    ENTITY_NAME_CUTOFF,
    PROBABLE_NAME_SCORE,
    VESSEL_NAME_CUTOFF,
    match_hull,
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
# Families whose queries also get a breakdown: by rule, or by the listed name's length for the one-edit ones.
BROKEN_DOWN = (
    "typo",
    "transposition",
    "dropped letter",
    "hull prefix",
    "numerals",
    "transliteration",
    "spacing/joining",
)
EDIT_FAMILIES = ("typo", "transposition", "dropped letter")


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
    return [i for i, ch in enumerate(name) if ch in LETTERS]


def typo(name: str, rng: random.Random) -> tuple[str, str] | None:
    positions = _letter_positions(name)
    if not positions:
        return None
    at = rng.choice(positions)
    letter = rng.choice([ch for ch in LETTERS if ch != name[at]])
    return "substituted", name[:at] + letter + name[at + 1 :]


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
}


def length_bucket(name: str) -> str:
    """The folded name's letters, in the bands the index treats differently (exact only, ratio, typo rule)."""
    letters = len(compact(normalize_vessel_name(name)))
    if letters < SHORT_NAME_LENGTH:
        return f"<{SHORT_NAME_LENGTH} letters"
    return "5-7 letters" if letters < 8 else "8-15 letters" if letters < 16 else "16+ letters"


def build_queries(vessels: list[ListedRecord], seed: int, per_family: int | None) -> list[Query]:
    """One variant per vessel record and family (every alias for "former names"), in record order."""
    queries: list[Query] = []
    for family in FAMILIES:
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
    """name_similarity as the index applies it: names under SHORT_NAME_LENGTH letters match only exactly."""
    left, right = normalize_vessel_name(query), normalize_vessel_name(listed)
    if not left or not right:
        return 0.0
    if len(compact(left)) < SHORT_NAME_LENGTH or len(compact(right)) < SHORT_NAME_LENGTH:
        return 100.0 if left == right else 0.0
    return name_similarity(left, right)


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
    return Outcome(
        query,
        found=first is not None and first.record.source_record_id == wanted,
        ambiguous=any(
            owners.get(normalize_vessel_name(name), set()) - {wanted} for name in (query.variant, query.source_name)
        ),
        first=first,
        expected_rank=rank,
        expected_score=best_name_score(query.variant, query.expected),
    )


def score_reason(query: str, listed: str) -> str:
    """Which rule of name_similarity gave the pair its score."""
    left, right = normalize_vessel_name(query), normalize_vessel_name(listed)
    if left == right:
        return "exact (folded)"
    if left.replace(" ", "") == right.replace(" ", ""):
        return "spacing (99)"
    ratio, token_sort = fuzz.ratio(left, right), fuzz.token_sort_ratio(left, right)
    score = name_similarity(left, right)
    if score == NUMBER_MISMATCH_CAP and max(ratio, token_sort) > NUMBER_MISMATCH_CAP:
        return "number cap"
    if score == TYPO_SCORE and max(ratio, token_sort) < TYPO_SCORE:
        return f"typo rule ({Levenshtein.distance(left, right)} edit(s))"
    if ratio >= token_sort:
        return f"ratio {ratio:.1f}"
    return f"token order {token_sort:.1f}"


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


def table(headers: list[str], rows: Iterable[Iterable[object]]) -> None:
    """Print a plain-text table, columns as wide as their widest cell."""
    cells = [headers] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for number, row in enumerate(cells):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if number == 0:
            print("  ".join("-" * width for width in widths))


def clip(text: str, width: int = 34) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def report_recall(outcomes: list[Outcome]) -> None:
    by_family: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_family[outcome.query.family].append(outcome)
    rows = []
    for family in FAMILIES:
        drawn = by_family.get(family, [])
        group = [o for o in drawn if not o.ambiguous]
        if not group:
            rows.append([family, 0, len(drawn), "-", "-", "-", "-", "-", "-"])
            continue
        found = sum(o.found for o in group)
        missed = [o for o in group if not o.found]
        no_hit = sum(o.first is None for o in missed)
        other = [o for o in missed if o.first is not None]
        tied = sum(o.first is not None and o.first.score == o.expected_score for o in other)
        anywhere = sum(o.expected_rank is not None for o in group)
        rows.append(
            [
                family,
                len(group),
                len(drawn) - len(group),
                f"{found / len(group):.3f}",
                len(missed),
                no_hit,
                len(other),
                tied,
                f"{anywhere / len(group):.3f}",
            ]
        )
    table(
        ["family", "queries", "ambiguous", "recall@1", "misses", "no hit", "other first", "(tied)", "recall@any"],
        rows,
    )
    print("found at rank 1 / queries, by rule or by the listed name's length:")
    for family in BROKEN_DOWN:
        group = [o for o in by_family.get(family, []) if not o.ambiguous]
        counts: Counter[str] = Counter(o.query.detail for o in group)
        found: Counter[str] = Counter(o.query.detail for o in group if o.found)
        parts = [f"{detail} {found[detail]}/{counts[detail]}" for detail in sorted(counts)]
        print(f"  {family}: " + ", ".join(parts))


def report_worst_misses(outcomes: list[Outcome]) -> None:
    missed = [o for o in outcomes if not o.found and not o.ambiguous]

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

    rows = []
    for outcome in sorted(missed, key=badness)[:10]:
        first = outcome.first
        rows.append(
            [
                outcome.query.family,
                clip(outcome.query.variant),
                clip(outcome.query.expected.name),
                f"{outcome.expected_score:.1f}",
                clip(f"{first.matched_listed_name or first.record.name} ({first.record.source_record_id})")
                if first
                else "-",
                f"{first.score:.1f}" if first else "-",
                outcome.expected_rank or "-",
                miss_reason(outcome),
            ]
        )
    table(
        ["family", "variant", "expected", "exp.score", "came first", "score", "exp.rank", "reason"],
        rows,
    )


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


def report_negatives(index: SanctionsIndex) -> int:
    names = piracy_names()
    flagged: list[tuple[str, MatchHit]] = []  # every (query, vessel hit >= cutoff)
    names_flagged = 0
    for name in names:
        hits = match_hull(index, imo=UNLISTED_IMO, mmsi=None, names=[name], chosen_name=name)
        driving = [h for h in hits if h.record.record_type == RECORD_VESSEL and h.score >= VESSEL_NAME_CUTOFF]
        names_flagged += bool(driving)
        flagged.extend((name, hit) for hit in driving)
    print(f"names screened: {len(names)}")
    print(
        f"false-AMBER candidates (names with a vessel hit >= {VESSEL_NAME_CUTOFF:g}): {names_flagged} "
        f"({100 * names_flagged / max(1, len(names)):.2f} %), {len(flagged)} hits in all"
    )
    reasons = Counter(score_reason(q, h.matched_listed_name or h.record.name).split(" ")[0] for q, h in flagged)
    print("  by rule: " + ", ".join(f"{rule} {count}" for rule, count in sorted(reasons.items())))
    ordered = sorted(
        flagged, key=lambda item: (-item[1].score, normalize_vessel_name(item[0]), item[1].record.source_record_id)
    )
    table(
        ["query", "listed name", "record", "score", "reason"],
        [
            [
                clip(query),
                clip(hit.matched_listed_name or hit.record.name),
                hit.record.source_record_id,
                f"{hit.score:.1f}",
                score_reason(query, hit.matched_listed_name or hit.record.name),
            ]
            for query, hit in ordered[:10]
        ],
    )
    fuzzy = [
        (query, hit)
        for query, hit in ordered
        if score_reason(query, hit.matched_listed_name or hit.record.name) != "exact (folded)"
    ]
    print(f"every non-exact one ({len(fuzzy)}: the ones a change to fuzzy matching can remove)")
    table(
        ["query", "listed name", "record", "score", "reason"],
        [
            [
                clip(query),
                clip(hit.matched_listed_name or hit.record.name),
                hit.record.source_record_id,
                f"{hit.score:.1f}",
                score_reason(query, hit.matched_listed_name or hit.record.name),
            ]
            for query, hit in fuzzy
        ],
    )
    return len(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--per-family", type=int, default=None, help="at most this many queries per family")
    args = parser.parse_args()
    if not SDN.exists() or not PIRACY.exists():
        print("skipped: ../shared/data is absent")
        return 0
    started = time.perf_counter()
    records = parse_sdn_csv(SDN.read_bytes()).records
    index = SanctionsIndex.build(records, version="ofac-2024-05-03")
    assert not index.records_by_imo(UNLISTED_IMO), "the probe IMO must be unlisted"
    vessels = [r for r in records if r.record_type == RECORD_VESSEL]
    built = time.perf_counter() - started
    print("Matching quality: OFAC SDN 2024-05-03, names only (IMO unlisted)")
    print(
        f"records {len(records)} ({len(vessels)} vessels, {sum(len(r.aliases) for r in vessels)} vessel aliases), "
        f"{index.name_count} indexed names; seed {args.seed}, per family "
        f"{'all' if args.per_family is None else args.per_family}"
    )
    print()
    print("Thresholds in force")
    table(
        ["constant", "value"],
        [
            ["screening.matching.VESSEL_NAME_CUTOFF", f"{VESSEL_NAME_CUTOFF:g}"],
            ["screening.matching.ENTITY_NAME_CUTOFF", f"{ENTITY_NAME_CUTOFF:g}"],
            ["screening.matching.PROBABLE_NAME_SCORE", f"{PROBABLE_NAME_SCORE:g}"],
            ["screening.index.TYPO_SCORE", f"{TYPO_SCORE:g}"],
            ["screening.index.NUMBER_MISMATCH_CAP", f"{NUMBER_MISMATCH_CAP:g}"],
            ["screening.index.SHORT_NAME_LENGTH", f"{SHORT_NAME_LENGTH} (shorter names match exactly only)"],
        ],
    )
    print()

    phase = time.perf_counter()
    queries = build_queries(vessels, args.seed, args.per_family)
    owners = vessel_names(vessels)
    outcomes = [run_query(index, query, owners) for query in queries]
    recall_seconds = time.perf_counter() - phase
    print("Recall at rank 1 per variant family")
    report_recall(outcomes)
    print()
    print("Ten worst misses")
    report_worst_misses(outcomes)
    print()

    phase = time.perf_counter()
    print("Negative set: piracy/pirate-attacks-1993-2020.csv vessel_name, screened alone")
    screened = report_negatives(index)
    negative_seconds = time.perf_counter() - phase
    print()
    print(
        f"time: index {built:.1f} s, {len(queries)} variant queries {recall_seconds:.1f} s, "
        f"{screened} negative queries {negative_seconds:.1f} s, total {time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
