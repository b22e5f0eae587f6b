"""Reading Danish Maritime Authority daily CSVs (behaviour.ais.dma).

Small hand-written files prove each rule; the real MarineCadastre sample rewritten in the public DMA
layout proves the reader on real ships: it must give exactly what the MarineCadastre reader gives.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from behaviour.ais.dma import DMA_HEADER, read_dma
from behaviour.ais.formats import AisFormat
from behaviour.ais.frames import POSITION_DTYPES, STATIC_DTYPES, AisFormatError, conform
from behaviour.ais.marinecadastre import read_marinecadastre
from behaviour.ais.readers import read_file
from tests.behaviour.ais_files import (
    MARINECADASTRE_SAMPLE,
    dma_from_marinecadastre,
    dma_row,
    dma_ship_type,
    marinecadastre_rows,
    requires_ais_data,
    write_dma,
)

SHIP = "219000001"


def row(time: str = "03/01/2022 12:00:00", mmsi: str = SHIP, lat: str = "55.5", lon: str = "10.25", **more: str):
    values = {
        "# Timestamp": time,
        "Type of mobile": "Class A",
        "MMSI": mmsi,
        "Latitude": lat,
        "Longitude": lon,
        "Navigational status": "Under way using engine",
        "SOG": "12.3",
        "COG": "90.1",
        "Heading": "91",
        "IMO": "9300776",
        "Callsign": "OXYZ2",
        "Name": "NORDIC STAR",
        "Ship type": "Tanker",
        "Cargo type": "Category X",
        "Draught": "11.5",
        "Destination": "AARHUS",
        "Data source type": "AIS",
    }
    values.update({key.replace("_", " "): value for key, value in more.items()})
    return dma_row(**values)


def read(path: Path, **options):
    chunks = list(read_dma(path, **options))
    counts: Counter[str] = Counter()
    for chunk in chunks:
        counts.update(chunk.counts)
    positions = pd.concat([chunk.positions for chunk in chunks], ignore_index=True)
    statics = pd.concat([chunk.statics for chunk in chunks], ignore_index=True)
    return positions, statics, counts


def test_the_header_the_reader_expects_is_the_public_26_column_layout():
    assert len(DMA_HEADER) == 26
    assert DMA_HEADER[:5] == ("# Timestamp", "Type of mobile", "MMSI", "Latitude", "Longitude")
    assert DMA_HEADER[-4:] == ("A", "B", "C", "D")


def test_a_class_a_row_becomes_one_position_and_one_static_in_the_agreed_layout(tmp_path):
    positions, statics, counts = read(write_dma(tmp_path / "aisdk.csv", [row()]))
    assert positions.dtypes.to_dict() == conform(positions, POSITION_DTYPES).dtypes.to_dict()
    assert statics.dtypes.to_dict() == conform(statics, STATIC_DTYPES).dtypes.to_dict()
    assert positions.to_dict("records") == [
        {
            "mmsi": 219000001,
            "ts": 1641211200,  # 2022-01-03T12:00:00Z: DD/MM/YYYY, not MM/DD
            "lat": 55.5,
            "lon": 10.25,
            "sog": np.float32(12.3),
            "cog": np.float32(90.1),
            "heading": np.float32(91.0),
            "nav_status": 0,
        }
    ]
    static = statics.iloc[0]
    assert (static["imo"], static["name"], static["callsign"], static["ship_type"], static["destination"]) == (
        9300776,
        "NORDIC STAR",
        "OXYZ2",
        80,
        "AARHUS",
    )
    assert static["draught"] == np.float32(11.5)
    assert counts == Counter(rows_read=1, positions_kept=1, statics_kept=1)


def test_rows_whose_timestamp_does_not_parse_are_dropped_and_counted(tmp_path):
    rows = [
        row(time="03/01/2022 12:00:00"),
        row(time="2022-01-03 12:00:01"),  # ISO: not the DMA layout
        row(time="32/01/2022 12:00:02"),  # no such day
        row(time=""),
        row(time="03/01/2022 12:00:03"),
    ]
    positions, statics, counts = read(write_dma(tmp_path / "aisdk.csv", rows))
    assert positions["ts"].tolist() == [1641211200, 1641211203]
    assert counts["bad_time"] == 3
    assert statics["reports"].tolist() == [2]  # the rows dropped do not count as reports either


def test_static_only_rows_at_latitude_91_feed_the_statics_but_not_the_positions(tmp_path):
    rows = [
        row(time="03/01/2022 12:00:00", lat="91", lon="0", SOG="", COG="", Heading="", Name="NORDIC STAR@@@@"),
        row(time="03/01/2022 12:05:00", lat="91", lon="0", SOG="", COG="", Heading="", Destination="SKAGEN"),
        row(time="03/01/2022 12:10:00"),
    ]
    positions, statics, counts = read(write_dma(tmp_path / "aisdk.csv", rows))
    assert len(positions) == 1
    assert counts["static_only_row"] == 2
    assert counts["invalid_position"] == 0
    assert statics[["destination", "ts", "ts_last", "reports"]].values.tolist() == [
        ["AARHUS", 1641211200, 1641211800, 2],  # '@' padding stripped: the same identity as the position row's
        ["SKAGEN", 1641211500, 1641211500, 1],
    ]


def test_rows_from_other_kinds_of_station_are_dropped_and_counted_by_kind(tmp_path):
    rows = [
        row(),
        row(Type_of_mobile="Class B", mmsi="219000002"),
        row(Type_of_mobile="Base Station", mmsi="002190001"),
        row(Type_of_mobile="AtoN", mmsi="992191234"),
        row(Type_of_mobile="SAR Airborne", mmsi="111219001"),
        row(Type_of_mobile="Search and Rescue Transponder", mmsi="970123456"),
        row(Type_of_mobile="Man Overboard Device", mmsi="972123456"),
        row(Type_of_mobile="Class A", mmsi="2190001"),  # a base station's MMSI on a Class A row
        row(Type_of_mobile="Class A", mmsi="021900001"),  # a group MMSI
    ]
    positions, statics, counts = read(write_dma(tmp_path / "aisdk.csv", rows))
    assert positions["mmsi"].tolist() == [219000001]
    assert statics["mmsi"].tolist() == [219000001]
    assert counts == Counter(
        rows_read=9,
        class_b=1,
        base_station=2,
        aid_to_navigation=1,
        search_and_rescue=2,
        other_mobile_type=1,
        not_a_ship_mmsi=1,
        positions_kept=1,
        statics_kept=1,
    )


def test_an_exact_repeat_of_a_row_is_kept_once_and_counted_as_duplicate(tmp_path):
    rows = [row(), row(), row(time="03/01/2022 12:00:10")]
    positions, statics, counts = read(write_dma(tmp_path / "aisdk.csv", rows))
    assert len(positions) == 2
    assert counts["duplicate"] == 1
    assert statics["reports"].tolist() == [3]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Under way using engine", 0),
        ("At anchor", 1),
        ("Restricted maneuverability", 3),
        ("Moored", 5),
        ("Engaged in fishing", 7),
        ("Power-driven vessel pushing ahead or towing alongside", 12),
        ("AIS-SART is active", 14),
        ("Unknown value", 15),
        ("", -1),
        ("Something new", -1),
    ],
)
def test_navigational_status_text_becomes_its_ais_code(tmp_path, text, code):
    positions, _, _ = read(write_dma(tmp_path / "aisdk.csv", [row(Navigational_status=text)]))
    assert positions["nav_status"].tolist() == [code]


@pytest.mark.parametrize(
    ("text", "code"),
    [("Cargo", 70), ("Tanker", 80), ("Passenger", 60), ("Fishing", 30), ("Tug", 52), ("Undefined", -1), ("", -1)],
)
def test_ship_type_text_becomes_a_representative_ais_code(tmp_path, text, code):
    _, statics, _ = read(write_dma(tmp_path / "aisdk.csv", [row(Ship_type=text)]))
    assert statics["ship_type"].tolist() == [code]


def test_an_unknown_imo_is_absent_and_a_zero_draught_is_not_a_draught(tmp_path):
    _, statics, _ = read(write_dma(tmp_path / "aisdk.csv", [row(IMO="Unknown", Draught="0")]))
    assert statics["imo"].tolist() == [0]
    assert np.isnan(statics["draught"].to_numpy()[0])


def test_the_file_is_read_in_chunks_of_at_most_chunk_rows(tmp_path):
    rows = [row(time=f"03/01/2022 12:{minute:02d}:{second:02d}") for minute in range(10) for second in range(60)]
    path = write_dma(tmp_path / "aisdk.csv", rows)
    chunks = list(read_dma(path, chunk_rows=250))
    assert [chunk.counts["rows_read"] for chunk in chunks] == [250, 250, 100]
    assert sum(chunk.counts["positions_kept"] for chunk in chunks) == 600
    # One identity, heard in each chunk: collapsed per chunk, not across chunks.
    assert [chunk.counts["statics_kept"] for chunk in chunks] == [1, 1, 1]


def test_text_in_a_number_column_costs_that_value_not_the_file(tmp_path):
    rows = [row(time=f"03/01/2022 12:00:{second:02d}") for second in range(7)]
    rows[3]["Latitude"] = "fifty-five"
    rows[5]["SOG"] = "fast"
    positions, _, counts = read(write_dma(tmp_path / "aisdk.csv", rows), chunk_rows=2)
    # The typed parse fails on the chunk holding row 3; that chunk and the rest are re-read as text.
    assert positions["ts"].tolist() == [1641211200 + second for second in (0, 1, 2, 4, 5, 6)]
    assert np.isnan(positions["sog"].to_numpy()).tolist() == [False, False, False, False, True, False]
    assert counts["unparseable_number"] == 2
    assert counts["invalid_position"] == 1
    assert counts["rows_read"] == 7


def test_a_row_with_a_stray_comma_is_skipped_and_counted_as_malformed(tmp_path):
    path = write_dma(tmp_path / "aisdk.csv", [row(time="03/01/2022 12:00:00")])
    text = path.read_text()
    broken = text.splitlines()[1].replace("NORDIC STAR", "NORDIC, STAR")  # 27 fields
    path.write_text(text + broken + "\n" + text.splitlines()[1].replace("12:00:00", "12:00:30") + "\n")
    positions, _, counts = read(path)
    assert positions["ts"].tolist() == [1641211200, 1641211230]
    assert counts["malformed_row"] == 1
    assert counts["rows_read"] == 3


def test_a_header_lacking_a_column_the_reader_needs_fails_before_reading(tmp_path):
    path = tmp_path / "aisdk.csv"
    path.write_text("# Timestamp,Type of mobile,MMSI,Latitude,Longitude\n03/01/2022 12:00:00,Class A,219000001,55,10\n")
    with pytest.raises(AisFormatError, match="the header lacks Navigational status, SOG, COG"):
        read_dma(path)


@pytest.fixture(scope="module")
def real_rows_as_dma(tmp_path_factory):
    if not MARINECADASTRE_SAMPLE.is_file():
        pytest.skip("../shared/data/ais is not present")
    path = tmp_path_factory.mktemp("dma") / "aisdk-2022-01-03.csv"
    return write_dma(path, (dma_from_marinecadastre(source) for source in marinecadastre_rows()))


@requires_ais_data
@pytest.mark.shared_data
def test_the_real_sample_in_the_dma_layout_gives_the_same_positions_and_counts_as_the_marinecadastre_file(
    real_rows_as_dma,
):
    fmt, chunks = read_file(real_rows_as_dma)
    assert fmt is AisFormat.DMA
    chunks = list(chunks)
    dma_counts: Counter[str] = Counter()
    for chunk in chunks:
        dma_counts.update(chunk.counts)
    (mc,) = list(read_marinecadastre(MARINECADASTRE_SAMPLE))
    dma_positions = pd.concat([chunk.positions for chunk in chunks], ignore_index=True)
    pd.testing.assert_frame_equal(dma_positions, mc.positions)
    assert dma_counts == mc.counts
    assert dma_counts["rows_read"] == 99_999
    assert dma_counts["positions_kept"] == 76_017
    assert dma_counts["class_b"] == 23_805


@requires_ais_data
@pytest.mark.shared_data
def test_the_real_sample_in_the_dma_layout_gives_the_same_identities_with_types_by_category(real_rows_as_dma):
    (dma,) = list(read_dma(real_rows_as_dma))
    (mc,) = list(read_marinecadastre(MARINECADASTRE_SAMPLE))
    key = ["mmsi", "imo", "name", "callsign"]
    assert set(map(tuple, dma.statics[key].values.tolist())) == set(map(tuple, mc.statics[key].values.tolist()))
    # DMA writes the type's category only ("Cargo" for 70-79), so each MarineCadastre type maps to one code.
    mapped = {dma_ship_type(str(code))[1] if code > 0 else -1 for code in mc.statics["ship_type"]}
    assert set(dma.statics["ship_type"]) == mapped
    assert dma.statics["reports"].sum() == mc.statics["reports"].sum() == 75_990
