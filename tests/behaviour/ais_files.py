"""Write AIS files for tests: the Danish Maritime Authority layout from rows, and real data paths.

The DMA layout is public (26 columns, see `behaviour.ais.dma.DMA_HEADER`); tests build DMA files from
the real MarineCadastre rows so that the DMA reader is exercised on real ships, real names and real
messiness. The conversion here is written independently of the reader (plain dicts and the csv module).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from behaviour.ais.dma import DMA_HEADER

AIS_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ais"
MARINECADASTRE_SAMPLE = AIS_DATA / "marinecadastre-AIS_2022_01_03-first99999.csv"
NMEA_SAMPLE = AIS_DATA / "aivdm-aegean-sample.nmea"

# The reader's own header: the public layout is written once (behaviour.ais.dma.DMA_HEADER).
DMA_COLUMNS = DMA_HEADER

# AIS navigational status code -> the text DMA writes.
DMA_STATUS_TEXT = {
    "0": "Under way using engine",
    "1": "At anchor",
    "2": "Not under command",
    "3": "Restricted maneuverability",
    "4": "Constrained by her draught",
    "5": "Moored",
    "6": "Aground",
    "7": "Engaged in fishing",
    "8": "Under way sailing",
    "9": "Reserved for future amendment [HSC]",
    "10": "Reserved for future amendment [WIG]",
    "11": "Power-driven vessel towing astern",
    "12": "Power-driven vessel pushing ahead or towing alongside",
    "13": "Reserved for future use",
    "14": "AIS-SART is active",
    "15": "Unknown value",
}

# AIS ship type code -> DMA's text and the representative code the reader is documented to return.
_SINGLE_TYPES = {
    30: "Fishing",
    31: "Towing",
    32: "Towing long/wide",
    33: "Dredging",
    34: "Diving",
    35: "Military",
    36: "Sailing",
    37: "Pleasure",
    50: "Pilot",
    51: "SAR",
    52: "Tug",
    53: "Port tender",
    54: "Anti-pollution",
    55: "Law enforcement",
    56: "Spare 1",
    57: "Spare 2",
    58: "Medical",
    59: "Not party to conflict",
}
_DECADE_TYPES = {
    2: ("WIG", 20),
    4: ("HSC", 40),
    6: ("Passenger", 60),
    7: ("Cargo", 70),
    8: ("Tanker", 80),
    9: ("Other", 90),
}


def dma_ship_type(code: str) -> tuple[str, int]:
    """(DMA's text, the code read back) for a MarineCadastre VesselType."""
    if not code.strip().isdigit():
        return "Undefined", -1
    number = int(code)
    if number in _SINGLE_TYPES:
        return _SINGLE_TYPES[number], number
    if number in (38, 39):
        return "Reserved", 38
    if number // 10 in _DECADE_TYPES:
        return _DECADE_TYPES[number // 10]
    return "Undefined", -1


def dma_row(**values: str) -> dict[str, str]:
    """A DMA row with every column present ("" unless given); keys are DMA column names."""
    row = dict.fromkeys(DMA_COLUMNS, "")
    unknown = set(values) - set(DMA_COLUMNS)
    assert not unknown, f"not DMA columns: {unknown}"
    row.update(values)
    return row


def dma_text(rows: Iterable[Mapping[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=DMA_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


def write_dma(path: Path, rows: Iterable[Mapping[str, str]]) -> Path:
    path.write_text(dma_text(rows), encoding="utf-8")
    return path


def marinecadastre_rows() -> list[dict[str, str]]:
    with MARINECADASTRE_SAMPLE.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def dma_from_marinecadastre(row: Mapping[str, str], *, shift_seconds: int = 0, mmsi_offset: int = 0) -> dict[str, str]:
    """A MarineCadastre row written as DMA would write the same report."""
    stamp = datetime.fromisoformat(row["BaseDateTime"]).replace(tzinfo=UTC) + timedelta(seconds=shift_seconds)
    imo = row["IMO"].removeprefix("IMO")
    return dma_row(
        **{
            "# Timestamp": stamp.strftime("%d/%m/%Y %H:%M:%S"),
            "Type of mobile": "Class A" if row["TransceiverClass"] == "A" else "Class B",
            "MMSI": str(int(row["MMSI"]) + mmsi_offset) if row["MMSI"] else "",
            "Latitude": row["LAT"],
            "Longitude": row["LON"],
            "Navigational status": DMA_STATUS_TEXT.get(row["Status"], "Unknown value"),
            "SOG": row["SOG"],
            "COG": row["COG"],
            "Heading": row["Heading"],
            "IMO": imo if imo else "Unknown",
            "Callsign": row["CallSign"],
            "Name": row["VesselName"],
            "Ship type": dma_ship_type(row["VesselType"])[0],
            "Width": row["Width"],
            "Length": row["Length"],
            "Draught": row["Draft"],
            "Data source type": "AIS",
        }
    )


requires_ais_data = pytest.mark.skipif(not AIS_DATA.is_dir(), reason="../shared/data/ais is not present")
