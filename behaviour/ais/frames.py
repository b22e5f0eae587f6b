"""The two tables every AIS reader produces, whatever the file's format.

A reader streams a file as `AisChunk`s: a positions frame and a statics frame with exactly the
columns and dtypes below, already cleaned (see `behaviour.ais.cleaning`), plus counts of what was
dropped and why. Times are UTC epoch seconds (int64). Unknown numbers are NaN (floats) or the
sentinel given (ints); unknown text is "".

The store writes these frames to Parquet unchanged and the detectors read them back, so these
column lists are the interface between ingestion, storage and detection.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

# One row per position report of a Class A ship (message 1/2/3, or a CSV row with a position).
POSITION_DTYPES: dict[str, str] = {
    "mmsi": "int64",
    "ts": "int64",  # UTC epoch seconds
    "lat": "float64",
    "lon": "float64",
    "sog": "float32",  # knots; NaN when not available (AIS 102.3)
    "cog": "float32",  # degrees; NaN when not available (AIS 360)
    "heading": "float32",  # degrees; NaN when not available (AIS 511)
    "nav_status": "int8",  # AIS navigational status 0-15; -1 unknown
}

# One row per distinct static report of an MMSI (message 5, or the static columns of a CSV row),
# collapsed within a chunk: `ts` the first time it was heard, `ts_last` the last, `reports` how often.
STATIC_DTYPES: dict[str, str] = {
    "mmsi": "int64",
    "ts": "int64",
    "ts_last": "int64",
    "imo": "int64",  # as transmitted (check digit NOT verified here); 0 when absent
    "name": "object",  # upper case, trimmed, "" when absent
    "callsign": "object",
    "ship_type": "int16",  # AIS ship and cargo type 0-99; -1 unknown
    "draught": "float32",  # metres; NaN when absent or 0
    "destination": "object",
    "reports": "int32",
}

STATIC_IDENTITY_COLUMNS = ("mmsi", "imo", "name", "callsign", "ship_type", "draught", "destination")


def empty_positions() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in POSITION_DTYPES.items()})


def empty_statics() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in STATIC_DTYPES.items()})


def conform(frame: pd.DataFrame, dtypes: dict[str, str]) -> pd.DataFrame:
    """`frame` with exactly `dtypes`' columns, in order, cast to those dtypes (a reader's last step)."""
    return pd.DataFrame({name: frame[name].to_numpy().astype(dtype, copy=False) for name, dtype in dtypes.items()})


@dataclass
class AisChunk:
    """A slice of one file: cleaned positions, collapsed statics, and what was dropped (by reason)."""

    positions: pd.DataFrame
    statics: pd.DataFrame
    counts: Counter[str] = field(default_factory=Counter)


class AisFormatError(ValueError):
    """The file is not in the format asked for (or in none we read); the message names what was expected."""


def epoch_seconds(values: pd.Series, format: str | None = None) -> np.ndarray:
    """Times as text in `format` (naive = UTC; unparseable = NaT -> the caller drops them) as int64 epoch
    seconds; NaT becomes `MISSING_TS`."""
    stamps = pd.to_datetime(values, utc=True, format=format, errors="coerce")
    missing = stamps.isna().to_numpy()
    stamps = stamps.fillna(pd.Timestamp(0, tz="UTC"))
    # Whatever resolution pandas chose (ns or us), count whole seconds from the epoch.
    seconds = ((stamps - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy(dtype="int64", copy=True)
    seconds[missing] = MISSING_TS
    return seconds


MISSING_TS = np.iinfo("int64").min
