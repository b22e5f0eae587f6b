"""UK Sanctions List (FCDO) as CSV: persons, entities and ships (Designation Type "Ship").

The published CSV may open with a report-date line; the header is the row holding "Unique
ID". The list's date is that line: "Report Date: 20-Nov-2026" (the FCDO's UK Sanctions List) or
"Last Updated,20/11/2026" (the OFSI consolidated list's layout); it becomes the edition's
publication time (the start of that day, UTC). A file without it has no publication time.

Columns read: Unique ID, Name 1..Name 6, Name type (Primary name / Alias / ...), Regime Name,
Designation Type, IMO number, Current believed flag of ship, Previous flags, Current
owner/operator (s), Date Designated (DD/MM/YYYY). Several rows per Unique ID (one per name)
merge into one record.
"""

from __future__ import annotations

import re
from datetime import datetime

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import country_code, csv_rows, decode_text, parse_date, utc_midnight

SOURCE = "uk_sanctions"
NAME_COLUMNS = ("Name 1", "Name 2", "Name 3", "Name 4", "Name 5", "Name 6")


# The line above the header that dates the file: "Report Date: 20-Nov-2026", "Last Updated,20/11/2026".
_FILE_DATE = re.compile(r"^\W*(?:report date|last updated)\s*[:,]?\s*\"?([^\",]+)", re.IGNORECASE)
_FILE_DATE_PATTERNS = ("%d-%b-%Y", "%d/%m/%Y", "%Y-%m-%d", "%d %B %Y", "%d %b %Y")


def _file_date(lines: list[str]) -> datetime | None:
    """The publication time the lines above the header state, or None."""
    for line in lines:
        found = _FILE_DATE.match(line.strip())
        if found:
            return utc_midnight(parse_date(found.group(1).strip(), *_FILE_DATE_PATTERNS))
    return None


def _date(value: str) -> str | None:
    day = parse_date(value, "%d/%m/%Y", "%Y-%m-%d")
    return day.isoformat() if day else None


def parse_uk_csv(data: bytes) -> ParsedSnapshot:
    lines = decode_text(data, on_error="replace").splitlines()
    start = next((i for i, line in enumerate(lines[:5]) if "Unique ID" in line), None)
    if start is None:
        raise ValueError("not the UK Sanctions List CSV: no header row with 'Unique ID'")
    merged: dict[str, dict] = {}
    for _line, row in csv_rows("\n".join(lines[start:]), column_key=str.strip):
        uid = row.get("Unique ID", "")
        name = " ".join(row.get(c, "") for c in NAME_COLUMNS if row.get(c, "")).strip()
        if not uid or not name:
            continue
        entry = merged.setdefault(uid, {"names": [], "row": row})
        if row.get("Name type", "").lower().startswith("primary"):
            entry["names"].insert(0, name)
        else:
            entry["names"].append(name)
    records, warnings = [], []
    for uid, entry in merged.items():
        row, names = entry["row"], list(dict.fromkeys(entry["names"]))
        common = {
            "source": SOURCE,
            "name": names[0],
            "aliases": tuple(names[1:]),
            "source_record_id": uid,
            "programs": tuple(p for p in (row.get("Regime Name", ""),) if p),
            "listed_on": _date(row.get("Date Designated", "")),
        }
        if row.get("Designation Type", "").lower() == "ship":
            imo = re.sub(r"\D", "", row.get("IMO number", ""))[:7] or None
            flags = [country_code(row.get("Current believed flag of ship", "")) or ""]
            flags += [country_code(f) or "" for f in re.split(r"[;,]", row.get("Previous flags", ""))]
            owners = tuple(
                o.strip() for o in re.split(r"[;\n]", row.get("Current owner/operator (s)", "")) if o.strip()
            )
            if imo and len(imo) != 7:
                warnings.append(f"{uid}: IMO {imo!r} is not 7 digits")
                imo = None
            records.append(
                ListedRecord(
                    record_type=RECORD_VESSEL,
                    imo=imo,
                    imo_check_digit_valid=imo_check_digit_valid(imo) if imo else None,
                    flags=tuple(dict.fromkeys(f for f in flags if f)),
                    owners=owners,
                    **common,
                )
            )
        else:
            records.append(ListedRecord(record_type=RECORD_ENTITY, **common))
    return ParsedSnapshot(SOURCE, records=records, published_at=_file_date(lines[:start]), warnings=warnings)
