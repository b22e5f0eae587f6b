"""When two vessel names are the same name: every threshold and rule of name matching, in one place.

Both names arrive folded (screening.normalize.normalize_vessel_name: ASCII upper case, hull
prefixes and legal forms dropped, numbers 1-39 written as digits whatever form they came in).
`judge` decides which rule makes them one name and what that is worth on a 0-100 scale;
`name_similarity` is its score, the one definition every search, monitor and cargo check uses.

The rules, strongest first:

  exact            the same folded name                                                   100
  spacing          the same letters spaced differently ("SEA ROSE" / "SEAROSE",           99
                   "ARK III" / "ARKIII")
  transliteration  the same once spelling variants of transliteration are folded           98
                   (KH/H, SCH/SH, OU/U, and at a word's end -IY/-II/-IJ/-Y), "AL KHALIJ" / "AL HALIJ"
  word order       the same words in another order                                          96
  near variants    one edit of a kind a name really takes (NEAR_VARIANT_SCORE):             92
                     a letter dropped, two neighbouring letters swapped, a letter doubled or
                     undoubled, a letter replaced by its neighbour on the keyboard; on names
                     under FIRST_LETTER_FREE_FROM letters the first letter stays unless two
                     letters were swapped (rhyming
                     five-letter names are different ships: GILDA/BILDA, NOLAN/BOLAN, DIONA/FIONA)
  one edit         any one letter added, dropped or replaced, or two swapped, from           92
                   ANY_EDIT_FROM letters; two such edits from TWO_EDITS_FROM letters
  similar          rapidfuzz ratio or token-sort ratio over the folded names, from           ratio
                   SIMILAR_FROM letters only
  series mismatch  the names differ in their numbers ("STAR 2" / "STAR 3", "MARGARITA" /      capped at
                   "MARGARITA 1"), or both carry a one-letter word and those differ         SERIES_MISMATCH_CAP
                   ("MARIA E" / "MARIA R")

"Letters" is the length of the shorter name without spaces. Names under SHORT_NAME_LENGTH
letters only ever match exactly or by spacing.

Why one edit is not enough on a short name: an added or an arbitrary replaced letter reaches 26
times as many strings as a dropped letter does, and real ship names fill them. Of the 1,184
distinct 5-7 letter ship names in the piracy records (bench/matching_quality.py), 43 sit one
arbitrary edit from a listed vessel name (CARIA/MARIA, SOLANO/SOLAN, OLYMPIC/OLYMPIA); the near
variants alone reach a handful, and most of those change the first letter. So a short name
matches through the small neighbourhoods a typing or copying slip produces, and a long name
through any single edit. Below SHORT_NAME_LENGTH even those fill up (ARIS/ARIES, MARS/MARA).

A vessel record matches at VESSEL_NAME_CUTOFF; a company or person record is reported at the
higher ENTITY_NAME_CUTOFF and never drives a verdict by itself (contract 3.2.1). A near-exact
name (PROBABLE_NAME_SCORE) that also agrees on the flag is a probable match.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

VESSEL_NAME_CUTOFF = 90.0
ENTITY_NAME_CUTOFF = 92.0
PROBABLE_NAME_SCORE = 97.0

SHORT_NAME_LENGTH = 5
FIRST_LETTER_FREE_FROM = 6
ANY_EDIT_FROM = 8
TWO_EDITS_FROM = 16
SIMILAR_FROM = 8

EXACT_SCORE = 100.0
SPACING_SCORE = 99.0
TRANSLITERATION_SCORE = 98.0
WORD_ORDER_SCORE = 96.0
NEAR_VARIANT_SCORE = 92.0
SERIES_MISMATCH_CAP = 75.0

# Bumped whenever a rule, the folding or the saved index layout changes: names folded and indexes saved under another
# version are rebuilt (monitoring/list_updates.py keys its saved index with it).
RULES_VERSION = 3


class NameRule(StrEnum):
    """Which rule made two names one (matches[].explanation.name_rule)."""

    EXACT = "exact"
    SPACING = "spacing"
    TRANSLITERATION = "transliteration"
    WORD_ORDER = "word_order"
    DROPPED_LETTER = "dropped_letter"
    ADDED_LETTER = "added_letter"
    DOUBLED_LETTER = "doubled_letter"
    TRANSPOSED_LETTERS = "transposed_letters"
    KEYBOARD_SLIP = "keyboard_slip"
    REPLACED_LETTER = "replaced_letter"
    TWO_EDITS = "two_edits"
    SIMILAR = "similar"
    SERIES_MISMATCH = "series_mismatch"
    NONE = "none"


RULE_SENTENCES = {
    NameRule.EXACT: "the same name",
    NameRule.SPACING: "the same letters, spaced differently",
    NameRule.TRANSLITERATION: "the same name in another transliteration",
    NameRule.WORD_ORDER: "the same words in another order",
    NameRule.DROPPED_LETTER: "the listed name with one letter missing",
    NameRule.ADDED_LETTER: "the listed name with one letter added",
    NameRule.DOUBLED_LETTER: "the listed name with a letter doubled or undoubled",
    NameRule.TRANSPOSED_LETTERS: "the listed name with two neighbouring letters swapped",
    NameRule.KEYBOARD_SLIP: "the listed name with one letter replaced by its neighbour on the keyboard",
    NameRule.REPLACED_LETTER: "the listed name with one letter replaced",
    NameRule.TWO_EDITS: "the listed name with two letters changed",
    NameRule.SIMILAR: "a similar name",
    NameRule.SERIES_MISMATCH: "a name differing in its number or series letter: another hull",
    NameRule.NONE: "a different name",
}

# The one-edit kinds a short name may take (see the module docstring).
NEAR_VARIANT_RULES = frozenset(
    {NameRule.DROPPED_LETTER, NameRule.DOUBLED_LETTER, NameRule.TRANSPOSED_LETTERS, NameRule.KEYBOARD_SLIP}
)

_KEYBOARD_ROWS = ("QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM")


def _keyboard_neighbours() -> dict[str, frozenset[str]]:
    """Keys touching each letter on a QWERTY keyboard: the same row, and the row above and below
    (rows are offset by half a key, so a key touches two keys in each neighbouring row)."""
    position = {key: (row, column) for row, keys in enumerate(_KEYBOARD_ROWS) for column, key in enumerate(keys)}
    neighbours: dict[str, set[str]] = {key: set() for key in position}
    for key, (row, column) in position.items():
        for other, (other_row, other_column) in position.items():
            if other == key:
                continue
            if other_row == row and abs(other_column - column) == 1:
                neighbours[key].add(other)
            elif other_row == row + 1 and other_column in (column - 1, column):
                neighbours[key].add(other)
                neighbours[other].add(key)
    return {key: frozenset(keys) for key, keys in neighbours.items()}


KEYBOARD_NEIGHBOURS = _keyboard_neighbours()

# Transliteration spellings folded to one: (pattern, replacement), applied in order.
_TRANSLITERATIONS = (
    (re.compile(r"SCH"), "SH"),
    (re.compile(r"KH"), "H"),
    (re.compile(r"OU"), "U"),
    (re.compile(r"\B(?:IY|II|IJ|Y)\b"), "Y"),
)
_NUMBER = re.compile(r"\b\d+\b")
_LETTER_MARK = re.compile(r"\b[A-Z]\b")


_NUMBER_TOKEN = re.compile(r"(?<= )\d+\b")
_ROMAN_UNITS = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")


def _roman(match: re.Match[str]) -> str:
    value = int(match.group())
    return "X" * (value // 10) + _ROMAN_UNITS[value % 10] if 0 < value < 40 else match.group()


# Small caches: a query is judged against every candidate that survives the bounds, so its own forms are
# computed once; a million listed names pass through once at build and must not stay cached.
@lru_cache(maxsize=4096)
def spaced_alike(folded: str) -> frozenset[str]:
    """The folded name without spaces, and so again with its numbers as roman numerals: "ARK III" folds to
    "ARK 3", and written together ("ARKIII") it is still the same letters."""
    return frozenset({folded.replace(" ", ""), _NUMBER_TOKEN.sub(_roman, folded).replace(" ", "")})


@lru_cache(maxsize=4096)
def transliteration_key(folded: str) -> str:
    """The folded name with transliteration variants written one way, without spaces."""
    for pattern, replacement in _TRANSLITERATIONS:
        folded = pattern.sub(replacement, folded)
    return folded.replace(" ", "")


@lru_cache(maxsize=4096)
def _series_marks(folded: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A folded name's numbers and one-letter words, each sorted (a query's are read once per search)."""
    return tuple(sorted(_NUMBER.findall(folded))), tuple(sorted(_LETTER_MARK.findall(folded)))


def series_differ(query: str, listed: str) -> bool:
    """Whether two folded names name different hulls of a series: their numbers differ (one having none
    counts), or both carry a one-letter word and those differ ("MARIA E" / "MARIA R")."""
    query_numbers, query_letters = _series_marks(query)
    listed_numbers, listed_letters = _series_marks(listed)
    if query_numbers != listed_numbers:
        return True
    return bool(query_letters and listed_letters and query_letters != listed_letters)


@dataclass(frozen=True, slots=True)
class Judgement:
    score: float
    rule: NameRule


_NO_MATCH = Judgement(0.0, NameRule.NONE)


def _one_edit(query: str, listed: str) -> NameRule | None:
    """The kind of the single edit turning `listed` into `query`, or None when it takes more."""
    if abs(len(query) - len(listed)) > 1 or OSA.distance(query, listed, score_cutoff=1) > 1:
        return None
    if len(query) != len(listed):
        longer, shorter = (listed, query) if len(query) < len(listed) else (query, listed)
        at = next((i for i, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter))
        doubled = (at > 0 and longer[at] == longer[at - 1]) or (at + 1 < len(longer) and longer[at] == longer[at + 1])
        if doubled:
            return NameRule.DOUBLED_LETTER
        return NameRule.DROPPED_LETTER if len(query) < len(listed) else NameRule.ADDED_LETTER
    differing = [i for i, (a, b) in enumerate(zip(query, listed, strict=True)) if a != b]
    if len(differing) == 2:
        return NameRule.TRANSPOSED_LETTERS
    at = differing[0]
    if query[at] in KEYBOARD_NEIGHBOURS.get(listed[at], ()):
        return NameRule.KEYBOARD_SLIP
    return NameRule.REPLACED_LETTER


def judge(query: str, listed: str) -> Judgement:
    """Which rule makes two folded names one, and its score (0 when none does)."""
    if query == listed:
        return Judgement(EXACT_SCORE, NameRule.EXACT)
    if spaced_alike(query) & spaced_alike(listed):
        return Judgement(SPACING_SCORE, NameRule.SPACING)
    transliterated = transliteration_key(query) == transliteration_key(listed)
    letters = min(len(query.replace(" ", "")), len(listed.replace(" ", "")))
    if letters < SHORT_NAME_LENGTH:
        return Judgement(TRANSLITERATION_SCORE, NameRule.TRANSLITERATION) if transliterated else _NO_MATCH
    if series_differ(query, listed):
        return Judgement(min(SERIES_MISMATCH_CAP, fuzz.ratio(query, listed)), NameRule.SERIES_MISMATCH)
    if transliterated:
        return Judgement(TRANSLITERATION_SCORE, NameRule.TRANSLITERATION)
    if sorted(query.split()) == sorted(listed.split()):
        return Judgement(WORD_ORDER_SCORE, NameRule.WORD_ORDER)
    edit = _one_edit(query, listed)
    if edit is not None and (
        letters >= ANY_EDIT_FROM
        or (
            edit in NEAR_VARIANT_RULES
            and (letters >= FIRST_LETTER_FREE_FROM or query[0] == listed[0] or edit == NameRule.TRANSPOSED_LETTERS)
        )
    ):
        return Judgement(NEAR_VARIANT_SCORE, edit)
    best = _NO_MATCH
    if letters >= TWO_EDITS_FROM and OSA.distance(query, listed, score_cutoff=2) <= 2:
        best = Judgement(NEAR_VARIANT_SCORE, NameRule.TWO_EDITS)
    if letters >= SIMILAR_FROM:
        similar = max(fuzz.ratio(query, listed), fuzz.token_sort_ratio(query, listed))
        if similar > best.score:
            best = Judgement(similar, NameRule.SIMILAR)
    return best


def name_similarity(query: str, listed: str) -> float:
    """0-100: how far two folded names are one name (`judge`'s score)."""
    return judge(query, listed).score


def rules_in_force() -> dict[str, object]:
    """The thresholds as the evidence pack and the quality report print them."""
    return {
        "vessel_name_cutoff": VESSEL_NAME_CUTOFF,
        "entity_name_cutoff": ENTITY_NAME_CUTOFF,
        "probable_name_score": PROBABLE_NAME_SCORE,
        "exact_only_below_letters": SHORT_NAME_LENGTH,
        "near_variant_first_letter_free_from_letters": FIRST_LETTER_FREE_FROM,
        "any_edit_from_letters": ANY_EDIT_FROM,
        "two_edits_from_letters": TWO_EDITS_FROM,
        "similar_from_letters": SIMILAR_FROM,
        "near_variant_score": NEAR_VARIANT_SCORE,
        "series_mismatch_cap": SERIES_MISMATCH_CAP,
        "rules_version": RULES_VERSION,
    }


QUALITY_FILE = Path(__file__).with_name("matching_quality.json")


def quality_markdown() -> str:
    """The published matching quality (bench/matching_quality.py --write) as a section of the reference page."""
    figures = json.loads(QUALITY_FILE.read_text())
    from_short = figures["recall_at_1_from_short_name_length"]
    rows = [
        f"| {family} | {figures['queries'][family]} | {recall:.3f} | "
        + (f"{from_short[family]:.3f}" if family in from_short else "")
        + (" | targeted |" if family in figures["targeted_families"] else " | reported only |")
        for family, recall in figures["recall_at_1"].items()
    ]
    return "\n".join(
        [
            "## Matching quality",
            "",
            f"Names only, on the {figures['snapshot']} snapshot (seed {figures['seed']}): recall at rank 1 of "
            "each variant a vessel name takes, and false AMBERs on real ship names "
            f"({figures['negative_set']}): **{figures['false_amber_names']} of {figures['negative_names']:,}** "
            f"({100 * figures['false_amber_rate']:.2f} %). Every match explains itself in `explanation`.",
            "",
            f"| variant family | queries | recall@1 | recall@1, names of {SHORT_NAME_LENGTH}+ letters | |",
            "|---|---|---|---|---|",
            *rows,
            "",
            "Rules in force: " + ", ".join(f"{key} {value}" for key, value in figures["rules"].items()) + ".",
        ]
    )
