"""Small helpers shared by the benchmarks: Django set-up, percentiles, a report line."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[rank]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def report(label: str, samples_ms: list[float]) -> str:
    line = (
        f"{label:<44} n={len(samples_ms):<5} p50={percentile(samples_ms, 50):8.2f} ms  "
        f"p95={percentile(samples_ms, 95):8.2f} ms  p99={percentile(samples_ms, 99):8.2f} ms  "
        f"mean={statistics.fmean(samples_ms):8.2f} ms  throughput={1000 * len(samples_ms) / sum(samples_ms):8.1f}/s"
    )
    print(line)
    return line
