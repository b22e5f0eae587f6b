"""JWC Listed Areas, written by this project as facts from the Joint War Committee circular.

Edition: JWLA-032 (Joint War Committee, Hull War, Piracy, Terrorism and Related Perils Listed
Areas, 18 December 2023), the latest circular whose text we could read, with JWLA-031 (Sudan)
which it keeps. The coordinates below are the circular's published boundary points (degrees
and decimal minutes, as printed); only the closing legs over land, which enclose no sea, are
ours. Where the circular bounds an area by a coast or "the Red Sea south of 18°N", the ring
closes inland.

Later revision, NOT written here (checked 2026-11-23): the JWC met on 2 March 2026 and issued a
revised list on 3 March 2026 "in light of recent events" (the US-Israeli strikes on Iran),
adding the waters of Bahrain, Djibouti, Kuwait, Oman and Qatar and, as reported, extending the
Red Sea area, the Pakistan coast and the Somali area (Reuters via Zawya, Maritime Professional
and Devdiscourse, 3 March 2026; Middle East Insurance Review). Neither its circular number nor
its boundary coordinates were published in any source we found, so no area of it is drawn: the
layer below is still JWLA-032 and understates listed waters in the Gulf and off Djibouti.

What is the circular's and what is ours:
- Defined waters with coordinates (Black Sea and Sea of Azov; Indian Ocean, Gulf of Aden and
  Southern Red Sea; Persian or Arabian Gulf with the Gulf of Oman; Gulf of Guinea; Cabo Delgado):
  the published points. The Indian Ocean area is one area in the circular; we split it at the
  Red Sea's southern limit (the rhumb line Ras si Ane-Husn Murad, MARPOL Annex I) into
  "southern Red Sea" and "Gulf of Aden and Somali basin" because we grade them differently.
  The circular excepts the 12 nm coastal waters of adjoining states it does not name (e.g.
  Djibouti, Oman, Kenya in these areas); we do not carve those out, so a route hugging such a
  coast counts slightly more listed-area distance than the circular does.
- Cabo Delgado is "the territorial sea of Mozambique and Tanzania" between two published lines;
  its seaward edge (12 nm off the coast) between them is drawn by us.
- Named countries ("coastal waters up to 12 nautical miles offshore"): the circular gives no
  coordinates; the bands for Israel, Lebanon, Syria, Libya, Sudan, Pakistan and Venezuela are
  drawn by us along those coasts (Lebanon and Pakistan are named in JWLA-032's Middle East and
  Asia lists). Iraq, the UAE, Oman's Musandam and Saudi Arabia's Gulf
  coast lie inside the Gulf area; Yemen and Eritrea inside the Indian Ocean area. Saudi
  Arabia's Red Sea coast is listed for calls only ("excluding transits"), which this layer
  does not model. Guyana is listed only for calls at offshore installations beyond its
  territorial sea, which a route does not tell us, so it is not modelled; inland waters
  (Ukrainian and Belarusian rivers) are not routed and not modelled.
- risk_level and active_hostility are this project's grading, not the JWC's (the circular
  has no grades). The bundled data carries no timestamp (contract 2.10: basis unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

import shapely
from shapely import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

EDITION = "JWLA-032 of 18 December 2023 (with JWLA-031), published boundary coordinates"
EDITION_DATE = "2023-12-18"
# The revision the JWC issued after EDITION, known only from reports: not applied (see above).
LATER_REVISION_NOT_APPLIED = (
    "2026-03-03",
    "waters of Bahrain, Djibouti, Kuwait, Oman and Qatar added; Red Sea, Pakistan and Somali areas extended; "
    "boundary coordinates not published in any source found",
)


@dataclass(frozen=True)
class ListedArea:
    id: str
    name: str
    risk_level: str  # high | severe (project grading)
    active_hostility: bool
    named_countries: tuple[str, ...]  # port calls in these countries' listed waters fall inside
    polygon: BaseGeometry  # Polygon or MultiPolygon, longitudes in [-180, 180]
    published_points: tuple[tuple[float, float], ...] = ()  # the circular's own (lon, lat) points


def dm(degrees: int, minutes: float, hemisphere: str) -> float:
    """Degrees and decimal minutes as the circular prints them (45° 10.858' N) in signed degrees."""
    value = degrees + minutes / 60.0
    return -value if hemisphere in ("S", "W") else value


def pt(lat: tuple[int, float, str], lon: tuple[int, float, str]) -> tuple[float, float]:
    """A published point, written lat then lon as in the circular, returned as (lon, lat)."""
    return (dm(*lon), dm(*lat))


# --- Published boundary points (JWLA-032) -------------------------------------------------------

# Sea of Azov and Black Sea waters: the line around Romanian waters and across the Black Sea.
BLACK_SEA_LINE = (
    pt((45, 10.858, "N"), (29, 45.929, "E")),  # Ukraine-Romania border
    pt((45, 11.235, "N"), (29, 51.140, "E")),
    pt((45, 11.474, "N"), (29, 59.563, "E")),
    pt((45, 5.354, "N"), (30, 2.408, "E")),
    pt((44, 46.625, "N"), (30, 58.722, "E")),
    pt((44, 44.244, "N"), (31, 10.497, "E")),
    pt((44, 2.877, "N"), (31, 24.602, "E")),
    pt((43, 27.091, "N"), (31, 19.954, "E")),
    pt((43, 23.126, "N"), (40, 0.599, "E")),  # Russia-Georgia border
)

# Indian Ocean, Gulf of Aden and Southern Red Sea.
RED_SEA_NORTH_LIMIT_LAT = 18.0  # "the Red Sea, south of Latitude 18°N"
YEMEN_OMAN_BORDER = pt((16, 38.5, "N"), (53, 6.5, "E"))
INDIAN_OCEAN_LINE = (
    YEMEN_OMAN_BORDER,
    pt((14, 55.0, "N"), (53, 50.0, "E")),
    pt((10, 48.0, "N"), (60, 15.0, "E")),
    pt((6, 45.0, "S"), (48, 45.0, "E")),
    pt((1, 40.0, "S"), (41, 34.0, "E")),  # Somalia-Kenya border
)
# The Red Sea's southern limit (MARPOL Annex I, regulation 1.11.4): Ras si Ane to Husn Murad.
RAS_SI_ANE = pt((12, 28.5, "N"), (43, 19.6, "E"))
HUSN_MURAD = pt((12, 40.4, "N"), (43, 30.2, "E"))

# Persian or Arabian Gulf and adjacent waters including the Gulf of Oman, west of the line from
# Oman's territorial limit off Cape al-Hadd northeast to the Iran-Pakistan border.
GULF_LINE = (
    pt((22, 42.5, "N"), (59, 54.5, "E")),
    pt((25, 10.5, "N"), (61, 37.5, "E")),
)

# Gulf of Guinea: from the coast of Togo south to a high seas point, then east to Cape Lopez.
GULF_OF_GUINEA_LINE = (
    (1.2, 6 + 6 / 60 + 45 / 3600),  # coast of Togo 6°06'45"N, 1°12'E
    pt((0, 40.0, "S"), (3, 0.0, "E")),
    pt((0, 40.0, "S"), (8, 42.0, "E")),  # Cape Lopez Peninsula, Gabon
)

# Cabo Delgado: the territorial sea of Mozambique and Tanzania between these two lines.
CABO_DELGADO_NORTH = (pt((10, 19.6, "S"), (40, 18.9, "E")), pt((10, 10.3, "S"), (40, 34.44, "E")))  # Mnazi Bay
CABO_DELGADO_SOUTH = (pt((13, 30.0, "S"), (40, 31.6, "E")), pt((13, 29.97, "S"), (40, 49.7, "E")))  # Baía do Lúrio


def _ring(points: list[tuple[float, float]]) -> Polygon:
    polygon = shapely.make_valid(Polygon(points))
    if not isinstance(polygon, Polygon | MultiPolygon):
        polygon = MultiPolygon([g for g in shapely.get_parts(polygon) if isinstance(g, Polygon)])
    return polygon


def _area(
    area_id: str,
    name: str,
    risk: str,
    hostile: bool,
    countries: tuple[str, ...],
    polygon: BaseGeometry,
    published: tuple[tuple[float, float], ...] = (),
) -> ListedArea:
    shapely.prepare(polygon)
    return ListedArea(area_id, name, risk, hostile, countries, polygon, published)


_BLACK_SEA = _ring(
    [
        *BLACK_SEA_LINE,
        # ours, over land: Russian Caucasus, Rostov and Ukrainian hinterland back to the Danube
        (40.6, 43.7),
        (42.0, 46.0),
        (42.0, 48.0),
        (29.5, 48.0),
    ]
)

_INDIAN_OCEAN = _ring(
    [
        (38.2, RED_SEA_NORTH_LIMIT_LAT),  # ours: Sudan-Eritrea coast, inland
        (43.0, RED_SEA_NORTH_LIMIT_LAT),  # across the Red Sea along 18°N into Saudi Arabia
        (48.0, RED_SEA_NORTH_LIMIT_LAT),  # ours, over land to the Yemen-Oman border
        *INDIAN_OCEAN_LINE,
        # ours, over land: Kenya, Ethiopia and Eritrea back to 18°N
        (41.0, -1.0),
        (39.5, 4.0),
        (38.5, 12.0),
        (37.5, 15.5),
    ]
)
# North-west of the Ras si Ane-Husn Murad line (closed over land on both sides): the Red Sea.
_RED_SEA_SIDE = Polygon(
    [RAS_SI_ANE, HUSN_MURAD, (44.0, 13.5), (44.0, 19.0), (36.0, 19.0), (36.0, RAS_SI_ANE[1]), (42.0, RAS_SI_ANE[1])]
)
_SOUTHERN_RED_SEA = shapely.intersection(_INDIAN_OCEAN, _RED_SEA_SIDE)
_GULF_OF_ADEN = shapely.difference(_INDIAN_OCEAN, _RED_SEA_SIDE)

_PERSIAN_GULF = _ring(
    [
        *GULF_LINE,
        # ours, over land: Iran, Iraq, Kuwait, Saudi Arabia, the UAE and Oman back to Cape al-Hadd
        (61.7, 26.5),
        (57.0, 29.0),
        (48.5, 32.0),
        (47.0, 30.0),
        (47.5, 28.0),
        (50.0, 24.5),
        (54.0, 23.0),
        (56.0, 23.5),
        (58.5, 22.5),
        (59.8, 22.5),
    ]
)

_GULF_OF_GUINEA = _ring(
    [
        *GULF_OF_GUINEA_LINE,
        # ours, over land: Gabon, Equatorial Guinea, Cameroon, Nigeria, Benin and Togo
        (10.5, -0.5),
        (10.5, 4.5),
        (9.0, 5.5),
        (6.0, 6.5),
        (3.5, 7.0),
        (1.6, 7.0),
    ]
)

_CABO_DELGADO = _ring(
    [
        *CABO_DELGADO_NORTH,
        # ours: about 12 nm off the Cabo Delgado coast and the Quirimbas islands
        (40.84, -10.6),
        (40.84, -11.0),
        (40.75, -11.4),
        (40.87, -12.0),
        (40.87, -12.5),
        (40.8, -13.0),
        *reversed(CABO_DELGADO_SOUTH),
        # ours, over land
        (39.8, -13.5),
        (39.8, -10.45),
    ]
)

LISTED_AREAS: tuple[ListedArea, ...] = (
    _area(
        "jwla-ukraine-russia-black-sea",
        "Sea of Azov and Black Sea waters (Ukraine, Russia) north of the JWLA-032 line",
        "severe",
        True,
        ("UA",),
        _BLACK_SEA,
        BLACK_SEA_LINE,
    ),
    _area(
        "jwla-southern-red-sea-yemen",
        "Southern Red Sea south of 18°N and Bab-el-Mandeb (Yemen, Eritrea)",
        "severe",
        True,
        ("YE", "ER"),  # Yemen is named; Eritrea is listed south of 18°N, i.e. its whole coast
        _SOUTHERN_RED_SEA,
    ),
    _area(
        "jwla-israel",
        "Israel: waters within 12 nm",
        "severe",
        True,
        ("IL",),
        _ring([(33.9, 31.2), (34.3, 31.2), (35.2, 33.15), (34.75, 33.15), (33.9, 31.6)]),
    ),
    _area(
        "jwla-gulf-of-aden-somalia",
        "Indian Ocean, Gulf of Aden and Somali waters",
        "high",
        False,
        ("SO",),
        _GULF_OF_ADEN,
        INDIAN_OCEAN_LINE,
    ),
    _area(
        "jwla-persian-gulf",
        "Persian or Arabian Gulf and the Gulf of Oman west of the Cape al-Hadd line; Iranian waters",
        "high",
        False,
        ("IR",),
        _PERSIAN_GULF,
        GULF_LINE,
    ),
    _area(
        "jwla-libya",
        "Libya: waters within 12 nm",
        "high",
        False,
        ("LY",),
        _ring(
            [
                (11.5, 33.4),
                (15.3, 32.6),
                (19.9, 31.2),
                (25.2, 32.0),
                (25.2, 31.5),
                (20.0, 30.2),
                (15.0, 31.9),
                (11.5, 32.9),
            ]
        ),
    ),
    _area(
        "jwla-lebanon",
        "Lebanon: waters within 12 nm",
        "high",
        False,
        ("LB",),
        # ours: from the Israeli band's northern edge (33°09'N) to the Syrian band (34°36'N)
        _ring([(34.95, 33.15), (35.2, 33.9), (35.45, 34.6), (35.95, 34.6), (35.65, 33.9), (35.35, 33.15)]),
    ),
    _area(
        "jwla-pakistan",
        "Pakistan: waters within 12 nm",
        "high",
        False,
        ("PK",),
        # ours: from just east of the Iran-Pakistan border in Gwadar Bay to Sir Creek
        _ring(
            [
                (61.7, 24.85),
                (62.3, 24.9),
                (63.5, 25.05),
                (64.6, 25.0),
                (66.5, 24.95),
                (66.85, 24.6),
                (67.3, 24.5),
                (67.8, 23.9),
                (68.2, 23.4),
                (68.2, 23.9),
                (67.5, 24.9),
                (67.0, 25.0),
                (66.6, 25.5),
                (64.6, 25.4),
                (63.5, 25.45),
                (62.3, 25.35),
                (61.7, 25.3),
            ]
        ),
    ),
    _area(
        "jwla-syria",
        "Syria: waters within 12 nm",
        "high",
        True,
        ("SY",),
        _ring([(35.55, 34.6), (36.1, 34.6), (36.1, 36.0), (35.55, 36.0)]),
    ),
    _area(
        "jwla-sudan",
        "Sudan: waters within 12 nm",
        "high",
        False,
        ("SD",),
        _ring(
            [
                (37.15, 22.0),
                (37.4, 20.9),
                (37.5, 19.6),
                (37.6, 19.1),
                (38.0, 18.5),
                (38.6, 18.1),
                (38.4, 17.95),
                (37.6, 18.45),
                (37.1, 19.1),
                (37.0, 19.6),
                (36.95, 20.9),
                (36.7, 22.0),
            ]
        ),
    ),
    _area(
        "jwla-venezuela",
        "Venezuela: waters within 12 nm",
        "high",
        False,
        ("VE",),
        _ring([(-72.0, 12.3), (-59.8, 11.0), (-59.8, 8.3), (-61.0, 10.0), (-68.0, 10.4), (-72.0, 11.0)]),
    ),
    _area(
        "jwla-gulf-of-guinea",
        "Gulf of Guinea: from the coast of Togo to 0°40'S and east to Cape Lopez (Nigeria, Benin, Togo)",
        "high",
        False,
        ("NG", "BJ", "TG"),
        _GULF_OF_GUINEA,
        GULF_OF_GUINEA_LINE,
    ),
    _area(
        "jwla-cabo-delgado",
        "Cabo Delgado: territorial sea of Mozambique and Tanzania from Mnazi Bay to Baía do Lúrio",
        "high",
        False,
        (),
        _CABO_DELGADO,
        CABO_DELGADO_NORTH + CABO_DELGADO_SOUTH,
    ),
)

FULLY_LISTED_COUNTRIES = frozenset(c for area in LISTED_AREAS for c in area.named_countries)
