"""Fixtures shared by every app's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The real public snapshots; tests using them skip when the folder is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _fresh_shared_state():
    """Rate windows, slots and caches start empty in every test (Redis included)."""
    from django.core.cache import cache

    from metering import concurrency, ratelimit, switches
    from screening import freshness

    cache.clear()
    switches.forget_cached()
    freshness.forget_cached()
    ratelimit.reset_all()
    concurrency.reset_all()
    yield


@pytest.fixture(autouse=True)
def _sync_access_log(settings):
    settings.ACCESS_LOG_MODE = "sync"


@pytest.fixture
def issue_key(db):
    """Issue a key: issue_key(environment='test', email=..., **options) -> raw key string."""
    from accounts.services import issue_key as issue

    counter = {"n": 0}

    def make(environment: str = "test", email: str | None = None, **options):
        counter["n"] += 1
        _, _, raw = issue(email=email or f"user{counter['n']}@example.com", environment=environment, **options)
        return raw

    return make


@pytest.fixture
def keyed(client):
    """keyed(raw_key) -> headers dict for the Django test client."""

    def headers(raw_key: str, **extra):
        return {"HTTP_AUTHORIZATION": f"Bearer {raw_key}", **extra}

    return headers


@pytest.fixture
def demo_world(db):
    """The generated demo world loaded, and the in-memory data state rebuilt from it before and after."""
    from django.core.management import call_command

    from screening import datastate

    with open("/dev/null", "w") as devnull:
        call_command("seed_demo", stdout=devnull)
    datastate.invalidate()
    yield
    datastate.invalidate()


@pytest.fixture
def ais_store(settings, tmp_path) -> Path:
    """A private AIS position store for the test."""
    settings.AIS_STORE_DIR = tmp_path / "ais-store"
    return settings.AIS_STORE_DIR


@pytest.fixture
def ny_harbor_hour() -> Path:
    """Real MarineCadastre rows (New York Harbor, 2020-06-30 00:00-01:00) shipped by tracktable-data."""
    tracktable_data = pytest.importorskip("tracktable_data")
    return Path(tracktable_data.__file__).parent / "python_example_data" / "NYHarbor_2020_06_30_first_hour.csv"
