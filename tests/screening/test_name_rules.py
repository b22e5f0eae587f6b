"""The name rules of screening/name_rules.py, each proven on a small index of listed vessels: the variant
a vessel name really takes is found at rank 1 by its rule, and a different ship's name is not."""

from __future__ import annotations

import pytest

from screening.index import SanctionsIndex
from screening.matching import match_hull
from screening.name_rules import NameRule
from screening.records import RECORD_VESSEL, ListedRecord

LISTED = (
    "STAR III",
    "ARK III",
    "SEA ROSE",
    "DMITRIY SHOSTAKOVICH",
    "AL KHALIJ",
    "TOUR 2",
    "ADRIATIC",
    "ARIES",
    "PETRA",
    "GILDA",
    "SOLAN",
    "MARGARITA 1",
    "MARIA E",
    "BICENTENARIO VII",
    "BICENTENARIO I",
    "GOLDEN OCEAN",
    "VOLGA",
)


@pytest.fixture(scope="module")
def index():
    records = [
        ListedRecord(source="ofac_sdn", record_type=RECORD_VESSEL, name=name, source_record_id=str(number))
        for number, name in enumerate(LISTED, start=1)
    ]
    return SanctionsIndex.build(records, version="rules")


def first_vessel_hit(index, query):
    hits = match_hull(index, imo="0000000", mmsi=None, names=[query], chosen_name=query)
    return hits[0] if hits else None


@pytest.mark.parametrize(
    ("query", "listed", "rule"),
    [
        ("STAR 3", "STAR III", NameRule.EXACT),
        ("STAR THREE", "STAR III", NameRule.EXACT),
        ("ARKIII", "ARK III", NameRule.SPACING),
        ("SEAROSE", "SEA ROSE", NameRule.SPACING),
        ("DMITRY SHOSTAKOVICH", "DMITRIY SHOSTAKOVICH", NameRule.TRANSLITERATION),
        ("AL HALIJ", "AL KHALIJ", NameRule.TRANSLITERATION),
        ("TUR 2", "TOUR 2", NameRule.TRANSLITERATION),
        ("OCEAN GOLDEN", "GOLDEN OCEAN", NameRule.WORD_ORDER),
        ("AIRES", "ARIES", NameRule.TRANSPOSED_LETTERS),
        ("PETTRA", "PETRA", NameRule.DOUBLED_LETTER),
        ("PETRS", "PETRA", NameRule.KEYBOARD_SLIP),
        ("VLGA", "VOLGA", None),  # four letters: exact only
        ("ADRIATC", "ADRIATIC", NameRule.DROPPED_LETTER),
        ("ADRIXTIC", "ADRIATIC", NameRule.REPLACED_LETTER),
        ("BICENTENARIO SEVEN", "BICENTENARIO VII", NameRule.EXACT),
    ],
)
def test_a_variant_a_vessel_name_takes_is_found_first_by_its_rule(index, query, listed, rule):
    hit = first_vessel_hit(index, query)
    if rule is None:
        assert hit is None
        return
    assert hit is not None and hit.record.name == listed
    assert hit.name_rule == rule


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("BILDA", "a five-letter name with another first letter rhymes: another ship"),
        ("SOLANO", "a letter added to a short name reaches 26 times as many names"),
        ("ARIEL", "an arbitrary replaced letter on a short name"),
        ("MARGARITA", "a number on one side only: another hull of a series"),
        ("MARIA R", "a different series letter"),
        ("BICENTENARIO 2", "another number"),
    ],
)
def test_a_different_ships_name_is_not_taken_for_a_variant(index, query, why):
    assert first_vessel_hit(index, query) is None, why


def test_a_number_never_rescues_a_near_name_of_another_number(index):
    hit = first_vessel_hit(index, "BICENTENARIO 7")
    assert hit.record.name == "BICENTENARIO VII" and hit.name_rule == NameRule.EXACT
    assert all(
        h.record.name != "BICENTENARIO I"
        for h in match_hull(index, imo="0000000", mmsi=None, names=["BICENTENARIO 7"], chosen_name="BICENTENARIO 7")
    )
