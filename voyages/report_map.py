"""A route map drawn on the server as SVG: no tile server, no external asset.

Land comes from the global-land-mask package's 1 km raster (memory-mapped by voyages.landmask), sampled
on a grid of one cell per map unit over the route's bounding box and drawn as merged horizontal runs
(one SVG path). A cell is land only when every one of its sub-samples is land, so a strait narrower
than a cell (Gibraltar, Dover, Bab-el-Mandeb at a world-scale map) stays open water instead of closing.
Ship canals, which the 1 km raster holds as land, are drawn as water from their centre lines
(`CANALS`, coordinates written by us). The route is a polyline; waypoints in listed areas or sanctioned
EEZs can be highlighted by the caller. The listed areas the caller names (the assessment's
jwc_intersected_areas) are shaded under the route, clipped to the map and labelled at their largest
visible part; the two ports are named over it. Everything is one SVG drawn in one projection, from
numbers and escaped names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import cast

import numpy as np
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from voyages import landmask
from voyages.layers.jwc import LISTED_AREAS

WIDTH = 880
HEIGHT = 440
GRID_COLUMNS = WIDTH  # one land cell per map unit
SUBSAMPLES = 2  # per cell and axis; a cell is land only if all SUBSAMPLES**2 points are
MARGIN_DEGREES = 4.0
LABEL_OFFSET = 9  # map units between a port's mark and its name

STYLE = (
    ".sea{fill:#dcebf7}.land{fill:#c9c3b3}.canal{fill:none;stroke:#dcebf7;stroke-width:2;stroke-linejoin:round}"
    ".route{fill:none;stroke:#0f2540;stroke-width:2.4}.hot{fill:#b3261e}.end{fill:#fff;stroke:#0f2540;stroke-width:2}"
    ".area{fill:#b3261e;fill-opacity:.16;stroke:#b3261e;stroke-width:1.2;stroke-dasharray:4 3}"
    ".area.high{fill:#b26a00;stroke:#b26a00}.area-label{font:600 12px system-ui,sans-serif;fill:#7a1a14}"
    ".port-label{font:700 13px system-ui,sans-serif;fill:#0f2540;paint-order:stroke;stroke:#fff;"
    "stroke-width:3.5px;stroke-linejoin:round}"
)

# Ship canals as (name, [(lon, lat), ...]) centre lines, drawn as water over the land raster.
CANALS: tuple[tuple[str, tuple[tuple[float, float], ...]], ...] = (
    (
        "Suez Canal",
        (
            (32.30, 31.27),
            (32.31, 31.00),
            (32.33, 30.70),
            (32.29, 30.58),
            (32.33, 30.46),
            (32.39, 30.37),
            (32.47, 30.26),
            (32.55, 30.05),
            (32.57, 29.93),
        ),
    ),
    ("Panama Canal", ((-79.92, 9.38), (-79.91, 9.27), (-79.75, 9.12), (-79.68, 9.03), (-79.58, 8.93), (-79.55, 8.88))),
    ("Kiel Canal", ((9.14, 53.89), (9.42, 54.02), (9.69, 54.30), (10.00, 54.33), (10.15, 54.36))),
    ("Corinth Canal", ((22.95, 37.94), (22.99, 37.92))),
)


def _bounds(coords: list[tuple[float, float]], margin: float = MARGIN_DEGREES) -> tuple[float, float, float, float]:
    lons = [lon for lon, _ in coords]
    lats = [lat for _, lat in coords]
    west, east = min(lons) - margin, max(lons) + margin
    south, north = max(-85.0, min(lats) - margin), min(85.0, max(lats) + margin)
    # Keep the map's aspect: widen the narrower dimension.
    span_lon, span_lat = east - west, north - south
    want_lat = span_lon * HEIGHT / WIDTH
    if span_lat < want_lat:
        middle = (north + south) / 2
        south, north = max(-89.0, middle - want_lat / 2), min(89.0, middle + want_lat / 2)
    else:
        want_lon = span_lat * WIDTH / HEIGHT
        middle = (east + west) / 2
        west, east = middle - want_lon / 2, middle + want_lon / 2
    return west, south, east, north


@dataclass(frozen=True)
class _Frame:
    """The map's box in degrees and its projection onto WIDTH x HEIGHT map units (north up)."""

    west: float
    south: float
    east: float
    north: float

    def x(self, lon: float) -> float:
        return (lon - self.west) / (self.east - self.west) * WIDTH

    def y(self, lat: float) -> float:
        return (self.north - lat) / (self.north - self.south) * HEIGHT

    def point(self, lon: float, lat: float) -> str:
        return f"{self.x(lon):.1f},{self.y(lat):.1f}"


def land_grid(west: float, south: float, east: float, north: float, columns: int, rows: int) -> np.ndarray:
    """rows x columns booleans over the box, north row first: True where the whole cell is land.

    Each cell is sampled at SUBSAMPLES x SUBSAMPLES points; one sea point makes it sea, so water
    narrower than a cell but wider than the 1 km raster's cell still shows.
    """
    step_lon, step_lat = (east - west) / columns, (north - south) / rows
    offsets = (np.arange(SUBSAMPLES) + 0.5) / SUBSAMPLES
    lons = west + (np.arange(columns)[:, None] + offsets[None, :]).ravel() * step_lon
    lats = north - (np.arange(rows)[:, None] + offsets[None, :]).ravel() * step_lat
    grid_lon, grid_lat = np.meshgrid(((lons + 180) % 360) - 180, np.clip(lats, -89.9, 89.9))
    fine = np.asarray(landmask.is_land(grid_lat, grid_lon), dtype=bool)
    # Reducing axes 1 and 3 of a 4-D array leaves a 2-D array, never a scalar; numpy's stubs type
    # ndarray.all(axis=...) as either.
    return cast(np.ndarray, fine.reshape(rows, SUBSAMPLES, columns, SUBSAMPLES).all(axis=(1, 3)))


def _land(frame: _Frame) -> str:
    """The land raster over the frame as one path of merged horizontal runs."""
    columns = GRID_COLUMNS
    rows = max(1, round(columns * HEIGHT / WIDTH))
    land = land_grid(frame.west, frame.south, frame.east, frame.north, columns, rows)
    cell_w, cell_h = WIDTH / columns, HEIGHT / rows
    runs: list[str] = []
    for row in range(rows):
        cells = land[row]
        if not cells.any():
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([0], cells.astype(np.int8), [0]))))
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            left, top = f"{start * cell_w:.2f}", f"{row * cell_h:.2f}"
            runs.append(f"M{left} {top}h{(stop - start) * cell_w + 0.3:.2f}v{cell_h + 0.3:.2f}H{left}z")
    return "".join(runs)


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [geometry]
    if isinstance(geometry, MultiPolygon):
        return list(geometry.geoms)
    return [part for item in getattr(geometry, "geoms", []) for part in _polygons(item)]


def short_name(name: str) -> str:
    """An area's name for a map label: without its parenthesised countries (the report's table has them)."""
    return name.split(" (", 1)[0]


def _listed_areas(frame: _Frame, area_ids: Sequence[str]) -> str:
    """A <g> per listed area named (in the catalogue's order), clipped to the map, labelled at its largest
    visible part; an area off the map or not in the catalogue is left out."""
    clip = box(frame.west, frame.south, frame.east, frame.north)
    tolerance = (frame.east - frame.west) / WIDTH
    shapes = []
    for area in LISTED_AREAS:
        if area.id not in area_ids:
            continue
        visible = area.polygon.intersection(clip).simplify(tolerance, preserve_topology=True)
        polygons = [polygon for polygon in _polygons(visible) if not polygon.is_empty]
        if not polygons:
            continue
        path = "".join(
            "M" + "L".join(frame.point(lon, lat) for lon, lat in ring.coords) + "Z"
            for polygon in polygons
            for ring in (polygon.exterior, *polygon.interiors)
        )
        level = "high" if area.risk_level == "high" else "severe"
        anchor = max(polygons, key=lambda polygon: polygon.area).representative_point()
        shapes.append(
            f'<g class="listed-area" data-area="{escape(area.id)}">'
            f'<path class="area {level}" d="{path}"><title>{escape(area.name)} (listed area)</title></path>'
            f'<text class="area-label" x="{frame.x(anchor.x):.1f}" y="{frame.y(anchor.y):.1f}" '
            f'text-anchor="middle">{escape(short_name(area.name))}</text></g>'
        )
    return "".join(shapes)


def _port_labels(frame: _Frame, coords: list[tuple[float, float]], ports: Sequence[tuple[str, str]]) -> str:
    """The names of the route's two ends, (name, locode) of origin then destination, beside their marks
    and kept inside the map."""
    labels = []
    for (lon, lat), (name, locode), role in zip((coords[0], coords[-1]), ports, ("origin", "destination"), strict=True):
        px, py = frame.x(lon), frame.y(lat)
        on_right = px > WIDTH * 0.6
        anchor = "end" if on_right else "start"
        tx = px - LABEL_OFFSET if on_right else px + LABEL_OFFSET
        ty = py - LABEL_OFFSET if py > 24 else py + LABEL_OFFSET + 12
        labels.append(
            f'<text class="port-label" data-role="{role}" x="{tx:.1f}" y="{ty:.1f}" text-anchor="{anchor}">'
            f"{escape(name)} ({escape(locode)})</text>"
        )
    return "".join(labels)


def route_svg(
    coords: list[tuple[float, float]],
    highlighted: list[tuple[float, float]] | None = None,
    title: str = "Route",
    *,
    area_ids: Sequence[str] = (),
    ports: Sequence[tuple[str, str]] = (),
    margin_degrees: float = MARGIN_DEGREES,
) -> str:
    """An SVG map of the route: land, canals, the listed areas named in `area_ids` (under the route), the
    route line, highlighted points, its two ends, and the names of its ports when `ports` gives them as
    (name, locode) of origin then destination (over the route). `margin_degrees` is the sea shown around
    the line (an ocean route's 4 degrees would hide a harbour's track)."""
    if len(coords) < 2:
        return ""
    frame = _Frame(*_bounds(coords, margin_degrees))
    canals = "".join(
        f'<polyline class="canal" points="{" ".join(frame.point(lon, lat) for lon, lat in line)}">'
        f"<title>{escape(name)}</title></polyline>"
        for name, line in CANALS
        if any(frame.west <= lon <= frame.east and frame.south <= lat <= frame.north for lon, lat in line)
    )
    line = " ".join(frame.point(lon, lat) for lon, lat in coords)
    marks = "".join(
        f'<circle cx="{frame.x(lon):.1f}" cy="{frame.y(lat):.1f}" r="2.6" class="hot"/>'
        for lon, lat in (highlighted or [])
    )
    ends = "".join(
        f'<circle class="end" cx="{frame.x(lon):.1f}" cy="{frame.y(lat):.1f}" r="5"/>'
        for lon, lat in (coords[0], coords[-1])
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" class="route-map"><style>{STYLE}</style>'
        f'<rect class="sea" width="{WIDTH}" height="{HEIGHT}"/><path class="land" d="{_land(frame)}"/>{canals}'
        f"{_listed_areas(frame, area_ids) if area_ids else ''}"
        f'<polyline class="route" points="{line}"/>{marks}{ends}'
        f"{_port_labels(frame, coords, ports) if ports else ''}"
        "</svg>"
    )
