"""Piracy and armed robbery: incident density along the route.

Incidents come from NGA ASAM files and IMB-format files (the mappingpiracy/IMB compilation
columns), loaded through `refresh_sources --layer piracy_asam|piracy_imb`. Density: incidents
within INCIDENT_RADIUS_NM of the route, each weighted by recency (half-life HALF_LIFE_YEARS
before the newest incident held), per 1,000 nm of route; signal = 100 * (1 - exp(-density/k)).
Without a file, a documented hot-spot prior (areas the IMB reports name year after year)
stands in, and the sources row says so.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from shapely import Polygon, contains_xy

from voyages.layers.geo import RouteInput, route_samples

INCIDENT_RADIUS_NM = 50.0
HALF_LIFE_YEARS = 2.0
DENSITY_SCALE = 3.0  # weighted incidents per 1,000 nm giving signal ~63
CELL_DEGREES = 1.0


@dataclass(frozen=True)
class Incident:
    lon: float
    lat: float
    day: date


_DMS = re.compile(r"(\d+(?:\.\d+)?)\s*°\s*(\d+(?:\.\d+)?)?\s*'?\s*(\d+(?:\.\d+)?)?\s*\"{0,2}\s*([NSEW])")


def _dms_value(match: re.Match) -> float:
    degrees, minutes, seconds, hemisphere = match.groups()
    value = float(degrees) + float(minutes or 0) / 60 + float(seconds or 0) / 3600
    return -value if hemisphere in "SW" else value


def parse_asam_position(text: str) -> tuple[float, float] | None:
    """'13°43\\'00"N 121°02\\'00"E' (possibly over two lines) -> (lon, lat)."""
    found = list(_DMS.finditer(text.replace("\n", " ")))
    lat = next((_dms_value(m) for m in found if m.group(4) in "NS"), None)
    lon = next((_dms_value(m) for m in found if m.group(4) in "EW"), None)
    if lat is None or lon is None or not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return None
    return lon, lat


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_asam_csv(data: bytes) -> list[Incident]:
    """NGA ASAM CSV: reference, date, position (degrees/minutes text), navArea, subreg, hostility, victim, ..."""
    reader = csv.DictReader(io.StringIO(_decode(data)))
    if not reader.fieldnames or not {"date", "position"} <= {f.strip() for f in reader.fieldnames if f}:
        raise ValueError("not an ASAM CSV: expected the columns reference, date, position, ...")
    incidents = []
    for row in reader:
        position = parse_asam_position(row.get("position") or "")
        try:
            day = date.fromisoformat((row.get("date") or "").strip()[:10])
        except ValueError:
            continue
        if position is not None:
            incidents.append(Incident(position[0], position[1], day))
    return incidents


def parse_imb_csv(data: bytes) -> list[Incident]:
    """IMB-format CSV with header: date, time, longitude, latitude, attack_type, ..."""
    reader = csv.DictReader(io.StringIO(_decode(data)))
    if not reader.fieldnames or not {"date", "longitude", "latitude"} <= set(reader.fieldnames):
        raise ValueError("not an IMB-format CSV: expected the columns date, longitude, latitude, ...")
    incidents = []
    for row in reader:
        try:
            lon, lat = float(row["longitude"]), float(row["latitude"])
            day = date.fromisoformat(row["date"].strip()[:10])
        except (TypeError, ValueError):
            continue
        if -180 <= lon <= 180 and -90 <= lat <= 90:
            incidents.append(Incident(lon, lat, day))
    return incidents


# Hot spots the IMB Piracy Reporting Centre names year after year (coarse boxes, project-written),
# with a prior density in weighted incidents per 1,000 nm.
HOTSPOTS: tuple[tuple[str, float, Polygon], ...] = (
    ("Gulf of Guinea", 6.0, Polygon([(-4.0, 7.0), (9.8, 7.0), (9.8, -1.0), (-4.0, -1.0)])),
    ("Gulf of Aden and Somali Basin", 4.0, Polygon([(42.5, 15.5), (60.0, 15.5), (60.0, -5.0), (40.0, -5.0)])),
    ("Singapore Strait and Malacca Strait", 5.0, Polygon([(95.0, 7.0), (104.8, 2.5), (104.8, 0.8), (98.0, 2.0)])),
    ("Sulu and Celebes Seas", 3.0, Polygon([(118.0, 8.0), (126.0, 8.0), (126.0, 1.0), (118.0, 1.0)])),
    (
        "Bangladesh (Chittagong) and Indian anchorages",
        2.0,
        Polygon([(86.0, 23.0), (92.5, 23.0), (92.5, 20.0), (86.0, 20.0)]),
    ),
    ("Caribbean and Venezuela anchorages", 2.0, Polygon([(-76.0, 13.0), (-60.0, 13.0), (-60.0, 9.0), (-76.0, 9.0)])),
    ("Callao and Guayaquil anchorages", 2.0, Polygon([(-82.0, -1.0), (-76.0, -1.0), (-76.0, -13.0), (-82.0, -13.0)])),
    ("Indonesian archipelago anchorages", 2.0, Polygon([(105.0, -1.0), (118.0, -1.0), (118.0, -7.5), (105.0, -7.5)])),
)


class PiracyLayer:
    """Recency-weighted incidents on a 1-degree grid, or the hot-spot prior."""

    def __init__(self, incidents: list[Incident] | None) -> None:
        self.incidents = incidents or []
        self.uses_prior = not self.incidents
        self.latest = max((i.day for i in self.incidents), default=None)
        self._cells: dict[tuple[int, int], list[tuple[float, float, float]]] = defaultdict(list)
        if self.latest is not None:
            for incident in self.incidents:
                age_years = (self.latest - incident.day).days / 365.25
                weight = 0.5 ** (age_years / HALF_LIFE_YEARS)
                if weight < 0.01:
                    continue
                self._cells[(math.floor(incident.lon), math.floor(incident.lat))].append(
                    (incident.lon, incident.lat, weight)
                )

    def _near(self, route: RouteInput) -> tuple[float, int]:
        samples = route_samples(route)
        counted: dict[tuple[float, float, float], None] = {}
        for lon, lat in zip(samples.lons[::3], samples.lats[::3], strict=True):
            cell_lon, cell_lat = math.floor(lon), math.floor(lat)
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    for incident in self._cells.get((cell_lon + dx, cell_lat + dy), ()):
                        if incident in counted:
                            continue
                        d_lat = (incident[1] - lat) * 60
                        d_lon = (incident[0] - lon) * 60 * math.cos(math.radians(lat))
                        if d_lat * d_lat + d_lon * d_lon <= INCIDENT_RADIUS_NM**2:
                            counted[incident] = None
        return sum(w for _, _, w in counted), len(counted)

    def assess(self, route: RouteInput) -> tuple[int, int | None, str]:
        """(signal 0-100, event_count or None under the prior, summary)."""
        length_k = max(route.distance_nm, 1.0) / 1000.0
        if self.uses_prior:
            samples = route_samples(route)
            density = 0.0
            crossed = []
            for name, prior, polygon in HOTSPOTS:
                mask = contains_xy(polygon, samples.lons, samples.lats)
                share_nm = float(samples.weights[mask].sum())
                if share_nm > 0:
                    crossed.append(name)
                    density += prior * share_nm / 1000.0
            density /= length_k
            signal = round(100 * (1 - math.exp(-density / DENSITY_SCALE)))
            summary = (
                f"No incident file is loaded; hot-spot prior: crosses {', '.join(crossed)}."
                if crossed
                else "No incident file is loaded; the route crosses no piracy hot spot of the prior."
            )
            return signal, None, summary
        # Not the prior, so the incident list is non-empty and `latest` was set in __init__.
        assert self.latest is not None
        weighted, count = self._near(route)
        density = weighted / length_k
        signal = round(100 * (1 - math.exp(-density / DENSITY_SCALE)))
        summary = (
            f"{count} reported incident(s) within {INCIDENT_RADIUS_NM:.0f} nm of the route "
            f"(recency-weighted {weighted:.1f}; newest held {self.latest.isoformat()})."
        )
        return signal, count, summary


def incidents_to_payload(incidents: list[Incident]) -> list[list]:
    return [[round(i.lon, 4), round(i.lat, 4), i.day.isoformat()] for i in incidents]


def incidents_from_payload(rows: list[list]) -> list[Incident]:
    return [Incident(float(lon), float(lat), date.fromisoformat(day)) for lon, lat, day in rows]
