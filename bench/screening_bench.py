"""Matching and screening speed on a synthetic sanctions world.

    .venv/bin/python bench/run.py matching [--records 50000 | --names 1000000] [--queries 2000]

Reports the index build time, the memory the index holds (resident set growth while building it,
so what a worker pays) and match_hull latency (exact IMO + MMSI + names under two names per hull):
the in-memory hot path every screening, check, batch item and monitor run takes. --names sizes the
world by indexed names instead of records (the largest open sanctions dataset, entities included,
holds about a million names). Targets (issue 29): p95 <= 1 ms at 50,000 records, <= 2 ms at
1,000,000 names with the index under 300 MB.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import time

from common import report, setup_django
from synthetic_world import imo_with_check_digit, listed_records, vessel_name


def _resident_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# Synthetic records carry this many indexed names on average (a name and 0-2 aliases).
_NAMES_PER_RECORD = 2.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=50000)
    parser.add_argument("--names", type=int, default=None, help="size the world by indexed names instead")
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    setup_django()
    from screening.index import SanctionsIndex
    from screening.matching import match_hull

    count = round(args.names / _NAMES_PER_RECORD) if args.names else args.records
    records = listed_records(count)
    gc.collect()
    before = _resident_mb()
    started = time.perf_counter()
    index = SanctionsIndex.build(records, version="bench")
    built = time.perf_counter() - started
    gc.collect()
    print(
        f"index build: {len(records)} records, {index.name_count} names in {built:.2f} s; "
        f"resident set grew {_resident_mb() - before:.0f} MB (the records themselves excluded)"
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
    report(f"match_hull over {len(records)} listed records ({index.name_count} names)", samples)
    print(f"queries with at least one hit: {hits} of {args.queries}")


if __name__ == "__main__":
    main()
