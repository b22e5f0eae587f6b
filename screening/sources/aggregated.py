"""The aggregated dataset (source name `opensanctions`): FollowTheMoney JSON lines and the maritime CSV.

Tags (FtM `topics`, maritime `risk`) decide how an exact hit reads (contract 3.1): `sanction`
is a designation that a primary list must corroborate (else AMBER shape 3); `mare.shadow`,
`mare.detained`, `reg.warn`, `poi` and any other tag are watchlist tags (AMBER shape 2). A
maritime row whose `risk` is empty is no listing and is not loaded. IMO numbers on non-vessel
records are company numbers, never hull IMOs.

Publication time: the FtM export has no header, but every entity carries `last_seen`, the time
the aggregator's build last saw it; the newest of them is when this export was assembled, and is
taken as the edition's publication time (naive stamps are UTC). The maritime CSV carries no date
at all (no column or header line holds one): its publication time is unknown unless the operator
gives it (`refresh_sources --published`) or the download's Last-Modified does.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from typing import TypedDict

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import decode_text, iso_timestamp

SOURCE = "opensanctions"
ENTITY_URL = "https://www.opensanctions.org/entities/{}/"
_DIGITS = re.compile(r"\d{7}")


def _imo(values: list[str]) -> str | None:
    for value in values:
        found = _DIGITS.search(value or "")
        if found:
            return found.group(0)
    return None


class _EntityListing(TypedDict):
    """The ListedRecord fields every dataset entity gives, vessel or entity."""

    source: str
    name: str
    source_record_id: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    programs: tuple[str, ...]
    source_url: str


def _record(
    entity_id: str,
    is_vessel: bool,
    name: str,
    aliases: list[str],
    imos: list[str],
    mmsi: str | None,
    flags: list[str],
    tags: list[str],
    datasets: list[str],
    url: str | None,
) -> ListedRecord:
    imo = _imo(imos)
    common: _EntityListing = {
        "source": SOURCE,
        "name": name,
        "source_record_id": entity_id,
        "aliases": tuple(dict.fromkeys(a for a in aliases if a and a != name)),
        "tags": tuple(tags),
        "programs": tuple(datasets),
        "source_url": url or ENTITY_URL.format(entity_id),
    }
    if is_vessel:
        return ListedRecord(
            record_type=RECORD_VESSEL,
            imo=imo,
            imo_check_digit_valid=imo_check_digit_valid(imo) if imo else None,
            mmsi=mmsi,
            flags=tuple(f.upper() for f in flags if len(f) == 2),
            **common,
        )
    return ListedRecord(record_type=RECORD_ENTITY, company_numbers=(imo,) if imo else (), **common)


def _seen_at(entity: dict) -> datetime | None:
    """An entity's `last_seen` as an aware time (the aggregator writes it naive, in UTC)."""
    value = entity.get("last_seen")
    seen = iso_timestamp(value) if isinstance(value, str) else None
    if seen is not None and seen.tzinfo is None:
        seen = seen.replace(tzinfo=UTC)
    return seen


def parse_ftm_jsonl(data: bytes) -> ParsedSnapshot:
    records, warnings = [], []
    published: datetime | None = None
    for line_number, line in enumerate(decode_text(data).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entity = json.loads(line)
            props = entity.get("properties") or {}
            schema = entity["schema"]
        except (ValueError, KeyError, AttributeError):
            warnings.append(f"line {line_number}: not a FollowTheMoney entity")
            continue
        seen = _seen_at(entity)
        if seen is not None and (published is None or seen > published):
            published = seen
        names = props.get("name") or []
        if not names:
            continue
        records.append(
            _record(
                entity["id"],
                schema == "Vessel",
                names[0],
                names[1:] + (props.get("alias") or []),
                props.get("imoNumber") or [],
                (props.get("mmsi") or [None])[0],
                props.get("flag") or [],
                props.get("topics") or [],
                entity.get("datasets") or [],
                None,
            )
        )
    if not records and warnings:
        raise ValueError("no FollowTheMoney entities in the file")
    return ParsedSnapshot(SOURCE, records=records, published_at=published, warnings=warnings)


def parse_maritime_csv(data: bytes) -> ParsedSnapshot:
    """The maritime CSV: one row per vessel or organisation; a row with an empty `risk` is no listing.

    The publisher includes every vessel its sources mention, also those no list designates or
    watches (their `risk` cell is empty). Such a row says nothing against the hull, so it is not
    loaded (one warning counts them); only rows whose `risk` names a tag become records. The name
    column is `caption` (also read as `name`).
    """
    text = decode_text(data)
    reader = csv.DictReader(io.StringIO(text))
    columns = {(name or "").strip().lower(): name for name in reader.fieldnames or ()}
    name_column = columns.get("caption") or columns.get("name")
    if not name_column or not {"type", "imo", "risk", "id"} <= set(columns):
        raise ValueError(
            "expected the maritime CSV columns type, caption, imo, risk, countries, flag, mmsi, id, url, "
            "datasets, aliases"
        )
    records, warnings = [], []
    unlisted = 0
    for row in reader:

        def cell(column: str, row: dict = row) -> str:
            return (row.get(columns.get(column, column)) or "").strip()

        def many(column: str) -> list[str]:
            return [v.strip() for v in cell(column).split(";") if v.strip()]

        name, entity_id = (row.get(name_column) or "").strip(), cell("id")
        if not name or not entity_id:
            continue
        risk = many("risk")
        if not risk:
            unlisted += 1
            continue
        records.append(
            _record(
                entity_id,
                cell("type").lower() == "vessel",
                name,
                many("aliases"),
                many("imo"),
                cell("mmsi") or None,
                many("flag"),
                risk,
                many("datasets"),
                cell("url") or None,
            )
        )
    if unlisted:
        warnings.append(f"{unlisted} row(s) with an empty risk column are not listings and were not loaded")
    return ParsedSnapshot(SOURCE, records=records, list_edition_label="maritime", warnings=warnings)
