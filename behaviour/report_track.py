"""The hull's AIS track as the vessel report page draws it: the positions of its MMSIs, thinned to what
a page can show, on the same land map as the voyage report (voyages.report_map), its events marked."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np

from behaviour import store
from behaviour.models import AisLoad, AisVesselDay, BehaviourEvent
from voyages.report_map import route_svg

MAX_TRACK_POINTS = 1500
TRACK_MARGIN_DEGREES = 0.2  # about 20 km: a harbour and its approaches


def track_points(mmsis: Sequence[int], start: datetime, until: datetime) -> list[tuple[float, float]]:
    """(lon, lat) of the hull's positions in time order, thinned evenly to MAX_TRACK_POINTS."""
    held = AisVesselDay.objects.filter(
        mmsi__in=mmsis, day__gte=start.date(), day__lte=until.date(), load__status=AisLoad.Status.COMMITTED
    )
    loads = sorted(set(held.values_list("load_id", flat=True)))
    if not loads:
        return []
    positions = store.read_positions(loads, int(start.timestamp()), int(until.timestamp()), mmsis=mmsis)
    if positions.empty:
        return []
    positions = positions.sort_values("ts", kind="stable")
    keep = np.unique(np.linspace(0, len(positions) - 1, min(len(positions), MAX_TRACK_POINTS)).round().astype(int))
    thinned = positions.iloc[keep]
    return list(zip(thinned["lon"].astype(float), thinned["lat"].astype(float), strict=True))


def track_svg(mmsis: Sequence[int], start: datetime, until: datetime, events: Sequence[BehaviourEvent]) -> str:
    points = track_points(mmsis, start, until)
    marks = [(event.lon, event.lat) for event in events if event.severity != "info"]
    if len(points) < 2:
        return ""
    lons, lats = [lon for lon, _ in points], [lat for _, lat in points]
    # A tenth of the track's extent around it (at least TRACK_MARGIN_DEGREES), not an ocean route's margin.
    span = max(max(lons) - min(lons), max(lats) - min(lats))
    margin = max(TRACK_MARGIN_DEGREES, span / 10)
    return route_svg(points, marks, title="AIS track with its events", margin_degrees=margin)
