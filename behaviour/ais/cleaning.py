"""Cleaning shared by every AIS reader: which rows are kept, which values are "not available", and why.

Each reader turns its format into a raw frame with the `frames` column names, then calls, in order:

1. `drop_unusable_rows`: rows whose time did not parse, and rows from MMSIs that are not ships
   (base stations 00MIDxxxx, aids to navigation 99MIDxxxx, SAR aircraft 111MIDxxx, groups 0MIDxxxxx,
   SART/MOB/EPIRB 97xxxxxxx, craft associated with a parent ship 98MIDxxxx ...). This applies to the
   statics too: a name heard from an aid to navigation says nothing about a ship.
2. `clean_positions` on the rows that carry a position, and `collapse_statics` on the rows that carry
   static data.

Nothing here loops over rows in Python: a reader handles hundreds of thousands of rows per chunk and the
pipeline must keep up with a day of Danish AIS (~15 million rows) in minutes. Every row dropped and
every value blanked is counted under a stable snake_case reason, so an ingestion report can say what
happened to a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from behaviour.ais.frames import (
    MISSING_TS,
    POSITION_DTYPES,
    STATIC_DTYPES,
    STATIC_IDENTITY_COLUMNS,
    conform,
    epoch_seconds,
)

# Maritime mobile service identities of ships: nine digits whose first is 2-7 (the MID's region).
SHIP_MMSI_MIN = 200_000_000
SHIP_MMSI_MAX = 799_999_999
# Coast/base stations are 00MIDxxxx: as a number, seven digits starting 2-7.
BASE_STATION_MIN = 2_000_000
BASE_STATION_MAX = 7_999_999
# Aids to navigation are 99MIDxxxx.
ATON_MIN = 992_000_000
ATON_MAX = 997_999_999

# AIS encodes "not available" as the top of each field's range (ITU-R M.1371).
SPEED_NOT_AVAILABLE = 102.3  # knots; anything from here up is not a speed
COURSE_NOT_AVAILABLE = 360.0  # degrees
HEADING_NOT_AVAILABLE = 511  # degrees; any value above 359 is not a heading
LAT_NOT_AVAILABLE = 91.0
LON_NOT_AVAILABLE = 181.0

# AIS 6-bit text pads with '@'; receivers and CSV exporters also leave trailing blanks.
_PADDING = "@ \t"

DUPLICATE_KEY = ["mmsi", "ts", "lat", "lon"]


def drop(frame: pd.DataFrame, mask: np.ndarray, reason: str, counts: Counter[str]) -> pd.DataFrame:
    """`frame` without the rows where `mask` is true, counting them under `reason` (only when any)."""
    dropped = int(np.count_nonzero(mask))
    if dropped == 0:
        return frame
    counts[reason] += dropped
    return frame.loc[~mask]


def mmsi_reasons(mmsi: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(reason, mask) for every kind of MMSI that is not a ship's, disjoint, in a stable order."""
    values = np.asarray(mmsi)
    base = (values >= BASE_STATION_MIN) & (values <= BASE_STATION_MAX)
    aton = (values >= ATON_MIN) & (values <= ATON_MAX)
    ship = (values >= SHIP_MMSI_MIN) & (values <= SHIP_MMSI_MAX)
    other = ~(ship | base | aton)
    return [("base_station", base), ("aid_to_navigation", aton), ("not_a_ship_mmsi", other)]


def drop_unusable_rows(frame: pd.DataFrame, counts: Counter[str]) -> pd.DataFrame:
    """Rows with a parsed time (`ts` not MISSING_TS) from ship MMSIs (`mmsi` may be float with NaN)."""
    frame = drop(frame, frame["ts"].to_numpy() == MISSING_TS, "bad_time", counts)
    mmsi = frame["mmsi"].to_numpy()
    if mmsi.dtype.kind == "f":
        # A missing MMSI (NaN) compares false everywhere, so it falls into "not_a_ship_mmsi".
        mmsi = np.where(np.isnan(mmsi), -1, mmsi)
    # The three masks are disjoint, so they can be combined and the rows dropped once.
    reasons = mmsi_reasons(mmsi)
    not_ship = np.zeros(len(mmsi), dtype=bool)
    for reason, mask in reasons:
        if mask.any():
            counts[reason] += int(np.count_nonzero(mask))
            not_ship |= mask
    return frame.loc[~not_ship] if not_ship.any() else frame


def _blank(values: np.ndarray, invalid: np.ndarray, reason: str, counts: Counter[str]) -> np.ndarray:
    """`values` with NaN where `invalid`; counts only values that were present before."""
    if invalid.any():
        counts[reason] += int(np.count_nonzero(invalid))
        values = values.copy()
        values[invalid] = np.nan
    return values


def clean_positions(frame: pd.DataFrame, counts: Counter[str]) -> pd.DataFrame:
    """Valid, distinct positions in the POSITION_DTYPES layout.

    `frame` has the POSITION_DTYPES columns (any numeric dtype; `nav_status` may be float with NaN) and
    has been through `drop_unusable_rows`. Dropped: positions outside the globe (AIS "not available"
    91/181 included) or exactly 0/0 (a receiver with no fix), and exact repeats of (mmsi, ts, lat, lon)
    within the chunk (the same report heard by two stations). Blanked (NaN): speed >= 102.3 or < 0,
    course >= 360 or < 0, heading > 359; each blanked value counted once.
    """
    lat = frame["lat"].to_numpy(dtype="float64")
    lon = frame["lon"].to_numpy(dtype="float64")
    with np.errstate(invalid="ignore"):
        on_globe = (np.abs(lat) <= 90.0) & (np.abs(lon) <= 180.0) & ~((lat == 0.0) & (lon == 0.0))
    frame = drop(frame, ~on_globe, "invalid_position", counts)
    frame = drop(frame, frame.duplicated(DUPLICATE_KEY).to_numpy(), "duplicate", counts)

    sog = frame["sog"].to_numpy(dtype="float32")
    cog = frame["cog"].to_numpy(dtype="float32")
    heading = frame["heading"].to_numpy(dtype="float32")
    # float32(102.3) is what a CSV's "102.3" becomes; compare in float32 so it counts as not available.
    sog = _blank(sog, (sog >= np.float32(SPEED_NOT_AVAILABLE)) | (sog < 0), "speed_not_available", counts)
    cog = _blank(cog, (cog >= np.float32(COURSE_NOT_AVAILABLE)) | (cog < 0), "course_not_available", counts)
    heading = _blank(heading, (heading > 359) | (heading < 0), "heading_not_available", counts)

    status = frame["nav_status"].to_numpy()
    if status.dtype.kind == "f":
        status = np.where(np.isnan(status), -1, status)
    status = np.where((status >= 0) & (status <= 15), status, -1).astype("int8")

    counts["positions_kept"] += len(frame)
    return conform(
        pd.DataFrame(
            {
                "mmsi": frame["mmsi"].to_numpy(),
                "ts": frame["ts"].to_numpy(),
                "lat": frame["lat"].to_numpy(),
                "lon": frame["lon"].to_numpy(),
                "sog": sog,
                "cog": cog,
                "heading": heading,
                "nav_status": status,
            }
        ),
        POSITION_DTYPES,
    )


def map_distinct(values: pd.Series, func: Callable[[Any], Any], missing: Any, dtype: str) -> np.ndarray:
    """`func` applied to each distinct value of `values` (not each row), spread back to the rows.

    AIS text columns repeat heavily (a ship's name on every row, a status out of a dozen), so mapping the
    few distinct values in Python and indexing with the codes is as fast as a vectorised operation.
    Missing values (NaN/None) become `missing`.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        uniques: Any = values.cat.categories
    else:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    mapped = np.empty(len(uniques) + 1, dtype=dtype)
    for index, value in enumerate(uniques):
        mapped[index] = func(value)
    mapped[-1] = missing  # code -1 (missing) indexes the last slot
    return mapped[codes]


def normalise_text(value: Any) -> str:
    """AIS text as stored: upper case, '@' padding and blanks stripped, inner runs of blanks collapsed."""
    text = str(value).upper().strip(_PADDING)
    # '@' means end of text in AIS 6-bit ASCII: whatever follows is padding or garbage.
    text = text.split("@", 1)[0].rstrip()
    return " ".join(text.split())


def text_column(values: pd.Series) -> np.ndarray:
    return map_distinct(values, normalise_text, "", "object")


def collapse_statics(frame: pd.DataFrame, counts: Counter[str]) -> pd.DataFrame:
    """Distinct static reports of the chunk, in the STATIC_DTYPES layout.

    `frame` has columns mmsi, ts, imo (int, 0 absent), name, callsign, destination (text, already
    normalised), ship_type (int, -1 unknown), draught (float) and has been through
    `drop_unusable_rows`. Draught 0 means "not available" in AIS, so it becomes NaN. Rows carrying no
    static information at all (CSV position rows of a ship whose static report was never heard) are not
    reports and are skipped. Each distinct identity keeps its first and last time and how often it was heard.
    """
    draught = frame["draught"].to_numpy(dtype="float32")
    draught = np.where(draught > 0, draught, np.float32(np.nan)).astype("float32")
    work = pd.DataFrame(
        {
            "mmsi": frame["mmsi"].to_numpy(dtype="int64"),
            "imo": frame["imo"].to_numpy(dtype="int64"),
            "name": frame["name"].to_numpy(),
            "callsign": frame["callsign"].to_numpy(),
            "ship_type": frame["ship_type"].to_numpy(dtype="int16"),
            "draught": draught,
            "destination": frame["destination"].to_numpy(),
            "ts": frame["ts"].to_numpy(dtype="int64"),
        }
    )
    informative = (
        (work["imo"].to_numpy() > 0)
        | (work["name"].to_numpy() != "")
        | (work["callsign"].to_numpy() != "")
        | (work["ship_type"].to_numpy() >= 0)
        | ~np.isnan(draught)
        | (work["destination"].to_numpy() != "")
    )
    work = work.loc[informative]
    if work.empty:
        return conform(work.assign(ts_last=work["ts"], reports=0), STATIC_DTYPES)
    grouped = work.groupby(list(STATIC_IDENTITY_COLUMNS), sort=False, dropna=False, observed=True)["ts"]
    statics = grouped.agg(ts="min", ts_last="max", reports="size").reset_index()
    statics = statics.sort_values(["mmsi", "ts"], kind="stable")
    counts["statics_kept"] += len(statics)
    return conform(statics, STATIC_DTYPES)


def epoch_seconds_distinct(values: pd.Series, format: str | None) -> np.ndarray:
    """`frames.epoch_seconds` of each row, parsing each distinct time text once.

    A chunk of half a million rows holds only a few thousand distinct seconds, so this is several times
    faster than parsing every row; missing or unparseable times become MISSING_TS.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        uniques = pd.Series(values.cat.categories.to_numpy(dtype=object))
    else:
        codes, distinct = pd.factorize(values, use_na_sentinel=True)
        uniques = pd.Series(np.asarray(distinct, dtype=object))
    seconds = np.append(epoch_seconds(uniques, format=format), MISSING_TS)
    return seconds[codes]
