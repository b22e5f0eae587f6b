"""Reading raw NMEA 0183 AIS logs (behaviour.ais.nmea).

Sentences for the hand-made logs are encoded with pyais's encoder; the real Aegean sample is checked
against a small independent decoder of the 6-bit payload written here.
"""

from __future__ import annotations

from collections import Counter
from functools import reduce
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyais import encode_dict

from behaviour.ais.formats import AisFormat
from behaviour.ais.frames import POSITION_DTYPES, STATIC_DTYPES, conform
from behaviour.ais.nmea import read_nmea
from behaviour.ais.readers import read_file
from tests.behaviour.ais_files import NMEA_SAMPLE, requires_ais_data

SHIP = 219000001
T0 = 1641168000  # 2022-01-03T00:00:00Z


def position(mmsi: int = SHIP, lat: float = 55.5, lon: float = 10.25, msg_type: int = 1) -> str:
    data = {"type": msg_type, "mmsi": mmsi, "lat": lat, "lon": lon, "speed": 12.3, "course": 90.1, "heading": 91}
    (sentence,) = encode_dict(data | {"status": 5}, talker_id="AI", sentence_type="VDM")
    return sentence


def static(mmsi: int = SHIP, seq_id: int = 3, channel: str = "A") -> list[str]:
    data = {
        "type": 5,
        "mmsi": mmsi,
        "imo": 9300776,
        "callsign": "OXYZ2",
        "shipname": "NORDIC STAR",
        "ship_type": 80,
        "draught": 11.5,
        "destination": "AARHUS",
    }
    return encode_dict(data, talker_id="AI", sentence_type="VDM", seq_id=seq_id, radio_channel=channel)


def tag(sentence: str, **fields: object) -> str:
    body = ",".join(f"{key}:{value}" for key, value in fields.items())
    checksum = reduce(lambda acc, char: acc ^ ord(char), body, 0)
    return f"\\{body}*{checksum:02X}\\{sentence}"


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "log.nmea"
    path.write_text("\n".join(lines) + "\n")
    return path


def read(path: Path, **options):
    chunks = list(read_nmea(path, **options))
    counts: Counter[str] = Counter()
    for chunk in chunks:
        counts.update(chunk.counts)
    positions = pd.concat([chunk.positions for chunk in chunks], ignore_index=True)
    statics = pd.concat([chunk.statics for chunk in chunks], ignore_index=True)
    return positions, statics, counts


def test_times_come_from_tag_blocks_trailing_unix_seconds_iso_times_and_prefixes(tmp_path):
    lines = [
        tag(position(mmsi=SHIP), s="rcv1", c=T0),
        tag(position(mmsi=SHIP + 1), c=(T0 + 1) * 1000),  # milliseconds
        position(mmsi=SHIP + 2) + f",{T0 + 2}",
        position(mmsi=SHIP + 3) + ",2022-01-03T00:00:03Z",
        f"2022-01-03 00:00:04 {position(mmsi=SHIP + 4)}",
        position(mmsi=SHIP + 5),  # no time at all
    ]
    positions, _, counts = read(write(tmp_path, lines))
    assert positions[["mmsi", "ts"]].values.tolist() == [[SHIP + k, T0 + k] for k in range(5)]
    assert counts["no_timestamp"] == 1
    assert positions.dtypes.to_dict() == conform(positions, POSITION_DTYPES).dtypes.to_dict()
    first = positions.iloc[0]
    assert (first["lat"], first["lon"], first["nav_status"]) == (55.5, 10.25, 5)
    assert (first["sog"], first["cog"], first["heading"]) == (np.float32(12.3), np.float32(90.1), np.float32(91))


def test_a_tag_block_with_a_wrong_checksum_gives_no_time(tmp_path):
    good = tag(position(), c=T0)
    bad = good.replace(f"c:{T0}", f"c:{T0 + 9}")
    _, _, counts = read(write(tmp_path, [bad]))
    assert counts["no_timestamp"] == 1


def test_a_default_time_dates_every_message_that_has_none(tmp_path):
    lines = [position(mmsi=SHIP), tag(position(mmsi=SHIP + 1), c=T0 + 60)]
    positions, _, counts = read(write(tmp_path, lines), default_ts=T0)
    assert positions["ts"].tolist() == [T0, T0 + 60]
    assert counts["no_timestamp"] == 0


def test_a_two_part_static_report_is_assembled_even_with_other_sentences_between_its_parts(tmp_path):
    first, second = static(seq_id=3, channel="A")
    other_first, other_second = static(mmsi=SHIP + 7, seq_id=3, channel="B")  # same id, other channel
    lines = [tag(first, c=T0), position(), other_first, second + f",{T0 + 5}", other_second + f",{T0 + 6}"]
    _, statics, counts = read(write(tmp_path, lines), default_ts=T0 - 100)
    assert statics.dtypes.to_dict() == conform(statics, STATIC_DTYPES).dtypes.to_dict()
    assert statics[["mmsi", "ts", "imo", "name", "callsign", "ship_type", "destination"]].values.tolist() == [
        [SHIP, T0, 9300776, "NORDIC STAR", "OXYZ2", 80, "AARHUS"],  # the first part's time
        [SHIP + 7, T0 + 6, 9300776, "NORDIC STAR", "OXYZ2", 80, "AARHUS"],  # first part had none: the last's
    ]
    assert statics["draught"].tolist() == [np.float32(11.5)] * 2
    assert counts["incomplete_multipart"] == 0
    assert counts["statics_kept"] == 2


def test_parts_whose_other_parts_never_come_are_counted_as_incomplete(tmp_path):
    first, second = static(seq_id=1)
    again, _ = static(seq_id=1)
    orphan = static(seq_id=4)[1]
    # The first message is superseded by another reusing its id; that one never ends; a lone second part.
    lines = [first, again, orphan]
    assert second.startswith("!AIVDM,2,2,1,")
    _, statics, counts = read(write(tmp_path, lines), default_ts=T0)
    assert len(statics) == 0
    assert counts["incomplete_multipart"] == 3


def test_empty_garbled_and_bad_checksum_lines_are_counted_and_skipped(tmp_path):
    good = position()
    lines = [
        good,
        "",
        "   ",
        "hello world",
        good[:20],  # cut by a serial buffer
        good[:-2] + ("00" if not good.endswith("00") else "01"),  # wrong checksum
        "!AIVDM,1,1,,B,,0*25",  # no payload
        "!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,9*24",  # fill bits out of range
        "!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1\u00e9U1Cb069D,0*24",  # not ASCII
    ]
    positions, _, counts = read(write(tmp_path, lines), default_ts=T0)
    assert len(positions) == 1
    assert counts["undecodable_line"] == 8
    assert counts["rows_read"] == 9


def test_class_b_base_station_and_aid_to_navigation_messages_are_counted_and_dropped(tmp_path):
    class_b = encode_dict({"type": 18, "mmsi": SHIP + 1, "lat": 55.0, "lon": 10.0}, talker_id="AI", sentence_type="VDM")
    class_b_static = encode_dict({"type": 24, "mmsi": SHIP + 1, "partno": 0, "shipname": "DINGHY"}, talker_id="AI")
    base = encode_dict({"type": 4, "mmsi": 2190001, "lat": 55.0, "lon": 10.0}, talker_id="AI", sentence_type="VDM")
    aton = encode_dict({"type": 21, "mmsi": 992190001, "name": "BUOY", "lat": 55.0, "lon": 10.0}, talker_id="AI")
    interrogation = encode_dict({"type": 15, "mmsi": 2190001}, talker_id="AI")
    lines = [position(), *class_b, *class_b_static, *base, *aton, *interrogation, position(msg_type=3, mmsi=SHIP + 2)]
    positions, _, counts = read(write(tmp_path, lines), default_ts=T0)
    assert positions["mmsi"].tolist() == [SHIP, SHIP + 2]
    assert counts["class_b"] == 2
    assert counts["base_station"] == 1
    assert counts["aid_to_navigation"] == 1
    assert counts["other_message"] == 1


def test_lines_are_read_in_chunks_of_chunk_rows_with_parts_carried_across(tmp_path):
    first, second = static(seq_id=2)
    lines = [position(), position(mmsi=SHIP + 1), first, second, position(mmsi=SHIP + 2)]
    chunks = list(read_nmea(write(tmp_path, lines), chunk_rows=3, default_ts=T0))
    assert [chunk.counts["rows_read"] for chunk in chunks] == [3, 2]
    assert [len(chunk.positions) for chunk in chunks] == [2, 1]
    assert [len(chunk.statics) for chunk in chunks] == [0, 1]


# --- the real sample ---------------------------------------------------------------------------------


def _bits(payload: str) -> str:
    values = [ord(char) - 48 for char in payload]
    return "".join(format(value - 8 if value > 40 else value, "06b") for value in values)


def _signed(bits: str) -> int:
    value = int(bits, 2)
    return value - (1 << len(bits)) if bits[0] == "1" else value


def independent_reading(path: Path) -> dict[str, object]:
    """Line by line, without pyais: checksum, fragment fields, type, and for types 1-3 mmsi/lat/lon."""
    counts: Counter[str] = Counter()
    places: set[tuple[int, float, float]] = set()
    for line in path.read_text().splitlines():
        counts["rows_read"] += 1
        sentence = line.strip()
        star = sentence.find("*")
        if not sentence.startswith("!") or star < 0:
            counts["undecodable_line"] += 1
            continue
        checksum = reduce(lambda acc, char: acc ^ ord(char), sentence[1:star], 0)
        fields = sentence[:star].split(",")
        if int(sentence[star + 1 : star + 3], 16) != checksum or not fields[5]:
            counts["undecodable_line"] += 1
            continue
        if fields[1] != "1":
            counts["incomplete_multipart"] += 1  # the sample holds first parts only, never a second
            continue
        bits = _bits(fields[5])
        kind = int(bits[:6], 2)
        if kind in (18, 19, 24):
            counts["class_b"] += 1
        elif kind in (4, 11):
            counts["base_station"] += 1
        elif kind == 21:
            counts["aid_to_navigation"] += 1
        elif kind not in (1, 2, 3, 5):
            counts["other_message"] += 1
        else:
            counts["dated_messages"] += 1
            if kind != 5:
                mmsi = int(bits[8:38], 2)
                lon, lat = _signed(bits[61:89]) / 600000, _signed(bits[89:116]) / 600000
                ship = 200_000_000 <= mmsi <= 799_999_999
                if ship and abs(lat) <= 90 and abs(lon) <= 180 and (lat, lon) != (0, 0):
                    places.add((mmsi, round(lat, 6), round(lon, 6)))
    return {"counts": counts, "places": places}


@requires_ais_data
@pytest.mark.shared_data
def test_the_real_sample_without_times_drops_every_message_as_undated_and_counts_each_bad_line():
    fmt, chunks = read_file(NMEA_SAMPLE)
    assert fmt is AisFormat.NMEA
    counts: Counter[str] = Counter()
    for chunk in chunks:
        counts.update(chunk.counts)
        assert chunk.positions.empty and chunk.statics.empty
    expected = independent_reading(NMEA_SAMPLE)["counts"]
    assert expected == Counter(
        rows_read=898,
        dated_messages=743,
        undecodable_line=100,
        class_b=21,
        incomplete_multipart=20,
        other_message=8,
        base_station=6,
    )
    assert counts == Counter(
        rows_read=898,
        no_timestamp=743,
        undecodable_line=100,
        class_b=21,
        incomplete_multipart=20,
        other_message=8,
        base_station=6,
    )


@requires_ais_data
@pytest.mark.shared_data
def test_the_real_sample_with_a_default_time_gives_each_distinct_ship_position_once():
    positions, statics, counts = read(NMEA_SAMPLE, default_ts=T0)
    expected = independent_reading(NMEA_SAMPLE)["places"]
    got = {(mmsi, round(lat, 6), round(lon, 6)) for mmsi, lat, lon in positions[["mmsi", "lat", "lon"]].values}
    assert got == expected
    assert len(positions) == len(expected) == 720
    assert positions["mmsi"].nunique() == 152
    assert (positions["ts"] == T0).all()
    # With one time for the whole file, a moored ship's repeated reports are the same report.
    assert counts["duplicate"] == 19
    assert counts["invalid_position"] == 4
    assert counts["positions_kept"] == 720
    assert statics.empty  # its only static reports are first parts whose second parts are missing
