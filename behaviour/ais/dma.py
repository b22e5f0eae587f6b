"""The Danish Maritime Authority's daily AIS CSV (`aisdk-YYYY-MM-DD.csv`, http://aisdata.ais.dk/).

One row per received report, 26 columns (`DMA_HEADER`), times `DD/MM/YYYY HH:MM:SS` in UTC. The
authority has already decoded the messages and joined each ship's latest static data onto its position
rows, and writes its static reports (message 5) as rows without a position (latitude 91). Text stands
where AIS has codes (navigational status, ship type, type of mobile); the maps below turn them back
into the AIS codes the rest of the service uses.

A day is 10-20 million rows (2-3 GB), so the file is streamed in chunks with the pandas C parser: only
the 15 columns used are kept, text columns are read as categoricals (each distinct text is decoded once,
not once per row) and mapped through their few distinct values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from behaviour.ais.cleaning import (
    clean_positions,
    collapse_statics,
    drop,
    drop_unusable_rows,
    epoch_seconds_distinct,
    map_distinct,
    text_column,
)
from behaviour.ais.formats import AisFormat, CsvChunk, check_format, header_columns, read_csv_chunks
from behaviour.ais.frames import AisChunk, AisFormatError

DMA_HEADER: tuple[str, ...] = (
    "# Timestamp",
    "Type of mobile",
    "MMSI",
    "Latitude",
    "Longitude",
    "Navigational status",
    "ROT",
    "SOG",
    "COG",
    "Heading",
    "IMO",
    "Callsign",
    "Name",
    "Ship type",
    "Cargo type",
    "Width",
    "Length",
    "Type of position fixing device",
    "Draught",
    "Destination",
    "ETA",
    "Data source type",
    "A",
    "B",
    "C",
    "D",
)

DMA_TIME_FORMAT = "%d/%m/%Y %H:%M:%S"

# Column read -> dtype. Text is categorical: a chunk holds a few thousand distinct values of each.
_COLUMNS: dict[str, str] = {
    "Timestamp": "category",
    "Type of mobile": "category",
    "MMSI": "float64",  # float so that an empty MMSI does not abort the file (it is dropped, counted)
    "Latitude": "float64",
    "Longitude": "float64",
    "Navigational status": "category",
    "SOG": "float32",
    "COG": "float32",
    "Heading": "float32",
    "IMO": "category",
    "Callsign": "category",
    "Name": "category",
    "Ship type": "category",
    "Draught": "float32",
    "Destination": "category",
}

# "Type of mobile" -> why the row is dropped. Class A is kept; Class B is dropped because the merchant
# ships the service screens must carry Class A, and the rest are not ships at all.
_MOBILE_DROPPED: dict[str, str] = {
    "class b": "class_b",
    "base station": "base_station",
    "aton": "aid_to_navigation",
    "sar airborne": "search_and_rescue",
    "search and rescue transponder": "search_and_rescue",
}
_MOBILE_KEPT = "class a"
_MOBILE_OTHER = "other_mobile_type"  # anything else DMA may add (man overboard devices, EPIRBs ...)

# Navigational status text -> AIS code (ITU-R M.1371 table 45); spellings as DMA writes them, lower case.
NAV_STATUS_CODES: dict[str, int] = {
    "under way using engine": 0,
    "at anchor": 1,
    "not under command": 2,
    "restricted maneuverability": 3,
    "restricted manoeuverability": 3,
    "restricted manoeuvrability": 3,
    "constrained by her draught": 4,
    "moored": 5,
    "aground": 6,
    "engaged in fishing": 7,
    "under way sailing": 8,
    "reserved for future amendment [hsc]": 9,
    "reserved for future amendment [wig]": 10,
    "power-driven vessel towing astern": 11,
    "power-driven vessel pushing ahead or towing alongside": 12,
    "reserved for future use": 13,
    "ais-sart is active": 14,
    # DMA writes the AIS default 15 ("not defined") as "Unknown value".
    "unknown value": 15,
    "not defined": 15,
}

# Ship type text -> a representative AIS ship-and-cargo code (ITU-R M.1371 table 53). DMA splits the
# code into "Ship type" (the first digit's category) and "Cargo type" (the hazard class of 2x, 4x, 7x, 8x
# ...); the category is what the detectors need, so each maps to the code with hazard digit 0 (70 cargo,
# 80 tanker ...), or to the single code of the categories that have one (30 fishing, 52 tug ...).
# "Undefined" and anything unrecognised -> -1.
SHIP_TYPE_CODES: dict[str, int] = {
    "wig": 20,
    "fishing": 30,
    "towing": 31,
    "towing long/wide": 32,
    "dredging": 33,
    "diving": 34,
    "military": 35,
    "sailing": 36,
    "pleasure": 37,
    "reserved": 38,
    "hsc": 40,
    "pilot": 50,
    "sar": 51,
    "tug": 52,
    "port tender": 53,
    "anti-pollution": 54,
    "law enforcement": 55,
    "spare 1": 56,
    "spare 2": 57,
    "spare local vessel": 56,
    "medical": 58,
    "not party to conflict": 59,
    "passenger": 60,
    "cargo": 70,
    "tanker": 80,
    "other": 90,
}


def nav_status_code(text: object) -> int:
    return NAV_STATUS_CODES.get(str(text).strip().lower(), -1)


def ship_type_code(text: object) -> int:
    return SHIP_TYPE_CODES.get(str(text).strip().lower(), -1)


def imo_number(text: object) -> int:
    """IMO as transmitted ("Unknown" or anything not a number -> 0, absent)."""
    value = str(text).strip()
    return int(value) if value.isdigit() and len(value) <= 10 else 0


def _mobile_reason(text: object) -> str:
    key = str(text).strip().lower()
    if key == _MOBILE_KEPT:
        return ""
    return _MOBILE_DROPPED.get(key, _MOBILE_OTHER)


def _columns_as_written(path: str | Path) -> dict[str, str]:
    """Our column name -> the header's spelling (DMA writes '# Timestamp'; some re-exports drop the '# ')."""
    written = {name.lstrip("#").strip(): name for name in header_columns(path)}
    missing = [name for name in _COLUMNS if name not in written]
    if missing:
        raise AisFormatError(
            f"expected a Danish Maritime Authority CSV with the columns {', '.join(DMA_HEADER)}; "
            f"the header lacks {', '.join(missing)}"
        )
    return {name: written[name] for name in _COLUMNS}


def read_dma(path: str | Path, chunk_rows: int = 500_000) -> Iterator[AisChunk]:
    """Stream a DMA CSV as cleaned chunks of at most `chunk_rows` rows read (memory bounded by that).

    Raises AisFormatError before yielding anything when the file is not a DMA CSV.
    """
    check_format(path, AisFormat.DMA)
    names = _columns_as_written(path)
    return _chunks(path, names, chunk_rows)


def _chunks(path: str | Path, names: dict[str, str], chunk_rows: int) -> Iterator[AisChunk]:
    ours = {written: name for name, written in names.items()}
    dtypes = {names[name]: dtype for name, dtype in _COLUMNS.items()}
    for chunk in read_csv_chunks(path, dtypes, chunk_rows):
        yield _clean(chunk.frame.rename(columns=ours), chunk)


def _clean(raw: pd.DataFrame, parsed: CsvChunk) -> AisChunk:
    counts = parsed.counts()

    frame = pd.DataFrame(
        {
            "mobile": map_distinct(raw["Type of mobile"], _mobile_reason, _MOBILE_OTHER, "object"),
            "mmsi": raw["MMSI"].to_numpy(),
            "ts": epoch_seconds_distinct(raw["Timestamp"], DMA_TIME_FORMAT),
            "lat": raw["Latitude"].to_numpy(),
            "lon": raw["Longitude"].to_numpy(),
            "sog": raw["SOG"].to_numpy(),
            "cog": raw["COG"].to_numpy(),
            "heading": raw["Heading"].to_numpy(),
            "nav_status": map_distinct(raw["Navigational status"], nav_status_code, -1, "int8"),
            "imo": map_distinct(raw["IMO"], imo_number, 0, "int64"),
            "name": text_column(raw["Name"]),
            "callsign": text_column(raw["Callsign"]),
            "ship_type": map_distinct(raw["Ship type"], ship_type_code, -1, "int16"),
            "draught": raw["Draught"].to_numpy(),
            "destination": text_column(raw["Destination"]),
        }
    )
    mobile = frame["mobile"].to_numpy()
    for reason in sorted(set(_MOBILE_DROPPED.values())) + [_MOBILE_OTHER]:
        frame = drop(frame, mobile == reason, reason, counts)
        mobile = frame["mobile"].to_numpy()

    frame = drop_unusable_rows(frame, counts)
    frame["mmsi"] = frame["mmsi"].to_numpy(dtype="int64")
    statics = collapse_statics(frame, counts)
    # Static reports come as rows at latitude 91 (AIS "not available"): normal, not an error.
    with np.errstate(invalid="ignore"):
        static_only = frame["lat"].to_numpy() == 91.0
    positions = clean_positions(drop(frame, static_only, "static_only_row", counts), counts)
    return AisChunk(positions=positions, statics=statics, counts=counts)
