"""Loads running at once: one claim per load, and detection that sees every committed file.

Run on PostgreSQL (bin/test with DATABASE_URL) these are real concurrent transactions; SQLite serialises
writers, which the detection lock relies on there too.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection

from behaviour import services
from behaviour.models import AisLoad, AisVesselDay, BehaviourEvent
from core.leases import LeaseLost
from tests.behaviour.ais_files import dma_row, write_dma

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MEETING_AT = (56.0, 4.0)  # the open North Sea, far from any port
START = datetime(2024, 3, 1, 6, 0, tzinfo=UTC)


def _slow_ship(path: Path, mmsi: str, lon_offset: float) -> Path:
    """Three and a half hours stopped at sea, a report every three minutes."""
    rows = []
    for minute in range(0, 210, 3):
        at = START + timedelta(minutes=minute)
        rows.append(
            dma_row(
                **{
                    "# Timestamp": at.strftime("%d/%m/%Y %H:%M:%S"),
                    "Type of mobile": "Class A",
                    "MMSI": mmsi,
                    "Latitude": f"{MEETING_AT[0]:.6f}",
                    "Longitude": f"{MEETING_AT[1] + lon_offset:.6f}",
                    "SOG": "0.4",
                    "COG": "90.0",
                }
            )  # fmt: skip
        )
    return write_dma(path, rows)


def _in_threads(*jobs):  # type: ignore[no-untyped-def]
    """Run each job in its own thread (its own database connection); what each returned or raised."""
    outcomes: list[object] = [None] * len(jobs)

    def run(index: int) -> None:
        try:
            outcomes[index] = jobs[index]()
        except Exception as error:  # the outcome is what the test looks at
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


def test_two_loaders_on_one_queued_file_load_it_once(ais_store, ny_harbor_hour):
    queued = services.queue_load(ny_harbor_hour)
    outcomes = _in_threads(lambda: services.run_load(queued.load.pk), lambda: services.run_load(queued.load.pk))
    loaded = [outcome for outcome in outcomes if isinstance(outcome, services.LoadOutcome)]
    assert len(loaded) == 1, outcomes
    assert [type(outcome) for outcome in outcomes if not isinstance(outcome, services.LoadOutcome)] == [LeaseLost]
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.COMMITTED and load.claims == 1
    assert AisVesselDay.objects.count() == load.mmsis


def test_two_files_loaded_at_once_still_show_the_meeting_between_their_ships(ais_store, tmp_path, monkeypatch):
    """Ship A is in one file, ship B in the other: only a detection that reads both sees them meet."""
    real_detect = services.detect
    both_detecting = threading.Barrier(2, timeout=3)

    def detect_side_by_side(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            both_detecting.wait()  # without the lock, both loads detect at the same moment
        except threading.BrokenBarrierError:
            pass  # the other load is waiting for the lock: it detects after this one commits
        return real_detect(*args, **kwargs)

    monkeypatch.setattr(services, "detect", detect_side_by_side)
    first = services.queue_load(_slow_ship(tmp_path / "aisdk-a.csv", "219000011", 0.0))
    second = services.queue_load(_slow_ship(tmp_path / "aisdk-b.csv", "219000022", 0.0012))  # about 75 m east
    outcomes = _in_threads(lambda: services.run_load(first.load.pk), lambda: services.run_load(second.load.pk))
    assert all(isinstance(outcome, services.LoadOutcome) for outcome in outcomes), outcomes
    meetings = sorted(BehaviourEvent.objects.filter(kind="sts_meeting").values_list("mmsi", "other_mmsi"))
    assert meetings == [(219000011, 219000022), (219000022, 219000011)]
