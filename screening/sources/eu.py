"""EU sanctions: the Commission's Financial Sanctions File (XML) and mirrors of vessel listings (CSV).

FSF XML (`YYYYMMDD-FULL-1_1(xsd).xml`, read namespace-agnostic): export/@generationDate; each
sanctionEntity has @logicalId, @euReferenceNumber and @designationDate, regulation/@programme
(the EU programme code), subjectType/@code (the FSF's subjects are `person` and `enterprise`),
nameAlias (@wholeName, or @firstName/@middleName/@lastName; the first is the name, the rest
aliases) and identification (@identificationTypeCode, @identificationTypeDescription, @number,
a remark child). An `imo` identification on an enterprise is the IMO *company* number of a
shipping company (the FSF lists companies, not hulls): it goes to company_numbers and is never
matched to a hull. A record becomes a vessel only when it is positively one: its subjectType
code names a vessel (`vessel`, `ship`), or the `imo` identification itself says it numbers a
ship ("IMO ship number", "vessel IMO") and not a company. A person is never a vessel.

Mirrors of Official Journal vessel listings (dataset eu_journal_sanctions) and of the EU
Sanctions Map (eu_sanctions_map) are CSVs with the header
    name,imo,listed_on,regulation,url
Every row is a vessel. `list_edition` and `programs` name the file a match came from.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TypedDict

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import VesselParticulars, children, iso_timestamp, read_vessel_listing, xml_root

SOURCE = "eu_sanctions"
MIRRORS = ("eu_journal_sanctions", "eu_sanctions_map")
MIRROR_HEADER = ("name", "imo", "listed_on", "regulation", "url")


_VESSEL_SUBJECTS = frozenset({"vessel", "ship"})
_SAYS_IMO = re.compile(r"\bIMO\b", re.IGNORECASE)
_SAYS_HULL = re.compile(r"\b(?:vessel|ship|hull|tanker)\b", re.IGNORECASE)
_SAYS_COMPANY = re.compile(r"\b(?:company|companies|owner|operator|manager|registered)\b", re.IGNORECASE)


def _fsf_names(entity: ET.Element) -> list[str]:
    names = []
    for alias in children(entity, "nameAlias"):
        whole = alias.get("wholeName") or " ".join(
            alias.get(part, "") for part in ("firstName", "middleName", "lastName") if alias.get(part)
        )
        names.append(" ".join(whole.split()))
    return [name for name in dict.fromkeys(names) if name]


def _identification_words(ident: ET.Element) -> str:
    remarks = " ".join((r.text or "") for r in children(ident, "remark"))
    return f"{ident.get('identificationTypeDescription', '')} {ident.get('remark', '')} {remarks}"


class _FsfListing(TypedDict):
    """The ListedRecord fields every sanctionEntity gives, vessel or entity."""

    source: str
    name: str
    aliases: tuple[str, ...]
    source_record_id: str | None
    programs: tuple[str, ...]
    listed_on: str | None
    dataset: str


def _fsf_record(entity: ET.Element, warnings: list[str]) -> ListedRecord | None:
    record_id = entity.get("euReferenceNumber") or entity.get("logicalId")
    names = _fsf_names(entity)
    if not names:
        warnings.append(f"sanctionEntity {record_id}: no name; skipped")
        return None
    subject = next((s.get("code", "") for s in children(entity, "subjectType")), "").strip().lower()
    hull_imos, company_numbers = [], []
    for ident in children(entity, "identification"):
        number = re.sub(r"\D", "", ident.get("number") or ident.get("latinNumber") or "")
        words = _identification_words(ident)
        typed_imo = ident.get("identificationTypeCode", "").strip().lower() == "imo"
        if not number or not (typed_imo or _SAYS_IMO.search(words)):
            continue
        says_hull = bool(_SAYS_HULL.search(words)) and not _SAYS_COMPANY.search(words)
        positively_vessel = subject != "person" and (subject in _VESSEL_SUBJECTS or (typed_imo and says_hull))
        if positively_vessel and len(number) == 7:
            hull_imos.append(number)
        else:
            company_numbers.append(number)
    common: _FsfListing = {
        "source": SOURCE,
        "name": names[0],
        "aliases": tuple(names[1:]),
        "source_record_id": record_id,
        "programs": tuple(
            dict.fromkeys(r.get("programme", "") for r in children(entity, "regulation") if r.get("programme"))
        ),
        "listed_on": (entity.get("designationDate") or "")[:10] or None,
        "dataset": "eu_fsf",
    }
    if not hull_imos:
        return ListedRecord(record_type=RECORD_ENTITY, company_numbers=tuple(dict.fromkeys(company_numbers)), **common)
    imo = hull_imos[0]
    valid = imo_check_digit_valid(imo)
    if not valid:
        warnings.append(f"{record_id} {names[0]}: IMO {imo} fails its check digit (kept as listed)")
    return ListedRecord(record_type=RECORD_VESSEL, imo=imo, imo_check_digit_valid=valid, **common)


def parse_fsf_xml(data: bytes) -> ParsedSnapshot:
    """The Financial Sanctions File: persons and enterprises as entities; only positive vessels keep a hull IMO."""
    root = xml_root(data, "export", "the EU Financial Sanctions File")
    published = iso_timestamp(root.get("generationDate"))
    warnings: list[str] = []
    records = [r for e in children(root, "sanctionEntity") if (r := _fsf_record(e, warnings)) is not None]
    return ParsedSnapshot(
        SOURCE, records=records, published_at=published, list_edition_label="eu_fsf", warnings=warnings
    )


def parse_journal_mirror_csv(data: bytes, dataset: str) -> ParsedSnapshot:
    if dataset not in MIRRORS:
        raise ValueError(f"dataset must be one of {', '.join(MIRRORS)}")

    def particulars(row: dict[str, str], imo: str) -> VesselParticulars:
        return {
            "source_record_id": f"{dataset}:{imo}",
            "programs": (dataset,),
            "source_url": row.get("url") or None,
            "dataset": dataset,
        }

    records, warnings = read_vessel_listing(data, source=SOURCE, expected_header=MIRROR_HEADER, particulars=particulars)
    return ParsedSnapshot(SOURCE, records=records, list_edition_label=dataset, warnings=warnings)
