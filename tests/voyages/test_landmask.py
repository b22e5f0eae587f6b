"""The packed, memory-mapped land mask answers exactly as global_land_mask and repairs its file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from voyages import landmask

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def globe():
    from global_land_mask import globe as package  # the reference (about 1 GB, once per test module)

    return package


@pytest.fixture(scope="module")
def mask():
    return landmask.get_mask()


def test_every_cell_of_the_packed_file_is_the_package_grid(mask, globe):
    assert (mask.rows, mask.columns) == globe._mask.shape
    for start in range(0, mask.rows, 2000):
        block = globe._mask[start : start + 2000]
        assert np.array_equal(mask._bits[start : start + 2000], np.packbits(~block, axis=1)), start


def test_a_large_random_sample_answers_like_the_package(mask, globe):
    rng = np.random.default_rng(20261123)
    lats = rng.uniform(-90.0, 90.0, 1_000_000)
    lons = rng.uniform(-180.0, 180.0, 1_000_000)
    expected = globe.is_land(lats, lons)
    assert 0.2 < expected.mean() < 0.45  # a real mix of land and sea
    assert np.array_equal(landmask.is_land(lats, lons), expected)


def test_cell_edges_and_their_neighbours_round_like_the_package(globe):
    rng = np.random.default_rng(7)
    lat_edges = rng.choice(globe._lat, 20_000)
    lon_edges = rng.choice(globe._lon, 20_000)
    for lats, lons in (
        (lat_edges, lon_edges),
        (np.nextafter(lat_edges, 90), np.nextafter(lon_edges, 180)),
        (np.nextafter(lat_edges, -90), np.nextafter(lon_edges, -180)),
        (np.clip(lat_edges + 1 / 240, -90, 90), np.clip(lon_edges + 1 / 240, -180, 180)),
    ):
        assert np.array_equal(landmask.is_land(lats, lons), globe.is_land(lats, lons))


EDGES = [
    (90, 180),
    (-90, -180),
    (90, -180),
    (-90, 180),
    (90.0, 0.0),
    (-90.0, 0.0),
    (0.0, 180.0),
    (0.0, -180.0),
    (89.99999, 179.99999),
    (-89.99999, -179.99999),
    (-89.99166666666667, -180.0),
    (65.0, 179.9958),  # Chukotka, east of the antimeridian
    (65.0, -179.9958),
    (-16.5, 179.99),  # Fiji
    (-16.5, -179.99),
    (0, 0),
    (51.9, 4.4),  # Rotterdam
    (-77.85, 166.67),  # McMurdo
    (np.float32(45.3), np.float32(7.2)),
    (np.int32(90), np.int16(-180)),
    ([90, -90, 0, 45.5], [180, -180, 0, 7.25]),
    (np.array([[90.0, -90.0], [1.0, 2.0]]), np.array([[-180.0, 180.0], [3.0, 4.0]])),
    (np.array([10.0, 20.0, 30.0]), 100.0),  # broadcast a scalar longitude
    (np.array([], dtype=float), np.array([], dtype=float)),
]


@pytest.mark.parametrize(("lat", "lon"), EDGES)
def test_edge_cases_give_the_same_answer_and_type(lat, lon, globe):
    expected = globe.is_land(lat, lon)
    got = landmask.is_land(lat, lon)
    assert type(got) is type(expected)
    assert np.shape(got) == np.shape(expected)
    assert np.array_equal(got, expected)


@pytest.mark.parametrize(("lat", "lon"), [(90.0001, 0), (-90.5, 0), (0, 180.0001), (0, -181), ([0, 91], [0, 0])])
def test_out_of_range_coordinates_raise_like_the_package(lat, lon, globe):
    with pytest.raises(ValueError) as expected:
        globe.is_land(lat, lon)
    with pytest.raises(ValueError) as got:
        landmask.is_land(lat, lon)
    assert str(got.value) == str(expected.value)


def test_inputs_are_not_modified(mask):
    lats = np.array([95.0 - 5.0, -90.0, 12.0])
    lons = np.array([180.0, -180.0, 12.0])
    before = (lats.copy(), lons.copy())
    landmask.is_land(lats, lons)
    assert np.array_equal(lats, before[0]) and np.array_equal(lons, before[1])


@pytest.fixture
def copied(mask, tmp_path):
    """A copy of the verified file in a scratch var dir."""
    path = tmp_path / landmask.FILE_NAME
    shutil.copyfile(mask.path, path)
    assert landmask.verify(path) is not None
    return path


def _flip_a_bit(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.seek(landmask.HEADER_BYTES + 60_000_000)
        byte = handle.read(1)
        handle.seek(-1, os.SEEK_CUR)
        handle.write(bytes([byte[0] ^ 0x10]))


def _truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size - 5400)


def _bad_header(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.write(b"NOT A MASK")


def _stale_checksum(path: Path) -> None:
    raw = path.read_bytes()[: landmask.HEADER_BYTES]
    start = raw.index(b'"sha256": "') + len(b'"sha256": "')
    with open(path, "r+b") as handle:
        handle.seek(start)
        handle.write(b"0" * 8)


@pytest.mark.slow
@pytest.mark.parametrize("damage", [_flip_a_bit, _truncate, _bad_header, _stale_checksum, os.unlink])
def test_a_damaged_or_missing_file_is_rebuilt_identically_and_atomically(copied, mask, damage):
    damage(copied)
    assert landmask.verify(copied) is None
    rebuilt = landmask.open_mask(copied)
    assert landmask.verify(copied) is not None
    assert copied.read_bytes() == Path(mask.path).read_bytes()  # the build is deterministic
    assert sorted(p.name for p in copied.parent.iterdir()) == [copied.name, copied.name + ".lock"]  # no temp left
    lats, lons = np.array([51.9, 0.0, 48.85]), np.array([4.4, -30.0, 2.35])
    assert np.array_equal(rebuilt.is_land(lats, lons), mask.is_land(lats, lons))


def test_a_verified_file_is_kept(copied):
    before = copied.stat().st_mtime_ns
    path, header, built = landmask.ensure(copied)
    assert (path, built) == (copied, False)
    assert header["shape"] == [21600, 43200]
    assert copied.stat().st_mtime_ns == before


def test_start_up_and_land_lookups_never_import_the_package():
    """Django set-up, `manage.py check` and real land lookups leave global_land_mask unimported."""
    script = (
        "import sys, django\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('check', verbosity=0)\n"
        "import config.urls, config.wsgi\n"
        "assert 'global_land_mask' not in sys.modules, 'imported at start-up'\n"
        "from voyages import landmask, report_map, routing\n"
        "assert not routing.leg_over_water((4.0, 52.0), (5.0, 52.5))\n"
        "assert routing.leg_over_water((-30.0, 10.0), (-29.0, 11.0))\n"
        "assert 'route-map' in report_map.route_svg([(4.4, 51.9), (103.8, 1.26)])\n"
        "assert 'global_land_mask' not in sys.modules, 'imported by a lookup'\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
