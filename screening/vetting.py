"""The A–E vetting grade: five weighted factors over what the registers hold (contract 2.9).

Nominal weights: flag_performance 25, detention_history 25, ownership 20 (the opacity
score), inspection_gap 15, vessel_age 15. A factor with no input is not observed (weight
0, score null); all five are always listed, also when vetting is not requested, not assessed
or could not finish and the observed weights are rescaled to whole percentages summing to 100,
so `weighted_score = round(sum(weight_pct * score) / 100)` reproduces from the factors
shown. Floors (3.2.4) then raise the score: a confirmed designation to 90, an exact-IMO
watchlist listing to 61; `score_floor` keeps the pre-floor value.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from screening.flag_performance import flag_score
from screening.ownership import OwnershipResult
from screening.records import Inspection, RegisterRecord
from screening.verdict import FLOOR_CONFIRMED, FLOOR_WATCHLIST

NOMINAL_WEIGHTS = {
    "flag_performance": 25,
    "detention_history": 25,
    "ownership": 20,
    "inspection_gap": 15,
    "vessel_age": 15,
}
FLOOR_VALUES = {FLOOR_CONFIRMED: 90, FLOOR_WATCHLIST: 61}
DETENTION_WINDOW_DAYS = 3 * 365
GRADE_LADDER = ((20, "A", "acceptable"), (40, "B", "marginal"), (60, "C", "substandard"), (80, "D", "unacceptable"))


def grade_for(score: int) -> tuple[str, str]:
    for ceiling, grade, status in GRADE_LADDER:
        if score <= ceiling:
            return grade, status
    return "E", "unacceptable"


def vessel_age(records: Sequence[RegisterRecord], today: date) -> int | None:
    year = next((r.build_year for r in records if r.build_year), None)
    return max(0, today.year - year) if year else None


def _age_score(age: int) -> int:
    if age <= 10:
        return age * 2
    if age <= 20:
        return 20 + (age - 10) * 4
    return min(100, 60 + (age - 20) * 4)


def _detention_score(inspections: Sequence[Inspection], today: date) -> int:
    recent = [i for i in inspections if (today - i.inspected_on).days <= DETENTION_WINDOW_DAYS]
    detained = sum(1 for i in recent if i.detained)
    deficiencies = sum(i.deficiencies for i in recent) / len(recent) if recent else 0.0
    return min(100, 35 * detained + round(3 * deficiencies))


def _gap_score(inspections: Sequence[Inspection], today: date) -> int:
    newest = max(i.inspected_on for i in inspections)
    months = (today - newest).days / 30.4
    return max(0, min(100, round((months - 6) * 100 / 30)))


def _rescale(observed: dict[str, int]) -> dict[str, int]:
    """Observed nominal weights as whole percentages summing to 100 (largest remainder)."""
    total = sum(observed.values())
    exact = {name: weight * 100 / total for name, weight in observed.items()}
    floors = {name: int(value) for name, value in exact.items()}
    short = 100 - sum(floors.values())
    for name in sorted(exact, key=lambda n: -(exact[n] - floors[n]))[:short]:
        floors[name] += 1
    return floors


def _factor_scores(
    records: Sequence[RegisterRecord], inspections: Sequence[Inspection], ownership: OwnershipResult | None, today: date
) -> dict[str, int | None]:
    flag = next((r.flag for r in records if r.flag), None)
    age = vessel_age(records, today)
    return {
        "flag_performance": flag_score(flag) if flag else None,
        "detention_history": _detention_score(inspections, today) if inspections else None,
        "ownership": ownership.score if ownership is not None and ownership.assessed else None,
        "inspection_gap": _gap_score(inspections, today) if inspections else None,
        "vessel_age": _age_score(age) if age is not None else None,
    }


def _unobserved_factors() -> list[dict]:
    return [{"name": name, "observed": False, "weight_pct": 0, "score": None} for name in NOMINAL_WEIGHTS]


def _blank(status: str, *, detention_count: int, vessel_age: int | None, factors: list[dict]) -> dict:
    return {
        "assessed": False,
        "grade": None,
        "score": None,
        "status": status,
        "detention_count": detention_count,
        "vessel_age": vessel_age,
        "factors": factors,
    }


def assess_vetting(
    *,
    records: Sequence[RegisterRecord],
    inspections: Sequence[Inspection],
    ownership: OwnershipResult | None,
    floor_basis: str | None,
    today: date,
) -> dict:
    scores = _factor_scores(records, inspections, ownership, today)
    detention_count = sum(1 for i in inspections if i.detained)
    age = vessel_age(records, today)
    observed_scores = {name: score for name, score in scores.items() if score is not None}
    observed = {name: NOMINAL_WEIGHTS[name] for name in observed_scores}
    if not observed:
        return _blank("not_assessed", detention_count=detention_count, vessel_age=age, factors=_unobserved_factors())
    weights = _rescale(observed)
    factors = [
        {"name": name, "observed": scores[name] is not None, "weight_pct": weights.get(name, 0), "score": scores[name]}
        for name in NOMINAL_WEIGHTS
    ]
    weighted = round(sum(weights[name] * observed_scores[name] for name in weights) / 100)
    score = weighted
    block: dict = {}
    if floor_basis in FLOOR_VALUES:
        value = FLOOR_VALUES[floor_basis]
        score = max(weighted, value)
        block["score_floor"] = {"basis": floor_basis, "value": value, "weighted_score": weighted}
    grade, status = grade_for(score)
    return {
        "assessed": True,
        "grade": grade,
        "score": score,
        "status": status,
        "detention_count": detention_count,
        "vessel_age": age,
        "factors": factors,
        **block,
    }


def vetting_not_requested(*, detention_count: int = 0, vessel_age: int | None = None) -> dict:
    """include_vetting false: nothing graded, the five factors listed unobserved (2.9)."""
    return _blank(
        "not_requested", detention_count=detention_count, vessel_age=vessel_age, factors=_unobserved_factors()
    )


def vetting_not_assessed(*, detention_count: int = 0, vessel_age: int | None = None) -> dict:
    return _blank("not_assessed", detention_count=detention_count, vessel_age=vessel_age, factors=_unobserved_factors())


def vetting_error(*, detention_count: int = 0, vessel_age: int | None = None) -> dict:
    """Enrichment that could not finish: not assessed, the five factors unobserved, counts still integers."""
    return _blank("not_assessed", detention_count=detention_count, vessel_age=vessel_age, factors=_unobserved_factors())
