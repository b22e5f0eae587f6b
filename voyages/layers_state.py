"""The risk layers a process holds in memory, rebuilt only when a loaded layer changes.

Bundled facts (JWC areas, regimes, climatology, the port-based EEZ approximation) are built
once; loaded files (piracy incidents, country indicators, EEZ polygons) come from the
active LayerSnapshot rows. Every process checks the newest snapshot id at most every
CHECK_SECONDS, so web and worker processes agree without a query per assessment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Max

from core.versioned_state import VersionedState
from voyages.layers.eez import EezLayer
from voyages.layers.geo import RouteInput
from voyages.layers.piracy import PiracyLayer, incidents_from_payload
from voyages.layers.weather import Forecast, fetch_forecast
from voyages.models import LayerSnapshot

CHECK_SECONDS = 2.0
PIRACY_LAYERS = ("piracy_asam", "piracy_imb")


@dataclass(frozen=True)
class LayerSet:
    version: object
    piracy: PiracyLayer
    piracy_loaded_at: datetime | None
    piracy_latest_event_at: datetime | None
    eez: EezLayer
    eez_loaded_at: datetime | None
    indicators: dict[str, float]


_port_eez: EezLayer | None = None


def _version() -> object:
    return LayerSnapshot.objects.aggregate(newest=Max("id"))["newest"]


def _build(version: object) -> LayerSet:
    global _port_eez
    from shapely.geometry import shape

    active = {
        row.layer: row
        for row in LayerSnapshot.objects.filter(status=LayerSnapshot.Status.ACTIVE).order_by("loaded_at", "id")
    }
    incidents = []
    piracy_rows = [active[name] for name in PIRACY_LAYERS if name in active]
    for row in piracy_rows:
        incidents.extend(incidents_from_payload(row.payload))
    latest_events = [row.latest_event_at for row in piracy_rows if row.latest_event_at]
    if "eez" in active:
        row = active["eez"]
        eez = EezLayer.from_polygons([(code, shape(geometry)) for code, geometry in row.payload], row.message)
        eez_loaded_at = row.loaded_at
    else:
        if _port_eez is None:
            _port_eez = EezLayer.from_ports()
        eez, eez_loaded_at = _port_eez, None
    indicators = (
        {code: float(value) for code, value in active["country_indicators"].payload}
        if ("country_indicators" in active)
        else {}
    )
    return LayerSet(
        version=version,
        piracy=PiracyLayer(incidents),
        piracy_loaded_at=max((row.loaded_at for row in piracy_rows), default=None),
        piracy_latest_event_at=max(latest_events, default=None),
        eez=eez,
        eez_loaded_at=eez_loaded_at,
        indicators=indicators,
    )


_holder: VersionedState[LayerSet] = VersionedState(_version, _build, CHECK_SECONDS)


def current() -> LayerSet:
    """This process's risk layers, rebuilt only when what it is built from changed."""
    return _holder.current()


def invalidate() -> None:
    """Force the next current() to re-check (after a load in this process)."""
    _holder.invalidate()


def forecast_for(route: RouteInput) -> tuple[Forecast | None, bool]:
    """The live forecast, and whether it answered (False when not configured or unreachable)."""
    forecast = fetch_forecast(route, settings.WEATHER_FORECAST_BUDGET_SECONDS, settings.WEATHER_FORECAST_URL)
    return forecast, forecast is not None
