"""The cost of one corridor monitor run: the worker body (`monitoring.runs.run`) for live monitors on
routable lanes, first runs (baselines) and second runs (compared with the baseline), in-process.

    .venv/bin/python bench/corridor_monitor_bench.py [--monitors 200] [--database-url URL]

Runs on a throwaway SQLite file unless --database-url is given (a PostgreSQL URL gives the
production figure; the database is migrated, and its tables are written). Each monitor gets one
lane drawn from LANES; its run is opened directly (no broker), then run as a worker runs it.
Prints per phase: latency percentiles, queries per run, units charged and events written, and the
share of the run that is the assessment itself (compute_document) rather than the monitor's writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

LANES = [
    {"origin": "NLRTM", "destination": "DEHAM"},
    {"origin": "NLRTM", "destination": "SGSIN"},
    {"origin": "NLRTM", "destination": "SGSIN", "closed_passages": ["suez", "babalmandab", "northwest"]},
    {"origin": "USNYC", "destination": "JPTYO"},
    {"origin": "INBOM", "destination": "AEJEA"},
    {"origin": "GHTEM", "destination": "NGLOS"},
    {"origin": "CNSHA", "destination": "USLAX", "vessel_type": "container", "dwt_tonnes": 120000, "speed_knots": 18},
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--monitors", type=int, default=200)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    scratch = None
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    else:
        scratch = tempfile.NamedTemporaryFile(suffix=".sqlite3", delete=False)
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}"
    from common import report, setup_django

    setup_django()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.services import issue_key
    from metering import quota
    from monitoring import runs
    from monitoring.corridors import KIND
    from monitoring.models import CorridorMonitor
    from voyages.requests import parse_route_request
    from voyages.services import compute_document
    from webhooks.models import Event

    call_command("migrate", verbosity=0)
    accounts = []
    monitors = []
    for number in range(args.monitors):
        if number % 10 == 0:  # 10 corridor monitors per live key, the cap
            account, _, _ = issue_key(email=f"corridor-bench-{time.time_ns()}@example.com", environment="live")
            accounts.append(account)
        lane = LANES[number % len(LANES)]
        monitors.append(
            CorridorMonitor.objects.create(
                account=accounts[-1], environment="live", request={"route": lane}, next_run_at=timezone.now()
            )
        )
    violations: list[dict] = []
    warm = parse_route_request({"route": LANES[1]}, violations)
    compute_document(warm, assessment_id="vas_warm", now=timezone.now())  # routing network, layers, land mask

    def units() -> int:
        return sum(quota.current_state(a, "live", quota.KIND_ASSESSMENT).used for a in accounts)

    assess_only = []
    for monitor in monitors[: min(len(monitors), 100)]:
        request = parse_route_request(monitor.request, [])
        started = time.perf_counter()
        compute_document(request, assessment_id="vas_bench", now=timezone.now())
        assess_only.append((time.perf_counter() - started) * 1000)
    report("assessment alone (compute_document)", assess_only)

    slot = timezone.now()
    for phase in ("first runs (baseline)", "second runs (compared)"):
        events_before, units_before = Event.objects.count(), units()
        samples, queries = [], []
        for monitor in monitors:
            run, _ = runs.open_run(KIND, monitor, slot)
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                outcome = runs.run(KIND, run.pk)
                samples.append((time.perf_counter() - started) * 1000)
            assert outcome == runs.RAN, outcome
            queries.append(len(captured.captured_queries))
        report(f"corridor run: {phase}", samples)
        print(
            f"    queries per run: {min(queries)}-{max(queries)} (mean {sum(queries) / len(queries):.1f}); "
            f"units charged {units() - units_before}; events written {Event.objects.count() - events_before}"
        )
        slot += KIND.cadence
    if scratch is not None:
        os.unlink(scratch.name)


if __name__ == "__main__":
    main()
