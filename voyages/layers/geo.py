"""Route geometry for the risk layers: antimeridian-safe pieces, lengths, samples, fractions.

A route arrives with continuous (unwrapped) longitudes that may pass ±180. Before any area
intersection it is cut into pieces that each lie inside [-180, 180], so a Pacific crossing
never turns into a line across the whole map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import LineString
from shapely.geometry.base import BaseGeometry

EARTH_RADIUS_NM = 3440.065


@dataclass(frozen=True)
class RouteInput:
    coordinates: list[tuple[float, float]]  # (lon, lat), longitudes continuous across the antimeridian
    distance_nm: float
    origin_country: str
    dest_country: str
    pieces: list[LineString] = field(default_factory=list, compare=False)

    def __post_init__(self) -> None:
        if not self.pieces:
            object.__setattr__(self, "pieces", split_at_antimeridian(self.coordinates))


def haversine_nm(a: tuple[float, float], b: tuple[float, float]) -> float:
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_NM * math.asin(min(1.0, math.sqrt(h)))


def _wrap(lon: float) -> float:
    return ((lon + 180.0) % 360.0) - 180.0


def split_at_antimeridian(coordinates: list[tuple[float, float]]) -> list[LineString]:
    """Pieces of the route, each inside [-180, 180], cut where the route crosses ±180."""
    pieces: list[list[tuple[float, float]]] = [[]]
    for index, (lon, lat) in enumerate(coordinates):
        if index == 0:
            pieces[-1].append((_wrap(lon), lat))
            continue
        prev_lon, prev_lat = coordinates[index - 1]
        turns_prev, turns_now = math.floor((prev_lon + 180) / 360), math.floor((lon + 180) / 360)
        if turns_prev != turns_now:
            boundary = 180.0 + 360.0 * min(turns_prev, turns_now)  # unwrapped longitude of the crossing
            t = (boundary - prev_lon) / (lon - prev_lon) if lon != prev_lon else 0.0
            crossing_lat = prev_lat + (lat - prev_lat) * t
            east_side = 180.0 if lon > prev_lon else -180.0
            pieces[-1].append((east_side, crossing_lat))
            pieces.append([(-east_side, crossing_lat)])
        pieces[-1].append((_wrap(lon), lat))
    return [LineString(p) for p in pieces if len(p) >= 2]


SAMPLE_EVERY_NM = 10.0


@dataclass(frozen=True)
class RouteSamples:
    """Points along the route, each standing for `weights[i]` nm of it (longitudes wrapped)."""

    lons: np.ndarray
    lats: np.ndarray
    weights: np.ndarray

    @property
    def total_nm(self) -> float:
        return float(self.weights.sum())

    def share(self, mask: np.ndarray) -> float:
        total = self.total_nm
        return round(min(1.0, float(self.weights[mask].sum()) / total), 4) if total > 0 else 0.0


def route_samples(route: RouteInput, every_nm: float = SAMPLE_EVERY_NM) -> RouteSamples:
    cached = route.__dict__.get("_samples")
    if cached is not None and cached[0] == every_nm:
        return cached[1]
    lons: list[float] = []
    lats: list[float] = []
    weights: list[float] = []
    coords = route.coordinates
    for a, b in zip(coords, coords[1:], strict=False):
        length = haversine_nm(a, b)
        steps = max(1, math.ceil(length / every_nm))
        for step in range(steps):
            t = (step + 0.5) / steps
            lons.append(_wrap(a[0] + (b[0] - a[0]) * t))
            lats.append(a[1] + (b[1] - a[1]) * t)
            weights.append(length / steps)
    result = RouteSamples(np.array(lons), np.array(lats), np.array(weights))
    object.__setattr__(route, "_samples", (every_nm, result))
    return result


def inside_mask(route: RouteInput, area: BaseGeometry) -> np.ndarray:
    """Which route samples lie inside `area` (vectorised point-in-polygon)."""
    points = route_samples(route)
    return shapely.contains_xy(area, points.lons, points.lats)


def fraction_inside(route: RouteInput, area: BaseGeometry) -> float:
    """Share of the route's length (0-1) inside `area`."""
    return route_samples(route).share(inside_mask(route, area))
