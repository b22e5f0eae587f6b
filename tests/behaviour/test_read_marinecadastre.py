"""Reading NOAA MarineCadastre CSVs (behaviour.ais.marinecadastre) on the real 99,999-row sample.

The expected counts are computed a second way, row by row with the csv module, and also written out as
numbers so that a change in either computation shows.
"""

from __future__ import annotations

import csv
import gzip
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from behaviour.ais.formats import AisFormat
from behaviour.ais.frames import POSITION_DTYPES, STATIC_DTYPES, AisChunk, conform
from behaviour.ais.marinecadastre import read_marinecadastre
from behaviour.ais.readers import read_file
from tests.behaviour.ais_files import MARINECADASTRE_SAMPLE, requires_ais_data

pytestmark = [requires_ais_data, pytest.mark.shared_data]

# Verified with the csv module (see `expected_from_csv`) and by hand with awk on the sample.
SAMPLE_ROWS = 99_999
SAMPLE_CLASS_B = 23_805
SAMPLE_BASE_STATIONS = 60
SAMPLE_NOT_SHIP_MMSI = 114
SAMPLE_DUPLICATES = 3
SAMPLE_POSITIONS = 76_017
SAMPLE_CLASS_A_SHIPS = 6_121
SAMPLE_STATICS = 6_123
SAMPLE_IMOS = 3_528
SAMPLE_STATIC_ROWS = 75_990  # Class A ship rows with any static field (30 carry none)


def expected_from_csv(path: Path) -> dict[str, object]:
    """What the reader should return, computed row by row without pandas."""
    counts: Counter[str] = Counter()
    seen: set[tuple] = set()
    ships: set[int] = set()
    identities: set[tuple] = set()
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            counts["rows_read"] += 1
            if row["TransceiverClass"] == "B":
                counts["class_b"] += 1
                continue
            mmsi = int(row["MMSI"])
            if 2_000_000 <= mmsi <= 7_999_999:
                counts["base_station"] += 1
                continue
            if 992_000_000 <= mmsi <= 997_999_999:
                counts["aid_to_navigation"] += 1
                continue
            if not 200_000_000 <= mmsi <= 799_999_999:
                counts["not_a_ship_mmsi"] += 1
                continue
            imo = int(row["IMO"][3:]) if row["IMO"].startswith("IMO") and row["IMO"][3:].isdigit() else 0
            ship_type = int(row["VesselType"]) if row["VesselType"] and 1 <= int(row["VesselType"]) <= 99 else -1
            draught = float(row["Draft"]) if row["Draft"] and float(row["Draft"]) > 0 else None
            name = " ".join(row["VesselName"].upper().split())
            callsign = " ".join(row["CallSign"].upper().split())
            if imo or name or callsign or ship_type >= 0 or draught is not None:
                identities.add((mmsi, imo, name, callsign, ship_type, draught))
                counts["static_rows"] += 1
            lat, lon = float(row["LAT"]), float(row["LON"])
            if abs(lat) > 90 or abs(lon) > 180 or (lat == 0 and lon == 0):
                counts["invalid_position"] += 1
                continue
            key = (mmsi, row["BaseDateTime"], lat, lon)
            if key in seen:
                counts["duplicate"] += 1
                continue
            seen.add(key)
            ships.add(mmsi)
            counts["positions_kept"] += 1
    static_rows = counts.pop("static_rows")
    return {
        "static_rows": static_rows,
        "counts": counts,
        "ships": len(ships),
        "statics": len(identities),
        "imos": len({identity[1] for identity in identities if identity[1]}),
    }


def read_all(chunks) -> tuple[pd.DataFrame, pd.DataFrame, Counter[str], list[AisChunk]]:
    chunks = list(chunks)
    counts: Counter[str] = Counter()
    for chunk in chunks:
        counts.update(chunk.counts)
    positions = pd.concat([chunk.positions for chunk in chunks], ignore_index=True)
    statics = pd.concat([chunk.statics for chunk in chunks], ignore_index=True)
    return positions, statics, counts, chunks


@pytest.fixture(scope="module")
def sample():
    return read_all(read_marinecadastre(MARINECADASTRE_SAMPLE))


def test_the_sample_keeps_every_distinct_class_a_ship_position_and_counts_each_row_dropped(sample):
    positions, _, counts, _ = sample
    expected = expected_from_csv(MARINECADASTRE_SAMPLE)
    assert expected["counts"] == Counter(
        rows_read=SAMPLE_ROWS,
        class_b=SAMPLE_CLASS_B,
        base_station=SAMPLE_BASE_STATIONS,
        not_a_ship_mmsi=SAMPLE_NOT_SHIP_MMSI,
        duplicate=SAMPLE_DUPLICATES,
        positions_kept=SAMPLE_POSITIONS,
    )
    for reason, number in expected["counts"].items():
        assert counts[reason] == number, reason
    assert counts["invalid_position"] == 0
    assert len(positions) == SAMPLE_POSITIONS
    assert positions["mmsi"].nunique() == expected["ships"] == SAMPLE_CLASS_A_SHIPS
    # Every row read is accounted for by exactly one reason or kept.
    dropped = sum(counts[reason] for reason in ("class_b", "base_station", "not_a_ship_mmsi", "duplicate"))
    assert dropped + counts["positions_kept"] == counts["rows_read"]


def test_the_sample_statics_are_one_row_per_distinct_identity_of_each_class_a_ship(sample):
    _, statics, counts, _ = sample
    expected = expected_from_csv(MARINECADASTRE_SAMPLE)
    assert len(statics) == expected["statics"] == SAMPLE_STATICS == counts["statics_kept"]
    assert statics.loc[statics["imo"] > 0, "imo"].nunique() == expected["imos"] == SAMPLE_IMOS
    assert statics["reports"].sum() == expected["static_rows"] == SAMPLE_STATIC_ROWS
    assert (statics["ts"] <= statics["ts_last"]).all()
    assert (statics["destination"] == "").all()  # MarineCadastre has no destination column


def test_a_known_ship_is_read_with_its_imo_callsign_type_draught_and_time():
    (chunk,) = list(read_marinecadastre(MARINECADASTRE_SAMPLE))
    eagle = chunk.statics[chunk.statics["mmsi"] == 367379190]
    # First data row: 367379190,2022-01-03T00:00:00,30.3706,-88.56408,0.0,336.2,511,EAGLE,IMO8207721,WTD4583,31,0,...,3.3,..,A
    first = eagle.sort_values("ts").iloc[0]
    assert (first["imo"], first["name"], first["callsign"], first["ship_type"]) == (8207721, "EAGLE", "WTD4583", 31)
    assert first["draught"] == np.float32(3.3)
    assert first["ts"] == 1641168000  # 2022-01-03T00:00:00Z
    position = chunk.positions[(chunk.positions["mmsi"] == 367379190) & (chunk.positions["ts"] == 1641168000)].iloc[0]
    assert (position["lat"], position["lon"], position["nav_status"]) == (30.3706, -88.56408, 0)
    assert np.isnan(position["heading"])  # 511: not available
    assert position["cog"] == np.float32(336.2)


def test_speed_course_and_heading_not_available_are_counted_on_kept_positions(sample):
    positions, _, counts, _ = sample
    assert counts["heading_not_available"] == int(np.isnan(positions["heading"]).sum()) == 30_136
    assert counts["course_not_available"] == int(np.isnan(positions["cog"]).sum()) == 5_592
    assert counts["speed_not_available"] == int(np.isnan(positions["sog"]).sum()) == 163


def test_small_chunks_give_the_same_rows_in_the_agreed_layout(sample):
    whole, _, whole_counts, _ = sample
    positions, _, counts, chunks = read_all(read_marinecadastre(MARINECADASTRE_SAMPLE, chunk_rows=7_000))
    assert len(chunks) == 15
    for chunk in chunks:
        assert chunk.positions.columns.tolist() == list(POSITION_DTYPES)
        assert chunk.positions.dtypes.to_dict() == conform(chunk.positions, POSITION_DTYPES).dtypes.to_dict()
        assert chunk.statics.columns.tolist() == list(STATIC_DTYPES)
        assert chunk.statics.dtypes.to_dict() == conform(chunk.statics, STATIC_DTYPES).dtypes.to_dict()
        assert chunk.counts["rows_read"] <= 7_000
    assert counts["rows_read"] == SAMPLE_ROWS
    # Duplicates are found within a chunk; in this sample all three repeats sit in the same chunk.
    pd.testing.assert_frame_equal(positions, whole)
    assert counts["positions_kept"] == whole_counts["positions_kept"]


def test_a_gzipped_copy_reads_the_same_as_the_plain_file(tmp_path, sample):
    packed = tmp_path / "AIS_2022_01_03.csv.gz"
    with MARINECADASTRE_SAMPLE.open("rb") as source, gzip.open(packed, "wb", compresslevel=1) as target:
        shutil.copyfileobj(source, target)
    fmt, chunks = read_file(packed)
    assert fmt is AisFormat.MARINECADASTRE
    positions, _, counts, _ = read_all(chunks)
    pd.testing.assert_frame_equal(positions, sample[0])
    assert counts == sample[2]
