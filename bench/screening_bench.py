"""Matching and screening speed on a synthetic sanctions world.

    .venv/bin/python bench/screening_bench.py [--records 50000] [--queries 2000]

Reports the index build time and match_hull latency (exact IMO + MMSI + fuzzy names under
two names per hull) — the in-memory hot path every screening, check, batch item and monitor
run takes.
"""

from __future__ import annotations

import argparse
import random
import time

from common import report, setup_django
from synthetic_world import imo_with_check_digit, listed_records, vessel_name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=50000)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    setup_django()
    from screening.index import SanctionsIndex
    from screening.matching import match_hull

    records = listed_records(args.records)
    started = time.perf_counter()
    index = SanctionsIndex.build(records, version="bench")
    print(
        f"index build: {records.__len__()} records, {index.name_count} names in {time.perf_counter() - started:.2f} s"
    )
    rng = random.Random(3)
    listed_vessels = [r for r in records if r.imo]
    samples, hits = [], 0
    for _ in range(args.queries):
        if rng.random() < 0.2:
            target = rng.choice(listed_vessels)
            imo, names = target.imo, [target.name]
        else:
            imo, names = imo_with_check_digit(rng.randint(100000, 999999)), [vessel_name(rng), vessel_name(rng)]
        started = time.perf_counter()
        found = match_hull(index, imo=imo, mmsi=None, names=names, chosen_name=names[0])
        samples.append((time.perf_counter() - started) * 1000)
        hits += bool(found)
    report(f"match_hull over {args.records} listed records", samples)
    print(f"queries with at least one hit: {hits} of {args.queries}")


if __name__ == "__main__":
    main()
