"""Weather: seasonal climatology by ocean basin and month, and a live forecast adapter.

Climatology (project-written from the well-known seasons: North Atlantic and North Pacific
winter storms, the NW Pacific typhoon season, the North Atlantic hurricane season, the
North Indian Ocean monsoon and cyclones, South Indian Ocean cyclones, the Southern Ocean and
the Cape) gives a 0-100 signal per basin and month; the route's signal is the
length-weighted mean. The forecast adapter speaks this exchange with a configured service:

    GET {WEATHER_FORECAST_URL}?bbox=<west>,<south>,<east>,<north>
    200 {"issued_at": "2026-11-23T06:00:00Z", "max_wave_height_m": 4.5, "max_wind_kn": 38}

inside WEATHER_FORECAST_BUDGET_SECONDS (the whole call, through core.outbound); anything
else, including a URL the outbound guard refuses, counts as unreachable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from core import outbound
from voyages.layers.geo import RouteInput, route_samples

# (name, west, south, east, north, monthly signal Jan..Dec); first match wins.
BASINS: tuple[tuple[str, float, float, float, float, tuple[int, ...]], ...] = (
    ("Southern Ocean and the Cape", -180, -70, 180, -35, (40, 40, 45, 50, 60, 65, 65, 65, 60, 50, 45, 40)),
    ("North Atlantic winter storms", -80, 40, 10, 75, (60, 60, 50, 35, 20, 15, 15, 15, 25, 40, 55, 60)),
    ("North Pacific winter storms", 135, 35, 180, 65, (65, 60, 50, 35, 20, 15, 15, 20, 30, 45, 55, 65)),
    ("North Pacific winter storms", -180, 35, -120, 65, (60, 55, 45, 30, 20, 15, 15, 15, 25, 40, 50, 60)),
    ("NW Pacific typhoons", 105, 5, 165, 35, (15, 10, 10, 15, 25, 35, 55, 65, 65, 50, 35, 20)),
    ("North Atlantic hurricanes", -100, 10, -40, 40, (10, 10, 10, 10, 15, 25, 35, 55, 65, 45, 25, 10)),
    ("North Indian Ocean monsoon and cyclones", 45, 0, 100, 25, (15, 10, 10, 20, 40, 55, 60, 55, 45, 40, 40, 25)),
    ("South Indian Ocean cyclones", 35, -30, 120, -5, (45, 50, 45, 30, 15, 10, 10, 10, 10, 15, 25, 40)),
    ("Bay of Biscay and North Sea", -10, 43, 10, 62, (55, 55, 45, 30, 20, 15, 15, 15, 25, 40, 50, 55)),
)
DEFAULT_SIGNAL = 15
MAX_FORECAST_BYTES = 64 * 1024


@dataclass(frozen=True)
class Forecast:
    issued_at: datetime
    max_wave_height_m: float
    max_wind_kn: float

    @property
    def signal(self) -> int:
        return int(min(100, max(self.max_wave_height_m * 10, (self.max_wind_kn - 15) * 2, 0)))


def climatology_signal(route: RouteInput, month: int) -> tuple[int, str]:
    samples = route_samples(route)
    values = np.full(samples.lons.shape, DEFAULT_SIGNAL, dtype=float)
    assigned = np.zeros(samples.lons.shape, dtype=bool)
    crossed: list[str] = []
    for name, west, south, east, north, monthly in BASINS:
        mask = (
            (~assigned)
            & (samples.lons >= west)
            & (samples.lons <= east)
            & (samples.lats >= south)
            & (samples.lats <= north)
        )
        if mask.any():
            values[mask] = monthly[month - 1]
            assigned |= mask
            if monthly[month - 1] >= 40 and name not in crossed:
                crossed.append(name)
    total = samples.total_nm
    signal = round(float((values * samples.weights).sum() / total)) if total else DEFAULT_SIGNAL
    summary = f"Seasonal climatology for month {month}: " + (
        f"crosses {', '.join(crossed)} in season." if crossed else "no basin in its stormy season on this route."
    )
    return signal, summary


def bbox(route: RouteInput) -> tuple[float, float, float, float]:
    samples = route_samples(route)
    return (float(samples.lons.min()), float(samples.lats.min()), float(samples.lons.max()), float(samples.lats.max()))


def fetch_forecast(route: RouteInput, budget_seconds: float, url: str) -> Forecast | None:
    """The forecast along the route's bounding box, or None when not configured, late or malformed."""
    if not url:
        return None
    west, south, east, north = bbox(route)
    try:
        response = outbound.get(
            url,
            params={"bbox": f"{west:.2f},{south:.2f},{east:.2f},{north:.2f}"},
            timeout=budget_seconds,
            total_timeout=budget_seconds,
            max_bytes=MAX_FORECAST_BYTES,
        )
        if response.status_code != 200:
            return None
        payload = response.json()
        return Forecast(
            issued_at=datetime.fromisoformat(str(payload["issued_at"]).replace("Z", "+00:00")),
            max_wave_height_m=float(payload["max_wave_height_m"]),
            max_wind_kn=float(payload["max_wind_kn"]),
        )
    except (outbound.OutboundError, ValueError, KeyError, TypeError):
        return None
