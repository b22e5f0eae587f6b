"""IDENTITY_CHANGE: a ship's static identity changing.

- on one MMSI: the name, call sign, IMO number (both valid by their check digit) or ship type
  category (the tens digit of the AIS ship-and-cargo type; changes within a category, e.g. the
  hazard class of a cargo ship, are routine) changing between consecutive reports;
- across MMSIs: one IMO number transmitted from MMSIs with different MIDs one after the other (a flag
  change: the first three digits of a ship station's MMSI are its Maritime Identification Digits,
  ITU-R M.585), or with the same MID (a new MMSI under the same flag); heard from two MMSIs at the
  same time it is not a change but two ships claiming one IMO number (field "imo_shared"): the
  MarineCadastre extract of 3 January 2022 holds three such pairs, different ships in different
  waters.

A value that flips back and forth is one event per distinct change (with how often it happened),
not one per flip. Absent values (empty name, IMO 0, type -1) are never a change.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from behaviour import thresholds as th
from behaviour.detectors.base import DetectedEvent, DetectionContext, EventKind, Severity
from behaviour.detectors.common import Track, position, positions_at, rfc3339

# Maritime Identification Digits -> ISO 3166-1 alpha-2, written by us as facts from the ITU's
# "Table of Maritime Identification Digits" (MARS, ITU-R M.585 Annex 1). No library installed here
# carries this table (pyais does not). Territories under their own MID carry their own code; 306
# (Curaçao, Sint Maarten, Caribbean Netherlands) is written as CW. Written from the published list
# without re-checking the live MARS page in this session: re-check before relying on a rare MID.
# An unlisted MID is shown as "MID nnn" and still compared by its digits.
_MID_TEXT = """
201 AL 202 AD 203 AT 204 PT 205 BE 206 BY 207 BG 208 VA 209 CY 210 CY 211 DE 212 CY 213 GE 214 MD
215 MT 216 AM 218 DE 219 DK 220 DK 224 ES 225 ES 226 FR 227 FR 228 FR 229 MT 230 FI 231 FO 232 GB
233 GB 234 GB 235 GB 236 GI 237 GR 238 HR 239 GR 240 GR 241 GR 242 MA 243 HU 244 NL 245 NL 246 NL
247 IT 248 MT 249 MT 250 IE 251 IS 252 LI 253 LU 254 MC 255 PT 256 MT 257 NO 258 NO 259 NO 261 PL
262 ME 263 PT 264 RO 265 SE 266 SE 267 SK 268 SM 269 CH 270 CZ 271 TR 272 UA 273 RU 274 MK 275 LV
276 EE 277 LT 278 SI 279 RS
301 AI 303 US 304 AG 305 AG 306 CW 307 AW 308 BS 309 BS 310 BM 311 BS 312 BZ 314 BB 316 CA 319 KY
321 CR 323 CU 325 DM 327 DO 329 GP 330 GD 331 GL 332 GT 334 HN 336 HT 338 US 339 JM 341 KN 343 LC
345 MX 347 MQ 348 MS 350 NI 351 PA 352 PA 353 PA 354 PA 355 PA 356 PA 357 PA 358 PR 359 SV 361 PM
362 TT 364 TC 366 US 367 US 368 US 369 US 370 PA 371 PA 372 PA 373 PA 374 PA 375 VC 376 VC 377 VC
378 VG 379 VI
401 AF 403 SA 405 BD 408 BH 410 BT 412 CN 413 CN 414 CN 416 TW 417 LK 419 IN 422 IR 423 AZ 425 IQ
428 IL 431 JP 432 JP 434 TM 436 KZ 437 UZ 438 JO 440 KR 441 KR 443 PS 445 KP 447 KW 450 LB 451 KG
453 MO 455 MV 457 MN 459 NP 461 OM 463 PK 466 QA 468 SY 470 AE 471 AE 472 TJ 473 YE 475 YE 477 HK
478 BA
503 AU 506 MM 508 BN 510 FM 511 PW 512 NZ 514 KH 515 KH 516 CX 518 CK 520 FJ 523 CC 525 ID 529 KI
531 LA 533 MY 536 MP 538 MH 540 NC 542 NU 544 NR 546 PF 548 PH 550 TL 553 PG 555 PN 557 SB 559 AS
561 WS 563 SG 564 SG 565 SG 566 SG 567 TH 570 TO 572 TV 574 VN 576 VU 577 VU 578 WF
601 ZA 603 AO 605 DZ 609 BI 610 BJ 611 BW 612 CF 613 CM 615 CG 616 KM 617 CV 619 CI 620 KM 621 DJ
622 EG 624 ET 625 ER 626 GA 627 GH 629 GM 630 GW 631 GQ 632 GN 633 BF 634 KE 636 LR 637 LR 638 SS
642 LY 644 LS 645 MU 647 MG 649 ML 650 MZ 654 MR 655 MW 656 NE 657 NG 659 NA 660 RE 661 RW 662 SD
663 SN 664 SC 665 SH 666 SO 667 SL 668 ST 669 SZ 670 TD 671 TG 672 TN 674 TZ 675 UG 676 CD 677 TZ
678 ZM 679 ZW
701 AR 710 BR 720 BO 725 CL 730 CO 735 EC 740 FK 745 GF 750 GY 755 PY 760 PE 765 SR 770 UY 775 VE
"""
_tokens = _MID_TEXT.split()
MID_COUNTRY: dict[int, str] = {int(_tokens[i]): _tokens[i + 1] for i in range(0, len(_tokens), 2)}

_FIELDS = ("name", "callsign", "imo", "ship_type")
_SEVERITY = {
    "name": Severity.MEDIUM,
    "callsign": Severity.MEDIUM,
    "imo": Severity.HIGH,  # a hull's IMO number never changes: the MMSI moved ship, or one is false
    "ship_type": Severity.LOW,
    "flag": Severity.HIGH,  # flag hopping: a sanctions-evasion indicator (OFAC/State/USCG advisory, May 2020)
    "mmsi": Severity.LOW,
    "imo_shared": Severity.HIGH,  # two ships at once claiming one IMO number: at least one is false
}


def mid_of(mmsi: int) -> int | None:
    """The MID of a ship station's MMSI (ITU-R M.585: MIDxxxxxx), else None."""
    if th.SHIP_MMSI_MIN <= mmsi <= th.SHIP_MMSI_MAX:
        return mmsi // 1_000_000
    return None


def imo_valid(imo: int) -> bool:
    """IMO ship number check digit: the 7th digit is the last digit of the sum of the first six
    weighted 7, 6, 5, 4, 3, 2 (IMO Resolution A.1117(30))."""
    if not 1_000_000 <= imo <= 9_999_999:
        return False
    digits = [int(c) for c in str(imo)]
    return sum(d * w for d, w in zip(digits[:6], range(7, 1, -1), strict=True)) % 10 == digits[6]


_RULES = {
    "name": "consecutive non-empty names differ in their letters and digits",
    "callsign": "consecutive non-empty call signs differ in their letters and digits",
    "imo": "consecutive IMO numbers, both with a valid check digit, differ",
    "ship_type": "consecutive AIS ship types differ in category (tens digit)",
    "flag": "one valid IMO heard from MMSIs of different MIDs, one after the other",
    "mmsi": "one valid IMO heard from two MMSIs of the same MID, one after the other",
    "imo_shared": "one valid IMO heard from two MMSIs in overlapping times",
}


def imo_valid_array(imo: np.ndarray) -> np.ndarray:
    """`imo_valid` for a whole column at once."""
    imo = np.asarray(imo, dtype="int64")
    ok = (imo >= 1_000_000) & (imo <= 9_999_999)
    total = np.zeros(len(imo), dtype="int64")
    for place, weight in enumerate(range(7, 1, -1)):  # digits 1-6, most significant first
        total += (imo // 10 ** (6 - place)) % 10 * weight
    return ok & (total % 10 == imo % 10)


_NOT_ALNUM = re.compile(r"[^A-Z0-9]")


def _normalised(field: str, values: pd.Series) -> pd.Series:
    """What counts as the same value: names and call signs compared on letters and digits only
    (spacing and punctuation vary between installations), ship types by category, invalid IMOs absent."""
    if field in ("name", "callsign"):
        return values.astype(str).str.upper().map(lambda s: _NOT_ALNUM.sub("", s))
    if field == "ship_type":
        v = values.astype("int64")
        return (v // 10).where(v > 0, -1).astype("int64")
    return values.astype("int64").where(imo_valid_array(values.to_numpy()), 0)


def _absent(field: str, values: pd.Series) -> pd.Series:
    if field in ("name", "callsign"):
        return values == ""
    return values <= 0


def _event(
    field: str,
    mmsi: int,
    old: object,
    new: object,
    old_last: int,
    new_first: int,
    times: int,
    lat: float,
    lon: float,
    extra: dict[str, object] | None = None,
    other_mmsi: int | None = None,
) -> DetectedEvent:
    label = {"callsign": "call sign", "ship_type": "ship type", "imo": "IMO number", "mmsi": "MMSI"}.get(field, field)
    if field == "imo_shared":
        summary = (
            f"IMO {extra['imo'] if extra else ''} was transmitted at the same time by MMSI {other_mmsi} ({old}) and "
            f"MMSI {mmsi} ({new}), from {rfc3339(new_first)}."
        )
    elif field == "flag":
        summary = (
            f"IMO {extra['imo'] if extra else ''} moved from MMSI {other_mmsi} ({old}) to MMSI {mmsi} ({new}): "
            f"a flag change, first heard {rfc3339(new_first)}."
        )
    elif field == "mmsi":
        summary = (
            f"IMO {extra['imo'] if extra else ''} moved from MMSI {other_mmsi} to MMSI {mmsi} under the same "
            f"flag ({new}), first heard {rfc3339(new_first)}."
        )
    else:
        summary = (
            f"MMSI {mmsi} changed its {label} from {old!r} to {new!r}: the old value last heard "
            f"{rfc3339(old_last)}, the new first heard {rfc3339(new_first)}."
        )
    return DetectedEvent(
        kind=EventKind.IDENTITY_CHANGE,
        mmsi=mmsi,
        started_at=int(old_last),
        ended_at=int(new_first),
        lat=round(float(lat), 5) if np.isfinite(lat) else float("nan"),
        lon=round(float(lon), 5) if np.isfinite(lon) else float("nan"),
        severity=_SEVERITY[field],
        summary=summary,
        evidence={
            "field": field,
            "before": old,
            "after": new,
            "before_last_heard_at": rfc3339(old_last),
            "after_first_heard_at": rfc3339(new_first),
            "times_changed": times,
            "position": position(lat, lon) if np.isfinite(lat) else None,
            **(extra or {}),
            "rule": _RULES[field],
            "detector_version": th.DETECTOR_VERSION,
        },
        other_mmsi=other_mmsi,
    )


def detect_identity_changes(
    positions: pd.DataFrame, statics: pd.DataFrame, context: DetectionContext
) -> list[DetectedEvent]:
    if statics is None or not len(statics):
        return []
    track = Track(positions)
    found: list[tuple[str, int, object, object, int, int, int, dict[str, object] | None, int | None]] = []
    base = statics.sort_values(["mmsi", "ts"], kind="stable")
    for field in _FIELDS:
        values = _normalised(field, base[field])
        present = ~_absent(field, values)
        sub = pd.DataFrame(
            {
                "mmsi": base["mmsi"].to_numpy()[present.to_numpy()],
                "ts": base["ts"].to_numpy()[present.to_numpy()],
                "ts_last": base["ts_last"].to_numpy()[present.to_numpy()],
                "key": values.to_numpy()[present.to_numpy()],
                "shown": base[field].to_numpy()[present.to_numpy()],
            }
        )
        if len(sub) < 2:
            continue
        same = sub["mmsi"].to_numpy()[1:] == sub["mmsi"].to_numpy()[:-1]
        changed = same & (sub["key"].to_numpy()[1:] != sub["key"].to_numpy()[:-1])
        idx = np.flatnonzero(changed) + 1  # rows where a new value starts
        if not idx.size:
            continue
        changes = pd.DataFrame(
            {
                "mmsi": sub["mmsi"].to_numpy()[idx],
                "old": sub["shown"].to_numpy()[idx - 1],
                "new": sub["shown"].to_numpy()[idx],
                "old_key": sub["key"].to_numpy()[idx - 1],
                "new_key": sub["key"].to_numpy()[idx],
                "old_last": sub["ts_last"].to_numpy()[idx - 1],
                "new_first": sub["ts"].to_numpy()[idx],
            }
        )
        # One event per distinct change (old -> new) per MMSI, at its first occurrence.
        grouped = changes.groupby(["mmsi", "old_key", "new_key"], sort=False)
        firsts = grouped.head(1)
        counts = grouped.size().reindex(pd.MultiIndex.from_frame(firsts[["mmsi", "old_key", "new_key"]])).to_numpy()
        for row, times in zip(firsts.itertuples(index=False), counts, strict=True):
            old, new = row.old, row.new
            if field in ("imo", "ship_type"):
                old, new = int(old), int(new)
            found.append(
                (field, int(row.mmsi), old, new, int(row.old_last), int(row.new_first), int(times), None, None)
            )

    # Across MMSIs: one valid IMO heard from several MMSIs.
    imo = base["imo"].astype("int64")
    valid = pd.Series(imo_valid_array(imo.to_numpy()), index=imo.index)
    by_imo = (
        base[valid.to_numpy()]
        .groupby(["imo", "mmsi"], sort=False)
        .agg(first=("ts", "min"), last=("ts_last", "max"), name=("name", "last"))
        .reset_index()
        .sort_values(["imo", "first"], kind="stable")
    )
    multi = by_imo[by_imo.duplicated("imo", keep=False)]
    for imo_number, group in multi.groupby("imo", sort=False):
        rows = list(group.itertuples(index=False))
        for prev, cur in zip(rows, rows[1:], strict=False):
            prev_mid, cur_mid = mid_of(int(prev.mmsi)), mid_of(int(cur.mmsi))
            if prev_mid is None or cur_mid is None:
                continue
            prev_flag = MID_COUNTRY.get(prev_mid, f"MID {prev_mid}")
            cur_flag = MID_COUNTRY.get(cur_mid, f"MID {cur_mid}")
            overlapping = bool(cur.first <= prev.last)
            # Heard from both MMSIs at once: not a change of flag but two ships claiming one IMO number.
            field = "imo_shared" if overlapping else "flag" if prev_flag != cur_flag else "mmsi"
            extra: dict[str, object] = {
                "imo": int(imo_number),
                "mid_before": prev_mid,
                "mid_after": cur_mid,
                "previous_mmsi_heard": [rfc3339(prev.first), rfc3339(prev.last)],
                "overlapping_in_time": overlapping,
                "name_before": prev.name,
                "name_after": cur.name,
            }
            before: object = f"{prev.name or 'no name'}, {prev_flag}" if overlapping else prev_flag
            after: object = f"{cur.name or 'no name'}, {cur_flag}" if overlapping else cur_flag
            started = int(cur.first) if overlapping else int(prev.last)
            found.append((field, int(cur.mmsi), before, after, started, int(cur.first), 1, extra, int(prev.mmsi)))

    if not found:
        return []
    lat, lon, _ = positions_at(track, np.array([f[1] for f in found]), np.array([f[5] for f in found]))
    return [
        _event(field, mmsi, old, new, old_last, new_first, times, lat[i], lon[i], extra, other)
        for i, (field, mmsi, old, new, old_last, new_first, times, extra, other) in enumerate(found)
    ]
