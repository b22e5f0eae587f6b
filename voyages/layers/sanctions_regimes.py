"""Country sanctions regimes that matter to a passage through a state's waters (project-written table).

Comprehensive regimes prohibit most dealings with the country; sectoral regimes restrict
named sectors (energy, shipping, finance) or keep arms and security measures and targeted listings.
Written as facts from the US (OFAC), EU and UK programmes in force in 2025 (Syria re-checked in
November 2026); an operator re-checks the table on each programme change.
"""

from __future__ import annotations

COMPREHENSIVE = "comprehensive"
SECTORAL = "sectoral"

REGIMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "IR": (
        COMPREHENSIVE,
        (
            "US OFAC Iran (comprehensive)",
            "EU Iran restrictive measures",
            "UK Iran sanctions",
            # Reinstated on 27 September 2025 when the snapback of resolution 2231 ran its course.
            "UN Security Council 1737 (Iran)",
        ),
    ),
    "KP": (COMPREHENSIVE, ("UN Security Council 1718", "US OFAC North Korea (comprehensive)", "EU DPRK")),
    # No longer comprehensive: the US ended its Syria program on 1 July 2025 (EO 14312; the Syrian
    # Sanctions Regulations were removed in August 2025), the UK revoked its sectoral and financial
    # measures on 25 April 2025 and the EU lifted its economic measures on 28 May 2025. What remains is
    # targeted at the former Assad regime and kept on security grounds (arms, chemical weapons,
    # equipment for internal repression), the shape of the other sectoral rows.
    "SY": (
        SECTORAL,
        (
            "US OFAC Promoting Accountability for Assad and Regional Stabilization (EO 13894 as amended)",
            "EU Syria restrictive measures on security grounds",
            "UK Syria sanctions (as amended 25 April 2025)",
        ),
    ),
    "CU": (COMPREHENSIVE, ("US OFAC Cuba (comprehensive embargo)",)),
    "RU": (SECTORAL, ("EU Russia sectoral (incl. oil price cap)", "UK Russia sanctions", "US OFAC Russia (EO 14024)")),
    "BY": (SECTORAL, ("EU Belarus sectoral", "UK Belarus sanctions", "US OFAC Belarus")),
    "VE": (SECTORAL, ("US OFAC Venezuela (EO 13850, EO 13884)", "EU Venezuela")),
    "MM": (SECTORAL, ("US OFAC Burma", "EU Myanmar", "UK Myanmar")),
    "LY": (SECTORAL, ("UN Security Council 1970 (Libya)", "EU Libya")),
    "YE": (SECTORAL, ("UN Security Council 2140 (Yemen)",)),
    # Resolution 2713 (2023) turned the Somalia regime of resolution 751 into one on al-Shabaab.
    "SO": (SECTORAL, ("UN Security Council 2713 (al-Shabaab)",)),
    "SD": (SECTORAL, ("UN Security Council 1591 (Sudan)", "EU Sudan")),
}


def regimes_for(country_code: str) -> tuple[str | None, list[str]]:
    """(kind, regime names) for a country; (None, []) when no regime applies."""
    kind, names = REGIMES.get(country_code.upper(), (None, ()))
    return kind, list(names)


# Ports in regions under their own regime, whatever the country's (a port call there is judged by the
# region's regime, not the country's). Facts as of 2025: the Crimea region (US Executive Order 13685, a
# comprehensive embargo; EU Council Regulation (EU) No 692/2014; UK Russia (Sanctions) (EU Exit)
# Regulations 2019, Crimea), the so-called DNR region (US Executive Order 14065, comprehensive), and the
# non-government-controlled areas of the Donetsk, Kherson, Luhansk and Zaporizhzhia oblasts (EU Council
# Regulation (EU) 2022/263). Codes as the port catalogue carries them.
_CRIMEA = (
    "US OFAC Crimea region (EO 13685, comprehensive)",
    "EU Crimea and Sevastopol (Regulation (EU) No 692/2014)",
    "UK Russia sanctions (Crimea)",
)
REGION_PORTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "UASVP": ("Crimea", COMPREHENSIVE, _CRIMEA),  # Sevastopol
    "UAKEH": ("Crimea", COMPREHENSIVE, _CRIMEA),  # Kerch
    "UAFEO": ("Crimea", COMPREHENSIVE, _CRIMEA),  # Feodosiya
    "UAYAL": ("Crimea", COMPREHENSIVE, _CRIMEA),  # Yalta
    "UAMPW": (  # Mariupol, Donetsk oblast
        "non-government-controlled Donetsk oblast",
        COMPREHENSIVE,
        (
            "US OFAC so-called DNR region (EO 14065, comprehensive)",
            "EU non-government-controlled areas (Regulation (EU) 2022/263)",
        ),
    ),
    "UAERD": (  # Berdyansk, Zaporizhzhia oblast
        "non-government-controlled Zaporizhzhia oblast",
        SECTORAL,
        ("EU non-government-controlled areas (Regulation (EU) 2022/263)",),
    ),
    "UASKD": (  # Skadovsk, Kherson oblast (left bank)
        "non-government-controlled Kherson oblast",
        SECTORAL,
        ("EU non-government-controlled areas (Regulation (EU) 2022/263)",),
    ),
}


def regimes_for_port(locode: str, country_code: str) -> tuple[str | None, list[str], str | None]:
    """(kind, regime names, region) for a port: its region's regime when it has one, else its country's."""
    region = REGION_PORTS.get(locode.upper())
    if region is not None:
        region_name, region_kind, region_names = region
        return region_kind, list(region_names), region_name
    kind, names = regimes_for(country_code)
    return kind, names, None
