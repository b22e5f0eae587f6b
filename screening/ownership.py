"""Ownership opacity: how hard it is to see who stands behind a hull (contract 2.1, 2.3, 2.9).

A score of 0-100 built from lines a person can read; the points of the lines are the
score, so `ownershipFactors` always adds up. Bands: LOW under 30, MEDIUM 30 to 60
inclusive, HIGH above 60. A hull whose registers hold no ownership particulars at all is
not assessed (opacity and score null), never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from screening.records import RegisterRecord

# Jurisdictions whose company registers do not publish shareholders (a documented,
# project-written list of common offshore incorporation places; ISO 3166-1 alpha-2).
SECRECY_JURISDICTIONS = frozenset(
    {
        "MH",
        "LR",
        "PA",
        "VG",
        "KY",
        "BS",
        "SC",
        "BZ",
        "VU",
        "KN",
        "CK",
        "WS",
        "AI",
        "BM",
        "NU",
        "MU",
        "AE",
        "CM",
        "KM",
        "TG",
    }
)

POINTS_NO_REGISTERED_OWNER = 35
POINTS_SECRECY_OWNER = 20
POINTS_NO_BENEFICIAL_OWNER = 20
POINTS_NO_LEI = 10
POINTS_NO_MANAGER = 15
POINTS_PER_FORMER_FLAG = 10
MAX_FORMER_FLAG_POINTS = 20


@dataclass
class OwnershipResult:
    assessed: bool
    score: int | None = None
    opacity: str | None = None
    factors: list[dict] | None = field(default=None)


def opacity_band(score: int) -> str:
    if score < 30:
        return "LOW"
    if score <= 60:
        return "MEDIUM"
    return "HIGH"


def _first(records: Sequence[RegisterRecord], attribute: str) -> str | None:
    return next((getattr(r, attribute) for r in records if getattr(r, attribute)), None)


def _has_particulars(records: Sequence[RegisterRecord]) -> bool:
    fields = ("registered_owner", "manager", "operator", "beneficial_owner", "owner_lei")
    return any(getattr(r, name) for r in records for name in fields)


def assess_ownership(records: Sequence[RegisterRecord]) -> OwnershipResult:
    if not _has_particulars(records):
        return OwnershipResult(assessed=False)
    lines: list[dict] = []
    owner = _first(records, "registered_owner")
    owner_country = _first(records, "registered_owner_country")
    if not owner:
        lines.append({"label": "No registered owner is on record.", "points": POINTS_NO_REGISTERED_OWNER})
    elif owner_country in SECRECY_JURISDICTIONS:
        lines.append(
            {
                "label": f"The registered owner is incorporated in {owner_country}, where shareholders are "
                "not published.",
                "points": POINTS_SECRECY_OWNER,
            }
        )
    if not _first(records, "beneficial_owner"):
        lines.append({"label": "No beneficial owner is identified.", "points": POINTS_NO_BENEFICIAL_OWNER})
    if not _first(records, "owner_lei"):
        lines.append({"label": "The owner has no Legal Entity Identifier on record.", "points": POINTS_NO_LEI})
    if not (_first(records, "manager") or _first(records, "operator")):
        lines.append({"label": "No ship manager or operator is on record.", "points": POINTS_NO_MANAGER})
    former_flags = {flag for r in records for flag in r.former_flags}
    if former_flags:
        points = min(MAX_FORMER_FLAG_POINTS, POINTS_PER_FORMER_FLAG * len(former_flags))
        lines.append(
            {
                "label": f"The hull has changed flag {len(former_flags)} time(s) "
                f"(formerly {', '.join(sorted(former_flags))}).",
                "points": points,
            }
        )
    score = min(100, sum(line["points"] for line in lines))
    if score != sum(line["points"] for line in lines):
        return OwnershipResult(True, score, opacity_band(score), None)  # lines no longer add up: null, per 2.1
    return OwnershipResult(True, score, opacity_band(score), lines)
