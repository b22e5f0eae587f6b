"""NOAA MarineCadastre AIS CSV (`AIS_YYYY_MM_DD.csv`, https://marinecadastre.gov/ais/).

17 columns, one row per position report with the ship's static data joined on:
`MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,Status,Length,Width,
Draft,Cargo,TransceiverClass`. Times are ISO (`2022-01-03T00:00:00`, UTC), IMO is written "IMO9300776",
VesselType and Status are already AIS codes, TransceiverClass is "A" or "B". There is no destination.
Rows are not sorted by time. Streamed like the DMA file (see `behaviour.ais.dma`).
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

MARINECADASTRE_HEADER: tuple[str, ...] = (
    "MMSI",
    "BaseDateTime",
    "LAT",
    "LON",
    "SOG",
    "COG",
    "Heading",
    "VesselName",
    "IMO",
    "CallSign",
    "VesselType",
    "Status",
    "Length",
    "Width",
    "Draft",
    "Cargo",
    "TransceiverClass",
)

MARINECADASTRE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"
CLASS_COLUMN = "TransceiverClass"
# The files of 2018-2020 spell it so (and order the columns BaseDateTime,LON,LAT,MMSI,...; add an ETA).
CLASS_COLUMN_2020 = "TranscieverClass"

_COLUMNS: dict[str, str] = {
    "MMSI": "float64",  # float so that an empty MMSI does not abort the file (it is dropped, counted)
    "BaseDateTime": "category",
    "LAT": "float64",
    "LON": "float64",
    "SOG": "float32",
    "COG": "float32",
    "Heading": "float32",
    "VesselName": "category",
    "IMO": "category",
    "CallSign": "category",
    "VesselType": "float32",
    "Status": "float32",
    "Draft": "float32",
    "TransceiverClass": "category",
}


_UNKNOWN_CLASS = "unknown_transceiver_class"


def imo_number(text: object) -> int:
    """ "IMO9300776" -> 9300776 as transmitted; empty or not a number -> 0 (absent)."""
    value = str(text).strip().upper().removeprefix("IMO").strip()
    return int(value) if value.isdigit() and len(value) <= 10 else 0


def _transceiver_reason(text: object) -> str:
    value = str(text).strip().upper()
    if value == "A":
        return ""
    return "class_b" if value == "B" else _UNKNOWN_CLASS


def _code(values: pd.Series, low: int, high: int, dtype: str) -> np.ndarray:
    """A numeric AIS code column as ints, -1 where empty or outside [low, high]."""
    numbers = values.to_numpy(dtype="float64")
    with np.errstate(invalid="ignore"):
        valid = (numbers >= low) & (numbers <= high)
    return np.where(valid, np.nan_to_num(numbers), -1).astype(dtype)


def read_marinecadastre(path: str | Path, chunk_rows: int = 500_000) -> Iterator[AisChunk]:
    """Stream a MarineCadastre CSV as cleaned chunks of at most `chunk_rows` rows read.

    Raises AisFormatError before yielding anything when the file is not a MarineCadastre CSV.
    """
    check_format(path, AisFormat.MARINECADASTRE)
    written = set(header_columns(path))
    if CLASS_COLUMN not in written and CLASS_COLUMN_2020 in written:
        return _chunks(path, chunk_rows, class_column=CLASS_COLUMN_2020)
    missing = [name for name in _COLUMNS if name not in written]
    if missing:
        raise AisFormatError(
            f"expected a MarineCadastre CSV with the columns {','.join(MARINECADASTRE_HEADER)}; "
            f"the header lacks {', '.join(missing)}"
        )
    return _chunks(path, chunk_rows)


def _chunks(path: str | Path, chunk_rows: int, class_column: str = "TransceiverClass") -> Iterator[AisChunk]:
    columns = {(class_column if name == CLASS_COLUMN else name): dtype for name, dtype in _COLUMNS.items()}
    for chunk in read_csv_chunks(path, columns, chunk_rows):
        yield _clean(chunk.frame.rename(columns={class_column: CLASS_COLUMN}), chunk)


def _clean(raw: pd.DataFrame, parsed: CsvChunk) -> AisChunk:
    counts = parsed.counts()
    frame = pd.DataFrame(
        {
            "transceiver": map_distinct(raw["TransceiverClass"], _transceiver_reason, _UNKNOWN_CLASS, "object"),
            "mmsi": raw["MMSI"].to_numpy(),
            "ts": epoch_seconds_distinct(raw["BaseDateTime"], MARINECADASTRE_TIME_FORMAT),
            "lat": raw["LAT"].to_numpy(),
            "lon": raw["LON"].to_numpy(),
            "sog": raw["SOG"].to_numpy(),
            "cog": raw["COG"].to_numpy(),
            "heading": raw["Heading"].to_numpy(),
            "nav_status": _code(raw["Status"], 0, 15, "int8"),
            "imo": map_distinct(raw["IMO"], imo_number, 0, "int64"),
            "name": text_column(raw["VesselName"]),
            "callsign": text_column(raw["CallSign"]),
            "ship_type": _code(raw["VesselType"], 1, 99, "int16"),  # 0 is AIS "not available"
            "draught": raw["Draft"].to_numpy(),
            "destination": "",
        }
    )
    transceiver = frame["transceiver"].to_numpy()
    frame = drop(frame, transceiver == "class_b", "class_b", counts)
    frame = drop(frame, frame["transceiver"].to_numpy() == _UNKNOWN_CLASS, _UNKNOWN_CLASS, counts)
    frame = drop_unusable_rows(frame, counts)
    frame["mmsi"] = frame["mmsi"].to_numpy(dtype="int64")
    statics = collapse_statics(frame, counts)
    positions = clean_positions(frame, counts)
    return AisChunk(positions=positions, statics=statics, counts=counts)
