"""AIS files dropped into AIS_DROP_DIR are loaded by a real Celery worker process, one atomic load each."""

from __future__ import annotations

import os
import time

import pytest

from behaviour.models import AisLink, AisLoad
from config.celery import app
from tests.support.worker import private_broker, start_worker, stop_worker, wait_until, worker_log

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_worker_loads_a_dropped_file_and_moves_it_to_loaded(tmp_path, ny_harbor_hour):
    drop, store = tmp_path / "drop", tmp_path / "store"
    drop.mkdir()
    dropped = drop / ny_harbor_hour.name
    dropped.write_bytes(ny_harbor_hour.read_bytes())
    settled = time.time() - 120
    os.utime(dropped, (settled, settled))
    with private_broker(tmp_path / "broker") as broker_env:
        worker = start_worker(
            {**broker_env, "AIS_DROP_DIR": str(drop), "AIS_STORE_DIR": str(store)}, log_path=tmp_path / "w.log"
        )
        try:
            app.send_task("behaviour.load_dropped_files")
            try:
                wait_until(lambda: AisLoad.objects.filter(status=AisLoad.Status.COMMITTED).exists(), 120, "the load")
            except AssertionError:
                print(worker_log(worker)[-4000:])
                raise
        finally:
            stop_worker(worker)
    load = AisLoad.objects.get()
    assert load.origin == AisLoad.Origin.DROP_FOLDER and load.format == "marinecadastre"
    assert (drop / "loaded" / ny_harbor_hour.name).is_file() and not dropped.exists()
    assert load.file_path == str(drop / "loaded" / ny_harbor_hour.name)
    assert AisLink.objects.filter(mmsi=219947000, imo="9190731").exists()
    assert any(store.glob(f"positions/day=2020-06-30/load={load.pk}/part-*.parquet"))
