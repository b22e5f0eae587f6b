"""Raw NMEA 0183 AIS (`!AIVDM`/`!AIVDO` sentences, one a line) decoded with pyais.

A receiver's log is noisy by nature: empty lines, sentences cut by a serial buffer, bad checksums, the
first half of a two-part message whose second half was lost. None of that may stop a file: every such
line is counted and skipped.

Time is not part of an AIS message, so it comes from what the logger wrote around the sentence:
- a tag block before it, `\\s:station,c:1241544035*hh\\!AIVDM,...` (c: is unix seconds, or milliseconds);
- a time after the checksum, `!AIVDM,...,0*hh,1241544035` (unix seconds) or `...*hh,2021-05-06T12:00:00Z`;
- a time before the sentence, `2021-05-06 12:00:00 !AIVDM,...`.
A file without any (the common "raw dump") can be read with `default_ts`, one time for the whole file;
otherwise its messages are dropped and counted as `no_timestamp`.

Kept: messages 1/2/3 (Class A position reports) and 5 (Class A static and voyage data). Counted and
dropped: 18/19/24 (Class B: the merchant ships screened here carry Class A), 4/11 (base stations),
21 (aids to navigation) and every other type (`other_message`). Decoding is per line Python (pyais), so
this reader is far slower than the CSV readers; message types that are dropped are never decoded.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pyais.exceptions import AISBaseException
from pyais.messages import AISSentence

from behaviour.ais.cleaning import clean_positions, collapse_statics, drop_unusable_rows, text_column
from behaviour.ais.formats import AisFormat, check_format, open_text
from behaviour.ais.frames import MISSING_TS, AisChunk, empty_positions, empty_statics

_POSITION_TYPES = frozenset({1, 2, 3})
_STATIC_TYPE = 5
# Message type -> why it is dropped.
_DROPPED_TYPES: dict[int, str] = {
    18: "class_b",
    19: "class_b",
    24: "class_b",
    4: "base_station",
    11: "base_station",
    21: "aid_to_navigation",
}
# Unix times in milliseconds are larger than any plausible time in seconds (year 5138).
_MILLISECONDS_ABOVE = 100_000_000_000


def parse_time(text: str) -> int | None:
    """Unix seconds (or milliseconds) or an ISO-like time (naive = UTC) as epoch seconds; None if neither."""
    text = text.strip().strip(",").strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        if not np.isfinite(number) or number <= 0:
            return None
        return int(number // 1000) if number >= _MILLISECONDS_ABOVE else int(number)
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return int(stamp.timestamp())


def _tag_block_time(tag: str) -> int | None:
    """The c: (receiver time) field of a tag block, if the block's checksum holds."""
    body, _, check = tag.partition("*")
    if check:
        actual = 0
        for char in body.encode("ascii", "replace"):
            actual ^= char
        try:
            if int(check[:2], 16) != actual:
                return None
        except ValueError:
            return None
    for field in body.split(","):
        if field.startswith("c:"):
            return parse_time(field[2:])
    return None


def split_line(line: str) -> tuple[str, int | None] | None:
    """(the bare sentence up to its checksum, the time written around it) or None when there is no sentence."""
    line = line.strip()
    ts: int | None = None
    if line.startswith("\\"):
        end = line.find("\\", 1)
        if end < 0:
            return None
        ts = _tag_block_time(line[1:end])
        line = line[end + 1 :]
    start = min((i for i in (line.find("!"), line.find("$")) if i >= 0), default=-1)
    if start < 0:
        return None
    if start > 0 and ts is None:
        ts = parse_time(line[:start])
    line = line[start:]
    # The checksum is the two hex digits after the '*' (a payload never holds one); whatever follows is
    # the logger's time.
    star = line.find("*")
    if star < 0 or len(line) < star + 3:
        return None
    sentence, trailer = line[: star + 3], line[star + 3 :]
    if trailer and ts is None:
        ts = parse_time(trailer)
    return sentence, ts


class _Decoder:
    """Line by line state: fragments waiting for their other parts, and the chunk being filled."""

    def __init__(self, default_ts: int | None) -> None:
        self.default_ts = default_ts
        self.counts: Counter[str] = Counter()
        self.pending: dict[tuple[int, int | None, str], tuple[list[AISSentence], int | None]] = {}
        self.positions: dict[str, list[Any]] = {name: [] for name in _POSITION_FIELDS}
        self.statics: dict[str, list[Any]] = {name: [] for name in _STATIC_FIELDS}

    def line(self, text: str) -> None:
        self.counts["rows_read"] += 1
        parts = split_line(text)
        if parts is None:
            self.counts["undecodable_line"] += 1
            return
        raw, ts = parts
        try:
            sentence = AISSentence(raw.encode("ascii"))
            valid = sentence.is_valid
        except (AISBaseException, UnicodeError, ValueError, IndexError):
            self.counts["undecodable_line"] += 1
            return
        if not valid or not sentence.payload:
            self.counts["undecodable_line"] += 1
            return
        if sentence.frag_cnt == 1:
            self.message(sentence, ts)
            return
        self.fragment(sentence, ts)

    def fragment(self, sentence: AISSentence, ts: int | None) -> None:
        """Hold a fragment until its message is whole (same count, sequence id and channel, in order)."""
        key = (sentence.frag_cnt, sentence.seq_id, sentence.channel)
        held = self.pending.get(key)
        if sentence.frag_num == 1:
            if held is not None:
                # A new message reuses the sequence id: the held one will never be completed.
                self.counts["incomplete_multipart"] += len(held[0])
            self.pending[key] = ([sentence], ts)
            return
        if held is None or held[0][-1].frag_num != sentence.frag_num - 1:
            self.counts["incomplete_multipart"] += 1 + (len(held[0]) if held else 0)
            self.pending.pop(key, None)
            return
        held[0].append(sentence)
        if sentence.frag_num < sentence.frag_cnt:
            return
        del self.pending[key]
        fragments, first_ts = held
        try:
            whole = AISSentence.assemble_from_iterable(fragments)
        except (AISBaseException, ValueError, IndexError):
            self.counts["undecodable_line"] += len(fragments)
            return
        self.message(whole, first_ts if first_ts is not None else ts)

    def message(self, sentence: AISSentence, ts: int | None) -> None:
        kind = sentence.ais_id
        if kind in _DROPPED_TYPES:
            self.counts[_DROPPED_TYPES[kind]] += 1
            return
        if kind not in _POSITION_TYPES and kind != _STATIC_TYPE:
            self.counts["other_message"] += 1
            return
        if ts is None:
            ts = self.default_ts
        if ts is None:
            self.counts["no_timestamp"] += 1
            return
        try:
            decoded: Any = sentence.decode()
            if kind in _POSITION_TYPES:
                values: tuple[Any, ...] = _position_values(decoded, ts)
            else:
                values = _static_values(decoded, ts)
        except _DECODE_ERRORS:
            # A payload of the wrong length for its type, or a field pyais cannot convert.
            self.counts["undecodable_line"] += 1
            return
        rows = self.positions if kind in _POSITION_TYPES else self.statics
        for column, value in zip(rows.values(), values, strict=True):
            column.append(value)

    def finish(self) -> None:
        for fragments, _ in self.pending.values():
            self.counts["incomplete_multipart"] += len(fragments)
        self.pending.clear()

    def chunk(self) -> AisChunk:
        """The messages gathered since the last chunk, cleaned, and their counts; starts a new chunk."""
        counts, self.counts = self.counts, Counter()
        positions = _frame(self.positions, _POSITION_FIELDS)
        statics = _frame(self.statics, _STATIC_FIELDS)
        for values in (*self.positions.values(), *self.statics.values()):
            values.clear()
        if len(positions):
            positions = clean_positions(drop_unusable_rows(positions, counts), counts)
        else:
            positions = empty_positions()
        if len(statics):
            for name in ("name", "callsign", "destination"):
                statics[name] = text_column(statics[name])
            statics = collapse_statics(drop_unusable_rows(statics, counts), counts)
        else:
            statics = empty_statics()
        return AisChunk(positions=positions, statics=statics, counts=counts)


_POSITION_FIELDS: dict[str, str] = {
    "mmsi": "int64",
    "ts": "int64",
    "lat": "float64",
    "lon": "float64",
    "sog": "float32",
    "cog": "float32",
    "heading": "float32",
    "nav_status": "int8",
}
_STATIC_FIELDS: dict[str, str] = {
    "mmsi": "int64",
    "ts": "int64",
    "imo": "int64",
    "name": "object",
    "callsign": "object",
    "ship_type": "int16",
    "draught": "float32",
    "destination": "object",
}


_DECODE_ERRORS = (AISBaseException, ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError)


def _position_values(decoded: Any, ts: int) -> tuple[Any, ...]:
    """A message 1/2/3 in the order of _POSITION_FIELDS (all converted first, so a failure appends nothing)."""
    return (
        int(decoded.mmsi),
        ts,
        float(decoded.lat),
        float(decoded.lon),
        float(decoded.speed),
        float(decoded.course),
        float(decoded.heading),
        int(decoded.status),
    )


def _static_values(decoded: Any, ts: int) -> tuple[Any, ...]:
    """A message 5 in the order of _STATIC_FIELDS."""
    ship_type = int(decoded.ship_type or 0)
    return (
        int(decoded.mmsi),
        ts,
        int(decoded.imo or 0),
        str(decoded.shipname or ""),
        str(decoded.callsign or ""),
        ship_type if 0 < ship_type <= 99 else -1,  # AIS ship type 0 is "not available"
        float(decoded.draught or 0.0),
        str(decoded.destination or ""),
    )


def _frame(rows: dict[str, list[Any]], dtypes: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: np.asarray(values, dtype=dtypes[name]) for name, values in rows.items()})


def read_nmea(path: str | Path, chunk_rows: int = 200_000, default_ts: int | None = None) -> Iterator[AisChunk]:
    """Stream an NMEA log as cleaned chunks, one per `chunk_rows` lines read (the last may be shorter).

    `default_ts` (epoch seconds) is the time of every message that carries none. Raises AisFormatError
    before yielding anything when the file holds no AIS sentence near its start.
    """
    check_format(path, AisFormat.NMEA)
    if default_ts is not None and default_ts == MISSING_TS:
        raise ValueError("default_ts must be a real time (epoch seconds)")
    return _chunks(path, chunk_rows, default_ts)


def _chunks(path: str | Path, chunk_rows: int, default_ts: int | None) -> Iterator[AisChunk]:
    decoder = _Decoder(default_ts)
    lines = 0
    with open_text(path) as handle:
        for text in handle:
            decoder.line(text)
            lines += 1
            if lines == chunk_rows:
                yield decoder.chunk()
                lines = 0
    decoder.finish()
    if lines or decoder.counts:
        yield decoder.chunk()
