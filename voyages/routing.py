"""Sea routing over the marine network bundled with the `searoute` package.

The network's line strings become one weighted graph (edge weight: great-circle length in
nautical miles; nodes on the antimeridian joined to their twins at zero cost). Shortest
paths run in scgraph's Dijkstra (compiled), on one graph per set of closed passages, built
once and kept. A port joins the network at its nearest node; the catalogue (voyages.ports)
only carries ports whose nearest node is close, so no long straight leg is ever drawn.
Via points join the network the same way: a point on land is refused, a point at sea is
snapped to the nearest node (and the snapped coordinate is returned).

Output coordinates are unwrapped: longitudes run continuously across the antimeridian (they
may pass 180 or -180), so a consumer intersecting areas must normalise (voyages.layers.geo).
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
from shapely import STRtree, points

from voyages import landmask
from voyages.passages import DEFAULT_CLOSED, normalise_closures

if TYPE_CHECKING:
    from scgraph import Graph

EARTH_RADIUS_NM = 3440.065
MAX_VIA_SNAP_NM = 150.0
# The drawn line gets a point at least every this many nm, so a map shows the path (the
# network's own vertices can be hundreds of nm apart on open ocean).
MAX_SEGMENT_NM = 25.0


class RouteNotFound(Exception):
    """Both ends are known but no open sea path connects them."""


class ViaPointError(Exception):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


@dataclass(frozen=True)
class Route:
    coordinates: tuple[tuple[float, float], ...]  # (lon, lat), longitudes unwrapped
    distance_nm: float
    via_waypoints: tuple[tuple[float, float], ...]  # where each via point joined the network
    passages: tuple[str, ...]  # named passages traversed, in order


def haversine_nm(a: tuple[float, float], b: tuple[float, float]) -> float:
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_NM * math.asin(min(1.0, math.sqrt(h)))


class SeaNetwork:
    """The marine network as arrays: node coordinates, adjacency in nm, passage tags per edge."""

    def __init__(self, lines: list[tuple[list[list[float]], str | None]]) -> None:
        index: dict[tuple[float, float], int] = {}
        self.nodes: list[tuple[float, float]] = []
        self.adjacency: list[dict[int, float]] = []
        self.edge_passage: dict[tuple[int, int], str] = {}

        def node(point: list[float]) -> int:
            key = (round(point[0], 6), round(point[1], 6))
            found = index.get(key)
            if found is None:
                found = index[key] = len(self.nodes)
                self.nodes.append(key)
                self.adjacency.append({})
            return found

        for coordinates, passage in lines:
            ids = [node(point) for point in coordinates]
            for a, b in zip(ids, ids[1:], strict=False):
                if a == b:
                    continue
                weight = haversine_nm(self.nodes[a], self.nodes[b])
                for x, y in ((a, b), (b, a)):
                    if y not in self.adjacency[x] or weight < self.adjacency[x][y]:
                        self.adjacency[x][y] = weight
                    if passage:
                        self.edge_passage[(x, y)] = passage
        for (lon, lat), position in list(index.items()):
            if lon == -180.0 and (180.0, lat) in index:
                twin = index[(180.0, lat)]
                self.adjacency[position][twin] = 0.0
                self.adjacency[twin][position] = 0.0
        self._tree = STRtree(points([list(p) for p in self.nodes]))
        self._graphs: dict[frozenset[str], Graph] = {}
        self._lock = threading.Lock()

    def nearest_node(self, lon: float, lat: float) -> tuple[int, float]:
        """The nearest network node to a point, and its distance in nm."""
        position = int(self._tree.nearest(points([lon, lat])))
        best = (position, haversine_nm((lon, lat), self.nodes[position]))
        # Planar nearest can miss across the antimeridian or at high latitude: check the few next-best too.
        for candidate in self._tree.query(points([lon, lat]).buffer(3.0)):
            distance = haversine_nm((lon, lat), self.nodes[int(candidate)])
            if distance < best[1]:
                best = (int(candidate), distance)
        return best

    def join_point(
        self, lon: float, lat: float, max_nm: float, *, coastal_allowance_nm: float = 0.0
    ) -> tuple[int, float] | None:
        """The nearest node reachable from the point by a straight leg over water, within `max_nm`.

        The first `coastal_allowance_nm` of the leg may touch land: port positions are often
        the town's, a little inland of the berths.
        """
        degrees = max_nm / 60.0 / max(0.2, math.cos(math.radians(min(abs(lat), 85.0))))
        candidates = [int(c) for c in self._tree.query(points([lon, lat]).buffer(degrees))]
        ranked = sorted((haversine_nm((lon, lat), self.nodes[c]), c) for c in candidates)
        for distance, candidate in ranked:
            if distance > max_nm:
                break
            if leg_over_water((lon, lat), self.nodes[candidate], coastal_allowance_nm):
                return candidate, distance
        return None

    def graph(self, closed: frozenset[str]) -> Graph:
        from scgraph import Graph  # compiled extension, loaded with the first route rather than at start-up

        with self._lock:
            graph = self._graphs.get(closed)
            if graph is None:
                adjacency = [
                    {
                        target: weight
                        for target, weight in edges.items()
                        if self.edge_passage.get((source, target)) not in closed
                    }
                    for source, edges in enumerate(self.adjacency)
                ]
                graph = self._graphs[closed] = Graph(adjacency)
            return graph

    def shortest(self, origin: int, destination: int, closed: frozenset[str]) -> tuple[list[int], float]:
        if origin == destination:
            return [origin], 0.0
        try:
            result = self.graph(closed).dijkstra(origin, destination)
        except Exception as exc:  # scgraph raises when the destination is unreachable
            raise RouteNotFound("the sea-lane network holds no open path between them") from exc
        length = float(result.get("length", math.inf))
        if not result.get("path") or math.isinf(length):
            raise RouteNotFound("the sea-lane network holds no open path between them")
        return list(result["path"]), length

    def passages_on(self, path: list[int]) -> list[str]:
        seen: list[str] = []
        for a, b in zip(path, path[1:], strict=False):
            passage = self.edge_passage.get((a, b))
            if passage and (not seen or seen[-1] != passage):
                seen.append(passage)
        return list(dict.fromkeys(seen))


def leg_over_water(start: tuple[float, float], end: tuple[float, float], allowance_nm: float = 0.0) -> bool:
    """True when a straight leg crosses no land (1 km land mask, voyages.landmask, sampled every nm or so)."""
    length = haversine_nm(start, end)
    samples = max(2, int(length) + 1)
    fractions = np.linspace(0.0, 1.0, samples)
    lons = start[0] + (end[0] - start[0]) * fractions
    lats = start[1] + (end[1] - start[1]) * fractions
    keep = fractions * length >= allowance_nm
    lons = ((lons[keep] + 180.0) % 360.0) - 180.0
    lats = np.clip(lats[keep], -89.99, 89.99)
    if lons.size == 0:
        return True
    return not bool(np.any(landmask.is_land(lats, lons)))


def _load_lines() -> list[tuple[list[list[float]], str | None]]:
    raw = resources.files("searoute.data").joinpath("marnet_searoute.geojson").read_text()
    lines: list[tuple[list[list[float]], str | None]] = []
    for feature in json.loads(raw)["features"]:
        geometry = feature["geometry"]
        passage = (feature.get("properties") or {}).get("passage")
        parts = [geometry["coordinates"]] if geometry["type"] == "LineString" else geometry["coordinates"]
        lines.extend((part, passage) for part in parts)
    return lines


_network_lock = threading.Lock()


@lru_cache(maxsize=1)
def _network() -> SeaNetwork:
    return SeaNetwork(_load_lines())


def network() -> SeaNetwork:
    """The process-wide network, built on first use (about a second) and kept."""
    with _network_lock:
        return _network()


def unwrap(coordinates: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Longitudes made continuous: no step between neighbours is longer than 180 degrees."""
    out: list[tuple[float, float]] = []
    shift = 0.0
    previous = None
    for lon, lat in coordinates:
        if previous is not None:
            step = lon + shift - previous
            if step > 180:
                shift -= 360
            elif step < -180:
                shift += 360
        value = lon + shift
        if out and out[-1] == (value, lat):
            continue
        out.append((value, lat))
        previous = value
    return out


def densify(
    coordinates: list[tuple[float, float]], max_segment_nm: float = MAX_SEGMENT_NM
) -> list[tuple[float, float]]:
    """Extra points along each long segment (linear in unwrapped lon/lat; segments are short enough)."""
    out = coordinates[:1]
    for a, b in zip(coordinates, coordinates[1:], strict=False):
        steps = max(1, math.ceil(haversine_nm(a, b) / max_segment_nm))
        for step in range(1, steps + 1):
            t = step / steps
            out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    return out


def _via_nodes(net: SeaNetwork, via: list[tuple[float, float]]) -> list[int]:
    nodes = []
    for position, (lon, lat) in enumerate(via):
        if landmask.is_land(lat, ((lon + 180.0) % 360.0) - 180.0):
            raise ViaPointError(position, f"via point [{lon}, {lat}] is on land")
        joined = net.join_point(lon, lat, MAX_VIA_SNAP_NM)
        if joined is None:
            raise ViaPointError(
                position,
                f"via point [{lon}, {lat}] has no sea lane within {MAX_VIA_SNAP_NM:.0f} nm reachable over water",
            )
        nodes.append(joined[0])
    return nodes


def compute_route(
    origin: object,
    destination: object,
    *,
    via: list[tuple[float, float]] | None = None,
    closed_passages: frozenset[str] | None = None,
) -> Route:
    """The shortest open sea path from origin to destination through the via points.

    `origin` and `destination` are catalogue ports (voyages.ports.Port: lon, lat, node).
    """
    net = network()
    closed = normalise_closures(closed_passages) if closed_passages is not None else DEFAULT_CLOSED
    via = list(via or [])
    via_nodes = _via_nodes(net, via)
    stops = [origin.node, *via_nodes, destination.node]  # type: ignore[attr-defined]
    path: list[int] = [stops[0]]
    distance = 0.0
    for start, end in zip(stops, stops[1:], strict=False):
        leg, length = net.shortest(start, end, closed)
        path.extend(leg[1:])
        distance += length
    coordinates = [(origin.lon, origin.lat)]  # type: ignore[attr-defined]
    coordinates += [net.nodes[n] for n in path]
    coordinates.append((destination.lon, destination.lat))  # type: ignore[attr-defined]
    distance += haversine_nm(coordinates[0], coordinates[1]) + haversine_nm(coordinates[-2], coordinates[-1])
    return Route(
        coordinates=tuple(densify(unwrap(coordinates))),
        distance_nm=distance,
        via_waypoints=tuple(net.nodes[n] for n in via_nodes),
        passages=tuple(net.passages_on(path)),
    )


def route_geojson(route: Route) -> dict:
    """The route as a GeoJSON Feature with a LineString (longitudes continuous across the antimeridian)."""
    return {
        "type": "Feature",
        "geometry": {
            "type": "LineString",
            "coordinates": [[round(lon, 5), round(lat, 5)] for lon, lat in route.coordinates],
        },
        "properties": {"distance_nm": round(route.distance_nm, 1), "passages": list(route.passages)},
    }
