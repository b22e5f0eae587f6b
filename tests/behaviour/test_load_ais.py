"""manage.py load_ais: one atomic load per file, from the file to the served store, links and events."""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from behaviour import services, store
from behaviour.models import AisLink, AisLoad, AisVesselDay, BehaviourEvent
from screening.imo import imo_check_digit_valid
from tests.behaviour.ais_files import MARINECADASTRE_SAMPLE, NMEA_SAMPLE, dma_row, requires_ais_data, write_dma

pytestmark = pytest.mark.django_db

JUNE_30_2020 = (1_593_475_200, 1_593_561_599)  # 2020-06-30T00:00:00Z to 23:59:59Z, as epoch seconds


def _load(*args: str) -> str:
    out = io.StringIO()
    call_command("load_ais", *args, stdout=out, stderr=out)
    return out.getvalue()


def _store_dirs(root: Path) -> list[Path]:
    return sorted(root.glob("*/day=*/load=*")) if root.exists() else []


def _class_a_static_links(path: Path, imo_column: str, class_column: str) -> set[tuple[int, str]]:
    """(MMSI, IMO) pairs of Class A ship rows whose IMO holds its check digit, read with the csv module."""
    pairs = set()
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            imo = row[imo_column].removeprefix("IMO")
            mmsi = row["MMSI"]
            if row[class_column] == "A" and imo_check_digit_valid(imo) and 200_000_000 <= int(mmsi) <= 799_999_999:
                pairs.add((int(mmsi), imo))
    return pairs


def test_a_marinecadastre_file_is_stored_summarised_and_linked_by_check_digit_valid_imos(ais_store, ny_harbor_hour):
    output = _load(str(ny_harbor_hour))

    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.COMMITTED, load.error
    assert load.format == "marinecadastre"
    assert load.days == ["2020-06-30"]
    assert f"{load.positions:,} positions" in output
    served = store.read_positions([load.pk], *JUNE_30_2020)
    assert len(served) == load.positions > 0
    assert sum(AisVesselDay.objects.values_list("positions", flat=True)) == load.positions
    assert AisVesselDay.objects.count() == served["mmsi"].nunique() == load.mmsis
    linked = set(AisLink.objects.values_list("mmsi", "imo"))
    assert linked == _class_a_static_links(ny_harbor_hour, "IMO", "TranscieverClass")
    assert all(imo_check_digit_valid(imo) for _, imo in linked)


@requires_ais_data
def test_the_real_marinecadastre_sample_links_exactly_its_class_a_ships_with_valid_imos(ais_store):
    _load(str(MARINECADASTRE_SAMPLE))
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.COMMITTED, load.error
    linked = set(AisLink.objects.values_list("mmsi", "imo"))
    assert linked == _class_a_static_links(MARINECADASTRE_SAMPLE, "IMO", "TransceiverClass")
    assert load.counts["rows_read"] == 99_999


def test_the_same_file_twice_is_loaded_once(ais_store, ny_harbor_hour):
    _load(str(ny_harbor_hour))
    output = _load(str(ny_harbor_hour))
    assert "already loaded" in output
    assert AisLoad.objects.count() == 1
    assert len({path.name for path in _store_dirs(ais_store)}) == 1


def test_a_file_in_no_ais_format_is_refused_naming_what_was_expected_and_leaves_nothing(ais_store, tmp_path):
    picture = tmp_path / "chart.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with pytest.raises(CommandError, match="1 of 1 files not loaded"):
        _load(str(picture))
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.FAILED
    assert "Danish Maritime Authority" in load.error and "MarineCadastre" in load.error and "NMEA" in load.error
    assert _store_dirs(ais_store) == []
    assert not AisVesselDay.objects.exists() and not AisLink.objects.exists()


def test_a_file_of_another_format_than_the_one_named_is_refused(ais_store, ny_harbor_hour):
    with pytest.raises(CommandError):
        _load("--format", "dma", str(ny_harbor_hour))
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.FAILED
    assert "Danish Maritime Authority" in load.error
    assert _store_dirs(ais_store) == []


def test_a_load_that_breaks_after_writing_its_files_leaves_no_summary_link_event_or_file(
    ais_store, ny_harbor_hour, monkeypatch
):
    def broken_detection(*args, **kwargs):
        raise RuntimeError("detector crashed")

    monkeypatch.setattr(services, "detect", broken_detection)
    with pytest.raises(RuntimeError):
        _load(str(ny_harbor_hour))
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.FAILED and "detector crashed" in load.error
    assert _store_dirs(ais_store) == []
    assert not AisVesselDay.objects.exists()
    assert not AisLink.objects.exists()
    assert not BehaviourEvent.objects.exists()


def test_an_imo_failing_its_check_digit_in_a_static_message_is_never_linked(ais_store, tmp_path):
    rows = []
    for minute in range(10):
        stamp = f"03/01/2022 00:{minute:02d}:00"
        common = {"# Timestamp": stamp, "Type of mobile": "Class A", "SOG": "12.0", "COG": "90.0"}
        rows.append(dma_row(**common, MMSI="219000001", Latitude="55.5", Longitude=f"{11 + minute / 100}",
                            IMO="9074729", Name="GOOD CHECK"))  # fmt: skip
        rows.append(dma_row(**common, MMSI="219000002", Latitude="56.5", Longitude=f"{11 + minute / 100}",
                            IMO="9074728", Name="BAD CHECK"))  # fmt: skip
    _load("--format", "dma", str(write_dma(tmp_path / "aisdk-2022-01-03.csv", rows)))
    load = AisLoad.objects.get()
    assert load.status == AisLoad.Status.COMMITTED, load.error
    assert list(AisLink.objects.values_list("mmsi", "imo")) == [(219000001, "9074729")]
    assert load.counts["imo_check_digit_failed"] == 10
    assert AisVesselDay.objects.count() == 2


@requires_ais_data
def test_nmea_without_timestamps_is_refused_unless_a_receive_time_is_given(ais_store):
    with pytest.raises(CommandError):
        _load(str(NMEA_SAMPLE))
    refused = AisLoad.objects.get()
    assert refused.status == AisLoad.Status.FAILED
    assert "no_timestamp" in refused.error
    _load("--received-at", "2024-03-01T12:00:00Z", str(NMEA_SAMPLE))
    loaded = AisLoad.objects.exclude(pk=refused.pk).get()
    assert loaded.status == AisLoad.Status.COMMITTED, loaded.error
    assert loaded.format == "nmea" and loaded.days == ["2024-03-01"]


def test_the_drop_folder_loads_settled_files_and_moves_each_to_loaded_or_failed(
    ais_store, settings, tmp_path, ny_harbor_hour
):
    drop = tmp_path / "drop"
    drop.mkdir()
    settings.AIS_DROP_DIR = str(drop)
    good = drop / ny_harbor_hour.name
    good.write_bytes(ny_harbor_hour.read_bytes())
    bad = drop / "notes.txt"
    bad.write_text("not AIS at all\n")
    fresh = drop / "still-copying.csv"
    fresh.write_text("MMSI,BaseDateTime\n")
    settled = time.time() - 120
    for path in (good, bad):
        os.utime(path, (settled, settled))

    report = services.load_drop_folder()

    assert report.loaded == [good.name] and report.failed == ["notes.txt"]
    assert (drop / "loaded" / good.name).is_file()
    assert (drop / "failed" / "notes.txt").is_file()
    assert "expected" in (drop / "failed" / "notes.txt.error.txt").read_text()
    assert fresh.is_file(), "a file written moments ago is left for the next pass"
    assert AisLoad.objects.get(status=AisLoad.Status.COMMITTED).origin == AisLoad.Origin.DROP_FOLDER


def test_a_dropped_file_whose_loader_stopped_is_tried_again_then_given_up(
    ais_store, settings, tmp_path, ny_harbor_hour
):
    from datetime import timedelta

    from django.utils import timezone

    drop = tmp_path / "drop"
    (drop / "processing").mkdir(parents=True)
    settings.AIS_DROP_DIR = str(drop)

    def stopped_loader() -> AisLoad:
        """A load claimed from processing/ whose worker died: its lease ran out, its files half written."""
        taken = drop / "processing" / ny_harbor_hour.name
        taken.write_bytes(ny_harbor_hour.read_bytes())
        queued = services.queue_load(taken, AisLoad.Origin.DROP_FOLDER)
        AisLoad.objects.filter(pk=queued.load.pk).update(
            status=AisLoad.Status.LOADING, claims=1, lease_expires_at=timezone.now() - timedelta(seconds=1)
        )
        half = ais_store / "positions" / "day=2020-06-30" / f"load={queued.load.pk}"
        half.mkdir(parents=True)
        (half / "part-00000.parquet").write_bytes(b"partial")
        return queued.load

    first = stopped_loader()
    assert services.fail_lapsed_loads() == 1
    assert AisLoad.objects.get(pk=first.pk).status == AisLoad.Status.FAILED
    assert _store_dirs(ais_store) == []
    back = drop / ny_harbor_hour.name
    assert back.is_file(), "the file is back in the drop folder for another try"
    back.unlink()

    stopped_loader()
    assert services.fail_lapsed_loads() == 1
    assert (drop / "failed" / ny_harbor_hour.name).is_file()
    assert "given up" in (drop / "failed" / f"{ny_harbor_hour.name}.error.txt").read_text()
