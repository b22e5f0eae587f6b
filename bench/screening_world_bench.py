"""Keyed-screening engine latency on a full-scale synthetic world in the configured database.

    DATABASE_URL=sqlite:////tmp/world.sqlite3 .venv/bin/python bench/screening_world_bench.py [--queries 500]

Loads (once per database) 25,000 sanctions entries of which 3,000 vessels with aliases, 200,000
register rows and 500,000 inspections, then times screen_hull (identity from the stores,
matching, verdict, vetting and ownership) for random hulls.
"""

from __future__ import annotations

import argparse
import random
import time

from common import report, setup_django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    setup_django()
    from django.core.management import call_command
    from synthetic_world import load_world

    from screening import datastate, engine
    from screening.models import RegisterEntry

    call_command("migrate", verbosity=0)
    if not RegisterEntry.objects.exists():
        started = time.perf_counter()
        load_world()
        print(f"synthetic world loaded in {time.perf_counter() - started:.1f} s")
    imos = list(RegisterEntry.objects.values_list("imo", flat=True).distinct()[:20000])
    started = time.perf_counter()
    state = datastate.current()
    print(f"index build: {len(state.sanctions.records)} listed records in {time.perf_counter() - started:.2f} s")
    rng = random.Random(5)
    samples = []
    for _ in range(args.queries):
        imo = rng.choice(imos)
        started = time.perf_counter()
        engine.screen_hull(imo, check_digit_valid=True)
        samples.append((time.perf_counter() - started) * 1000)
    report("screen_hull on the full-scale world", samples)


if __name__ == "__main__":
    main()
