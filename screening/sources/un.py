"""UN Security Council sanctions: the consolidated list (XML) and the 1718 Committee vessel list.

The consolidated list holds persons and entities only. IMO numbers in it (in COMMENTS1, e.g.
"IMO number: 5571322.") are company numbers of DPRK shipping companies: kept as
company_numbers, never as a hull IMO (contract 3.2.3). The UN publishes no record pages, so
UN matches carry no source_url.

The 1718 Committee's designated vessels are published separately (a web table); this
service accepts them as a CSV an operator saves from that page, with the header
    name,imo,listed_on,reference,flag,vessel_type
(listed_on YYYY-MM-DD; flag a country name or ISO alpha-2). Those records are vessels and
keep their IMO, so they can match exactly.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from datetime import datetime

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.ofac import country_code

SOURCE = "un_sanctions"
_IMO_NUMBER = re.compile(r"IMO\)?\s*(?:number|Number|NUMBER)?\s*:?\s*(\d{7})\b")
NAME_PARTS = ("FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME")


def _text(element: ET.Element, tag: str) -> str:
    found = element.find(tag)
    return " ".join((found.text or "").split()) if found is not None and found.text else ""


def _record(element: ET.Element, alias_tag: str) -> ListedRecord:
    name = " ".join(part for part in (_text(element, tag) for tag in NAME_PARTS) if part)
    aliases = tuple(
        dict.fromkeys(
            " ".join((alias.findtext("ALIAS_NAME") or "").split())
            for alias in element.findall(alias_tag)
            if (alias.findtext("ALIAS_NAME") or "").strip()
        )
    )
    original = _text(element, "NAME_ORIGINAL_SCRIPT")
    if original:
        aliases = (*aliases, original)
    text = " ".join(" ".join(node.itertext()) for node in element)
    return ListedRecord(
        source=SOURCE,
        record_type=RECORD_ENTITY,
        name=name,
        source_record_id=_text(element, "REFERENCE_NUMBER") or _text(element, "DATAID"),
        aliases=tuple(a for a in aliases if a != name),
        company_numbers=tuple(dict.fromkeys(_IMO_NUMBER.findall(text))),
        programs=tuple(p for p in (_text(element, "UN_LIST_TYPE"),) if p),
        listed_on=_text(element, "LISTED_ON")[:10] or None,
    )


def parse_consolidated_xml(data: bytes) -> ParsedSnapshot:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from None
    if root.tag != "CONSOLIDATED_LIST":
        raise ValueError("not the UN consolidated list: the root element is not CONSOLIDATED_LIST")
    records = [_record(e, "INDIVIDUAL_ALIAS") for e in root.iter("INDIVIDUAL")]
    records += [_record(e, "ENTITY_ALIAS") for e in root.iter("ENTITY")]
    published = None
    stamp = root.get("dateGenerated")
    if stamp:
        try:
            published = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            published = None
    return ParsedSnapshot(SOURCE, records=records, published_at=published)


def parse_1718_vessels_csv(data: bytes) -> ParsedSnapshot:
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    if not reader.fieldnames or not {"name", "imo"} <= {f.strip().lower() for f in reader.fieldnames}:
        raise ValueError("expected a CSV with the columns name, imo, listed_on, reference, flag, vessel_type")
    records, warnings = [], []
    for number, raw in enumerate(reader, start=2):
        row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
        imo = re.sub(r"\D", "", row.get("imo", ""))
        if len(imo) != 7 or not row.get("name"):
            warnings.append(f"line {number}: skipped (needs a name and a 7-digit IMO)")
            continue
        if not imo_check_digit_valid(imo):
            warnings.append(f"line {number}: IMO {imo} fails its check digit (kept as listed)")
        flag = row.get("flag", "")
        code = flag.upper() if len(flag) == 2 else country_code(flag) if flag else None
        records.append(
            ListedRecord(
                source=SOURCE,
                record_type=RECORD_VESSEL,
                name=row["name"],
                source_record_id=row.get("reference") or None,
                imo=imo,
                imo_check_digit_valid=imo_check_digit_valid(imo),
                programs=("DPRK 1718",),
                listed_on=row.get("listed_on") or None,
                flags=(code,) if code else (),
                vessel_type=row.get("vessel_type") or None,
                dataset="un_1718_vessels",
            )
        )
    return ParsedSnapshot(SOURCE, records=records, list_edition_label="un_1718_vessels", warnings=warnings)
