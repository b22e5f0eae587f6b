"""Import formats of the five register stores (documented CSVs; one file per store and kind).

Particulars (`--kind particulars`), header:
    imo,name,former_names,flag,former_flags,mmsi,ship_type,build_year,dwt,gt,registered_owner,
    registered_owner_country,manager,manager_country,operator,operator_country,beneficial_owner,
    owner_lei,class_society,as_of
Inspections (`--kind inspections`), header:
    imo,inspected_on,port,authority,deficiencies,detained
Lists inside a cell (former_names, former_flags) are separated by ";". Countries and flags are
ISO 3166-1 alpha-2; dates YYYY-MM-DD; detained true/false (also 1/0, yes/no). A row with a
malformed IMO or date is skipped with a warning; the rest of the file loads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from screening.records import Inspection, ParsedSnapshot, RegisterRecord
from screening.sources.formats import column_name_as_written, csv_rows, decode_text

STORES = ("service_vessel_register", "ais_registry", "tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")
PARTICULARS_COLUMNS = (
    "imo",
    "name",
    "former_names",
    "flag",
    "former_flags",
    "mmsi",
    "ship_type",
    "build_year",
    "dwt",
    "gt",
    "registered_owner",
    "registered_owner_country",
    "manager",
    "manager_country",
    "operator",
    "operator_country",
    "beneficial_owner",
    "owner_lei",
    "class_society",
    "as_of",
)
INSPECTION_COLUMNS = ("imo", "inspected_on", "port", "authority", "deficiencies", "detained")
_IMO = re.compile(r"^\d{7}$")


def _rows(
    data: bytes, register: str, required: tuple[str, ...], columns: tuple[str, ...]
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row) with every documented column present ("" when the file leaves it out)."""
    if register not in STORES:
        raise ValueError(f"unknown register store {register!r}; stores: {', '.join(STORES)}")
    rows = csv_rows(decode_text(data), required=required, column_key=column_name_as_written)
    return ((line, {column: cells.get(column, "") for column in columns}) for line, cells in rows)


def _list(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(";") if part.strip())


def _int(value: str) -> int | None:
    value = value.replace(",", "").strip()
    return int(float(value)) if value else None


def parse_particulars_csv(data: bytes, register: str) -> ParsedSnapshot:
    records, warnings = [], []
    for line, row in _rows(data, register, ("imo", "name"), PARTICULARS_COLUMNS):
        if not _IMO.match(row["imo"]):
            warnings.append(f"line {line}: IMO {row['imo']!r} is not 7 digits; row skipped")
            continue
        try:
            record = RegisterRecord(
                register=register,
                imo=row["imo"],
                name=row["name"] or None,
                former_names=_list(row["former_names"]),
                flag=row["flag"].upper() or None,
                former_flags=tuple(f.upper() for f in _list(row["former_flags"])),
                mmsi=row["mmsi"] or None,
                ship_type=row["ship_type"] or None,
                build_year=_int(row["build_year"]),
                dwt=_int(row["dwt"]),
                gt=_int(row["gt"]),
                registered_owner=row["registered_owner"] or None,
                registered_owner_country=row["registered_owner_country"].upper() or None,
                manager=row["manager"] or None,
                manager_country=row["manager_country"].upper() or None,
                operator=row["operator"] or None,
                operator_country=row["operator_country"].upper() or None,
                beneficial_owner=row["beneficial_owner"] or None,
                owner_lei=row["owner_lei"] or None,
                class_society=row["class_society"] or None,
                as_of=date.fromisoformat(row["as_of"]) if row["as_of"] else None,
            )
        except ValueError as exc:
            warnings.append(f"line {line}: {exc}; row skipped")
            continue
        records.append(record)
    return ParsedSnapshot(register, records=records, warnings=warnings)


def parse_inspections_csv(data: bytes, register: str) -> ParsedSnapshot:
    records, warnings = [], []
    for line, row in _rows(data, register, ("imo", "inspected_on"), INSPECTION_COLUMNS):
        detained = row["detained"].lower()
        if not _IMO.match(row["imo"]) or detained not in {"", "true", "false", "1", "0", "yes", "no"}:
            warnings.append(f"line {line}: malformed IMO or detained value; row skipped")
            continue
        try:
            records.append(
                Inspection(
                    register=register,
                    imo=row["imo"],
                    inspected_on=date.fromisoformat(row["inspected_on"]),
                    port=row["port"],
                    authority=row["authority"],
                    deficiencies=_int(row["deficiencies"]) or 0,
                    detained=detained in {"true", "1", "yes"},
                )
            )
        except ValueError as exc:
            warnings.append(f"line {line}: {exc}; row skipped")
    return ParsedSnapshot(register, records=records, warnings=warnings)
