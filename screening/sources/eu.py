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

import re

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import children, iso_timestamp, read_vessel_listing, xml_root

SOURCE = "eu_sanctions"
MIRRORS = ("eu_journal_sanctions", "eu_sanctions_map")
MIRROR_HEADER = ("name", "imo", "listed_on", "regulation", "url")


def parse_fsf_xml(data: bytes) -> ParsedSnapshot:
    root = xml_root(data, "export", "the EU Financial Sanctions File")
    published = iso_timestamp(root.get("generationDate"))
    records, warnings = [], []
    for entity in children(root, "sanctionEntity"):
        names = [a.get("wholeName", "").strip() for a in children(entity, "nameAlias") if a.get("wholeName")]
        if not names:
            continue
        programmes = tuple(
            dict.fromkeys(r.get("programme", "") for r in children(entity, "regulation") if r.get("programme"))
        )
        listed_on = (entity.get("designationDate") or "")[:10] or None
        hull_imos, other_numbers = [], []
        for ident in children(entity, "identification"):
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

    def particulars(row: dict[str, str], imo: str) -> dict[str, object]:
        return {
            "source_record_id": f"{dataset}:{imo}",
            "programs": (dataset,),
            "source_url": row.get("url") or None,
            "dataset": dataset,
        }

    records, warnings = read_vessel_listing(data, source=SOURCE, expected_header=MIRROR_HEADER, particulars=particulars)
    return ParsedSnapshot(SOURCE, records=records, list_edition_label=dataset, warnings=warnings)
