"""Which of the three AIS file formats a file is, and opening it, whatever its compression.

The format is decided from the first line before anything is parsed: an upload in the wrong format must
fail at once with a message a person can act on ("expected ..., the first line is ..."), not after
minutes of parsing or, worse, with an empty result. Compressed files (`.gz`, or a `.zip` holding one
file) are recognised by their magic bytes, so the name does not matter. `read_csv_chunks` is the typed,
streaming CSV parse both CSV readers share.
"""

from __future__ import annotations

import enum
import gzip
import io
import re
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd
from pandas.errors import ParserWarning

from behaviour.ais.frames import AisFormatError


class AisFormat(enum.StrEnum):
    DMA = "dma"  # Danish Maritime Authority daily CSV (aisdk-YYYY-MM-DD.csv)
    MARINECADASTRE = "marinecadastre"  # NOAA MarineCadastre CSV (AIS_YYYY_MM_DD.csv)
    NMEA = "nmea"  # raw NMEA 0183 !AIVDM/!AIVDO sentences, one a line


_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"

# The leading columns that identify each CSV layout; the readers check the columns they use separately.
DMA_HEADER_START = ("Timestamp", "Type of mobile", "MMSI")
MARINECADASTRE_HEADER_START = ("MMSI", "BaseDateTime", "LAT", "LON")

# A sentence, optionally behind a tag block and/or a time stamp written by the logger.
NMEA_SENTENCE = re.compile(r"(?:^|\\|\s|,)[!$][A-Z]{2}VD[MO],")
# How many non-blank lines may precede the first sentence (receivers log noise at start-up).
_NMEA_LOOKAHEAD_LINES = 20

EXPECTED: dict[AisFormat, str] = {
    AisFormat.DMA: (
        "a Danish Maritime Authority CSV whose header begins '# Timestamp,Type of mobile,MMSI,Latitude,Longitude,...'"
    ),
    AisFormat.MARINECADASTRE: (
        "a MarineCadastre CSV whose header begins 'MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,...'"
    ),
    AisFormat.NMEA: (
        "raw NMEA 0183 AIS sentences such as '!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0*24' "
        "(optionally behind a '\\s:...,c:<unix seconds>*hh\\' tag block)"
    ),
}


def open_text(path: str | Path) -> TextIO:
    """`path` opened for reading text, decompressing gzip or a single-member zip on the fly.

    Undecodable bytes become U+FFFD rather than raising: vessel names in the wild carry odd bytes, and
    one of them must not abort a file of millions of rows.
    """
    path = Path(path)
    with path.open("rb") as raw:
        magic = raw.read(4)
    if magic.startswith(_GZIP_MAGIC):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace", newline="")
    if magic == _ZIP_MAGIC:
        with zipfile.ZipFile(path) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            if len(members) != 1:
                names = ", ".join(info.filename for info in members[:5]) or "nothing"
                raise AisFormatError(f"expected a zip archive holding exactly one AIS file; {path.name} holds {names}")
            # The member keeps the archive's file handle alive after the archive object is closed.
            member = archive.open(members[0])
        return io.TextIOWrapper(member, encoding="utf-8", errors="replace", newline="")
    return path.open("r", encoding="utf-8", errors="replace", newline="")


def _first_lines(path: str | Path, limit: int) -> list[str]:
    """Up to `limit` lines from the start (each cut at 4096 characters, so a binary file cannot blow memory)."""
    lines: list[str] = []
    with open_text(path) as handle:
        for _ in range(limit):
            line = handle.readline(4096)
            if not line:
                break
            lines.append(line)
    if lines:
        lines[0] = lines[0].removeprefix("\ufeff")
    return lines


def _header_fields(line: str) -> tuple[str, ...]:
    fields = tuple(field.strip().strip('"') for field in line.strip().split(","))
    if fields:
        # DMA writes the header as a comment ('# Timestamp'); some re-exports drop the '# '.
        fields = (fields[0].lstrip("#").strip(), *fields[1:])
    return fields


def _describe_start(lines: list[str]) -> str:
    if not lines:
        return "the file is empty"
    first = lines[0].rstrip("\r\n")
    if "\x00" in first or "\ufffd" in first[:8]:
        return f"the file starts with binary data {first[:16]!r}"
    if len(first) > 120:
        first = first[:117] + "..."
    return f"the first line is {first!r}"


def _is_nmea(lines: list[str]) -> bool:
    return any(NMEA_SENTENCE.search(line) for line in lines if line.strip())


def _detect(lines: list[str]) -> AisFormat | None:
    if not lines:
        return None
    header = _header_fields(lines[0])
    if header[: len(DMA_HEADER_START)] == DMA_HEADER_START:
        return AisFormat.DMA
    # MarineCadastre's column order changed over the years (the 2020 files begin BaseDateTime,LON,LAT,MMSI):
    # its four position columns anywhere in the header make it one.
    if set(MARINECADASTRE_HEADER_START) <= set(header):
        return AisFormat.MARINECADASTRE
    if _is_nmea(lines):
        return AisFormat.NMEA
    return None


def guess_format(path: str | Path) -> AisFormat:
    """The format of `path` from its header line (CSV) or its first sentences (NMEA)."""
    lines = _first_lines(path, _NMEA_LOOKAHEAD_LINES)
    found = _detect(lines)
    if found is None:
        expected = "; or ".join(EXPECTED[fmt] for fmt in AisFormat)
        raise AisFormatError(f"expected one of: {expected}; {_describe_start(lines)}")
    return found


def check_format(path: str | Path, fmt: AisFormat) -> None:
    """Raise AisFormatError (naming what was expected and what was seen) unless `path` is in `fmt`."""
    fmt = AisFormat(fmt)
    lines = _first_lines(path, _NMEA_LOOKAHEAD_LINES)
    found = _detect(lines)
    if found != fmt:
        seen = _describe_start(lines)
        if found is not None:
            seen += f" (this looks like the {found.value} format)"
        raise AisFormatError(f"expected {EXPECTED[fmt]}; {seen}")


def header_columns(path: str | Path) -> tuple[str, ...]:
    """The column names of a CSV's header line as written (DMA's leading '# ' kept)."""
    lines = _first_lines(path, 1)
    if not lines:
        return ()
    return tuple(field.strip().strip('"') for field in lines[0].rstrip("\r\n").split(","))


@dataclass
class CsvChunk:
    """Rows of a CSV in the dtypes asked for, and what was wrong with the rows around them."""

    frame: pd.DataFrame
    malformed_rows: int  # skipped: more fields than the header (a stray comma in a name)
    unparseable_numbers: int  # kept, with NaN where a number column held text

    def counts(self) -> Counter[str]:
        """What a chunk's counts start from: the rows read, and those the parser skipped or mended."""
        counts: Counter[str] = Counter(rows_read=len(self.frame) + self.malformed_rows)
        if self.malformed_rows:
            counts["malformed_row"] += self.malformed_rows
        if self.unparseable_numbers:
            counts["unparseable_number"] += self.unparseable_numbers
        return counts


class _NumberColumnHoldsText(Exception):
    pass


def read_csv_chunks(path: str | Path, dtypes: dict[str, str], chunk_rows: int) -> Iterator[CsvChunk]:
    """The columns of `dtypes`, streamed in chunks of `chunk_rows` rows; no bad row is fatal.

    The pandas C parser with explicit dtypes is what makes a multi-GB day of AIS readable in minutes.
    Every column is parsed (the unused ones as categoricals, which cost little) rather than passing
    `usecols`: with `usecols` pandas silently shifts a row with too many fields instead of skipping it.
    Such a row is skipped and counted. Text in a number column makes the typed parser fail a whole chunk;
    then that chunk and the rest of the file are re-read with number columns as text and converted one
    column at a time, text becoming NaN (counted), so one bad row in 15 million costs speed, not the file.
    Empty fields are missing; nothing else is ("NA" is a fine vessel name).
    """
    header = header_columns(path)
    lines_done = 0  # data lines consumed by the chunks yielded so far (kept or skipped)
    tolerant = False
    while True:
        try:
            for chunk in _csv_chunks(path, header, dtypes, chunk_rows, lines_done, tolerant):
                lines_done += len(chunk.frame) + chunk.malformed_rows
                yield chunk
            return
        except _NumberColumnHoldsText:
            tolerant = True


def _csv_chunks(
    path: str | Path, header: tuple[str, ...], dtypes: dict[str, str], chunk_rows: int, skip: int, tolerant: bool
) -> Iterator[CsvChunk]:
    numbers = [name for name, dtype in dtypes.items() if dtype != "category"]
    parse_as = dict.fromkeys(header, "category") | dtypes
    if tolerant:
        parse_as |= dict.fromkeys(numbers, "object")
    with open_text(path) as handle:
        reader = pd.read_csv(
            handle,
            header=None,
            names=list(header),
            skiprows=1 + skip,  # the header line, and the lines already yielded
            dtype=parse_as,
            chunksize=chunk_rows,
            engine="c",
            keep_default_na=False,
            na_values=[""],
            on_bad_lines="warn",
        )
        with reader:
            while True:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ParserWarning)
                    try:
                        frame = next(reader)
                    except StopIteration:
                        return
                    except ValueError as error:
                        if tolerant:
                            raise
                        raise _NumberColumnHoldsText from error
                skipped = sum(
                    str(warning.message).count("Skipping line")
                    for warning in caught
                    if issubclass(warning.category, ParserWarning)
                )
                frame = frame[list(dtypes)]
                unparseable = 0
                if tolerant:
                    frame, unparseable = _to_numbers(frame, {name: dtypes[name] for name in numbers})
                yield CsvChunk(frame, skipped, unparseable)


def _to_numbers(frame: pd.DataFrame, dtypes: dict[str, str]) -> tuple[pd.DataFrame, int]:
    """Number columns read as text converted, text that is not a number -> NaN; (frame, rows with any)."""
    bad = np.zeros(len(frame), dtype=bool)
    converted = {}
    for name, dtype in dtypes.items():
        text = frame[name]
        values = pd.to_numeric(text, errors="coerce")
        bad |= (text.notna() & values.isna()).to_numpy()
        converted[name] = values.to_numpy(dtype="float64").astype(dtype)
    return frame.assign(**converted), int(np.count_nonzero(bad))
