"""A route map drawn on the server as SVG: no tile server, no external asset.

Land comes from the global-land-mask package's 1 km raster (memory-mapped by voyages.landmask), sampled
on a grid of one cell per map unit over the route's bounding box and drawn as merged horizontal runs
(one SVG path). A cell is land only when every one of its sub-samples is land, so a strait narrower
than a cell (Gibraltar, Dover, Bab-el-Mandeb at a world-scale map) stays open water instead of closing.
Ship canals, which the 1 km raster holds as land, are drawn as water from their centre lines
(`CANALS`, coordinates written by us). The route is a polyline; waypoints in listed areas or sanctioned
EEZs can be highlighted by the caller.
"""

from __future__ import annotations

from html import escape
from typing import cast

import numpy as np

from voyages import landmask

WIDTH = 880
HEIGHT = 440
GRID_COLUMNS = WIDTH  # one land cell per map unit
SUBSAMPLES = 2  # per cell and axis; a cell is land only if all SUBSAMPLES**2 points are
MARGIN_DEGREES = 4.0

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


def _bounds(coords: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    lons = [lon for lon, _ in coords]
    lats = [lat for _, lat in coords]
    west, east = min(lons) - MARGIN_DEGREES, max(lons) + MARGIN_DEGREES
    south, north = max(-85.0, min(lats) - MARGIN_DEGREES), min(85.0, max(lats) + MARGIN_DEGREES)
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


def route_svg(
    coords: list[tuple[float, float]], highlighted: list[tuple[float, float]] | None = None, title: str = "Route"
) -> str:
    """An SVG map of the route with land, the route line, its ends and highlighted points."""
    if len(coords) < 2:
        return ""
    west, south, east, north = _bounds(coords)

    def x(lon: float) -> float:
        return (lon - west) / (east - west) * WIDTH

    def y(lat: float) -> float:
        return (north - lat) / (north - south) * HEIGHT

    columns = GRID_COLUMNS
    rows = max(1, round(columns * HEIGHT / WIDTH))
    land = land_grid(west, south, east, north, columns, rows)
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
    canals = "".join(
        f'<polyline class="canal" points="{" ".join(f"{x(lon):.1f},{y(lat):.1f}" for lon, lat in line)}">'
        f"<title>{escape(name)}</title></polyline>"
        for name, line in CANALS
        if any(west <= lon <= east and south <= lat <= north for lon, lat in line)
    )
    line = " ".join(f"{x(lon):.1f},{y(lat):.1f}" for lon, lat in coords)
    marks = "".join(
        f'<circle cx="{x(lon):.1f}" cy="{y(lat):.1f}" r="2.6" class="hot"/>' for lon, lat in (highlighted or [])
    )
    (lon0, lat0), (lon1, lat1) = coords[0], coords[-1]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" class="route-map">'
        "<style>.sea{fill:#dcebf7}.land{fill:#c9c3b3}.canal{fill:none;stroke:#dcebf7;stroke-width:2;"
        "stroke-linejoin:round}.route{fill:none;stroke:#0f2540;stroke-width:2.4}"
        ".hot{fill:#b3261e}.end{fill:#fff;stroke:#0f2540;stroke-width:2}</style>"
        f'<rect class="sea" width="{WIDTH}" height="{HEIGHT}"/><path class="land" d="{"".join(runs)}"/>{canals}'
        f'<polyline class="route" points="{line}"/>{marks}'
        f'<circle class="end" cx="{x(lon0):.1f}" cy="{y(lat0):.1f}" r="5"/>'
        f'<circle class="end" cx="{x(lon1):.1f}" cy="{y(lat1):.1f}" r="5"/>'
        "</svg>"
    )
