"""Country Instability Index (cii): a documented composite of country facts the service holds.

Points (capped at 100) for one country:
    JWC named country (listed waters off its coast)             40
    comprehensive sanctions regime / sectoral regime             30 / 15
    piracy hot-spot waters (project list of IMB hot-spot states) 15
    political instability from an operator-loaded indicator     0-30: 10 x (0.5 - WGI political
    file (World Bank WGI political stability estimate)           stability), clipped to 0..30
The voyage signal is the highest CII among the port-call countries and the countries whose
waters make up at least 2% of the route. No timestamp exists for this composite (contract:
basis unknown).
"""

from __future__ import annotations

from voyages.layers.jwc import FULLY_LISTED_COUNTRIES
from voyages.layers.sanctions_regimes import COMPREHENSIVE, regimes_for

PIRACY_STATES = frozenset(
    {"NG", "BJ", "TG", "GH", "CM", "GQ", "SO", "YE", "ID", "MY", "SG", "PH", "BD", "VE", "PE", "EC", "HT", "CO", "IN"}
)
MIN_TRANSIT_SHARE = 0.02


def country_instability(code: str, indicators: dict[str, float]) -> int:
    points = 0
    if code in FULLY_LISTED_COUNTRIES:
        points += 40
    kind, _ = regimes_for(code)
    if kind == COMPREHENSIVE:
        points += 30
    elif kind is not None:
        points += 15
    if code in PIRACY_STATES:
        points += 15
    stability = indicators.get(code)
    if stability is not None:
        points += int(max(0.0, min(30.0, 10 * (0.5 - stability))))
    return min(100, points)


def voyage_cii(port_countries: list[str], transit: list[dict], indicators: dict[str, float]) -> tuple[int, str]:
    considered = dict.fromkeys(port_countries)
    considered.update(dict.fromkeys(r["country_code"] for r in transit if r["route_fraction"] >= MIN_TRANSIT_SHARE))
    scored = sorted(((country_instability(c, indicators), c) for c in considered if c), reverse=True)
    if not scored:
        return 0, "No port-call or transit country to assess."
    top, country = scored[0]
    listing = ", ".join(f"{c} {s}" for s, c in scored[:5])
    return top, f"Highest country instability {top} ({country}); considered: {listing}."
