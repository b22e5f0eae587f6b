"""LayerContext: ports, high-risk areas and land answered from the voyage engine's layers."""

from __future__ import annotations

import numpy as np
import pytest

from behaviour import thresholds as th
from behaviour.detectors.base import DetectionContext, PortHit
from behaviour.detectors.common import haversine_km
from behaviour.detectors.context import STS_HUBS, LayerContext, PointIndex
from tests.behaviour import real_tracks as rt


@pytest.fixture(scope="module")
def ctx() -> LayerContext:
    return rt.real_context()


def test_it_is_a_detection_context(ctx):
    context: DetectionContext = ctx
    assert len(context.nearest_ports(np.array([]), np.array([]))) == 0
    assert context.high_risk_areas(np.array([]), np.array([])) == []
    assert context.on_land(np.array([]), np.array([])).shape == (0,)


def test_nearest_ports_match_a_brute_force_search(ctx):
    rng = np.random.default_rng(31)
    ports = ctx.ports
    plat = np.array([p.lat for p in ports])
    plon = np.array([p.lon for p in ports])
    # 300 points near real ports (so most have one in range) and 100 anywhere.
    pick = rng.integers(len(ports), size=300)
    lats = np.concatenate([plat[pick] + rng.normal(0, 0.4, 300), rng.uniform(-70, 70, 100)])
    lons = np.concatenate([plon[pick] + rng.normal(0, 0.4, 300), rng.uniform(-180, 180, 100)])
    lats = np.clip(lats, -89.9, 89.9)
    lons = (lons + 180) % 360 - 180
    hits = ctx.nearest_ports(lats, lons)
    for lat, lon, hit in zip(lats, lons, hits, strict=True):
        d = haversine_km(np.full(len(ports), lat), np.full(len(ports), lon), plat, plon)
        best = int(np.argmin(d))
        if d[best] > th.PORT_SEARCH_KM:
            assert hit is None
        else:
            assert isinstance(hit, PortHit)
            assert hit.distance_km == pytest.approx(d[best], abs=0.01)


def test_port_hits_carry_sanctions(ctx):
    bandar_abbas, rotterdam, sevastopol = ctx.nearest_ports(
        np.array([27.15, 51.90, 44.60]), np.array([56.28, 4.44, 33.52])
    )
    assert (bandar_abbas.locode, bandar_abbas.sanctioned) == ("IRBND", True)
    assert "US OFAC Iran (comprehensive)" in bandar_abbas.regimes
    assert (rotterdam.locode, rotterdam.sanctioned, rotterdam.regimes) == ("NLRTM", False, ())
    assert sevastopol.locode == "UASVP" and sevastopol.sanctioned  # the Crimea region's regime
    assert ctx.nearest_ports(np.array([0.0]), np.array([-30.0])) == [None]  # mid-Atlantic
    nan_then_port = ctx.nearest_ports(np.array([np.nan, 51.90]), np.array([4.44, 4.44]))
    assert nan_then_port[0] is None and nan_then_port[1].locode == "NLRTM"


def test_point_index_across_the_antimeridian():
    index = PointIndex(np.array([0.0, 10.0]), np.array([179.99, 0.0]), 50.0)
    nearest, km = index.nearest(np.array([0.0, 0.0]), np.array([-179.99, 90.0]))
    assert nearest.tolist() == [0, -1]
    assert km[0] == pytest.approx(2.22, abs=0.05)


def test_high_risk_areas(ctx):
    kerch = next(h for h in STS_HUBS if "Kerch" in h.name)
    names = ctx.high_risk_areas(
        np.array([kerch.lat, 13.0, 14.0, 36.0]),
        np.array([kerch.lon, 42.8, 52.0, -40.0]),
    )
    assert names[0] == kerch.name  # a hub first, though it lies in the Black Sea listed area too
    assert names[1].startswith("JWC listed area: Southern Red Sea")
    assert names[2].startswith("JWC listed area: Indian Ocean, Gulf of Aden")
    assert names[3] is None  # mid-Atlantic


def test_sanctioned_eez_by_the_port_based_approximation(ctx):
    # 60 nm off Havana (Cuba: comprehensive), off Rotterdam (none).
    codes = ctx.sanctioned_eez(np.array([24.1, 52.2]), np.array([-82.4, 3.5]))
    assert codes == ["CU", None]
    assert ctx.high_risk_areas(np.array([24.1]), np.array([-82.4])) == ["EEZ of CU (under comprehensive sanctions)"]


def test_on_land_is_robust_to_the_coastline(ctx):
    lats = np.array([38.5, 40.62, 0.0, 40.7005, 35.0])
    lons = np.array([-98.0, -74.05, -30.0, -74.0155, -116.5])
    # Kansas, NY Upper Bay, mid-Atlantic, the Battery (on the mask's land but at the water's edge),
    # the Mojave.
    assert ctx.on_land(lats, lons).tolist() == [True, False, False, False, True]


@pytest.mark.django_db
def test_default_construction_reads_the_process_layers():
    context = LayerContext()
    assert len(context.ports) > 3000
    assert context.eez is not None
    hit = context.nearest_ports(np.array([51.9]), np.array([4.44]))[0]
    assert hit is not None and hit.locode == "NLRTM"
