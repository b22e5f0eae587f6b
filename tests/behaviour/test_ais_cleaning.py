"""The cleaning every AIS reader shares (behaviour.ais.cleaning), on small hand-made frames."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from behaviour.ais.cleaning import (
    clean_positions,
    collapse_statics,
    drop_unusable_rows,
    epoch_seconds_distinct,
    normalise_text,
    text_column,
)
from behaviour.ais.frames import MISSING_TS, POSITION_DTYPES, STATIC_DTYPES, conform

SHIP = 219_000_001


def positions(*rows: tuple) -> pd.DataFrame:
    """rows of (mmsi, ts, lat, lon, sog, cog, heading, nav_status)."""
    return pd.DataFrame(rows, columns=list(POSITION_DTYPES)).astype({"mmsi": "float64", "ts": "int64"})


def test_rows_without_a_time_or_from_stations_that_are_not_ships_are_dropped_and_counted_by_kind():
    frame = positions(
        (SHIP, 100, 55.0, 10.0, 1.0, 1.0, 1.0, 0),
        (SHIP, MISSING_TS, 55.0, 10.0, 1.0, 1.0, 1.0, 0),  # time did not parse
        (2_190_001, 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # base station 00MID
        (992_191_234, 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # aid to navigation 99MID
        (111_219_001, 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # SAR aircraft 111MID
        (21_900_001, 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # group call 0MID
        (970_123_456, 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # AIS-SART
        (float("nan"), 100, 55.0, 10.0, 0.0, 0.0, 0.0, 0),  # no MMSI at all
        (799_999_999, 100, 55.0, 10.0, 1.0, 1.0, 1.0, 0),  # highest ship MMSI
    )
    counts: Counter[str] = Counter()
    kept = drop_unusable_rows(frame, counts)
    assert kept["mmsi"].tolist() == [SHIP, 799_999_999]
    assert counts == Counter(bad_time=1, base_station=1, aid_to_navigation=1, not_a_ship_mmsi=4)


def test_positions_off_the_globe_or_at_exactly_zero_zero_are_dropped_as_invalid():
    frame = positions(
        (SHIP, 1, 91.0, 10.0, 1.0, 1.0, 1.0, 0),  # AIS latitude not available
        (SHIP, 2, 55.0, 181.0, 1.0, 1.0, 1.0, 0),  # AIS longitude not available
        (SHIP, 3, -90.5, 10.0, 1.0, 1.0, 1.0, 0),
        (SHIP, 4, 0.0, 0.0, 1.0, 1.0, 1.0, 0),  # no fix
        (SHIP, 5, float("nan"), 10.0, 1.0, 1.0, 1.0, 0),
        (SHIP, 6, 0.0, 10.0, 1.0, 1.0, 1.0, 0),  # on the equator: fine
        (SHIP, 7, 90.0, -180.0, 1.0, 1.0, 1.0, 0),  # the edges are on the globe
    )
    counts: Counter[str] = Counter()
    kept = clean_positions(frame, counts)
    assert kept["ts"].tolist() == [6, 7]
    assert counts["invalid_position"] == 5
    assert counts["positions_kept"] == 2


def test_a_position_heard_twice_in_a_chunk_is_kept_once_and_the_repeat_counted():
    frame = positions(
        (SHIP, 10, 55.0, 10.0, 1.0, 1.0, 1.0, 0),
        (SHIP, 10, 55.0, 10.0, 2.0, 2.0, 2.0, 0),  # same mmsi, time and place: the same report
        (SHIP, 11, 55.0, 10.0, 1.0, 1.0, 1.0, 0),  # a second later: a new report
        (SHIP + 1, 10, 55.0, 10.0, 1.0, 1.0, 1.0, 0),  # another ship
    )
    counts: Counter[str] = Counter()
    kept = clean_positions(frame, counts)
    assert len(kept) == 3
    assert kept["sog"].tolist()[0] == 1.0  # the first report is the one kept
    assert counts["duplicate"] == 1


def test_speed_course_and_heading_outside_their_ais_range_become_not_available():
    frame = positions(
        (SHIP, 1, 55.0, 10.0, 102.3, 360.0, 511.0, 0),  # the AIS "not available" values
        (SHIP, 2, 55.0, 10.0, 102.2, 359.9, 359.0, 5),  # the highest real values
        (SHIP, 3, 55.0, 10.0, -1.0, -49.6, 360.0, 15),  # negative speed/course, heading 360
        (SHIP, 4, 55.0, 10.0, float("nan"), float("nan"), float("nan"), 16),  # absent stays absent
    )
    counts: Counter[str] = Counter()
    kept = clean_positions(frame, counts)
    assert np.isnan(kept["sog"].to_numpy()).tolist() == [True, False, True, True]
    assert np.isnan(kept["cog"].to_numpy()).tolist() == [True, False, True, True]
    assert np.isnan(kept["heading"].to_numpy()).tolist() == [True, False, True, True]
    assert kept["sog"].to_numpy()[1] == np.float32(102.2)
    assert kept["nav_status"].tolist() == [0, 5, 15, -1]
    assert counts["speed_not_available"] == 2
    assert counts["course_not_available"] == 2
    assert counts["heading_not_available"] == 2
    assert kept.dtypes.to_dict() == conform(kept, POSITION_DTYPES).dtypes.to_dict()


def test_ais_text_is_upper_cased_and_stripped_of_at_sign_padding():
    assert normalise_text("nordic star@@@@@@@") == "NORDIC STAR"
    assert normalise_text("  OXYZ2  ") == "OXYZ2"
    assert normalise_text("AARHUS@@@GARBAGE") == "AARHUS"
    assert normalise_text("@@@@@@@@") == ""
    assert normalise_text("MAERSK   LINE") == "MAERSK LINE"
    column = pd.Series(["a@@", None, "a@@", "b "], dtype="category")
    assert text_column(column).tolist() == ["A", "", "A", "B"]


def statics(*rows: tuple) -> pd.DataFrame:
    """rows of (mmsi, ts, imo, name, callsign, ship_type, draught, destination)."""
    columns = ["mmsi", "ts", "imo", "name", "callsign", "ship_type", "draught", "destination"]
    return pd.DataFrame(rows, columns=columns)


def test_statics_collapse_to_distinct_identities_with_first_and_last_time_and_report_count():
    frame = statics(
        (SHIP, 300, 9300776, "NORDIC STAR", "OXYZ2", 80, 11.5, "AARHUS"),
        (SHIP, 100, 9300776, "NORDIC STAR", "OXYZ2", 80, 11.5, "AARHUS"),
        (SHIP, 200, 9300776, "NORDIC STAR", "OXYZ2", 80, 11.5, "AARHUS"),
        (SHIP, 250, 9300776, "NORDIC STAR", "OXYZ2", 80, 9.0, "AARHUS"),  # draught changed: new identity
        (SHIP, 260, 9300777, "NORDIC STAR", "OXYZ2", 80, 0.0, ""),  # imo as transmitted; draught 0 absent
        (SHIP + 1, 50, 0, "", "", -1, 0.0, ""),  # nothing static at all: not a report
    )
    counts: Counter[str] = Counter()
    out = collapse_statics(frame, counts)
    assert out.columns.tolist() == list(STATIC_DTYPES)
    assert out[["ts", "ts_last", "reports", "imo"]].values.tolist() == [
        [100, 300, 3, 9300776],
        [250, 250, 1, 9300776],
        [260, 260, 1, 9300777],
    ]
    assert np.isnan(out["draught"].to_numpy()[2])
    assert counts == Counter(statics_kept=3)
    assert out.dtypes.to_dict() == conform(out, STATIC_DTYPES).dtypes.to_dict()


def test_times_are_parsed_once_per_distinct_text_and_unparseable_ones_become_missing():
    values = pd.Series(["03/01/2022 00:00:01", "31/02/2022 00:00:00", None, "03/01/2022 00:00:01"], dtype="category")
    seconds = epoch_seconds_distinct(values, "%d/%m/%Y %H:%M:%S")
    assert seconds.tolist() == [1641168001, MISSING_TS, MISSING_TS, 1641168001]
