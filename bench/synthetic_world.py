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


def listed_records(count: int, seed: int = 11, vessel_share: float = 0.35) -> list:
    from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord

    rng = random.Random(seed)
    sources = ("ofac_sdn", "un_sanctions", "eu_sanctions", "uk_sanctions", "opensanctions", "ua_war_sanctions")
    records = []
    for number in range(count):
        source = rng.choice(sources)
        if rng.random() < vessel_share:
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


def register_rows(count: int, imos: list[str], seed: int = 13) -> list:
    """Register particulars across the five stores for the given hulls (and more), with names and owners."""
    from datetime import date

    from screening.records import RegisterRecord

    rng = random.Random(seed)
    stores = ("service_vessel_register", "ais_registry", "tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")
    rows = []
    for number in range(count):
        imo = imos[number % len(imos)] if number < len(imos) else imo_with_check_digit(rng.randint(100000, 999999))
        rows.append(
            RegisterRecord(
                register=stores[number % len(stores)],
                imo=imo,
                name=vessel_name(rng),
                flag=rng.choice(("PA", "LR", "MH")),
                build_year=rng.randint(1995, 2024),
                dwt=rng.randint(5000, 300000),
                registered_owner=f"{_word(rng)} SHIPPING SA",
                registered_owner_country=rng.choice(("PA", "GR", "NO")),
                as_of=date(2026, 10, 1),
            )
        )
    return rows


def inspection_rows(count: int, imos: list[str], seed: int = 17) -> list:
    from datetime import date, timedelta

    from screening.records import Inspection

    rng = random.Random(seed)
    stores = ("tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")
    return [
        Inspection(
            register=stores[n % 3],
            imo=rng.choice(imos),
            inspected_on=date(2026, 10, 1) - timedelta(days=rng.randint(0, 2000)),
            port="SYNTHETIC",
            deficiencies=rng.randint(0, 12),
            detained=rng.random() < 0.05,
        )
        for n in range(count)
    ]


def load_world(entries: int = 25000, vessels: int = 3000, registers: int = 200000, inspections: int = 500000) -> list:
    """Load a full-scale synthetic world into the configured database; returns the register IMOs."""
    from screening import datastate
    from screening.ingest import load_snapshot
    from screening.records import ParsedSnapshot

    listed = listed_records(entries, vessel_share=vessels / entries)
    for source in sorted({r.source for r in listed}):
        load_snapshot(
            ParsedSnapshot(source, records=[r for r in listed if r.source == source]),
            data_checksum=f"synthetic-{source}",
            origin="bench",
            is_demo=True,
            message="synthetic bench world",
        )
    imos = [r.imo for r in listed if r.imo]
    register = register_rows(registers, imos)
    all_imos = sorted({r.imo for r in register})
    held = inspection_rows(inspections, all_imos)
    by_store: dict[str, list] = {}
    for row in register + held:
        by_store.setdefault(row.register, []).append(row)
    for store, rows in by_store.items():
        load_snapshot(
            ParsedSnapshot(store, records=rows),
            data_checksum=f"synthetic-{store}",
            origin="bench",
            is_demo=True,
            message="synthetic bench world",
        )
    datastate.invalidate()
    return all_imos
