"""Plain records that parsers produce and the in-memory indexes hold.

Every source adapter turns an official file into these; nothing downstream reads a raw
third-party payload (contract part 1.10).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime

# Roles of a sanctions source (how an exact identifier hit on it is read, part 3.1).
ROLE_DESIGNATING = "designating"  # OFAC, UN, EU, UK: an exact hull identifier is RED
ROLE_WATCHLIST = "watchlist"  # non-designating: an exact identifier is AMBER shape 2
ROLE_AGGREGATED = "aggregated"  # aggregated dataset: tags decide (AMBER shape 3 or 2)
ROLE_REGISTER_STORE = "register_store"
ROLE_LIVE_REGISTER = "live_register"

RECORD_VESSEL = "vessel"
RECORD_ENTITY = "entity"  # a company or an individual

# Aggregated-dataset tags.
DESIGNATION_TAGS = frozenset({"sanction"})
WATCHLIST_TAGS = frozenset({"mare.shadow", "mare.detained", "reg.warn", "poi"})


@dataclass(frozen=True, slots=True)
class ListedRecord:
    """One listing on a sanctions source (a vessel, a company or a person)."""

    source: str  # ofac_sdn | un_sanctions | eu_sanctions | uk_sanctions | opensanctions | ua_war_sanctions
    record_type: str  # RECORD_VESSEL or RECORD_ENTITY
    name: str
    source_record_id: str | None = None
    aliases: tuple[str, ...] = ()  # a.k.a. and f.k.a. names
    imo: str | None = None  # hull IMO, only on vessel records
    imo_check_digit_valid: bool | None = None  # flagged, kept as listed
    mmsi: str | None = None
    company_numbers: tuple[str, ...] = ()  # IMO company numbers: never matched to hulls
    programs: tuple[str, ...] = ()
    listed_on: str | None = None  # YYYY-MM-DD as the source states it
    source_url: str | None = None
    flags: tuple[str, ...] = ()  # current first, then former
    vessel_type: str | None = None
    tags: tuple[str, ...] = ()  # aggregated dataset topics (sanction, mare.shadow, ...)
    dataset: str | None = None  # eu: eu_fsf | eu_journal_sanctions | eu_sanctions_map
    owners: tuple[str, ...] = ()


def listing_content(record: ListedRecord) -> dict:
    """What a reader of a listing acts on (its names, identifiers and programmes): a change in any of it
    is a changed listing, for an edition's diff and for a reviewer's decision bound to the listing."""
    return {
        "record_type": record.record_type,
        "name": record.name,
        "aliases": sorted(record.aliases),
        "imo": record.imo,
        "mmsi": record.mmsi,
        "programs": sorted(record.programs),
    }


def listing_fingerprint(record: ListedRecord) -> str:
    """sha256 of the listing's content (above), stable across editions and processes."""
    content = json.dumps(listing_content(record), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(content.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Inspection:
    """One port-state-control inspection."""

    register: str
    imo: str
    inspected_on: date
    port: str = ""
    authority: str = ""
    deficiencies: int = 0
    detained: bool = False


@dataclass(frozen=True, slots=True)
class RegisterRecord:
    """What one register store says about a hull."""

    register: str
    imo: str
    name: str | None = None
    former_names: tuple[str, ...] = ()
    flag: str | None = None  # ISO 3166-1 alpha-2
    former_flags: tuple[str, ...] = ()
    mmsi: str | None = None
    ship_type: str | None = None
    build_year: int | None = None
    dwt: int | None = None
    gt: int | None = None
    registered_owner: str | None = None
    registered_owner_country: str | None = None
    manager: str | None = None
    manager_country: str | None = None
    operator: str | None = None
    operator_country: str | None = None
    beneficial_owner: str | None = None
    owner_lei: str | None = None
    class_society: str | None = None
    as_of: date | None = None


@dataclass(slots=True)
class ParsedSnapshot:
    """The result of parsing one source file: records plus what the source stamps."""

    source: str
    records: list = field(default_factory=list)  # ListedRecord | RegisterRecord | Inspection
    published_at: datetime | None = None
    list_edition_label: str | None = None  # e.g. eu_fsf vs eu_journal_sanctions
    warnings: list[str] = field(default_factory=list)  # flagged rows (bad check digits, ...)


# How a hit was made (contract 2.4 match_type) and how sure it is (confidence_class).
MATCH_EXACT_IMO = "exact_imo"
MATCH_EXACT_MMSI = "exact_mmsi"
MATCH_NAME_FLAG = "name_flag"  # fuzzy name that also agrees on flag
MATCH_NAME_FUZZY = "name_fuzzy"
CONFIDENCE_CONFIRMED = "confirmed"  # exact hull identifier
CONFIDENCE_PROBABLE = "probable"  # exact MMSI, or a near-exact name that agrees on flag
CONFIDENCE_POSSIBLE = "possible"  # name similarity only


@dataclass(frozen=True, slots=True)
class MatchHit:
    """One listed record that matched the hull being screened."""

    record: ListedRecord
    match_type: str
    confidence_class: str
    score: float  # 0-100 name similarity; 100 for identifier hits
    screened_name: str | None = None  # the name of the hull that hit, when not the chosen one
    matched_listed_name: str | None = None  # which listed name/alias scored
    hull_name: str | None = None  # which name of the hull met it (name hits)
    name_rule: str | None = None  # screening.name_rules.NameRule that made the names one (name hits)
