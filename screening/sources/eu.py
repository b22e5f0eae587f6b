"""EU sanctions: the Commission's Financial Sanctions File (XML) and mirrors of vessel listings (CSV).

FSF XML (namespace-agnostic): export/@generationDate; each sanctionEntity has @logicalId and
@euReferenceNumber, regulation/@programme (the EU programme code), subjectType/@code
(person, enterprise), nameAlias/@wholeName (the first is the name, the rest aliases),
identification/@identificationTypeCode with @number. An entity identified by type "imo" is a
vessel (its IMO kept); other entities' IMO-like numbers are company numbers.

Mirrors of Official Journal vessel listings (dataset eu_journal_sanctions) and of the EU
Sanctions Map (eu_sanctions_map) are CSVs with the header
    name,imo,listed_on,regulation,url
Every row is a vessel. `list_edition` and `programs` name the file a match came from.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from datetime import datetime

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot

SOURCE = "eu_sanctions"
MIRRORS = ("eu_journal_sanctions", "eu_sanctions_map")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in element if _local(c.tag) == name]


def parse_fsf_xml(data: bytes) -> ParsedSnapshot:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from None
    if _local(root.tag) != "export":
        raise ValueError("not the EU Financial Sanctions File: the root element is not export")
    published = None
    stamp = root.get("generationDate")
    if stamp:
        try:
            published = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            published = None
    records, warnings = [], []
    for entity in _children(root, "sanctionEntity"):
        names = [a.get("wholeName", "").strip() for a in _children(entity, "nameAlias") if a.get("wholeName")]
        if not names:
            continue
        programmes = tuple(
            dict.fromkeys(r.get("programme", "") for r in _children(entity, "regulation") if r.get("programme"))
        )
        listed_on = (entity.get("designationDate") or "")[:10] or None
        hull_imos, other_numbers = [], []
        for ident in _children(entity, "identification"):
            number = re.sub(r"\D", "", ident.get("number", ""))
            if ident.get("identificationTypeCode", "").lower() == "imo" and len(number) == 7:
                hull_imos.append(number)
            elif "imo" in (ident.get("identificationTypeDescription", "") + ident.get("remark", "")).lower() and number:
                other_numbers.append(number)
        common = {
            "source": SOURCE,
            "name": names[0],
            "aliases": tuple(dict.fromkeys(names[1:])),
            "source_record_id": entity.get("euReferenceNumber") or entity.get("logicalId"),
            "programs": programmes,
            "listed_on": listed_on,
            "dataset": "eu_fsf",
        }
        if hull_imos:
            imo = hull_imos[0]
            records.append(
                ListedRecord(
                    record_type=RECORD_VESSEL, imo=imo, imo_check_digit_valid=imo_check_digit_valid(imo), **common
                )
            )
        else:
            records.append(ListedRecord(record_type=RECORD_ENTITY, company_numbers=tuple(other_numbers), **common))
    return ParsedSnapshot(
        SOURCE, records=records, published_at=published, list_edition_label="eu_fsf", warnings=warnings
    )


def parse_journal_mirror_csv(data: bytes, dataset: str) -> ParsedSnapshot:
    if dataset not in MIRRORS:
        raise ValueError(f"dataset must be one of {', '.join(MIRRORS)}")
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    if not reader.fieldnames or not {"name", "imo"} <= {f.strip().lower() for f in reader.fieldnames}:
        raise ValueError("expected a CSV with the columns name, imo, listed_on, regulation, url")
    records, warnings = [], []
    for line, raw in enumerate(reader, start=2):
        row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
        imo = re.sub(r"\D", "", row.get("imo", ""))
        if len(imo) != 7 or not row.get("name"):
            warnings.append(f"line {line}: skipped (needs a name and a 7-digit IMO)")
            continue
        records.append(
            ListedRecord(
                source=SOURCE,
                record_type=RECORD_VESSEL,
                name=row["name"],
                source_record_id=f"{dataset}:{imo}",
                imo=imo,
                imo_check_digit_valid=imo_check_digit_valid(imo),
                listed_on=row.get("listed_on") or None,
                programs=(dataset,),
                source_url=row.get("url") or None,
                dataset=dataset,
            )
        )
    return ParsedSnapshot(SOURCE, records=records, list_edition_label=dataset, warnings=warnings)
