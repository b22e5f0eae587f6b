"""OFAC SDN list: the CSV set (SDN.CSV, ALT.CSV, ADD.CSV) and SDN.XML into ListedRecords.

SDN.CSV has no header; 12 columns: ent_num, name, type, program, title, call_sign,
vessel_type, tonnage, grt, flag, owner, remarks; the literal "-0-" means empty. Rows of type
"vessel" are hulls: the IMO is in the remarks ("Vessel Registration Identification IMO
9187629"), with "MMSI 636013272", former names ("f.k.a. 'NAME'", also "a.k.a."), former flags
("Former Vessel Flag Malta"). Some vessel rows leave out "IMO" ("Vessel Registration
Identification 8606173"): such a number is the hull IMO when it has 7 digits, passes the ship
check digit and names no issuing country ("Vessel Registration Identification 15411 (Malta)"
and "RS 150443 (Russia)" are national registrations). Every other row is an entity or
individual; a "Company Number IMO 5055293" (or "Identification Number IMO ...") on it is a
company number and is never read as a hull IMO. SDN.XML carries the same facts as idList
entries (idType, idNumber, idCountry).
"""

from __future__ import annotations

import csv
import io
import re
from typing import TypedDict

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import (
    child_text,
    children,
    country_code,
    decode_text,
    first_child,
    parse_date,
    utc_midnight,
    xml_root,
)

SOURCE = "ofac_sdn"
RECORD_URL = "https://sanctionssearch.ofac.treas.gov/Details.aspx?id={}"
# On a vessel row both spellings name the hull's IMO (the 2024-05-03 edition has one
# "Identification Number IMO" vessel and two with a double space after "IMO").
_HULL_IMO = re.compile(r"(?:Vessel Registration Identification|Identification Number) IMO\s*(\d{7})\b")
# OFAC also writes the hull IMO without "IMO" (2024-05-03: RYONG GUN BONG 8606173, FU YUAN YU
# 8683 9894387). Without the prefix only a 7-digit number that passes the ship check digit and
# carries no "(Country)" of issue is the IMO: the others are national registration numbers.
_BARE_HULL_IMO = re.compile(r"Vessel Registration Identification\s+(\d{7})\b(?!\s*\()")
# On any other row every IMO-looking number is a company number (a different checksum).
_COMPANY_IMO = re.compile(r"IMO\s*(\d{5,8})\b")
_MMSI = re.compile(r"\bMMSI\s*(\d{9})\b")
_FORMER_NAME = re.compile(r"\b[fa]\.k\.a\.\s*'([^']+)'")
_FORMER_FLAG = re.compile(r"Former Vessel Flag\s+([A-Za-z .'()-]+?)(?:;|\.|$)")
_PROGRAM = re.compile(r"\[([^\]]+)\]")


def _empty(value: str | None) -> str:
    value = (value or "").strip()
    return "" if value in {"-0-", ""} else value


def _programs(text: str) -> tuple[str, ...]:
    found = _PROGRAM.findall(text)
    if found:
        return tuple(p.strip() for p in found if p.strip())
    return tuple(p.strip() for p in re.split(r"[;,]", text) if p.strip())


class _SdnListing(TypedDict):
    """The ListedRecord fields every SDN row gives, vessel or entity."""

    source: str
    name: str
    source_record_id: str
    programs: tuple[str, ...]
    source_url: str
    aliases: tuple[str, ...]


def _record(
    ent_num: str,
    name: str,
    sdn_type: str,
    program: str,
    vessel_type: str,
    flag: str,
    owner: str,
    remarks: str,
    aliases: list[str],
    warnings: list[str],
) -> ListedRecord:
    is_vessel = sdn_type.lower() == "vessel"
    names = list(dict.fromkeys(a for a in aliases + _FORMER_NAME.findall(remarks) if a))
    common: _SdnListing = {
        "source": SOURCE,
        "name": name,
        "source_record_id": ent_num,
        "programs": _programs(program),
        "source_url": RECORD_URL.format(ent_num),
        "aliases": tuple(n for n in names if n != name),
    }
    if not is_vessel:
        return ListedRecord(record_type=RECORD_ENTITY, company_numbers=tuple(_COMPANY_IMO.findall(remarks)), **common)
    imo = _hull_imo(remarks)
    valid = imo_check_digit_valid(imo) if imo else None
    if imo and not valid:
        warnings.append(f"{ent_num} {name}: IMO {imo} fails its check digit (kept as listed)")
    flags: list[str] = []
    for country in [flag, *_FORMER_FLAG.findall(remarks)]:
        code = country_code(country) if country else None
        if code and code not in flags:
            flags.append(code)
        elif country and not code and country.lower() not in {"none identified", "unknown"}:
            warnings.append(f"{ent_num} {name}: unknown flag {country!r}")
    mmsi = _MMSI.search(remarks)
    return ListedRecord(
        record_type=RECORD_VESSEL,
        imo=imo,
        imo_check_digit_valid=valid,
        mmsi=mmsi.group(1) if mmsi else None,
        flags=tuple(flags),
        vessel_type=vessel_type or None,
        owners=(owner,) if owner else (),
        **common,
    )


def _hull_imo(remarks: str) -> str | None:
    """The hull IMO a vessel row's remarks name: "... IMO 9187629", else a bare checksum-valid number."""
    found = _HULL_IMO.search(remarks)
    if found:
        return found.group(1)
    return next((m.group(1) for m in _BARE_HULL_IMO.finditer(remarks) if imo_check_digit_valid(m.group(1))), None)


def _rows(data: bytes | None) -> list[list[str]]:
    if not data:
        return []
    return [
        row
        for row in csv.reader(io.StringIO(decode_text(data, on_error="latin-1")))
        if row and any(cell.strip() for cell in row)
    ]


def parse_sdn_csv(sdn: bytes, alt: bytes | None = None, add: bytes | None = None) -> ParsedSnapshot:
    """SDN.CSV (+ ALT.CSV aliases; ADD.CSV is read for shape only: addresses are not matched on)."""
    rows = _rows(sdn)
    if not rows or any(len(row) != 12 for row in rows[:50]) or not rows[0][0].strip().isdigit():
        raise ValueError("not an OFAC SDN.CSV: expected header-less rows of 12 columns starting with ent_num")
    aliases: dict[str, list[str]] = {}
    for row in _rows(alt):
        if len(row) >= 4 and _empty(row[3]):
            aliases.setdefault(row[0].strip(), []).append(_empty(row[3]))
    for row in _rows(add):
        if len(row) < 2:
            raise ValueError("not an OFAC ADD.CSV: rows need ent_num and add_num")
    warnings: list[str] = []
    records = []
    for row in rows:
        if len(row) != 12:
            warnings.append(f"row with {len(row)} columns skipped")
            continue
        ent_num, name, sdn_type, program, _title, _call, vessel_type, _ton, _grt, flag, owner, remarks = (
            _empty(cell) for cell in row
        )
        if not ent_num or not name:
            continue
        records.append(
            _record(
                ent_num, name, sdn_type, program, vessel_type, flag, owner, remarks, aliases.get(ent_num, []), warnings
            )
        )
    return ParsedSnapshot(SOURCE, records=records, warnings=warnings)


def parse_sdn_xml(data: bytes) -> ParsedSnapshot:
    """SDN.XML (namespace-agnostic): the same records as the CSV set."""
    root = xml_root(data, "sdnList", "an OFAC SDN.XML")
    published = utc_midnight(parse_date(child_text(first_child(root, "publshInformation"), "Publish_Date"), "%m/%d/%Y"))
    warnings: list[str] = []
    records = []
    for entry in children(root, "sdnEntry"):
        uid = child_text(entry, "uid")
        name = ", ".join(p for p in (child_text(entry, "lastName"), child_text(entry, "firstName")) if p)
        sdn_type = child_text(entry, "sdnType")
        program_list = first_child(entry, "programList")
        programs = [p.text.strip() for p in program_list if p.text] if program_list is not None else []
        aka_list = first_child(entry, "akaList")
        aliases = [child_text(a, "lastName") for a in aka_list] if aka_list is not None else []
        remarks_parts = [child_text(entry, "remarks")]
        id_list = first_child(entry, "idList")
        for item in id_list if id_list is not None else []:
            id_type, number = child_text(item, "idType"), child_text(item, "idNumber")
            if id_type == "Vessel Registration Identification":
                # idCountry names the issuer of a national registration (CSV: "15411 (Malta)").
                issuer = child_text(item, "idCountry")
                remarks_parts.append(
                    f"Vessel Registration Identification {number}" + (f" ({issuer})" if issuer else "")
                )
            elif id_type == "MMSI":
                remarks_parts.append(f"MMSI {number}")
            elif id_type == "Former Vessel Flag":
                remarks_parts.append(f"Former Vessel Flag {number};")
            elif "Company Number" in id_type or id_type == "IMO Company Number":
                remarks_parts.append(f"Company Number IMO {number}")
        vessel = first_child(entry, "vesselInfo")
        records.append(
            _record(
                uid,
                name,
                sdn_type,
                "".join(f"[{p}]" for p in programs),
                child_text(vessel, "vesselType"),
                child_text(vessel, "vesselFlag"),
                child_text(vessel, "vesselOwner"),
                "; ".join(remarks_parts),
                aliases,
                warnings,
            )
        )
    if not records:
        raise ValueError("the SDN.XML holds no sdnEntry")
    return ParsedSnapshot(SOURCE, records=records, published_at=published, warnings=warnings)
