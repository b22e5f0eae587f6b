"""Flag-state performance, a project-written table of risk scores (0 best, 100 worst).

Written by us from the published port-state-control performance lists of the Paris and
Tokyo MoUs (white, grey and black lists of recent years), as banded facts rather than a
copy: white-list flags score low, grey middle, black high. A flag the table does not hold
scores UNLISTED_SCORE: flags too small to be ranked by the MoUs are not a clean pass.
"""

from __future__ import annotations

WHITE = 10
GREY = 45
BLACK = 80
HIGH_RISK_BLACK = 95
UNLISTED_SCORE = 55

_BANDS: dict[int, tuple[str, ...]] = {
    WHITE: (
        "NO",
        "DK",
        "NL",
        "GB",
        "SE",
        "FI",
        "DE",
        "FR",
        "BE",
        "BS",
        "MH",
        "LR",
        "MT",
        "CY",
        "GR",
        "SG",
        "HK",
        "IT",
        "ES",
        "PT",
        "IE",
        "JP",
        "KR",
        "BM",
        "KY",
        "GI",
        "IM",
        "US",
        "CA",
        "AU",
        "NZ",
        "CH",
        "EE",
        "LV",
        "LT",
        "PL",
        "HR",
        "AG",
        "CN",
        "TR",
        "IN",
        "PA",
        "FO",
        "LU",
        "AT",
        "PH",
        "SA",
        "KW",
        "BB",
        "VC",
    ),
    GREY: (
        "RU",
        "EG",
        "UA",
        "TN",
        "DZ",
        "LB",
        "AZ",
        "KZ",
        "TW",
        "VN",
        "ID",
        "MY",
        "TH",
        "BR",
        "AL",
        "BZ",
        "CK",
        "TV",
        "KN",
    ),
    BLACK: ("TZ", "SL", "MD", "PW", "VU", "GA", "ST", "GQ", "GY", "LK"),
    HIGH_RISK_BLACK: ("CM", "TG", "KM", "KP", "IR", "SY", "BO", "MN"),
}
FLAG_SCORES: dict[str, int] = {flag: score for score, flags in _BANDS.items() for flag in flags}


def flag_score(flag: str) -> int:
    return FLAG_SCORES.get(flag.upper(), UNLISTED_SCORE)


def flag_band(flag: str) -> str:
    score = flag_score(flag)
    return {WHITE: "white", GREY: "grey", BLACK: "black", HIGH_RISK_BLACK: "black"}.get(score, "unlisted")
