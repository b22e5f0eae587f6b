"""IDENTITY_CHANGE on real statics: the unmodified NY Harbor hour and MarineCadastre extract, then
names, call signs, IMO numbers, ship types and flags changed in them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from behaviour.ais.frames import STATIC_DTYPES, conform
from behaviour.detectors.base import EventKind, Severity
from behaviour.detectors.common import rfc3339
from behaviour.detectors.identity import MID_COUNTRY, detect_identity_changes, imo_valid, mid_of
from tests.behaviour import real_tracks as rt

CADASTRE_IMO_SHARED = {
    (338411000, 671087100, "imo_shared"),  # JOHN P LAB (US) and WATER SPIRIT 2 (TG), IMO 9212424
    (352147000, 538006973, "imo_shared"),  # SAFE VOYAGER (PA) and EVANGELISTRIA (MH), IMO 9442718
    (355369000, 538007150, "imo_shared"),  # FLAG ALEXANDROS (PA) and LMZ VEGA (MH), IMO 9548574
    (368041830, 368006020, "imo_shared"),  # RTA1 and ROSEMARY MCALLISTER (both US), IMO 9813644
}


def make_imo(six: int) -> int:
    digits = [int(c) for c in f"{six:06d}"]
    return six * 10 + sum(d * w for d, w in zip(digits, range(7, 1, -1), strict=True)) % 10


@pytest.fixture(scope="module")
def ctx():
    return rt.FakeContext()


def add_row(statics: pd.DataFrame, **values) -> pd.DataFrame:
    row = (
        statics[statics["mmsi"] == values["mmsi"]].tail(1).copy() if (statics["mmsi"] == values["mmsi"]).any() else None
    )
    if row is None:
        row = pd.DataFrame(
            [{**{c: "" for c in STATIC_DTYPES}, "imo": 0, "ship_type": -1, "draught": np.nan, "reports": 1}]
        )
    for key, value in values.items():
        row[key] = value
    row["ts_last"] = values.get("ts_last", values["ts"])
    out = pd.concat([statics, row], ignore_index=True).sort_values(["mmsi", "ts"], kind="stable")
    return conform(out.reset_index(drop=True), STATIC_DTYPES)


def named_vessel(statics: pd.DataFrame, positions: pd.DataFrame) -> pd.Series:
    """A NY-hour vessel with one static row, a name, a call sign, a valid IMO and positions."""
    one = statics.groupby("mmsi").filter(lambda g: len(g) == 1)
    ok = one[
        (one["name"] != "") & (one["callsign"] != "") & one["imo"].map(imo_valid) & one["mmsi"].isin(positions["mmsi"])
    ]
    return ok.iloc[0]


def test_helpers():
    assert imo_valid(9074729) and not imo_valid(9074728) and not imo_valid(0)
    assert make_imo(907472) == 9074729
    assert mid_of(636012345) == 636 and MID_COUNTRY[636] == "LR" and MID_COUNTRY[273] == "RU"
    assert mid_of(993456789) is None  # an aid to navigation, no MID


def test_unmodified_real_statics(ctx):
    positions, statics = rt.ny_hour()
    assert detect_identity_changes(positions, statics, ctx) == []


@pytest.mark.shared_data
def test_unmodified_marinecadastre_extract(ctx):
    positions, statics = rt.shared_cadastre()
    events = detect_identity_changes(positions, statics, ctx)
    assert {(e.mmsi, e.other_mmsi, e.evidence["field"]) for e in events} == CADASTRE_IMO_SHARED
    assert {e.severity for e in events} == {Severity.HIGH}


@pytest.mark.parametrize(
    ("field", "new", "severity"),
    [
        ("name", "SOMETHING ELSE", Severity.MEDIUM),
        ("callsign", "ZZZ99", Severity.MEDIUM),
        ("imo", make_imo(123456), Severity.HIGH),
    ],
)
def test_a_changed_identity_field_is_found_exactly(ctx, field, new, severity):
    positions, statics = rt.ny_hour()
    v = named_vessel(statics, positions)
    t_new = int(v["ts_last"]) + 600
    changed = add_row(statics, mmsi=int(v["mmsi"]), ts=t_new, **{field: new})
    events = detect_identity_changes(positions, changed, ctx)
    assert [(e.kind, e.mmsi, e.evidence["field"], e.started_at, e.ended_at, e.severity) for e in events] == [
        (EventKind.IDENTITY_CHANGE, int(v["mmsi"]), field, int(v["ts_last"]), t_new, severity)
    ]
    e = events[0]
    assert e.evidence["before"] == (int(v[field]) if field == "imo" else v[field])
    assert e.evidence["after"] == new
    assert e.evidence["after_first_heard_at"] == rfc3339(t_new)
    assert e.evidence["position"] is not None and np.isfinite(e.lat)
    assert str(new) in e.summary


def test_cosmetic_and_within_category_changes_are_not_changes(ctx):
    positions, statics = rt.ny_hour()
    v = named_vessel(statics, positions)
    t = int(v["ts_last"]) + 600
    punct = add_row(statics, mmsi=int(v["mmsi"]), ts=t, name=v["name"].replace(" ", "-") + ".")
    assert detect_identity_changes(positions, punct, ctx) == []
    typed = add_row(statics, mmsi=int(v["mmsi"]), ts=t, ship_type=79, ts_last=t)
    typed = add_row(typed, mmsi=int(v["mmsi"]), ts=t + 600, ship_type=70)
    assert detect_identity_changes(positions, typed, ctx) == []  # 79 -> 70: both cargo
    absent = add_row(statics, mmsi=int(v["mmsi"]), ts=t, name="", callsign="", imo=0, ship_type=-1)
    assert detect_identity_changes(positions, absent, ctx) == []
    retyped = add_row(statics, mmsi=int(v["mmsi"]), ts=t, ship_type=80 if int(v["ship_type"]) // 10 != 8 else 70)
    assert [e.evidence["field"] for e in detect_identity_changes(positions, retyped, ctx)] == ["ship_type"]


def test_an_imo_moving_to_an_mmsi_of_another_flag_is_a_flag_change(ctx):
    positions, statics = rt.ny_hour()
    v = named_vessel(statics, positions)
    t = int(v["ts_last"]) + 3600
    new_mmsi = 273_999_001  # MID 273: Russia
    moved = add_row(statics, mmsi=new_mmsi, ts=t, imo=int(v["imo"]), name=v["name"], callsign="UBZZ9")
    events = detect_identity_changes(positions, moved, ctx)
    old_flag = MID_COUNTRY[int(v["mmsi"]) // 1_000_000]
    assert [
        (e.mmsi, e.other_mmsi, e.evidence["field"], e.evidence["before"], e.evidence["after"], e.severity)
        for e in events
    ] == [(new_mmsi, int(v["mmsi"]), "flag", old_flag, "RU", Severity.HIGH)]
    assert events[0].evidence["imo"] == int(v["imo"]) and events[0].evidence["overlapping_in_time"] is False
    # The same IMO under a second MMSI of the same flag: a new MMSI, LOW.
    same_flag = int(v["mmsi"]) // 1_000_000 * 1_000_000 + 999_001
    moved2 = add_row(statics, mmsi=same_flag, ts=t, imo=int(v["imo"]))
    assert [(e.evidence["field"], e.severity) for e in detect_identity_changes(positions, moved2, ctx)] == [
        ("mmsi", Severity.LOW)
    ]
    # Heard from both MMSIs at once: two ships claiming one IMO.
    both = add_row(
        statics, mmsi=new_mmsi, ts=int(v["ts"]), ts_last=int(v["ts_last"]), imo=int(v["imo"]), name="OTHER SHIP"
    )
    assert [e.evidence["field"] for e in detect_identity_changes(positions, both, ctx)] == ["imo_shared"]


def test_recall_over_20_random_identity_changes(ctx):
    """20 NY-hour vessels (seed 31), each given one changed name, call sign, IMO or ship type category."""
    positions, statics = rt.ny_hour()
    rng = np.random.default_rng(31)
    one = statics.groupby("mmsi").filter(lambda g: len(g) == 1)
    pool = one[(one["name"] != "") & (one["callsign"] != "") & one["imo"].map(imo_valid) & (one["ship_type"] > 0)]
    chosen = pool.iloc[rng.permutation(len(pool))[:20]]
    assert len(chosen) == 20
    changed, expected = statics, {}
    for k, v in enumerate(chosen.itertuples(index=False)):
        field = ["name", "callsign", "imo", "ship_type"][k % 4]
        new = {
            "name": f"RENAMED {k}",
            "callsign": f"ZZ{k:03d}",
            "imo": make_imo(500000 + k),
            "ship_type": 30 if v.ship_type // 10 != 3 else 70,
        }[field]
        changed = add_row(changed, mmsi=int(v.mmsi), ts=int(v.ts_last) + 600, **{field: new})
        expected[int(v.mmsi)] = field
    events = detect_identity_changes(positions, changed, ctx)
    hits = {e.mmsi for e in events if expected.get(e.mmsi) == e.evidence["field"]}
    false_positives = [e for e in events if e.mmsi not in hits]
    print(f"identity changes: recall {len(hits)}/20, false positives {len(false_positives)}")
    assert false_positives == [] and len(hits) == 20
