"""A synthetic sanctions world of any size, for benchmarks (deterministic for a seed).

Names are built from syllables, so they collide and resemble each other the way real
vessel and company names do; IMO numbers carry valid check digits.
"""

from __future__ import annotations

import random

SYLLABLES = (
    "an",
    "ar",
    "bel",
    "cor",
    "da",
    "el",
    "fa",
    "gor",
    "ha",
    "ir",
    "ka",
    "lu",
    "ma",
    "nor",
    "or",
    "pa",
    "qui",
    "ra",
    "sa",
    "ta",
    "ul",
    "va",
    "we",
    "xi",
    "ya",
    "zo",
    "sun",
    "sea",
    "star",
    "wind",
    "tide",
)
WORDS = ("OCEAN", "STAR", "GLORY", "SPIRIT", "PRIDE", "QUEEN", "EXPRESS", "TRADER", "VOYAGER", "PEARL", "HORIZON")
COMPANY_TAILS = ("SHIPPING LLC", "MARITIME LTD", "TRADING CO", "NAVIGATION SA", "MARINE INC")


def imo_with_check_digit(stem: int) -> str:
    digits = f"{stem:06d}"
    check = sum(int(d) * w for d, w in zip(digits, (7, 6, 5, 4, 3, 2), strict=True)) % 10
    return f"{digits}{check}"


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).upper()


def vessel_name(rng: random.Random) -> str:
    return f"{_word(rng)} {rng.choice(WORDS)}" if rng.random() < 0.6 else f"{_word(rng)} {_word(rng)}"


def listed_records(count: int, seed: int = 11) -> list:
    from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord

    rng = random.Random(seed)
    sources = ("ofac_sdn", "un_sanctions", "eu_sanctions", "uk_sanctions", "opensanctions", "ua_war_sanctions")
    records = []
    for number in range(count):
        source = rng.choice(sources)
        if rng.random() < 0.35:
            records.append(
                ListedRecord(
                    source=source,
                    record_type=RECORD_VESSEL,
                    name=vessel_name(rng),
                    source_record_id=f"syn-{number}",
                    aliases=tuple(vessel_name(rng) for _ in range(rng.randint(0, 2))),
                    imo=imo_with_check_digit(rng.randint(100000, 999999)),
                    imo_check_digit_valid=True,
                    mmsi=str(rng.randint(200000000, 799999999)),
                    programs=("SYNTHETIC",),
                )
            )
        else:
            records.append(
                ListedRecord(
                    source=source,
                    record_type=RECORD_ENTITY,
                    name=f"{_word(rng)} {rng.choice(COMPANY_TAILS)}",
                    source_record_id=f"syn-{number}",
                    aliases=(f"{_word(rng)} {rng.choice(COMPANY_TAILS)}",),
                    programs=("SYNTHETIC",),
                )
            )
    return records
