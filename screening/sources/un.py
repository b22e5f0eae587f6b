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

import re
import xml.etree.ElementTree as ET

from screening.records import RECORD_ENTITY, ListedRecord, ParsedSnapshot
from screening.sources.formats import VesselParticulars, flag_codes, iso_timestamp, read_vessel_listing, xml_root

SOURCE = "un_sanctions"
_IMO_NUMBER = re.compile(r"IMO\)?\s*(?:number|Number|NUMBER)?\s*:?\s*(\d{7})\b")
NAME_PARTS = ("FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME")
VESSELS_HEADER = ("name", "imo", "listed_on", "reference", "flag", "vessel_type")


def _text(element: ET.Element, tag: str) -> str:
    """The child's text with runs of white space (the list wraps long names) folded to one space."""
    return " ".join((element.findtext(tag) or "").split())


def _record(element: ET.Element, alias_tag: str) -> ListedRecord:
    name = " ".join(part for part in (_text(element, tag) for tag in NAME_PARTS) if part)
    aliases = tuple(
        dict.fromkeys(_text(alias, "ALIAS_NAME") for alias in element.findall(alias_tag) if _text(alias, "ALIAS_NAME"))
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
    # The UN list carries no namespace and is read by its bare tags.
    root = xml_root(data, "CONSOLIDATED_LIST", "the UN consolidated list", any_namespace=False)
    records = [_record(e, "INDIVIDUAL_ALIAS") for e in root.iter("INDIVIDUAL")]
    records += [_record(e, "ENTITY_ALIAS") for e in root.iter("ENTITY")]
    published = iso_timestamp(root.get("dateGenerated"))
    return ParsedSnapshot(SOURCE, records=records, published_at=published)


def _vessel_particulars(row: dict[str, str], imo: str) -> VesselParticulars:
    return {
        "source_record_id": row.get("reference") or None,
        "programs": ("DPRK 1718",),
        "flags": flag_codes(row.get("flag", "")),
        "vessel_type": row.get("vessel_type") or None,
        "dataset": "un_1718_vessels",
    }


def parse_1718_vessels_csv(data: bytes) -> ParsedSnapshot:
    records, warnings = read_vessel_listing(
        data,
        source=SOURCE,
        expected_header=VESSELS_HEADER,
        particulars=_vessel_particulars,
        warn_failed_check_digit=True,
    )
    return ParsedSnapshot(SOURCE, records=records, list_edition_label="un_1718_vessels", warnings=warnings)
