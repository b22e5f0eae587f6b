"""Reading helpers the official-format parsers share: text decoding, headered CSV rows, XML, dates, flags.

Each publisher's parser (ofac, un, eu, uk, ukraine, aggregated, registers) keeps what is
particular to its format; what they all do the same way lives here once, so a fix to how a
BOM, a missing column, a namespaced tag or a malformed date is handled reaches every source.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime, time
from typing import Literal, TypedDict

import pycountry

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_VESSEL, ListedRecord

# Country names as OFAC (and, following it, the other publishers) write them that
# pycountry does not resolve, or resolves to the wrong entry by fuzzy search.
_COUNTRY_ALIASES = {
    "Korea, North": "KP",
    "Korea, South": "KR",
    "Russia": "RU",
    "Iran": "IR",
    "Syria": "SY",
    "Tanzania": "TZ",
    "Venezuela": "VE",
    "Bolivia": "BO",
    "Moldova": "MD",
    "Vietnam": "VN",
    "Burma": "MM",
    "Cabo Verde": "CV",
    "Cape Verde": "CV",
    "Micronesia": "FM",
    "Laos": "LA",
    "Saint Kitts and Nevis": "KN",
    "Saint Vincent and the Grenadines": "VC",
    "Palestine": "PS",
    "Congo, Democratic Republic of the": "CD",
    "Turkey": "TR",
    "Curacao": "CW",
}
_NOT_A_COUNTRY = {"none identified", "unknown"}


# --- text --------------------------------------------------------------------------------


def decode_text(data: bytes, *, on_error: Literal["raise", "latin-1", "replace"] = "raise") -> str:
    """UTF-8 text with any BOM dropped (spreadsheet exports add one).

    `on_error` says what a source does with bytes that are not UTF-8: "raise" (a
    UnicodeDecodeError, which is a ValueError, so the load is refused), "latin-1" (OFAC's files
    have historically been Windows/Latin-1; read the whole file that way) or "replace"
    (the UK list: keep the rows, mark the odd character).
    """
    if on_error == "replace":
        return data.decode("utf-8-sig", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if on_error == "latin-1":
            return data.decode("latin-1")
        raise


# --- headered CSV --------------------------------------------------------------------------


def folded_column_name(name: str) -> str:
    """Operator-saved CSVs vary in case and padding of their header; compare names folded."""
    return name.strip().lower()


def column_name_as_written(name: str) -> str:
    """For formats whose documented header is matched exactly (the register stores)."""
    return name


def csv_rows(
    text: str,
    *,
    required: Sequence[str] = (),
    expected_header: Sequence[str] | None = None,
    column_key: Callable[[str], str] = folded_column_name,
) -> Iterator[tuple[int, dict[str, str]]]:
    """The data rows of a CSV with a header, as (line number, {column: stripped value}).

    Line numbers count the header as line 1 so warnings point an operator at the row to fix.
    Columns are keyed by `column_key(header name)`; cells past the header and columns without
    a name are dropped, missing cells read "". The required columns are checked before any
    row is read, so a file in the wrong format is refused as a whole with a ValueError naming
    the `expected_header` (or, without one, the missing columns).
    """
    reader = csv.DictReader(io.StringIO(text))
    present = {column_key(name) for name in reader.fieldnames or ()}
    missing = [column for column in required if column not in present]
    if missing:
        if expected_header is not None:
            raise ValueError(f"expected a CSV with the columns {', '.join(expected_header)}")
        raise ValueError(f"missing column(s): {', '.join(missing)}")
    return (
        (line, {column_key(k): (v or "").strip() for k, v in raw.items() if k})
        for line, raw in enumerate(reader, start=2)
    )


class VesselParticulars(TypedDict, total=False):
    """The ListedRecord fields a vessel listing's `particulars(row, imo)` may give: every field
    read_vessel_listing does not set itself (source, record_type, name, imo and its check, listed_on)."""

    source_record_id: str | None
    aliases: tuple[str, ...]
    mmsi: str | None
    company_numbers: tuple[str, ...]
    programs: tuple[str, ...]
    source_url: str | None
    flags: tuple[str, ...]
    vessel_type: str | None
    tags: tuple[str, ...]
    dataset: str | None
    owners: tuple[str, ...]


def read_vessel_listing(
    data: bytes,
    *,
    source: str,
    expected_header: Sequence[str],
    particulars: Callable[[dict[str, str], str], VesselParticulars],
    warn_failed_check_digit: bool = False,
) -> tuple[list[ListedRecord], list[str]]:
    """The vessel records and warnings of an operator-saved vessel listing CSV (UN 1718, EU mirrors, Ukraine).

    These lists are only usable by hull, so a row without a name or a 7-digit IMO (digits kept
    from whatever the cell holds, e.g. "IMO 9074729") is skipped with a warning rather than
    loaded as a nameless or unmatchable record. Every record takes its name, IMO and listed_on
    from the row; what differs by list (record id, programmes, flags, url, dataset) comes from
    `particulars(row, imo)`, so a column a list does not document is never read into its
    records. `warn_failed_check_digit` also tells the operator of IMOs whose check digit fails
    (kept as listed: the publisher's number is what a screening must match).
    """
    records: list[ListedRecord] = []
    warnings: list[str] = []
    for line, row in csv_rows(decode_text(data), required=("name", "imo"), expected_header=expected_header):
        imo = re.sub(r"\D", "", row.get("imo", ""))
        if len(imo) != 7 or not row.get("name"):
            warnings.append(f"line {line}: skipped (needs a name and a 7-digit IMO)")
            continue
        valid = imo_check_digit_valid(imo)
        if warn_failed_check_digit and not valid:
            warnings.append(f"line {line}: IMO {imo} fails its check digit (kept as listed)")
        records.append(
            ListedRecord(
                source=source,
                record_type=RECORD_VESSEL,
                name=row["name"],
                imo=imo,
                imo_check_digit_valid=valid,
                listed_on=row.get("listed_on") or None,
                **particulars(row, imo),
            )
        )
    return records, warnings


# --- XML (namespace-agnostic) -----------------------------------------------------------------


def local_name(tag: str) -> str:
    """A tag without its "{namespace}": publishers change namespaces between editions."""
    return tag.rsplit("}", 1)[-1]


def xml_root(data: bytes, root_name: str, document: str, *, any_namespace: bool = True) -> ET.Element:
    """The root element of a publisher's XML file, refused (ValueError) if not XML or not `root_name`.

    `document` names the expected file in the error ("the UN consolidated list"), so an
    operator who fetched a maintenance page or the wrong list sees what was expected. With
    `any_namespace=False` the root must carry no namespace: for a format read by bare tags
    (ElementTree's own find/iter), whose namespaced variant would otherwise load as empty.
    """
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from None
    if (local_name(root.tag) if any_namespace else root.tag) != root_name:
        raise ValueError(f"not {document}: the root element is not {root_name}")
    return root


def children(element: ET.Element, name: str) -> list[ET.Element]:
    """The direct children named `name`, whatever their namespace."""
    return [child for child in element if local_name(child.tag) == name]


def first_child(element: ET.Element | None, name: str) -> ET.Element | None:
    """The first direct child named `name`; None if there is none (or no element to look in)."""
    if element is None:
        return None
    return next((child for child in element if local_name(child.tag) == name), None)


def child_text(element: ET.Element | None, name: str) -> str:
    """The stripped text of the first child named `name`; "" when the child or its text is absent.

    Optional blocks (OFAC's vesselInfo, publshInformation) may be missing, so None is accepted.
    """
    found = first_child(element, name)
    return (found.text or "").strip() if found is not None else ""


# --- dates --------------------------------------------------------------------------------


def iso_timestamp(value: str | None) -> datetime | None:
    """An ISO 8601 publication stamp ("2026-02-27T00:00:09.554Z"); None if absent or malformed.

    A list's publication time is informative only, so a bad stamp must not refuse the list.
    """
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def parse_date(value: str, *patterns: str) -> date | None:
    """The date `value` holds in the first of `patterns` (strptime) that fits; None if none fits."""
    for pattern in patterns:
        try:
            return datetime.strptime(value.strip(), pattern).date()
        except ValueError:
            continue
    return None


def utc_midnight(day: date | None) -> datetime | None:
    """A publication date as the aware datetime at its start (UTC), for lists dated by day only."""
    return datetime.combine(day, time(), tzinfo=UTC) if day is not None else None


# --- countries and flags -----------------------------------------------------------------------


def country_code(name: str) -> str | None:
    """ISO 3166-1 alpha-2 for a country name as OFAC writes it; None when unknown."""
    name = name.strip().strip(".").replace("&", "and")
    name = re.sub(r"^St\.?\s", "Saint ", name)
    if not name or name.lower() in _NOT_A_COUNTRY:
        return None
    if name in _COUNTRY_ALIASES:
        return _COUNTRY_ALIASES[name]
    try:
        return pycountry.countries.lookup(name).alpha_2
    except LookupError:
        try:
            return pycountry.countries.search_fuzzy(name)[0].alpha_2
        except LookupError:
            return None


def flag_codes(cell: str) -> tuple[str, ...]:
    """The flag of an operator-saved list's flag cell, ISO alpha-2 (as given) or a country name.

    A tuple, as ListedRecord.flags holds it: empty when the cell is empty or names no known country.
    """
    code = cell.upper() if len(cell) == 2 else (country_code(cell) if cell else None)
    return (code,) if code else ()
