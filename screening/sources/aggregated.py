"""The aggregated dataset (source name `opensanctions`): FollowTheMoney JSON lines and the maritime CSV.

Tags (FtM `topics`, maritime `risk`) decide how an exact hit reads (contract 3.1): `sanction`
is a designation that a primary list must corroborate (else AMBER shape 3); `mare.shadow`,
`mare.detained`, `reg.warn` and `poi` are watchlist tags (AMBER shape 2). IMO numbers on
non-vessel records are company numbers, never hull IMOs.
"""

from __future__ import annotations

import csv
import io
import json
import re

from screening.imo import imo_check_digit_valid
from screening.records import RECORD_ENTITY, RECORD_VESSEL, ListedRecord, ParsedSnapshot
from screening.sources.formats import decode_text

SOURCE = "opensanctions"
ENTITY_URL = "https://www.opensanctions.org/entities/{}/"
_DIGITS = re.compile(r"\d{7}")


def _imo(values: list[str]) -> str | None:
    for value in values:
        found = _DIGITS.search(value or "")
        if found:
            return found.group(0)
    return None


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
    common = {
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


def parse_ftm_jsonl(data: bytes) -> ParsedSnapshot:
    records, warnings = [], []
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
    return ParsedSnapshot(SOURCE, records=records, warnings=warnings)


def parse_maritime_csv(data: bytes) -> ParsedSnapshot:
    reader = csv.DictReader(io.StringIO(decode_text(data)))
    expected = {"type", "caption", "imo", "risk", "id"}
    if not reader.fieldnames or not expected <= set(reader.fieldnames):
        raise ValueError(
            "expected the maritime CSV columns type, caption, imo, risk, countries, flag, mmsi, id, url, "
            "datasets, aliases"
        )
    records = []
    for row in reader:

        def many(column: str, row: dict = row) -> list[str]:
            return [v.strip() for v in (row.get(column) or "").split(";") if v.strip()]

        if not row.get("caption") or not row.get("id"):
            continue
        records.append(
            _record(
                row["id"],
                (row.get("type") or "").strip().lower() == "vessel",
                row["caption"].strip(),
                many("aliases"),
                many("imo"),
                (row.get("mmsi") or "").strip() or None,
                many("flag"),
                many("risk"),
                many("datasets"),
                (row.get("url") or "").strip() or None,
            )
        )
    return ParsedSnapshot(SOURCE, records=records, list_edition_label="maritime")
