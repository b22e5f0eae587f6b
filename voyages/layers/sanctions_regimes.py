"""Country sanctions regimes that matter to a passage through a state's waters (project-written table).

Comprehensive regimes prohibit most dealings with the country; sectoral regimes restrict
named sectors (energy, shipping, finance). Written as facts from the US (OFAC), EU and UK
programmes in force in 2025; an operator re-checks the table on each programme change.
"""

from __future__ import annotations

COMPREHENSIVE = "comprehensive"
SECTORAL = "sectoral"

REGIMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "IR": (COMPREHENSIVE, ("US OFAC Iran (comprehensive)", "EU Iran restrictive measures", "UK Iran sanctions")),
    "KP": (COMPREHENSIVE, ("UN Security Council 1718", "US OFAC North Korea (comprehensive)", "EU DPRK")),
    "SY": (COMPREHENSIVE, ("US OFAC Syria", "EU Syria restrictive measures")),
    "CU": (COMPREHENSIVE, ("US OFAC Cuba (comprehensive embargo)",)),
    "RU": (SECTORAL, ("EU Russia sectoral (incl. oil price cap)", "UK Russia sanctions", "US OFAC Russia (EO 14024)")),
    "BY": (SECTORAL, ("EU Belarus sectoral", "UK Belarus sanctions", "US OFAC Belarus")),
    "VE": (SECTORAL, ("US OFAC Venezuela (EO 13850, EO 13884)", "EU Venezuela")),
    "MM": (SECTORAL, ("US OFAC Burma", "EU Myanmar", "UK Myanmar")),
    "LY": (SECTORAL, ("UN Security Council 1970 (Libya)", "EU Libya")),
    "YE": (SECTORAL, ("UN Security Council 2140 (Yemen)",)),
    "SO": (SECTORAL, ("UN Security Council 751 (Somalia)",)),
    "SD": (SECTORAL, ("UN Security Council 1591 (Sudan)", "EU Sudan")),
}


def regimes_for(country_code: str) -> tuple[str | None, list[str]]:
    """(kind, regime names) for a country; (None, []) when no regime applies."""
    kind, names = REGIMES.get(country_code.upper(), (None, ()))
    return kind, list(names)
