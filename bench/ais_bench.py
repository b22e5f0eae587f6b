"""AIS behaviour (issue 31): ingestion rate and memory, the detectors over a day, the behaviour endpoint.

    .venv/bin/python bench/ais_bench.py [--rows 10000000] [--skip-ingest] [--skip-detect] [--skip-endpoint]

ingest    A DMA-layout CSV (the Danish Maritime Authority's 26 columns) written from real rows (the
          MarineCadastre sample of ../shared/data, else tracktable-data's New York Harbor hour), repeated
          with shifted times and MMSIs to --rows rows and to a tenth of that. Each file is read, cleaned and
          written to the Parquet store in a fresh process on one core (DuckDB threads 1), which reports
          positions per minute and its peak RSS; memory is flat when the two peaks are alike. Baseline in
          the same run: pandas reading the same file with no cleaning or storing (the floor of any reader).
detect    Every detector over a real day of 1,185 vessels (tracktable-data's US coasts, 2020-06-30),
          against reading those positions back from the store.
endpoint  GET /api/v1/vessels/{imo}/behaviour for a hull with 90 days of history (2 MMSIs, 180 vessel-days,
          300 events) among 2,000 other hulls' 90 days, on a throwaway SQLite database, against a trivial
          keyed GET (/api/v1/screenings?limit=1) in the same run.
Figures go in the issue's closing note; nothing is asserted.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import SHARED_DATA, percentile  # noqa: E402

STATUS_TEXT = {"0": "Under way using engine", "1": "At anchor", "5": "Moored", "8": "Under way sailing"}


def _base_rows() -> tuple[list[tuple], str]:
    """(seconds since the file's first row, mmsi, the rest of the DMA line) of real reports."""
    sample = SHARED_DATA / "ais" / "marinecadastre-AIS_2022_01_03-first99999.csv"
    if not sample.exists():
        import tracktable_data

        sample = Path(tracktable_data.__file__).parent / "python_example_data" / "NYHarbor_2020_06_30_first_hour.csv"
    rows = []
    with sample.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        class_column = "TransceiverClass" if "TransceiverClass" in (reader.fieldnames or []) else "TranscieverClass"
        for row in reader:
            stamp = datetime.fromisoformat(row["BaseDateTime"]).replace(tzinfo=UTC)
            imo = row["IMO"].removeprefix("IMO") or "Unknown"
            rest = ",".join(
                [
                    row["LAT"],
                    row["LON"],
                    STATUS_TEXT.get(row["Status"], "Unknown value"),
                    "",
                    row["SOG"],
                    row["COG"],
                    row["Heading"],
                    imo,
                    row["CallSign"],
                    '"' + row["VesselName"].replace('"', "") + '"',
                    "Cargo",
                    "",
                    row["Width"],
                    row["Length"],
                    "GPS",
                    row["Draft"],
                    "",
                    "",
                    "AIS",
                    "",
                    "",
                    "",
                    "",
                ]
            )
            rows.append((stamp, int(row["MMSI"]), ("Class A" if row[class_column] == "A" else "Class B"), rest))
    start = min(row[0] for row in rows)
    return [((stamp - start).total_seconds(), mmsi, kind, rest) for stamp, mmsi, kind, rest in rows], sample.name


def write_dma(path: Path, rows: int) -> None:
    from behaviour.ais.dma import DMA_HEADER

    base, _ = _base_rows()
    day = datetime(2024, 3, 1, tzinfo=UTC)
    written = 0
    copy = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(DMA_HEADER) + "\n")
        while written < rows:
            # Each copy is another fleet (MMSIs shifted) later in the day (times shifted).
            shift = timedelta(seconds=(copy * 600) % 80_000)
            offset = copy * 1_000_003
            lines = []
            for seconds, mmsi, kind, rest in base:
                stamp = (day + shift + timedelta(seconds=seconds)).strftime("%d/%m/%Y %H:%M:%S")
                shifted = 200_000_000 + (mmsi - 200_000_000 + offset) % 600_000_000 if mmsi >= 200_000_000 else mmsi
                lines.append(f"{stamp},{kind},{shifted},{rest}\n")
                if written + len(lines) >= rows:
                    break
            out.writelines(lines)
            written += len(lines)
            copy += 1


def ingest_child(path: Path, store_dir: Path) -> None:
    """Read, clean and store one file; print positions, seconds, peak RSS (runs in its own process)."""
    os.environ["AIS_STORE_DIR"] = str(store_dir)
    os.environ["AIS_DUCKDB_THREADS"] = "1"
    from common import setup_django

    setup_django()
    from behaviour import store
    from behaviour.ais.formats import AisFormat
    from behaviour.ais.readers import read_file

    started = time.perf_counter()
    _, chunks = read_file(path, AisFormat.DMA)
    writer = store.LoadWriter(1, store_dir)
    rows_read = 0
    for chunk in chunks:
        writer.add(chunk)
        rows_read += chunk.counts.get("rows_read", 0)
    writer.close()
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{rows_read} {writer.positions} {seconds:.3f} {peak_mb:.1f}")


def baseline_child(path: Path) -> None:
    import pandas as pd

    started = time.perf_counter()
    rows = sum(len(chunk) for chunk in pd.read_csv(path, chunksize=500_000, dtype=str))
    seconds = time.perf_counter() - started
    print(f"{rows} {rows} {seconds:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}")


def _child(*args: str) -> tuple[int, int, float, float]:
    result = subprocess.run(
        ["taskset", "-c", "0", sys.executable, __file__, *args], check=True, capture_output=True, text=True
    )
    rows, kept, seconds, peak = result.stdout.split()[-4:]
    return int(rows), int(kept), float(seconds), float(peak)


def bench_ingest(rows: int, folder: Path) -> None:
    _, source = _base_rows()
    print(f"== ingest: DMA layout written from {source}, one core ==")
    for size in (rows // 10, rows):
        path = folder / f"aisdk-{size}.csv"
        started = time.perf_counter()
        write_dma(path, size)
        print(f"  wrote {size:,} rows ({path.stat().st_size / 1e6:,.0f} MB) in {time.perf_counter() - started:.0f} s")
        read, kept, seconds, peak = _child("--ingest-child", str(path), str(folder / f"store-{size}"))
        base_rows, _, base_seconds, base_peak = _child("--baseline-child", str(path))
        print(
            f"  {size:>11,} rows: ours {read / seconds * 60:>12,.0f} rows/min ({kept / seconds * 60:,.0f} positions "
            f"kept/min), peak RSS {peak:,.0f} MB | pandas read only {base_rows / base_seconds * 60:>12,.0f} rows/min, "
            f"peak {base_peak:,.0f} MB | ours/baseline time {seconds / base_seconds:.2f}"
        )
        path.unlink()


def bench_detect() -> None:
    from behaviour.ais.frames import empty_statics
    from behaviour.detectors.context import LayerContext
    from behaviour.detectors.run import detect_all
    from tests.behaviour.real_tracks import synthetic_day, us_coastal

    positions = us_coastal()
    statics = empty_statics()  # the .traj tracks carry positions only
    context = LayerContext()
    detect_all(positions.iloc[:1000], statics, context)  # warm the layers (ports tree, land mask pages)
    samples = []
    for _ in range(3):
        started = time.perf_counter()
        events = detect_all(positions, statics, context)
        samples.append(time.perf_counter() - started)
    kinds: dict[str, int] = {}
    for event in events:
        kinds[event.kind.value] = kinds.get(event.kind.value, 0) + 1
    print("== detect: tracktable-data US coasts 2020-06-30 ==")
    print(
        f"  {positions['mmsi'].nunique():,} vessels, {len(positions):,} positions: all detectors "
        f"best {min(samples):.2f} s, worst {max(samples):.2f} s (target <= 30 s); events {kinds}"
    )
    # The same day ten times over (MMSIs shifted, positions offset): the cost as positions grow.
    dense = synthetic_day(10)
    started = time.perf_counter()
    detect_all(dense, statics, context)
    print(
        f"  x10: {dense['mmsi'].nunique():,} vessels, {len(dense):,} positions: all detectors "
        f"{time.perf_counter() - started:.2f} s"
    )


def throwaway_database(folder: Path) -> None:
    """Django on a migrated SQLite database of the bench's own (the detectors read the voyage layers)."""
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.sqlite3'}"
    os.environ["AIS_STORE_DIR"] = str(folder / "store")
    from common import setup_django

    setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def bench_endpoint(rounds: int) -> None:
    from django.test import Client

    from accounts.services import issue_key
    from behaviour.models import AisLink, AisLoad, AisVesselDay, BehaviourEvent
    from metering import ratelimit

    load = AisLoad.objects.create(file_name="bench.csv", file_sha256="0" * 64, status=AisLoad.Status.COMMITTED)
    end = datetime(2026, 11, 1, tzinfo=UTC)
    hull_mmsis = (219000001, 219000002)
    for mmsi in hull_mmsis:
        AisLink.objects.create(mmsi=mmsi, imo="9074729", basis=AisLink.Basis.STATIC_IMO, reports=1000, names=["BENCH"])
    days, events = [], []
    for number, mmsi in enumerate([*hull_mmsis, *range(230000000, 230002000)]):
        for offset in range(90):
            day = end - timedelta(days=offset + 1)
            days.append(AisVesselDay(load=load, mmsi=mmsi, day=day.date(), positions=8000, first_position_at=day,
                                     last_position_at=day + timedelta(hours=23), min_lat=1, max_lat=2, min_lon=3,
                                     max_lon=4, longest_gap_seconds=600))  # fmt: skip
        for offset in range(150 if mmsi in hull_mmsis else 5):
            started = end - timedelta(hours=offset * 14 + number % 7)
            events.append(BehaviourEvent(id=f"bev_{mmsi}_{offset}", kind="port_call" if offset % 3 else "dark_period",
                                         severity="info" if offset % 3 else "high", mmsi=mmsi, imo="",
                                         started_at=started, ended_at=started + timedelta(hours=5), lat=1, lon=2,
                                         summary="bench", evidence={"hours": 5}, detector_version="1",
                                         detected_at=end, load=load))  # fmt: skip
    AisVesselDay.objects.bulk_create(days, batch_size=5000)
    BehaviourEvent.objects.bulk_create(events, batch_size=5000)
    _, _, raw = issue_key(email="bench@example.com", environment="test")
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    window = f"from={(end - timedelta(days=90)).strftime('%Y-%m-%dT%H:%M:%SZ')}&to={end.strftime('%Y-%m-%dT%H:%M:%SZ')}"

    def measure(path: str) -> list[float]:
        samples = []
        for _ in range(rounds):
            ratelimit.reset_all()  # the key's 120 a minute would stop the run, not measure it
            started = time.perf_counter()
            response = client.get(path, **headers)
            samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.content[:300]
        return samples

    for _ in range(5):
        ratelimit.reset_all()
        client.get(f"/api/v1/vessels/9074729/behaviour?{window}", **headers)
        client.get("/api/v1/screenings?limit=1", **headers)
    ours = measure(f"/api/v1/vessels/9074729/behaviour?{window}&limit=100")
    baseline = measure("/api/v1/screenings?limit=1")
    print(f"== endpoint: {len(days):,} vessel-days, {len(events):,} events in the database ==")
    print(
        f"  behaviour (90 days, 300 events, first page of 100): p50 {percentile(ours, 50):.1f} ms, "
        f"p95 {percentile(ours, 95):.1f} ms (target <= 50 ms) | trivial keyed GET p50 {percentile(baseline, 50):.1f} "
        f"ms, p95 {percentile(baseline, 95):.1f} ms | ratio of p95 {percentile(ours, 95) / percentile(baseline, 95):.1f}"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--ingest-child":
        ingest_child(Path(sys.argv[2]), Path(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--baseline-child":
        baseline_child(Path(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-detect", action="store_true")
    parser.add_argument("--skip-endpoint", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ais-bench-"))
    if not args.skip_ingest:
        bench_ingest(args.rows, folder)
    if not (args.skip_endpoint and args.skip_detect):
        throwaway_database(folder)
    if not args.skip_endpoint:
        bench_endpoint(args.rounds)
    if not args.skip_detect:
        bench_detect()


if __name__ == "__main__":
    main()
