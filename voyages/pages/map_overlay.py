"""What the report page adds to voyages.report_map's route map: the listed areas the route crosses
(shaded, under the route) and the names of its two ports (over it).

Drawn in the map's own projection (report_map._bounds, WIDTH x HEIGHT) from data the assessment
already holds: jwc_intersected_areas names the areas, voyages.layers.jwc holds their polygons, the
port catalogue their names. Everything is SVG text built from numbers and escaped names.
"""

from __future__ import annotations

from html import escape

from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from voyages.layers.jwc import LISTED_AREAS
from voyages.report_map import HEIGHT, WIDTH, _bounds

AREA_STYLE = (
    ".area{fill:#b3261e;fill-opacity:.16;stroke:#b3261e;stroke-width:1.2;stroke-dasharray:4 3}"
    ".area.high{fill:#b26a00;stroke:#b26a00}"
    ".area-label{font:600 12px system-ui,sans-serif;fill:#7a1a14}"
    ".port-label{font:700 13px system-ui,sans-serif;fill:#0f2540;paint-order:stroke;stroke:#fff;"
    "stroke-width:3.5px;stroke-linejoin:round}"
)
LABEL_OFFSET = 9


class Projection:
    def __init__(self, coords: list[tuple[float, float]]) -> None:
        self.west, self.south, self.east, self.north = _bounds(coords)

    def x(self, lon: float) -> float:
        return (lon - self.west) / (self.east - self.west) * WIDTH

    def y(self, lat: float) -> float:
        return (self.north - lat) / (self.north - self.south) * HEIGHT

    def frame(self) -> Polygon:
        return box(self.west, self.south, self.east, self.north)


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [geometry]
    if isinstance(geometry, MultiPolygon):
        return list(geometry.geoms)
    return [part for item in getattr(geometry, "geoms", []) for part in _polygons(item)]


def _path(polygon: Polygon, projection: Projection) -> str:
    rings = [polygon.exterior, *polygon.interiors]
    parts = []
    for ring in rings:
        points = [f"{projection.x(lon):.1f},{projection.y(lat):.1f}" for lon, lat in ring.coords]
        parts.append("M" + "L".join(points) + "Z")
    return "".join(parts)


def short_name(name: str) -> str:
    """An area's name for a map label: without its parenthesised countries (the table below has them)."""
    return name.split(" (", 1)[0]


def area_shapes(coords: list[tuple[float, float]], area_ids: list[str]) -> str:
    """<g> of the listed areas named, clipped to the map and labelled at their largest visible part."""
    projection = Projection(coords)
    frame = projection.frame()
    tolerance = (projection.east - projection.west) / WIDTH
    shapes = []
    for area in LISTED_AREAS:
        if area.id not in area_ids:
            continue
        visible = area.polygon.intersection(frame).simplify(tolerance, preserve_topology=True)
        polygons = [p for p in _polygons(visible) if not p.is_empty]
        if not polygons:
            continue
        path = "".join(_path(p, projection) for p in polygons)
        level = "high" if area.risk_level == "high" else "severe"
        anchor = max(polygons, key=lambda p: p.area).representative_point()
        shapes.append(
            f'<g class="listed-area" data-area="{escape(area.id)}">'
            f'<path class="area {level}" d="{path}"><title>{escape(area.name)} (listed area)</title></path>'
            f'<text class="area-label" x="{projection.x(anchor.x):.1f}" y="{projection.y(anchor.y):.1f}" '
            f'text-anchor="middle">{escape(short_name(area.name))}</text></g>'
        )
    return "".join(shapes)


def port_labels(coords: list[tuple[float, float]], ports: list[tuple[str, str]]) -> str:
    """Labels for the route's two ends: (name, locode) of origin then destination."""
    projection = Projection(coords)
    labels = []
    for (lon, lat), (name, locode), role in zip((coords[0], coords[-1]), ports, ("origin", "destination"), strict=True):
        px, py = projection.x(lon), projection.y(lat)
        on_right = px > WIDTH * 0.6
        anchor = "end" if on_right else "start"
        tx = px - LABEL_OFFSET if on_right else px + LABEL_OFFSET
        ty = py - LABEL_OFFSET if py > 24 else py + LABEL_OFFSET + 12
        labels.append(
            f'<text class="port-label" data-role="{role}" x="{tx:.1f}" y="{ty:.1f}" text-anchor="{anchor}">'
            f"{escape(name)} ({escape(locode)})</text>"
        )
    return "".join(labels)


def with_overlay(svg: str, coords: list[tuple[float, float]], area_ids: list[str], ports: list[tuple[str, str]]) -> str:
    """The route map with listed areas under the route and port names over it."""
    if not svg:
        return svg
    svg = svg.replace("</style>", AREA_STYLE + "</style>", 1)
    svg = svg.replace('<polyline class="route"', area_shapes(coords, area_ids) + '<polyline class="route"', 1)
    return svg.replace("</svg>", port_labels(coords, ports) + "</svg>", 1)
