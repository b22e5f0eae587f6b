"""Ukrainian war-sanctions shadow-fleet list (ua_war_sanctions), a non-designating watchlist.

The publisher (the War&Sanctions portal of Ukraine's intelligence service) shows the list as
web pages, not a file. This service accepts a CSV an operator exports from it, header:
    name,imo,flag,listed_on,reason,url
(flag a country name or ISO alpha-2, listed_on YYYY-MM-DD, url the vessel's page). Every row
is a vessel; an exact IMO hit on it is AMBER shape 2 and floors vetting at 61 (contract 3.2.4).
"""

from __future__ import annotations

from screening.records import ParsedSnapshot
from screening.sources.formats import VesselParticulars, flag_codes, read_vessel_listing

SOURCE = "ua_war_sanctions"
HEADER = ("name", "imo", "flag", "listed_on", "reason", "url")


def _particulars(row: dict[str, str], imo: str) -> VesselParticulars:
    return {
        "source_record_id": f"ua-{imo}",
        "flags": flag_codes(row.get("flag", "")),
        "programs": tuple(p for p in (row.get("reason"),) if p),
        "source_url": row.get("url") or None,
    }


def parse_shadow_fleet_csv(data: bytes) -> ParsedSnapshot:
    records, warnings = read_vessel_listing(data, source=SOURCE, expected_header=HEADER, particulars=_particulars)
    return ParsedSnapshot(SOURCE, records=records, warnings=warnings)
