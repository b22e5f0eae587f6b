"""Every data source the service reads: its contract name, role, official URLs and parser.

URLs are facts about where each publisher puts its file; an operator can override any of
them with SOURCE_URL_<NAME>_<PART or EDITION> (e.g. SOURCE_URL_OFAC_SDN_SDN or
SOURCE_URL_EU_SANCTIONS_EU_FSF). Sources without a stable official machine-readable URL
(the UN 1718 vessel list, the Ukrainian shadow-fleet list, the register stores) are
loaded from files: `manage.py refresh_sources --source NAME --file PATH`.

`cadence` is how long our copy may go without a successful check before it reads stale
(screening/freshness.py): it measures our copy, never the publisher. OFAC publishes several
times a week, so a copy not checked for 2 days may miss an edition; the UN, EU and UK lists
and the aggregated build publish whenever there is something to publish (any day), so 3 days
without a check, i.e. several missed daily refreshes, is a copy that may be out of date. A
file only an operator can bring (no official machine-readable URL: the UN 1718 vessel list,
the EU journal and map mirrors, the maritime CSV, the Ukrainian list) changes with sanctions
packages, every few weeks to months; 30 days without a reload means a package may be missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import import_module

from screening.records import (
    ROLE_AGGREGATED,
    ROLE_DESIGNATING,
    ROLE_LIVE_REGISTER,
    ROLE_REGISTER_STORE,
    ROLE_WATCHLIST,
    ParsedSnapshot,
)


def _ofac_csv(files: dict[str, bytes]) -> ParsedSnapshot:
    # lazy like the parsers _single imports: a parser (with xml.etree, ~8 ms) loads only in a process that
    # loads a source, not in every process that reads the catalogue
    from screening.sources.ofac import parse_sdn_csv, parse_sdn_xml

    if "sdn" in files:
        return parse_sdn_csv(files["sdn"], files.get("alt"), files.get("add"))
    if "xml" in files:
        return parse_sdn_xml(files["xml"])
    raise ValueError("the OFAC SDN list needs sdn=SDN.CSV (with alt=ALT.CSV, add=ADD.CSV) or xml=SDN.XML")


def _single(module: str, function: str, *args: str) -> Callable[[dict[str, bytes]], ParsedSnapshot]:
    def parse(files: dict[str, bytes]) -> ParsedSnapshot:
        data = next(iter(files.values()))
        return getattr(import_module(module), function)(data, *args)

    return parse


# Parsers by key; specs name them so the table below stays data.
PARSERS: dict[str, Callable[[dict[str, bytes]], ParsedSnapshot]] = {
    "ofac": _ofac_csv,
    "un_consolidated": _single("screening.sources.un", "parse_consolidated_xml"),
    "un_1718": _single("screening.sources.un", "parse_1718_vessels_csv"),
    "eu_fsf": _single("screening.sources.eu", "parse_fsf_xml"),
    "eu_journal": _single("screening.sources.eu", "parse_journal_mirror_csv", "eu_journal_sanctions"),
    "eu_map": _single("screening.sources.eu", "parse_journal_mirror_csv", "eu_sanctions_map"),
    "uk_csv": _single("screening.sources.uk", "parse_uk_csv"),
    "aggregated_ftm": _single("screening.sources.aggregated", "parse_ftm_jsonl"),
    "aggregated_maritime": _single("screening.sources.aggregated", "parse_maritime_csv"),
    "ua": _single("screening.sources.ukraine", "parse_shadow_fleet_csv"),
}


# The files (parts) each parser reads, in the order an operator names them with --file PART=PATH.
# A parser with one part takes a single file under any name; OFAC's set needs sdn or xml.
PARTS: dict[str, tuple[str, ...]] = {
    "ofac": ("sdn", "alt", "add", "xml"),
    "un_consolidated": ("xml",),
    "un_1718": ("csv",),
    "eu_fsf": ("xml",),
    "eu_journal": ("csv",),
    "eu_map": ("csv",),
    "uk_csv": ("csv",),
    "aggregated_ftm": ("jsonl",),
    "aggregated_maritime": ("csv",),
    "ua": ("csv",),
}
REGISTER_PARTS = ("csv",)


def register_parser(register: str, kind: str) -> Callable[[dict[str, bytes]], ParsedSnapshot]:
    function = "parse_particulars_csv" if kind == "particulars" else "parse_inspections_csv"
    return _single("screening.sources.registers", function, register)


@dataclass(frozen=True)
class Source:
    name: str
    role: str
    description: str
    parser_key: str
    urls: dict[str, str] = field(default_factory=dict)
    edition: str = ""
    # The longest our copy may go without a successful check; None: never stale.
    cadence: timedelta | None = None
    cadence_note: str = ""  # how the publisher publishes, in words

    def url(self, part: str) -> str:
        override = os.environ.get(f"SOURCE_URL_{self.name.upper()}_{(self.edition or part).upper()}")
        return override if override is not None else self.urls.get(part, "")

    @property
    def parts(self) -> tuple[str, ...]:
        return PARTS[self.parser_key]

    def parse(self, files: dict[str, bytes]) -> ParsedSnapshot:
        return PARSERS[self.parser_key](files)


SEVERAL_A_WEEK = timedelta(days=2)
AS_PUBLISHED = timedelta(days=3)
OPERATOR_SUPPLIED = timedelta(days=30)

SANCTIONS_SOURCES: tuple[Source, ...] = (
    Source(
        "ofac_sdn",
        ROLE_DESIGNATING,
        "OFAC Specially Designated Nationals list (SDN.CSV with ALT.CSV, ADD.CSV)",
        "ofac",
        {
            "sdn": "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
            "alt": "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ALT.CSV",
            "add": "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADD.CSV",
        },
        cadence=SEVERAL_A_WEEK,
        cadence_note="several times a week",
    ),
    Source(
        "un_sanctions",
        ROLE_DESIGNATING,
        "UN Security Council consolidated list (XML)",
        "un_consolidated",
        {"xml": "https://scsanctions.un.org/resources/xml/en/consolidated.xml"},
        cadence=AS_PUBLISHED,
        cadence_note="as published",
    ),
    Source(
        "un_sanctions",
        ROLE_DESIGNATING,
        "UN 1718 Committee designated vessels (CSV, operator-supplied)",
        "un_1718",
        edition="un_1718_vessels",
        cadence=OPERATOR_SUPPLIED,
        cadence_note="operator-supplied",
    ),
    Source(
        "eu_sanctions",
        ROLE_DESIGNATING,
        "EU Financial Sanctions File (XML; the URL carries a token)",
        "eu_fsf",
        {"xml": ""},
        edition="eu_fsf",
        cadence=AS_PUBLISHED,
        cadence_note="as published",
    ),
    Source(
        "eu_sanctions",
        ROLE_DESIGNATING,
        "Mirror of Official Journal vessel listings (CSV)",
        "eu_journal",
        edition="eu_journal_sanctions",
        cadence=OPERATOR_SUPPLIED,
        cadence_note="operator-supplied",
    ),
    Source(
        "eu_sanctions",
        ROLE_DESIGNATING,
        "EU Sanctions Map vessel listings (CSV)",
        "eu_map",
        edition="eu_sanctions_map",
        cadence=OPERATOR_SUPPLIED,
        cadence_note="operator-supplied",
    ),
    Source(
        "uk_sanctions",
        ROLE_DESIGNATING,
        "UK Sanctions List (CSV)",
        "uk_csv",
        {"csv": "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.csv"},
        cadence=AS_PUBLISHED,
        cadence_note="as published",
    ),
    Source(
        "opensanctions",
        ROLE_AGGREGATED,
        "Aggregated dataset: FollowTheMoney entities (JSON lines)",
        "aggregated_ftm",
        {"jsonl": "https://data.opensanctions.org/datasets/latest/default/entities.ftm.json"},
        cadence=AS_PUBLISHED,
        cadence_note="as published (a daily build)",
    ),
    Source(
        "opensanctions",
        ROLE_AGGREGATED,
        "Aggregated dataset: maritime CSV",
        "aggregated_maritime",
        edition="maritime",
        cadence=OPERATOR_SUPPLIED,
        cadence_note="operator-supplied",
    ),
    Source(
        "ua_war_sanctions",
        ROLE_WATCHLIST,
        "Ukrainian shadow-fleet vessel list (CSV, operator-supplied)",
        "ua",
        cadence=OPERATOR_SUPPLIED,
        cadence_note="operator-supplied",
    ),
)

REGISTER_STORES = (
    "service_vessel_register",
    "ais_registry",
    "tokyo_mou_psc",
    "paris_mou_thetis",
    "apcis_tokyo_mou_history",
)
LIVE_REGISTERS = ("classsoc_vessel_register", "itf_ship_lookup", "iacs_vessels_in_class", "uscg_psix")
ROLES = {
    **{s.name: s.role for s in SANCTIONS_SOURCES},
    **dict.fromkeys(REGISTER_STORES, ROLE_REGISTER_STORE),
    **dict.fromkeys(LIVE_REGISTERS, ROLE_LIVE_REGISTER),
}


def sources_named(name: str) -> list[Source]:
    return [s for s in SANCTIONS_SOURCES if s.name == name]
