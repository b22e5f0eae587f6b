"""The demo world: a deterministic, fictional dataset this project generates.

Every verdict path and notice of the contract has at least one hull here (README, "Demo
world"). Names are invented; IMO numbers carry valid check digits (except where a bad one
is the point). Every snapshot is marked demo, and its `sources` row says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TypedDict, Unpack

from screening.records import (
    RECORD_ENTITY,
    RECORD_VESSEL,
    Inspection,
    ListedRecord,
    ParsedSnapshot,
    RegisterRecord,
)

DEMO_PUBLISHED = datetime(2026, 11, 20, 0, 0, tzinfo=UTC)
_WEIGHTS = (7, 6, 5, 4, 3, 2)


def imo_from_stem(stem: int) -> str:
    """A 7-digit ship IMO number whose seventh digit is the check digit of the six-digit stem."""
    digits = f"{stem:06d}"
    check = sum(int(d) * w for d, w in zip(digits, _WEIGHTS, strict=True)) % 10
    return f"{digits}{check}"


@dataclass(frozen=True)
class DemoHull:
    key: str
    imo: str
    outcome: str  # what a screening of this hull shows (README table)


# Stems are arbitrary; the IMO numbers follow from them.
RED_OFAC = imo_from_stem(930011)
RED_UN_1718 = imo_from_stem(930022)
AMBER_NAME_ONLY = imo_from_stem(930033)
AMBER_WATCHLIST = imo_from_stem(930044)
AMBER_AGGREGATED = imo_from_stem(930055)
AMBER_MMSI = imo_from_stem(930066)
GREEN_CLEAN = imo_from_stem(930077)  # grade A, ownership LOW
GREEN_GRADE_B = imo_from_stem(930088)
GREEN_GRADE_C = imo_from_stem(930099)  # ownership MEDIUM
GREEN_GRADE_D = imo_from_stem(930101)
GREEN_GRADE_E = imo_from_stem(930112)  # ownership HIGH
NOT_ASSESSED = imo_from_stem(930123)
INCOMPLETE_IDENTITY = imo_from_stem(930134)
CONTESTED = imo_from_stem(930145)
ENTITY_COLLISION = imo_from_stem(930156)
IMO_COLLISION = imo_from_stem(930167)
IMO_COLLISION_LISTED = imo_from_stem(930178)
RENAMED = imo_from_stem(930189)
BAD_CHECK_DIGIT = RED_OFAC[:6] + str((int(RED_OFAC[6]) + 1) % 10)

HULLS = (
    DemoHull("red_ofac", RED_OFAC, "RED: exact IMO on ofac_sdn (vetting floored at 90, grade E)"),
    DemoHull("red_un_1718", RED_UN_1718, "RED: exact IMO on the UN 1718 designated-vessels list"),
    DemoHull("amber_name_only", AMBER_NAME_ONLY, "AMBER shape 1: name-only hit on a listed vessel record"),
    DemoHull("amber_watchlist", AMBER_WATCHLIST, "AMBER shape 2: exact IMO on ua_war_sanctions (floor 61, grade D)"),
    DemoHull(
        "amber_aggregated", AMBER_AGGREGATED, "AMBER shape 3: aggregated 'sanction' tag no primary list corroborates"
    ),
    DemoHull("amber_mmsi", AMBER_MMSI, "AMBER: exact MMSI on a listed vessel, IMO not listed"),
    DemoHull("green_clean", GREEN_CLEAN, "GREEN, coverage complete, vetting A, ownership LOW"),
    DemoHull("green_grade_b", GREEN_GRADE_B, "GREEN, vetting B"),
    DemoHull("green_grade_c", GREEN_GRADE_C, "GREEN, vetting C, ownership MEDIUM"),
    DemoHull("green_grade_d", GREEN_GRADE_D, "GREEN, vetting D"),
    DemoHull("green_grade_e", GREEN_GRADE_E, "GREEN, vetting E, ownership HIGH"),
    DemoHull("not_assessed", NOT_ASSESSED, "GREEN, vetting not_assessed (a name and nothing else)"),
    DemoHull(
        "incomplete_identity",
        INCOMPLETE_IDENTITY,
        "INCOMPLETE: no register names it (retry_after set; send vessel_name to resolve)",
    ),
    DemoHull("contested", CONTESTED, "INCOMPLETE: four different names recorded (identity_contested)"),
    DemoHull("entity_collision", ENTITY_COLLISION, "GREEN: name hits a listed company (entity), drove_verdict false"),
    DemoHull("imo_collision", IMO_COLLISION, "GREEN: name hits a listed vessel with a different IMO (collision)"),
    DemoHull("renamed", RENAMED, "RED: listed by IMO; the listing also carries its former name as an alias"),
    DemoHull("bad_check_digit", BAD_CHECK_DIGIT, "INCOMPLETE: seventh digit fails the checksum (not charged)"),
)


class _ListedFields(TypedDict, total=False):
    """The ListedRecord fields `_listed` passes through (all but those it takes as arguments)."""

    aliases: tuple[str, ...]
    imo: str | None
    imo_check_digit_valid: bool | None
    mmsi: str | None
    company_numbers: tuple[str, ...]
    programs: tuple[str, ...]
    listed_on: str | None
    source_url: str | None
    flags: tuple[str, ...]
    vessel_type: str | None
    tags: tuple[str, ...]
    dataset: str | None
    owners: tuple[str, ...]


def _listed(source: str, record_type: str, name: str, record_id: str, **fields: Unpack[_ListedFields]) -> ListedRecord:
    return ListedRecord(source=source, record_type=record_type, name=name, source_record_id=record_id, **fields)


def sanctions_snapshots() -> list[ParsedSnapshot]:
    ofac = ParsedSnapshot(
        "ofac_sdn",
        published_at=DEMO_PUBLISHED,
        records=[
            _listed(
                "ofac_sdn",
                RECORD_VESSEL,
                "DEMO AURORA BLISS",
                "990001",
                imo=RED_OFAC,
                imo_check_digit_valid=True,
                mmsi="613990001",
                programs=("IRAN",),
                listed_on="2025-03-14",
                flags=("CM",),
                vessel_type="Crude Oil Tanker",
                source_url="https://sanctionssearch.ofac.treas.gov/Details.aspx?id=990001",
            ),
            _listed(
                "ofac_sdn",
                RECORD_VESSEL,
                "DEMO SILVER TIDE",
                "990002",
                programs=("SDGT",),
                listed_on="2024-07-02",
                vessel_type="General Cargo",
            ),
            _listed(
                "ofac_sdn",
                RECORD_VESSEL,
                "DEMO KESTREL DAWN",
                "990003",
                mmsi="667990003",
                programs=("RUSSIA-EO14024",),
                listed_on="2025-01-10",
                flags=("SL",),
            ),
            _listed(
                "ofac_sdn",
                RECORD_ENTITY,
                "DEMO ORION TRADERS LLC",
                "990004",
                programs=("IRAN",),
                company_numbers=("5990041",),
                listed_on="2023-05-19",
            ),
            _listed(
                "ofac_sdn",
                RECORD_VESSEL,
                "DEMO BLUE HORIZON",
                "990005",
                imo=IMO_COLLISION_LISTED,
                imo_check_digit_valid=True,
                programs=("VENEZUELA-EO13850",),
                listed_on="2022-11-30",
            ),
            _listed(
                "ofac_sdn",
                RECORD_VESSEL,
                "DEMO MIDNIGHT OPAL",
                "990006",
                imo=RENAMED,
                imo_check_digit_valid=True,
                aliases=("DEMO PEARL OF ADEN",),
                programs=("IRAN",),
                listed_on="2024-02-21",
            ),
        ],
    )
    un = ParsedSnapshot(
        "un_sanctions",
        published_at=DEMO_PUBLISHED,
        records=[
            _listed(
                "un_sanctions",
                RECORD_VESSEL,
                "DEMO CHON MA",
                "KPv.990",
                imo=RED_UN_1718,
                imo_check_digit_valid=True,
                programs=("DPRK 1718",),
                listed_on="2018-03-30",
            ),
            _listed(
                "un_sanctions",
                RECORD_ENTITY,
                "DEMO KORYO SHIPPING COMPANY",
                "KPe.990",
                company_numbers=("5990101",),
                programs=("DPRK 1718",),
                listed_on="2017-08-05",
            ),
        ],
    )
    eu = ParsedSnapshot(
        "eu_sanctions",
        published_at=DEMO_PUBLISHED,
        list_edition_label="eu_fsf",
        records=[
            _listed(
                "eu_sanctions",
                RECORD_VESSEL,
                "DEMO AURORA BLISS",
                "EU.9901.01",
                imo=RED_OFAC,
                imo_check_digit_valid=True,
                programs=("IRN",),
                listed_on="2025-05-20",
                dataset="eu_fsf",
            ),
        ],
    )
    uk = ParsedSnapshot(
        "uk_sanctions",
        published_at=DEMO_PUBLISHED,
        records=[
            _listed(
                "uk_sanctions",
                RECORD_ENTITY,
                "DEMO NORTHWIND FREIGHT LIMITED",
                "RUS9901",
                programs=("Russia",),
                listed_on="2024-12-17",
            ),
        ],
    )
    aggregated = ParsedSnapshot(
        "opensanctions",
        published_at=DEMO_PUBLISHED,
        records=[
            _listed(
                "opensanctions",
                RECORD_VESSEL,
                "DEMO GREY PETREL",
                "demo-os-vessel-1",
                imo=AMBER_AGGREGATED,
                imo_check_digit_valid=True,
                tags=("sanction",),
                programs=("demo_aggregated",),
                source_url="https://www.opensanctions.org/entities/demo-os-vessel-1/",
            ),
            _listed(
                "opensanctions",
                RECORD_VESSEL,
                "DEMO AURORA BLISS",
                "demo-os-vessel-2",
                imo=RED_OFAC,
                imo_check_digit_valid=True,
                tags=("sanction", "mare.shadow"),
                programs=("us_ofac_sdn",),
            ),
        ],
    )
    ukraine = ParsedSnapshot(
        "ua_war_sanctions",
        published_at=DEMO_PUBLISHED,
        records=[
            _listed(
                "ua_war_sanctions",
                RECORD_VESSEL,
                "DEMO VOLGA STAR",
                "ua-demo-1",
                imo=AMBER_WATCHLIST,
                imo_check_digit_valid=True,
                listed_on="2025-09-01",
                programs=("shadow_fleet",),
            ),
        ],
    )
    return [ofac, un, eu, uk, aggregated, ukraine]


# Dates below are written as of DEMO_AUTHORED_ON and shifted to the day the demo is seeded,
# so ages and inspection recency (and the grades they give) stay as documented.
DEMO_AUTHORED_ON = date(2026, 11, 23)


def _shift(day: date) -> date:
    return day + (date.today() - DEMO_AUTHORED_ON)


def _year(year: int) -> int:
    return year + (date.today().year - DEMO_AUTHORED_ON.year)


class _RegisterFields(TypedDict, total=False):
    """The RegisterRecord fields `_particulars` passes through (all but those it sets itself)."""

    former_names: tuple[str, ...]
    flag: str | None
    former_flags: tuple[str, ...]
    mmsi: str | None
    ship_type: str | None
    build_year: int | None
    dwt: int | None
    gt: int | None
    registered_owner: str | None
    registered_owner_country: str | None
    manager: str | None
    manager_country: str | None
    operator: str | None
    operator_country: str | None
    beneficial_owner: str | None
    owner_lei: str | None
    class_society: str | None


class _Ownership(TypedDict, total=False):
    """The ownership fields of a demo register record, shared by several hulls."""

    registered_owner: str
    registered_owner_country: str
    manager: str
    manager_country: str
    beneficial_owner: str
    owner_lei: str


def _particulars(register: str, imo: str, name: str | None, **fields: Unpack[_RegisterFields]) -> RegisterRecord:
    return RegisterRecord(register=register, imo=imo, name=name, as_of=_shift(date(2026, 11, 1)), **fields)


def _inspections(register: str, imo: str, rows: list[tuple[str, int, bool]]) -> list[Inspection]:
    return [
        Inspection(
            register=register,
            imo=imo,
            inspected_on=_shift(date.fromisoformat(day)),
            port="Demo Port",
            authority="Demo PSC",
            deficiencies=deficiencies,
            detained=detained,
        )
        for day, deficiencies, detained in rows
    ]


def register_snapshots() -> list[ParsedSnapshot]:
    svr = "service_vessel_register"
    ais = "ais_registry"
    tokyo = "tokyo_mou_psc"
    paris = "paris_mou_thetis"
    apcis = "apcis_tokyo_mou_history"
    transparent: _Ownership = {
        "registered_owner": "Demo Nordic Shipowning AS",
        "registered_owner_country": "NO",
        "manager": "Demo Nordic Ship Management AS",
        "manager_country": "NO",
        "beneficial_owner": "Demo Nordic Holding ASA",
        "owner_lei": "5493DEMO000000000001",
    }
    opaque: _Ownership = {
        "registered_owner": "Demo Ocean Star Inc",
        "registered_owner_country": "MH",
        "manager": "Demo Gulf Marine Services FZE",
        "manager_country": "AE",
    }
    middling: _Ownership = {
        "registered_owner": "Demo Pacific Bulk SA",
        "registered_owner_country": "PA",
        "manager": "Demo Pacific Bulk Management Ltd",
        "manager_country": "GR",
        "beneficial_owner": "Demo Pacific Holdings",
    }
    particulars = [
        _particulars(
            svr,
            RED_OFAC,
            "DEMO AURORA BLISS",
            flag="CM",
            build_year=_year(2003),
            dwt=159000,
            ship_type="Crude Oil Tanker",
            mmsi="613990001",
            **opaque,
        ),
        _particulars(
            svr,
            AMBER_NAME_ONLY,
            "DEMO SILVER TIDE",
            flag="PA",
            build_year=_year(2009),
            ship_type="General Cargo",
            **middling,
        ),
        _particulars(
            ais, AMBER_WATCHLIST, "DEMO VOLGA STAR", flag="GA", build_year=_year(2005), ship_type="Oil Products Tanker"
        ),
        _particulars(ais, AMBER_MMSI, "DEMO RIVER KESTREL", mmsi="667990003", flag="SL", build_year=_year(2001)),
        _particulars(
            svr,
            GREEN_CLEAN,
            "DEMO FJORD GUARDIAN",
            flag="NO",
            build_year=_year(2021),
            dwt=48000,
            ship_type="Chemical Tanker",
            class_society="DNV",
            **transparent,
        ),
        _particulars(ais, GREEN_CLEAN, "DEMO FJORD GUARDIAN", mmsi="257990077", flag="NO"),
        _particulars(
            svr, GREEN_GRADE_B, "DEMO ATLANTIC WREN", flag="EG", build_year=_year(2012), dwt=63000, **middling
        ),
        _particulars(
            svr, GREEN_GRADE_C, "DEMO CORAL LANTERN", flag="VN", build_year=_year(2008), dwt=75000, **middling
        ),
        _particulars(svr, GREEN_GRADE_D, "DEMO IRON MARLIN", flag="TZ", build_year=_year(2002), dwt=45000, **opaque),
        _particulars(
            svr,
            GREEN_GRADE_E,
            "DEMO RUSTED HERON",
            flag="CM",
            build_year=_year(1996),
            dwt=38000,
            former_flags=("TG", "KM"),
            registered_owner="Demo Shell Holdings Ltd",
            registered_owner_country="VG",
            manager=None,
        ),
        _particulars(ais, NOT_ASSESSED, "DEMO QUIET MERIDIAN"),
        _particulars(svr, CONTESTED, "DEMO ALPHA ONE"),
        _particulars(ais, CONTESTED, "DEMO BRAVO TWO"),
        _particulars(tokyo, CONTESTED, "DEMO CHARLIE THREE"),
        _particulars(paris, CONTESTED, "DEMO DELTA FOUR"),
        _particulars(svr, ENTITY_COLLISION, "DEMO ORION TRADER", flag="LR", build_year=_year(2016), **middling),
        _particulars(svr, IMO_COLLISION, "DEMO BLUE HORIZON", flag="BS", build_year=_year(2012), **transparent),
        _particulars(
            svr,
            RENAMED,
            "DEMO MIDNIGHT OPAL",
            former_names=("DEMO PEARL OF ADEN",),
            flag="PA",
            build_year=_year(2000),
            **opaque,
        ),
    ]
    inspections = (
        _inspections(paris, GREEN_CLEAN, [("2026-08-12", 0, False), ("2025-09-30", 1, False)])
        + _inspections(paris, GREEN_GRADE_B, [("2026-03-02", 3, False), ("2024-11-18", 2, False)])
        + _inspections(tokyo, GREEN_GRADE_C, [("2025-06-15", 6, False), ("2024-02-11", 9, True)])
        + _inspections(apcis, GREEN_GRADE_D, [("2024-05-20", 12, True), ("2023-08-03", 8, True)])
        + _inspections(
            tokyo, GREEN_GRADE_E, [("2025-01-09", 21, True), ("2024-10-02", 17, True), ("2024-06-14", 15, True)]
        )
        + _inspections(paris, RED_OFAC, [("2022-04-01", 7, True)])
    )
    by_register: dict[str, list] = {}
    for record in particulars + inspections:
        by_register.setdefault(record.register, []).append(record)
    return [ParsedSnapshot(register, records=rows, published_at=None) for register, rows in sorted(by_register.items())]


def all_snapshots(omit: frozenset[str] = frozenset()) -> list[ParsedSnapshot]:
    return [s for s in sanctions_snapshots() + register_snapshots() if s.source not in omit]
