"""EEZ transit: whose exclusive economic zones the route crosses, and under which sanctions.

Two bases, reported in the `sanctions_eez` sources row:
- Marine Regions EEZ polygons when loaded: `refresh_sources --layer eez --file World_EEZ_v12_20231025.zip`
  reads the download as published (the zipped shapefile, or the GeoPackage, bare or zipped; GeoJSON
  too) with geopandas/pyogrio (voyages.layers.loading.read_eez_polygons): the polygon layer, each
  zone under its territory's ISO_TER1 (else the sovereign's ISO_SOV1), one multipolygon per country;
- otherwise an approximation, honest about being one: each route point belongs to the
  coastal state of the nearest port of the bundled world port list if that port is within
  200 nm (the EEZ breadth), else to the high seas. Near borders and off coasts without a
  listed port it misattributes; it never invents a transit far from land.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pycountry
import shapely
from shapely import STRtree, points

from voyages.layers.geo import RouteInput, route_samples
from voyages.layers.jwc import FULLY_LISTED_COUNTRIES
from voyages.layers.sanctions_regimes import COMPREHENSIVE, regimes_for
from voyages.ports import corrected_bundled_ports

EEZ_BREADTH_NM = 200.0
APPROXIMATION_MESSAGE = (
    "Approximation: a route point is attributed to the coastal state of the nearest listed port within 200 nm; "
    "load Marine Regions EEZ polygons (refresh_sources --layer eez) for boundaries."
)


def country_name(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    return getattr(country, "common_name", None) or (country.name if country else code)


def risk_category(code: str) -> str:
    """sanctioned (comprehensive regime), listed_area (JWC named country), restricted (sectoral), standard."""
    kind, _ = regimes_for(code)
    if kind == COMPREHENSIVE:
        return "sanctioned"
    if code in FULLY_LISTED_COUNTRIES:
        return "listed_area"
    if kind is not None:
        return "restricted"
    return "standard"


@dataclass
class EezLayer:
    basis: str  # "polygons" | "nearest_port"
    message: str
    _tree: STRtree | None = None
    _codes: list[str] | None = None
    _lonlat: np.ndarray | None = None
    _polygons: list[tuple[str, object]] | None = None

    @classmethod
    def from_ports(cls) -> EezLayer:
        # The bundled ports after our corrections (a misplaced port would claim open sea for its country).
        codes, coords = [], []
        for _locode, _name, country_code, lat, lon, _weight in corrected_bundled_ports():
            if pycountry.countries.get(alpha_2=country_code):
                codes.append(country_code)
                coords.append((lon, lat))
        lonlat = np.array(coords, dtype=float)
        return cls("nearest_port", APPROXIMATION_MESSAGE, STRtree(points(lonlat)), codes, lonlat)

    @classmethod
    def from_polygons(cls, features: list[tuple[str, object]], message: str) -> EezLayer:
        for _, geometry in features:
            shapely.prepare(geometry)
        return cls("polygons", message, _polygons=features)

    def countries_along(self, route: RouteInput) -> list[str | None]:
        samples = route_samples(route)
        return self.countries_at(samples.lats, samples.lons)

    def countries_at(self, lats: np.ndarray, lons: np.ndarray) -> list[str | None]:
        """For each point (longitudes in [-180, 180]), the ISO code of the state whose EEZ holds it, else
        None: the Marine Regions polygons when loaded, else the nearest bundled port within EEZ_BREADTH_NM."""
        lats, lons = np.asarray(lats, dtype=float), np.asarray(lons, dtype=float)
        owners: list[str | None] = [None] * len(lons)
        if not len(lons):
            return owners
        if self._polygons is not None:
            for code, geometry in self._polygons:
                for index in np.flatnonzero(shapely.contains_xy(geometry, lons, lats)):
                    owners[index] = owners[index] or code
            return owners
        assert self._tree is not None and self._codes is not None and self._lonlat is not None
        nearest = self._tree.query_nearest(points(np.column_stack([lons, lats])), all_matches=False)
        port_index = nearest[1][np.argsort(nearest[0])]
        port = self._lonlat[port_index]
        lat1, lat2 = np.radians(lats), np.radians(port[:, 1])
        dlat, dlon = lat2 - lat1, np.radians(port[:, 0] - lons)
        h = np.sin(dlat / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin(dlon / 2) ** 2
        distance = 2 * 3440.065 * np.arcsin(np.minimum(1.0, np.sqrt(h)))
        return [self._codes[i] if d <= EEZ_BREADTH_NM else None for i, d in zip(port_index, distance, strict=True)]

    def transit(self, route: RouteInput) -> list[dict]:
        samples = route_samples(route)
        owners = self.countries_along(route)
        total = samples.total_nm
        by_country: dict[str, float] = {}
        order: list[str] = []
        for owner, weight in zip(owners, samples.weights, strict=True):
            if owner is None:
                continue
            if owner not in by_country:
                order.append(owner)
                by_country[owner] = 0.0
            by_country[owner] += float(weight)
        rows = []
        for code in order:
            kind, regimes = regimes_for(code)
            rows.append(
                {
                    "country_code": code,
                    "country_name": country_name(code),
                    "risk_category": risk_category(code),
                    "route_fraction": round(by_country[code] / total, 4) if total else 0.0,
                    "sanctions": {"is_sanctioned": kind is not None, "regimes": regimes},
                }
            )
        return rows
