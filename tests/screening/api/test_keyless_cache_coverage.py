"""The keyless cache never outlives the sanctions sources' state it was screened under (issue 19, item 6).

A cached clear (GREEN, coverageComplete true) must not be served once a core list drops out,
fails a refresh or loads a new copy: the next check screens again. The cache is the configured
one (locmem, or Redis under REDIS_URL); source state changes go through the real operator paths
(seed_demo --omit-source, refresh_sources), in this process and in another one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from screening import datastate, demo, keyless

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent.parent.parent


def check(client, imo, ip="198.51.100.20"):
    response = client.get(f"/api/v1/vessels/{imo}/check", REMOTE_ADDR=ip)
    assert response.status_code == 200, response.content
    return response.json()


def run(*args: str) -> None:
    call_command(*args, stdout=open("/dev/null", "w"))


def _cached_clear(client) -> dict:
    """Check the clean demo hull and confirm the clear is in the shared cache."""
    body = check(client, demo.GREEN_CLEAN)
    assert body["sanctions"]["status"] == "GREEN" and body["sanctions"]["coverageComplete"] is True
    assert keyless.cached_check(demo.GREEN_CLEAN) == body
    again = keyless.run_check(demo.GREEN_CLEAN, "198.51.100.21", "req-cache-1")
    assert again.from_cache and again.body == body
    return body


def _fresh(now_offset_seconds: int = 5) -> keyless.KeylessOutcome:
    """A check at a later instant, so a served cache entry is told apart by its checkedAt too."""
    now = timezone.now() + timedelta(seconds=now_offset_seconds)
    return keyless.run_check(demo.GREEN_CLEAN, "198.51.100.22", f"req-{now_offset_seconds}", now=now)


def test_a_cached_clear_is_not_served_after_a_core_list_drops_out_nor_after_it_returns(demo_world, client):
    cleared = _cached_clear(client)

    run("seed_demo", "--omit-source", "ofac_sdn")  # the operator's way to take a list out of service
    body = check(client, demo.GREEN_CLEAN)
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert body["sanctions"]["coverageComplete"] is False
    assert "ofac_sdn" in body["sanctions"]["coverageGaps"]
    assert keyless.cached_check(demo.GREEN_CLEAN) is None
    page = client.get(f"/vessels/{demo.GREEN_CLEAN}/report", REMOTE_ADDR="198.51.100.23").content.decode()
    assert "INCOMPLETE" in page

    run("seed_demo")  # the list loads again: a new snapshot
    outcome = _fresh()
    assert not outcome.from_cache
    assert outcome.body["checkedAt"] != cleared["checkedAt"]
    assert outcome.body["sanctions"]["status"] == "GREEN" and outcome.body["sanctions"]["coverageComplete"] is True


def test_a_failed_refresh_of_a_core_list_drops_the_cached_clear(demo_world, client, tmp_path):
    _cached_clear(client)
    broken = tmp_path / "SDN.CSV"
    broken.write_text("this is not the sdn list\n")
    with pytest.raises(CommandError):
        run("refresh_sources", "--source", "ofac_sdn", "--file", f"sdn={broken}")
    outcome = _fresh()
    assert not outcome.from_cache
    # The previous copy keeps serving, so the engine still answers a complete GREEN, screened anew.
    assert outcome.body["sanctions"]["status"] == "GREEN"
    assert outcome.body["sanctions"]["coverageComplete"] is True


def test_a_new_snapshot_of_a_core_list_is_never_hidden_by_a_cached_clear(demo_world, client, tmp_path):
    _cached_clear(client)
    sdn = tmp_path / "SDN.CSV"
    sdn.write_text(
        '990077,"DEMO FJORD GUARDIAN","vessel","IRAN","-0- ","-0- ","Crude Oil Tanker","-0- ","-0- ",'
        f'"Norway","-0- ","Vessel Registration Identification IMO {demo.GREEN_CLEAN}; MMSI 257990077."\n'
    )
    run("refresh_sources", "--source", "ofac_sdn", "--file", f"sdn={sdn}")
    body = check(client, demo.GREEN_CLEAN)
    assert body["sanctions"]["status"] == "RED"


def _database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{settings.get('PORT') or 5432}/{settings['NAME']}"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_list_dropped_by_another_process_drops_the_cached_clear_here(client):
    run("seed_demo")
    datastate.invalidate()
    _cached_clear(client)
    # Another process (an operator's shell, a worker) takes the EU list out; this process is not told.
    env = {**os.environ, "DATABASE_URL": _database_url(), "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "manage.py", "seed_demo", "--omit-source", "eu_sanctions"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    time.sleep(datastate.CHECK_SECONDS + 0.2)  # the data-state version check every process makes
    body = check(client, demo.GREEN_CLEAN, ip="198.51.100.24")
    assert body["sanctions"]["status"] == "INCOMPLETE"
    assert body["sanctions"]["coverageComplete"] is False
    assert "eu_sanctions" in body["sanctions"]["coverageGaps"]


def test_a_cached_check_whose_report_was_evicted_is_screened_again_and_its_page_renders(demo_world, client):
    from django.core.cache import cache

    _cached_clear(client)
    fingerprint = keyless.coverage_fingerprint(datastate.current())
    cache.delete(keyless._report_key(demo.GREEN_CLEAN, fingerprint))  # evicted apart from the check
    again = _fresh()
    assert not again.from_cache and again.report is not None
    cache.delete(keyless._report_key(demo.GREEN_CLEAN, fingerprint))
    page = client.get(f"/vessels/{demo.GREEN_CLEAN}/report", REMOTE_ADDR="198.51.100.23")
    assert page.status_code == 200  # was a TypeError (500): the page read a report that was not there
