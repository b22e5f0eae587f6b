"""LayerContext: the DetectionContext answered from the layers the voyage engine already holds.

- high-risk areas: the JWC listed areas (voyages.layers.jwc.LISTED_AREAS), the EEZs of states under
  a sanctions regime (voyages.layers_state.current().eez, judged by voyages.layers.sanctions_regimes),
  and the known ship-to-ship transfer hubs of STS_HUBS below;
- ports: the routable port catalogue (voyages.ports.get_catalogue()), searched through a 3D grid;
- land: the 1 km land mask (voyages.landmask.is_land), read as "clearly on land" by the ring rule of
  behaviour.thresholds (ON_LAND_RING_KM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from behaviour import thresholds as th
from behaviour.detectors.base import PortHit
from behaviour.detectors.common import destination, neighbour_pairs, unit_xyz_km
from voyages import layers_state
from voyages.landmask import is_land
from voyages.layers import jwc
from voyages.layers.sanctions_regimes import regimes_for, regimes_for_port
from voyages.ports import get_catalogue


@dataclass(frozen=True)
class StsHub:
    name: str
    lat: float
    lon: float
    radius_km: float


# Known ship-to-ship transfer areas, as reported by Lloyd's List, Windward, Kpler and the US/UK
# sanctions advisories on deceptive shipping practices (2019-2025). Centres are approximate
# published positions of the anchorage/area (degrees, written by us as facts); the radius is our
# judgement of the area's extent, stated per hub.
STS_HUBS: tuple[StsHub, ...] = (
    StsHub("STS hub: Kalamata, Messinian Gulf (Greece)", 36.93, 22.05, 20.0),
    StsHub("STS hub: Laconian Gulf (Greece)", 36.60, 22.65, 25.0),
    StsHub("STS hub: off Ceuta (Spain)", 35.90, -5.28, 15.0),
    StsHub("STS hub: Hurd's Bank off Malta", 35.88, 14.68, 15.0),
    StsHub("STS hub: Lomé anchorage (Togo)", 6.05, 1.28, 30.0),
    StsHub("STS hub: Eastern OPL off Johor (Malaysia)", 1.30, 104.45, 40.0),
    StsHub("STS hub: off Fujairah and Khor Fakkan (UAE)", 25.25, 56.45, 40.0),
    StsHub("STS hub: Kerch Strait area (Russia/Ukraine)", 45.25, 36.55, 40.0),
)


def _great_circle_from_chord(chord_km: np.ndarray) -> np.ndarray:
    r = th.EARTH_RADIUS_KM
    return np.asarray(2 * r * np.arcsin(np.minimum(1.0, chord_km / (2 * r))), dtype="float64")


class PointIndex:
    """Nearest of a fixed set of points within `radius_km`, for whole arrays of queries at once."""

    def __init__(self, lats: np.ndarray, lons: np.ndarray, radius_km: float) -> None:
        self.radius_km = radius_km
        self.xyz = unit_xyz_km(np.asarray(lats, dtype="float64"), np.asarray(lons, dtype="float64"))

    def nearest(self, lats: np.ndarray, lons: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index or -1, distance km or inf) per query point."""
        lats = np.asarray(lats, dtype="float64")
        lons = np.asarray(lons, dtype="float64")
        n = len(lats)
        best = np.full(n, -1, dtype="int64")
        best_km = np.full(n, np.inf)
        if not n or not len(self.xyz):
            return best, best_km
        finite = np.flatnonzero(np.isfinite(lats) & np.isfinite(lons))  # no position, no port
        q = unit_xyz_km(lats[finite], lons[finite])
        zeros_q, zeros_p = np.zeros(len(finite), dtype="int64"), np.zeros(len(self.xyz), dtype="int64")
        ia, ib = neighbour_pairs(q, zeros_q, self.xyz, zeros_p, self.radius_km)
        if not ia.size:
            return best, best_km
        km = _great_circle_from_chord(np.linalg.norm(q[ia] - self.xyz[ib], axis=1))
        keep = km <= self.radius_km
        ia, ib, km = ia[keep], ib[keep], km[keep]
        order = np.lexsort((km, ia))  # by query, nearest first
        ia, ib, km = ia[order], ib[order], km[order]
        first = np.ones(len(ia), dtype=bool)
        first[1:] = ia[1:] != ia[:-1]
        best[finite[ia[first]]] = ib[first]
        best_km[finite[ia[first]]] = km[first]
        return best, best_km


class LayerContext:
    """DetectionContext over the voyage engine's layers. Pass the pieces explicitly (tests, batch
    jobs), or leave them None to read the process-wide ones (the EEZ layer needs the database)."""

    def __init__(
        self,
        ports: Sequence[Any] | None = None,
        eez: Any | None = None,
        listed_areas: Sequence[Any] | None = None,
        hubs: Sequence[StsHub] = STS_HUBS,
    ) -> None:
        if ports is None:
            ports = get_catalogue().ports
        if eez is None:
            eez = layers_state.current().eez
        self.ports = list(ports)
        self.eez = eez
        self.listed_areas = list(jwc.LISTED_AREAS if listed_areas is None else listed_areas)
        self.hubs = tuple(hubs)
        self._regimes_for = regimes_for
        self._regimes_for_port = regimes_for_port
        self._port_index = PointIndex(
            np.array([p.lat for p in self.ports], dtype="float64"),
            np.array([p.lon for p in self.ports], dtype="float64"),
            th.PORT_SEARCH_KM,
        )
        self._hub_xyz = unit_xyz_km(
            np.array([h.lat for h in self.hubs], dtype="float64"), np.array([h.lon for h in self.hubs], dtype="float64")
        )

    # --- high-risk areas --------------------------------------------------------------------------

    def sanctioned_eez(self, lats: np.ndarray, lons: np.ndarray) -> list[str | None]:
        """For each point, the ISO code of the sanctioned state whose EEZ it lies in, else None (the voyage
        engine's EEZ layer, point by point: Marine Regions polygons, else its nearest-port approximation)."""
        return [
            code if code is not None and self._regimes_for(code)[0] is not None else None
            for code in self.eez.countries_at(np.asarray(lats, dtype="float64"), np.asarray(lons, dtype="float64"))
        ]

    def high_risk_areas(self, lats: np.ndarray, lons: np.ndarray) -> list[str | None]:
        lats = np.asarray(lats, dtype="float64")
        lons = np.asarray(lons, dtype="float64")
        names: list[str | None] = [None] * len(lats)
        if not len(lats):
            return names
        # Most specific first: an STS hub, then a listed area, then a sanctioned state's EEZ.
        if len(self.hubs):
            q = unit_xyz_km(lats, lons)
            chord = np.linalg.norm(q[:, None, :] - self._hub_xyz[None, :, :], axis=2)
            km = _great_circle_from_chord(chord)
            inside = km <= np.array([h.radius_km for h in self.hubs])[None, :]
            for i in np.flatnonzero(inside.any(axis=1)):
                names[i] = self.hubs[int(np.argmax(inside[i]))].name
        for area in self.listed_areas:
            for i in np.flatnonzero(shapely.contains_xy(area.polygon, lons, lats)):
                names[i] = names[i] or f"JWC listed area: {area.name}"
        for k, code in enumerate(self.sanctioned_eez(lats, lons)):
            if code is not None and names[k] is None:
                kind, _ = self._regimes_for(code)
                names[k] = f"EEZ of {code} (under {kind} sanctions)"
        return names

    # --- ports ------------------------------------------------------------------------------------

    def nearest_ports(self, lats: np.ndarray, lons: np.ndarray) -> list[PortHit | None]:
        nearest, km = self._port_index.nearest(lats, lons)
        hits: list[PortHit | None] = []
        for index, distance in zip(nearest, km, strict=True):
            if index < 0:
                hits.append(None)
                continue
            port = self.ports[int(index)]
            kind, regimes, _region = self._regimes_for_port(port.locode, port.country_code)
            hits.append(
                PortHit(
                    locode=port.locode,
                    name=port.name,
                    country_code=port.country_code,
                    distance_km=round(float(distance), 3),
                    sanctioned=kind is not None,
                    regimes=tuple(regimes),
                )
            )
        return hits

    # --- land -------------------------------------------------------------------------------------

    def on_land(self, lats: np.ndarray, lons: np.ndarray) -> np.ndarray:
        return on_land_ring(np.asarray(lats, dtype="float64"), np.asarray(lons, dtype="float64"))


def on_land_ring(lats: np.ndarray, lons: np.ndarray) -> np.ndarray:
    """Clearly on land: the 1 km mask says land at the point and at ON_LAND_RING_BEARINGS points
    ON_LAND_RING_KM around it (beyond the mask's coarse coastline and narrow waterways' edges)."""
    out = np.zeros(len(lats), dtype=bool)
    if not len(lats):
        return out
    ok = np.isfinite(lats) & np.isfinite(lons) & (np.abs(lats) <= 90) & (np.abs(lons) <= 180)
    idx = np.flatnonzero(ok)
    land = np.asarray(is_land(lats[idx], lons[idx]), dtype=bool)
    idx = idx[land]
    bearings = np.arange(th.ON_LAND_RING_BEARINGS) * (360.0 / th.ON_LAND_RING_BEARINGS)
    all_land = np.ones(len(idx), dtype=bool)
    for bearing in bearings:
        if not len(idx):
            break
        rlat, rlon = destination_many(lats[idx], lons[idx], bearing, th.ON_LAND_RING_KM)
        all_land &= np.asarray(is_land(np.clip(rlat, -90, 90), rlon), dtype=bool)
    out[idx] = all_land
    return out


def destination_many(
    lats: np.ndarray, lons: np.ndarray, bearing: float, distance_km: float
) -> tuple[np.ndarray, np.ndarray]:
    """`destination` for many start points and one bearing."""
    lat2, lon2 = destination(lats, lons, np.full(len(lats), bearing), distance_km)
    return lat2, lon2
