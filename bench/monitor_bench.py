"""Vessel monitors' daily run at scale: wall time, units charged, events written.

    .venv/bin/python bench/monitor_bench.py [--monitors 10000] [--concurrency N]

Starts its own stack (nothing on the machine's PostgreSQL or Redis is touched): a throwaway
PostgreSQL and Redis on free ports (bench/http_bench.py BenchStack), `migrate`, `seed_demo`. It
opens paid accounts (opened 2026-09-01: 5,000 live screenings a month each) and gives each one a
live monitor on every demo hull whose IMO passes its check digit (GREEN, AMBER and RED hulls, and
the INCOMPLETE ones that make degraded runs), until --monitors monitors exist. One Celery worker
(prefork, --concurrency, default the CPU count: what `celery -A config worker` runs) does the runs.

Two phases, each timed from the schedule opening every slot until no run is open:
    day 1  the first runs: baselines (vessel_monitor.ready) or degraded runs
    day 2  the next slot of every monitor (nothing moved: no change events)
Prints per phase: runs, wall time, runs per second, units charged, events written by type.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from http_bench import BenchStack  # noqa: E402

CREATE_MONITORS = """
from datetime import date
from django.utils import timezone
from accounts.services import issue_key
from monitoring.models import VesselMonitor
from screening import demo
from screening.imo import imo_check_digit_valid

hulls = [hull.imo for hull in demo.HULLS if imo_check_digit_valid(hull.imo)]
wanted = {count}
now = timezone.now()
made = 0
n = 0
while made < wanted:
    n += 1
    account, _, _ = issue_key(email=f"fleet{{n}}@bench.example", environment="live", opened_on=date(2026, 9, 1))
    batch = [
        VesselMonitor(account=account, environment="live", imo=imo, mode="live", next_run_at=now)
        for imo in hulls[: wanted - made]
    ]
    VesselMonitor.objects.bulk_create(batch)
    made += len(batch)
print("ACCOUNTS", n, "HULLS", len(hulls))
"""

OPEN_SLOTS = """
from monitoring import runs
from monitoring.vessels import KIND
opened = []
while True:
    batch = runs.schedule(KIND)
    if not batch:
        break
    opened.extend(batch)
print("OPENED", len(opened))
"""


def sql_int(stack: BenchStack, statement: str) -> int:
    return int(stack.postgres.sql(statement)[0][0] or 0)


def open_runs(stack: BenchStack) -> int:
    return sql_int(
        stack, "SELECT count(*) FROM monitoring_vesselmonitorrun WHERE status IN ('queued', 'running', 'deferred')"
    )


def events_by_type(stack: BenchStack) -> dict[str, int]:
    return {
        row[0]: int(row[1]) for row in stack.postgres.sql("SELECT type, count(*) FROM webhooks_event GROUP BY type")
    }


def units(stack: BenchStack) -> int:
    return sql_int(
        stack,
        "SELECT coalesce(sum(used), 0) FROM accounts_quotacounter WHERE kind = 'screening' AND environment = 'live'",
    )


def phase(stack: BenchStack, label: str, timeout: float) -> dict:
    before_units, before_events = units(stack), events_by_type(stack)
    started = time.perf_counter()
    opened = int(stack.python(OPEN_SLOTS).split("OPENED", 1)[1].split()[0])
    while open_runs(stack):
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"{label}: {open_runs(stack)} runs still open after {timeout:.0f} s")
        time.sleep(0.5)
    wall = time.perf_counter() - started
    after_events = events_by_type(stack)
    written = {kind: after_events[kind] - before_events.get(kind, 0) for kind in after_events}
    failed = sql_int(stack, "SELECT count(*) FROM monitoring_vesselmonitorrun WHERE status = 'failed'")
    result = {
        "label": label,
        "runs": opened,
        "wall_s": wall,
        "runs_per_s": opened / wall if wall else 0.0,
        "units": units(stack) - before_units,
        "events": {kind: count for kind, count in sorted(written.items()) if count},
        "failed_total": failed,
    }
    print(
        f"{label}: {opened} runs in {wall:.1f} s ({result['runs_per_s']:.1f} runs/s), "
        f"{result['units']} units charged, events {result['events']}, failed runs so far {failed}",
        flush=True,
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--monitors", type=int, default=10000)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="svc-monitor-bench-"))
    stack = BenchStack(folder, workers=0, threads=0)
    worker: subprocess.Popen | None = None
    try:
        stack.start_servers()
        stack.manage("migrate", "--no-input")
        stack.manage("seed_demo")
        made = stack.python(CREATE_MONITORS.format(count=args.monitors))
        print(f"{args.monitors} live monitors ({made.strip()}), one worker x {args.concurrency} (prefork)", flush=True)
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", f"--concurrency={args.concurrency}",
             "--loglevel=WARNING", "--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=stack.env, stdout=open(folder / "worker.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        first = phase(stack, "day 1 (baselines)", args.timeout)
        stack.postgres.sql("UPDATE monitoring_vesselmonitor SET next_run_at = now()")
        second = phase(stack, "day 2 (daily run)", args.timeout)
        per_run_ms = 1000 * second["wall_s"] / max(1, second["runs"])
        print(
            f"\nsummary: the daily run of {second['runs']} monitors takes {second['wall_s']:.0f} s on this machine "
            f"({per_run_ms:.1f} ms of wall time per run with {args.concurrency} processes), charges "
            f"{second['units']} units and writes {sum(second['events'].values())} events; "
            f"day 1 wrote {sum(first['events'].values())} events",
            flush=True,
        )
        return 0
    finally:
        if worker is not None and worker.poll() is None:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        stack.destroy()


if __name__ == "__main__":
    raise SystemExit(main())
