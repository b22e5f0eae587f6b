"""JWC Listed Areas, written by this project as facts from the Joint War Committee circular.

Edition written: the Listed Areas circular in force in 2025 (JWLA-032 with its later
amendments: southern Red Sea and Yemen added after the Houthi attacks of late 2023). The
polygons are coarse envelopes of the listed waters, including each named country's 12 nm
territorial sea (the circular lists "waters within 12 nautical miles" of the named coasts);
verify against the current circular before relying on an edge case. The bundled data carries
no timestamp (contract 2.10: basis unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely import Polygon, prepare

EDITION = "JWLA-032 (as amended, 2025), project-written envelopes"


@dataclass(frozen=True)
class ListedArea:
    id: str
    name: str
    risk_level: str  # high | severe
    active_hostility: bool
    named_countries: tuple[str, ...]  # port calls in these countries' listed waters fall inside
    polygon: Polygon


def _area(
    area_id: str, name: str, risk: str, hostile: bool, countries: tuple[str, ...], ring: list[tuple[float, float]]
) -> ListedArea:
    polygon = Polygon(ring)
    prepare(polygon)
    return ListedArea(area_id, name, risk, hostile, countries, polygon)


LISTED_AREAS: tuple[ListedArea, ...] = (
    _area(
        "jwla-ukraine-russia-black-sea",
        "Ukraine and Russia: Black Sea north of 44°N and the Sea of Azov",
        "severe",
        True,
        ("UA",),
        [(27.6, 44.0), (41.9, 44.0), (41.9, 47.6), (27.6, 47.6)],
    ),
    _area(
        "jwla-southern-red-sea-yemen",
        "Southern Red Sea and Yemen (south of 18°N)",
        "severe",
        True,
        ("YE",),
        [(38.3, 18.0), (43.6, 18.0), (43.6, 12.3), (45.2, 12.3), (45.2, 11.9), (42.6, 11.9), (38.3, 15.0)],
    ),
    _area(
        "jwla-israel",
        "Israel: waters within 12 nm",
        "severe",
        True,
        ("IL",),
        [(33.9, 31.2), (34.3, 31.2), (35.2, 33.15), (34.75, 33.15), (33.9, 31.6)],
    ),
    _area(
        "jwla-gulf-of-aden-somalia",
        "Gulf of Aden and Somali waters",
        "high",
        False,
        ("SO",),
        [(43.6, 12.3), (51.5, 15.0), (58.0, 15.0), (58.0, -2.0), (41.0, -2.0), (41.0, 2.0), (45.2, 11.9), (45.2, 12.3)],
    ),
    _area(
        "jwla-persian-gulf",
        "Persian Gulf, Strait of Hormuz and Gulf of Oman west of 58°E; Iranian waters",
        "high",
        False,
        ("IR",),
        [(47.8, 30.6), (58.0, 27.0), (58.0, 23.3), (51.0, 23.5), (47.8, 28.5)],
    ),
    _area(
        "jwla-libya",
        "Libya: waters within 12 nm",
        "high",
        False,
        ("LY",),
        [
            (11.5, 33.4),
            (15.3, 32.6),
            (19.9, 31.2),
            (25.2, 32.0),
            (25.2, 31.5),
            (20.0, 30.2),
            (15.0, 31.9),
            (11.5, 32.9),
        ],
    ),
    _area(
        "jwla-syria",
        "Syria: waters within 12 nm",
        "high",
        True,
        ("SY",),
        [(35.55, 34.6), (36.1, 34.6), (36.1, 36.0), (35.55, 36.0)],
    ),
    _area(
        "jwla-venezuela",
        "Venezuela: waters within 12 nm",
        "high",
        False,
        ("VE",),
        [(-72.0, 12.3), (-59.8, 11.0), (-59.8, 8.3), (-61.0, 10.0), (-68.0, 10.4), (-72.0, 11.0)],
    ),
    _area(
        "jwla-gulf-of-guinea",
        "Gulf of Guinea: Nigeria, Benin and Togo waters",
        "high",
        False,
        ("NG", "BJ", "TG"),
        [(0.9, 6.3), (8.6, 4.4), (8.6, 2.8), (3.0, 2.8), (0.9, 5.4)],
    ),
)

FULLY_LISTED_COUNTRIES = frozenset(c for area in LISTED_AREAS for c in area.named_countries)
