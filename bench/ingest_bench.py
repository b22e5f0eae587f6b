"""Ingestion cost: parse + atomic load of the real OFAC file, index build, and process memory.

    DATABASE_URL=sqlite:////tmp/ingest.sqlite3 .venv/bin/python bench/ingest_bench.py

Needs ../shared/data (the OFAC snapshot). Peak memory is the process's maximum resident set
(ru_maxrss) after each step.
"""

from __future__ import annotations

import resource
import time

from common import SHARED_DATA, setup_django


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    setup_django()
    from django.core.management import call_command

    from screening import datastate
    from screening.ingest import checksum, load_snapshot
    from screening.models import SourceSnapshot
    from screening.sources.ofac import parse_sdn_csv

    call_command("migrate", verbosity=0)
    SourceSnapshot.objects.filter(source="ofac_sdn").delete()
    print(f"process after set-up: peak RSS {rss_mb():.0f} MB")
    data = (SHARED_DATA / "ofac" / "sdn-2024-05-03.csv").read_bytes()
    started = time.perf_counter()
    parsed = parse_sdn_csv(data)
    parse_s = time.perf_counter() - started
    started = time.perf_counter()
    load_snapshot(parsed, data_checksum=checksum(data), origin="bench")
    load_s = time.perf_counter() - started
    print(
        f"OFAC SDN 2024-05-03: {len(parsed.records)} records parsed in {parse_s:.2f} s, loaded atomically in "
        f"{load_s:.2f} s; peak RSS {rss_mb():.0f} MB"
    )
    datastate.invalidate()
    started = time.perf_counter()
    state = datastate.current()
    print(
        f"index build from the database: {len(state.sanctions.records)} records, {state.sanctions.name_count} "
        f"names in {time.perf_counter() - started:.2f} s; peak RSS {rss_mb():.0f} MB"
    )


if __name__ == "__main__":
    main()
