"""Export-control categories of HS chapters and headings under named regimes: facts this service writes.

A category names the HS chapters (2 digits) and headings (4 digits) it covers and every measure that
restricts it. A measure names the country, the direction it bites (`to`: goods going to the country,
read from destination_country and the discharge port's country; `from`: goods coming from it, read
from origin_country and the load port's country; `either`: both), its severity and its legal source:
- `prohibited`: the whole chapter or heading falls under the measure for that country (a cargo
  screening reads RED);
- `restricted`: the chapter holds listed items and unlisted ones, so the full code must be checked
  against the measure's annex (AMBER: review).
An HS code is matched by its chapter (first two digits) and, for categories written by heading, its
heading (first four digits); a 2-digit code matches no heading-level category. Facts as of 2025, from
the instruments named on each measure (EU Council Regulations and Decisions as amended, UN Security
Council resolutions, US Executive Orders and the Export Administration Regulations); an operator
re-checks this table when a programme changes. Licence requirements that apply whatever the
destination (e.g. dual-use goods leaving the EU for any country) are not assessed.

The countries a measure names are also read against voyages/layers/sanctions_regimes.py (the one
table of country regimes): a cargo to a comprehensively sanctioned country is RED from that table
alone, whatever its commodity.
"""

from __future__ import annotations

from dataclasses import dataclass

TO = "to"
FROM = "from"
EITHER = "either"
PROHIBITED = "prohibited"
RESTRICTED = "restricted"


@dataclass(frozen=True)
class Measure:
    country: str  # ISO 3166-1 alpha-2
    direction: str  # TO, FROM or EITHER
    severity: str  # PROHIBITED or RESTRICTED
    regime: str  # the instrument, as a reader would look it up


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    chapters: frozenset[str]
    headings: frozenset[str]
    measures: tuple[Measure, ...]

    def covers(self, hs_code: str) -> bool:
        return hs_code[:2] in self.chapters or (len(hs_code) >= 4 and hs_code[:4] in self.headings)


CATEGORIES: tuple[Category, ...] = (
    Category(
        "arms",
        "Arms and ammunition (HS chapter 93)",
        frozenset({"93"}),
        frozenset(),
        (
            # UNSCR 1718 (2006) para 8, extended to all arms by UNSCR 1874 (2009) and 2270 (2016).
            Measure("KP", EITHER, PROHIBITED, "UN Security Council resolution 1718 (2006) arms embargo"),
            # UNSCR 1970 (2011) paras 9 (supply to Libya) and 10 (procurement from Libya).
            Measure("LY", EITHER, PROHIBITED, "UN Security Council resolution 1970 (2011) arms embargo"),
            # UNSCR 2428 (2018), renewed each year.
            Measure("SS", TO, PROHIBITED, "UN Security Council resolution 2428 (2018) arms embargo"),
            Measure("SD", TO, PROHIBITED, "EU arms embargo on Sudan (Council Decision 2014/450/CFSP)"),
            Measure("RU", EITHER, PROHIBITED, "EU arms embargo on Russia (Council Decision 2014/512/CFSP, Art. 2)"),
            Measure("BY", TO, PROHIBITED, "EU arms embargo on Belarus (Council Regulation (EC) No 765/2006)"),
            Measure("MM", TO, PROHIBITED, "EU arms embargo on Myanmar (Council Regulation (EU) No 401/2013)"),
            Measure("VE", TO, PROHIBITED, "EU arms embargo on Venezuela (Council Regulation (EU) 2017/2063)"),
            Measure("IR", EITHER, PROHIBITED, "EU arms embargo on Iran (Council Decision 2010/413/CFSP)"),
            # Kept when the EU lifted its economic measures on Syria in May 2025.
            Measure("SY", TO, PROHIBITED, "EU arms embargo on Syria (Council Decision 2013/255/CFSP)"),
            # UNSCR 2714 (2023) lifted the general embargo on Somalia; it stays on al-Shabaab (UNSCR 2713 (2023)).
            Measure("SO", TO, RESTRICTED, "UN Security Council resolution 2713 (2023) (al-Shabaab arms embargo)"),
            # UNSCR 2216 (2015) para 14: on designated individuals and entities (the Houthis), not the state.
            Measure("YE", TO, RESTRICTED, "UN Security Council resolution 2216 (2015) targeted arms embargo"),
        ),
    ),
    Category(
        "dual_use",
        "Dual-use goods: chapters holding items of Annex I to Regulation (EU) 2021/821 "
        "(chemicals, machinery, electronics, aircraft, instruments)",
        frozenset({"28", "29", "84", "85", "88", "90"}),
        frozenset(),
        (
            Measure(
                "RU",
                TO,
                RESTRICTED,
                "Council Regulation (EU) No 833/2014, Art. 2 (dual-use goods) and Art. 2a (Annex VII advanced "
                "technology); US Export Administration Regulations, 15 CFR 746.8",
            ),
            Measure(
                "BY",
                TO,
                RESTRICTED,
                "Council Regulation (EC) No 765/2006 as amended by Regulation (EU) 2022/355 (dual-use and advanced "
                "technology); US Export Administration Regulations, 15 CFR 746.8",
            ),
            Measure("IR", TO, RESTRICTED, "Council Regulation (EU) No 267/2012 (nuclear-related and dual-use goods)"),
            Measure("KP", TO, RESTRICTED, "Council Regulation (EU) 2017/1509 (dual-use goods); UNSCR 1718 (2006)"),
            Measure(
                "MM", TO, RESTRICTED, "Council Regulation (EU) No 401/2013 (dual-use goods for military end users)"
            ),
        ),
    ),
    Category(
        "luxury_goods",
        "Luxury goods (spirits, tobacco, perfume, leather, fur, jewellery, watches, instruments, art, cars, yachts)",
        frozenset({"22", "24", "33", "42", "43", "71", "91", "92", "97"}),
        frozenset({"8703", "8903"}),
        (
            Measure(
                "RU", TO, RESTRICTED, "Council Regulation (EU) No 833/2014, Art. 3h and Annex XVIII (luxury goods)"
            ),
            Measure(
                "KP",
                TO,
                RESTRICTED,
                "UN Security Council resolution 1718 (2006) para 8(a)(iii) (luxury goods); Council Regulation "
                "(EU) 2017/1509",
            ),
        ),
    ),
    Category(
        "crude_oil_and_products",
        "Crude petroleum and petroleum products (HS 2709, 2710)",
        frozenset(),
        frozenset({"2709", "2710"}),
        (
            Measure(
                "RU",
                FROM,
                RESTRICTED,
                "Council Regulation (EU) No 833/2014, Art. 3m and 3n (seaborne import ban, G7 price cap); US "
                "Executive Orders 14066 and 14071",
            ),
            Measure("IR", FROM, RESTRICTED, "US Executive Order 13846 (Iranian petroleum)"),
            Measure("VE", FROM, RESTRICTED, "US Executive Orders 13850 and 13884 (Venezuelan oil sector, PdVSA)"),
        ),
    ),
    Category(
        "iron_and_steel",
        "Iron and steel and articles thereof (HS chapters 72, 73)",
        frozenset({"72", "73"}),
        frozenset(),
        (
            Measure("RU", FROM, RESTRICTED, "Council Regulation (EU) No 833/2014, Art. 3g and Annex XVII"),
            Measure(
                "BY", FROM, RESTRICTED, "Council Regulation (EC) No 765/2006 as amended by Regulation (EU) 2022/355"
            ),
        ),
    ),
    Category(
        "coal",
        "Coal (HS 2701)",
        frozenset(),
        frozenset({"2701"}),
        (Measure("RU", FROM, RESTRICTED, "Council Regulation (EU) No 833/2014, Art. 3j and Annex XXII"),),
    ),
    Category(
        "gold_and_diamonds",
        "Gold and diamonds (HS 7108, 7102)",
        frozenset(),
        frozenset({"7108", "7102"}),
        (Measure("RU", FROM, RESTRICTED, "Council Regulation (EU) No 833/2014, Art. 3o (gold) and 3p (diamonds)"),),
    ),
)

BY_KEY = {category.key: category for category in CATEGORIES}


@dataclass(frozen=True)
class ControlHit:
    """One measure that a cargo's commodity and route meet."""

    category: Category
    measure: Measure
    field: str  # the request field whose country met the measure

    def as_dict(self) -> dict:
        return {
            "category": self.category.key,
            "label": self.category.label,
            "country_code": self.measure.country,
            "direction": self.measure.direction,
            "severity": self.measure.severity,
            "regime": self.measure.regime,
            "field": self.field,
        }


def categories_for(hs_code: str) -> list[Category]:
    """The categories an HS code (2, 4 or 6 digits) falls in."""
    return [category for category in CATEGORIES if category.covers(hs_code)]


def controls_met(hs_code: str, *, to: dict[str, str], came_from: dict[str, str]) -> list[ControlHit]:
    """The measures the commodity meets on this route. `to` / `came_from`: request field -> country code
    (destination side, origin side). One hit per measure, named by the first field that met it."""
    hits: list[ControlHit] = []
    for category in categories_for(hs_code):
        for measure in category.measures:
            sides = {TO: [to], FROM: [came_from], EITHER: [to, came_from]}[measure.direction]
            for side in sides:
                field = next((name for name, code in side.items() if code == measure.country), None)
                if field is not None:
                    hits.append(ControlHit(category, measure, field))
                    break
    return hits
