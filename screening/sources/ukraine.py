"""Ukrainian war-sanctions shadow-fleet list (ua_war_sanctions), a non-designating watchlist.

The publisher (the War&Sanctions portal of Ukraine's intelligence service) shows the list as
web pages, not a file. This service accepts a CSV an operator exports from it, header:
    name,imo,flag,listed_on,reason,url
(flag a country name or ISO alpha-2, listed_on YYYY-MM-DD, url the vessel's page). Every row
is a vessel; an exact IMO hit on it is AMBER shape 2 and floors vetting at 61 (contract 3.2.4).
"""

from __future__ import annotations

import csv
import io
import re

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.ofac import country_code

SOURCE = "ua_war_sanctions"


def parse_shadow_fleet_csv(data: bytes) -> ParsedSnapshot:
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    if not reader.fieldnames or not {"name", "imo"} <= {f.strip().lower() for f in reader.fieldnames}:
        raise ValueError("expected a CSV with the columns name, imo, flag, listed_on, reason, url")
    records, warnings = [], []
    for line, raw in enumerate(reader, start=2):
        row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
        imo = re.sub(r"\D", "", row.get("imo", ""))
        if len(imo) != 7 or not row.get("name"):
            warnings.append(f"line {line}: skipped (needs a name and a 7-digit IMO)")
            continue
        flag = row.get("flag", "")
        code = flag.upper() if len(flag) == 2 else (country_code(flag) if flag else None)
        records.append(
            ListedRecord(
                source=SOURCE,
                record_type=RECORD_VESSEL,
                name=row["name"],
                source_record_id=f"ua-{imo}",
                imo=imo,
                imo_check_digit_valid=imo_check_digit_valid(imo),
                listed_on=row.get("listed_on") or None,
                flags=(code,) if code else (),
                programs=tuple(p for p in (row.get("reason"),) if p),
                source_url=row.get("url") or None,
            )
        )
    return ParsedSnapshot(SOURCE, records=records, warnings=warnings)
