"""Fixtures of the behaviour tests: a private position store and drop folder per test."""

from __future__ import annotations

from pathlib import Path

import pytest

NY_HARBOR_HOUR = "NYHarbor_2020_06_30_first_hour.csv"


@pytest.fixture
def ais_store(settings, tmp_path) -> Path:
    settings.AIS_STORE_DIR = tmp_path / "ais-store"
    return settings.AIS_STORE_DIR


@pytest.fixture
def ny_harbor_hour() -> Path:
    """Real MarineCadastre rows (New York Harbor, 2020-06-30 00:00-01:00) shipped by tracktable-data."""
    tracktable_data = pytest.importorskip("tracktable_data")
    return Path(tracktable_data.__file__).parent / "python_example_data" / NY_HARBOR_HOUR
