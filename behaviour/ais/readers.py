"""One entry point for every AIS file: find (or check) its format, then stream it as cleaned chunks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from behaviour.ais.dma import read_dma
from behaviour.ais.formats import AisFormat, check_format, guess_format
from behaviour.ais.frames import AisChunk
from behaviour.ais.marinecadastre import read_marinecadastre
from behaviour.ais.nmea import read_nmea


def read_file(
    path: str | Path,
    fmt: AisFormat | None = None,
    *,
    default_ts: int | None = None,
    chunk_rows: int | None = None,
) -> tuple[AisFormat, Iterator[AisChunk]]:
    """(the file's format, its chunks). `fmt` None: guessed from the first line; else checked.

    AisFormatError is raised here, before any row is parsed, when the file is in none of the formats or
    not in `fmt`. `default_ts` (epoch seconds) dates NMEA messages that carry no time; CSV rows always
    carry one, so it is ignored for them. `chunk_rows` None uses each reader's default.
    """
    if fmt is None:
        fmt = guess_format(path)
    else:
        fmt = AisFormat(fmt)
        check_format(path, fmt)
    if fmt is AisFormat.DMA:
        chunks = read_dma(path) if chunk_rows is None else read_dma(path, chunk_rows=chunk_rows)
    elif fmt is AisFormat.MARINECADASTRE:
        chunks = read_marinecadastre(path) if chunk_rows is None else read_marinecadastre(path, chunk_rows=chunk_rows)
    elif chunk_rows is None:
        chunks = read_nmea(path, default_ts=default_ts)
    else:
        chunks = read_nmea(path, chunk_rows=chunk_rows, default_ts=default_ts)
    return fmt, chunks
