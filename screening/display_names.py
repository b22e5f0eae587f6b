"""The data sources as a person reads them: one table for every sentence shown to a user.

Machine fields keep the codes (`sources[].source`, `coverage_gaps`, `matches[].source`: `ofac_sdn`);
prose (a sanctions detail, a sources row's message, the keyless check's detail, the report pages)
names the source by its display name ("the OFAC SDN list"). This module imports nothing from the
service, so the verdict, the freshness of the lists and the pages can all read it.
"""

from __future__ import annotations

from collections.abc import Iterable

# The sanctions lists, as a sentence names them after "the".
SANCTIONS_LIST_NAMES = {
    "ofac_sdn": "OFAC SDN list",
    "un_sanctions": "UN Security Council list",
    "eu_sanctions": "EU sanctions list",
    "uk_sanctions": "UK Sanctions List",
    "opensanctions": "aggregated sanctions dataset",
    "ua_war_sanctions": "Ukrainian war-sanctions watchlist",
}

SOURCE_NAMES = {
    **SANCTIONS_LIST_NAMES,
    "vessel_vetting": "Vetting registers and port-state-control inspections",
    "service_vessel_register": "Service vessel register",
    "ais_registry": "AIS registry",
    "tokyo_mou_psc": "Tokyo MOU port-state control",
    "paris_mou_thetis": "Paris MOU THETIS inspections",
    "apcis_tokyo_mou_history": "Tokyo MOU APCIS inspection history",
    "classsoc_vessel_register": "Classification society register",
    "itf_ship_lookup": "ITF ship look-up",
    "iacs_vessels_in_class": "IACS vessels in class",
    "uscg_psix": "US Coast Guard PSIX",
}

# A file of a source that has several (screening/sources/catalog.py), by (source, edition).
EDITION_NAMES = {
    ("un_sanctions", ""): "UN Security Council consolidated list",
    ("un_sanctions", "un_1718_vessels"): "UN 1718 Committee vessel list",
    ("eu_sanctions", "eu_fsf"): "EU Financial Sanctions File",
    ("eu_sanctions", "eu_journal_sanctions"): "EU Official Journal vessel listings",
    ("eu_sanctions", "eu_sanctions_map"): "EU Sanctions Map vessel listings",
    ("opensanctions", "maritime"): "aggregated maritime dataset",
}


def source_name(code: str | None) -> str:
    """'ofac_sdn' → 'OFAC SDN list'; an unknown code with its underscores as spaces; '—' for none."""
    if not code:
        return "—"
    return SOURCE_NAMES.get(code, code.replace("_", " "))


def edition_name(source: str, edition: str) -> str:
    """One file of a source: its own name where the source has several, else the source's."""
    named = EDITION_NAMES.get((source, edition))
    if named is not None:
        return named
    return source_name(source) if not edition else edition.replace("_", " ")


def the(name: str) -> str:
    """'OFAC SDN list' → 'the OFAC SDN list' (for the middle of a sentence)."""
    return f"the {name}"


def capitalised(text: str) -> str:
    """The first letter upper-cased, the rest as written ('the UK Sanctions List' → 'The UK Sanctions List')."""
    return text[:1].upper() + text[1:]


def in_words(codes: Iterable[str]) -> str:
    """Sources in a sentence: 'the OFAC SDN list', 'the EU sanctions list and the OFAC SDN list',
    'the A, the B and the C' (sorted by display name, each once)."""
    names = [the(name) for name in sorted({source_name(code) for code in codes})]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
