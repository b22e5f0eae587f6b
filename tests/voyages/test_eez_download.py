"""The Marine Regions EEZ download, as published, through `refresh_sources --layer eez`.

Each test writes a small file in the download's own layout (the zipped shapefile with its
boundary-lines companion, or a GeoPackage with both layers) with Marine Regions' attribute
columns, and loads it with the command an operator runs.
"""

from __future__ import annotations

import zipfile
from io import StringIO
from pathlib import Path

import geopandas
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from shapely.geometry import LineString, box

from tests.voyages.test_layers import route
from voyages import layers_state
from voyages.models import LayerSnapshot

pytestmark = pytest.mark.django_db

# Two zones drawn as boxes (lon/lat), with the columns of World_EEZ_v12: alpha-3 codes in ISO_TER1/ISO_SOV1.
ZONES = geopandas.GeoDataFrame(
    {
        "MRGID": [5668, 8386, 48961],
        "GEONAME": ["Dutch Exclusive Economic Zone", "Iranian Exclusive Economic Zone", "Joint regime area"],
        "POL_TYPE": ["200NM", "200NM", "Joint regime"],
        "TERRITORY1": ["Netherlands", "Iran", None],
        "ISO_TER1": ["NLD", "IRN", None],
        "SOVEREIGN1": ["Netherlands", "Iran", "Nowhere"],
        "ISO_SOV1": ["NLD", "IRN", "XXX"],
    },
    geometry=[box(2.5, 51.3, 7.2, 55.8), box(48.0, 24.0, 61.5, 30.5), box(0.0, 0.0, 1.0, 1.0)],
    crs="EPSG:4326",
)
BOUNDARIES = geopandas.GeoDataFrame(
    {"LINE_ID": [1], "LINE_NAME": ["Netherlands - Germany"]},
    geometry=[LineString([(7.2, 53.6), (6.0, 55.8)])],
    crs="EPSG:4326",
)


def zipped_shapefile(folder: Path) -> Path:
    """World_EEZ_v12_20231025.zip: a folder with eez_v12.shp and eez_boundaries_v12.shp and their sidecars."""
    inner = folder / "World_EEZ_v12_20231025"
    inner.mkdir()
    BOUNDARIES.to_file(inner / "eez_boundaries_v12.shp")
    ZONES.to_file(inner / "eez_v12.shp")
    archive = folder / "World_EEZ_v12_20231025.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(inner.iterdir()):
            zf.write(path, f"{inner.name}/{path.name}")
    return archive


def geopackage(folder: Path) -> Path:
    path = folder / "eez_v12.gpkg"
    BOUNDARIES.to_file(path, layer="eez_boundaries_v12", driver="GPKG")
    ZONES.to_file(path, layer="eez_v12", driver="GPKG")
    return path


def refresh(path: Path) -> str:
    out = StringIO()
    call_command("refresh_sources", "--layer", "eez", "--file", str(path), stdout=out)
    return out.getvalue()


def transit_codes() -> list[str]:
    layers_state.invalidate()
    layers = layers_state.current()
    assert layers.eez.basis == "polygons"
    north_sea = route([(4.0, 52.0), (5.0, 53.0), (6.5, 53.8)])
    gulf = route([(50.0, 27.0), (56.0, 26.0)])
    return [row["country_code"] for row in layers.eez.transit(north_sea) + layers.eez.transit(gulf)]


def test_the_zipped_shapefile_as_published_loads_and_serves(tmp_path):
    output = refresh(zipped_shapefile(tmp_path))
    snapshot = LayerSnapshot.objects.get(layer="eez", status=LayerSnapshot.Status.ACTIVE)
    assert snapshot.row_count == 2  # the joint regime without a known code is left out
    assert "eez_v12" in snapshot.message and "boundaries" not in snapshot.message
    assert "active" in output
    assert transit_codes() == ["NL", "IR"]


def test_the_geopackage_as_published_loads_and_serves(tmp_path):
    refresh(geopackage(tmp_path))
    assert LayerSnapshot.objects.get(layer="eez", status=LayerSnapshot.Status.ACTIVE).row_count == 2
    assert transit_codes() == ["NL", "IR"]


def test_a_zipped_geopackage_loads_too(tmp_path):
    gpkg = geopackage(tmp_path)
    archive = tmp_path / "World_EEZ_v12_20231025_gpkg.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(gpkg, f"World_EEZ_v12_20231025_gpkg/{gpkg.name}")
    refresh(archive)
    assert LayerSnapshot.objects.get(layer="eez", status=LayerSnapshot.Status.ACTIVE).row_count == 2


def test_a_file_that_is_not_an_eez_download_fails_and_the_previous_copy_keeps_serving(tmp_path):
    refresh(zipped_shapefile(tmp_path))
    bad = tmp_path / "eez.zip"
    bad.write_bytes(b"PK\x03\x04 truncated download")
    with pytest.raises(CommandError):
        refresh(bad)
    assert LayerSnapshot.objects.filter(layer="eez", status=LayerSnapshot.Status.ACTIVE).count() == 1
    assert LayerSnapshot.objects.filter(layer="eez", status=LayerSnapshot.Status.FAILED).exists()
    assert transit_codes() == ["NL", "IR"]


def test_from_dir_recognises_the_marine_regions_download_name(tmp_path):
    from voyages.management.commands.refresh_sources import plan_directory

    archive = zipped_shapefile(tmp_path)
    planned = plan_directory(tmp_path)
    jobs = planned[0] if isinstance(planned, tuple) else planned  # (jobs, skipped) or jobs
    assert [(job[0], job[1], job[2]["file"]) for job in jobs] == [("layer", "eez", archive)]
