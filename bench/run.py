"""Benchmark runner: `python bench/run.py <scenario> [scenario options]`; prints p50/p95/p99 and throughput.

Scenarios: routing, matching, assessment, screening (full-scale synthetic world in the database), ingest.
"""

from __future__ import annotations

import sys
from importlib import import_module

SCENARIOS = {
    "routing": "routing_bench",
    "matching": "screening_bench",
    "assessment": "assessment_bench",
    "screening": "screening_world_bench",
    "ingest": "ingest_bench",
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in SCENARIOS:
        print(f"usage: bench/run.py {{{','.join(SCENARIOS)}}} [options]", file=sys.stderr)
        raise SystemExit(2)
    scenario = sys.argv.pop(1)
    import_module(SCENARIOS[scenario]).main()


if __name__ == "__main__":
    main()
