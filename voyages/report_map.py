"""A route map drawn on the server as SVG: no tile server, no external asset.

Land comes from the global-land-mask package's 1 km raster (memory-mapped by voyages.landmask), sampled
on a grid over the route's bounding box and drawn as merged horizontal runs. The route is a
polyline; waypoints in listed areas or sanctioned EEZs can be highlighted by the caller.
"""

from __future__ import annotations

from html import escape

import numpy as np

from voyages import landmask

WIDTH = 880
HEIGHT = 440
GRID_COLUMNS = 220
MARGIN_DEGREES = 4.0


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
    lons = west + (np.arange(columns) + 0.5) * (east - west) / columns
    lats = north - (np.arange(rows) + 0.5) * (north - south) / rows
    grid_lon, grid_lat = np.meshgrid(((lons + 180) % 360) - 180, lats)
    land = landmask.is_land(np.clip(grid_lat, -89.9, 89.9), grid_lon)
    cell_w, cell_h = WIDTH / columns, HEIGHT / rows
    runs: list[str] = []
    for row in range(rows):
        column = 0
        while column < columns:
            if land[row, column]:
                start = column
                while column < columns and land[row, column]:
                    column += 1
                runs.append(
                    f'<rect x="{start * cell_w:.1f}" y="{row * cell_h:.1f}" '
                    f'width="{(column - start) * cell_w + 0.3:.1f}" height="{cell_h + 0.3:.1f}"/>'
                )
            column += 1
    line = " ".join(f"{x(lon):.1f},{y(lat):.1f}" for lon, lat in coords)
    marks = "".join(
        f'<circle cx="{x(lon):.1f}" cy="{y(lat):.1f}" r="2.6" class="hot"/>' for lon, lat in (highlighted or [])
    )
    (lon0, lat0), (lon1, lat1) = coords[0], coords[-1]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" class="route-map">'
        "<style>.sea{fill:#dcebf7}.land rect{fill:#c9c3b3}.route{fill:none;stroke:#0f2540;stroke-width:2.4}"
        ".hot{fill:#b3261e}.end{fill:#fff;stroke:#0f2540;stroke-width:2}</style>"
        f'<rect class="sea" width="{WIDTH}" height="{HEIGHT}"/><g class="land">{"".join(runs)}</g>'
        f'<polyline class="route" points="{line}"/>{marks}'
        f'<circle class="end" cx="{x(lon0):.1f}" cy="{y(lat0):.1f}" r="5"/>'
        f'<circle class="end" cx="{x(lon1):.1f}" cy="{y(lat1):.1f}" r="5"/>'
        "</svg>"
    )
