"""Screening batches end to end through a real worker, and fleet exposure for 5,000 hulls.

    .venv/bin/python bench/screening_batch_bench.py [--batches 10] [--concurrency N] [--hulls 5000]

Own throwaway PostgreSQL and Redis (bench/http_bench.py BenchStack; nothing on the machine's
servers is touched), `migrate`, `seed_demo`, one Celery worker (prefork, --concurrency, default the
CPU count: what `celery -A config worker` runs) on the Redis broker.

1. Batches: a paid live account submits --batches batches of 50 hulls one after another (the demo
   hulls whose check digit holds, cycled: GREEN, AMBER, RED and INCOMPLETE ones), each through
   `screening.batches.create_batch` (what POST /api/v1/screening-batches calls), and waits for each
   to end. End to end = the batch's completed_at minus its created_at (submit to `completed`, as
   the database records them). Then the same number of batches submitted at once (throughput).
2. Fleet exposure: an account holding two records for each of --hulls synthetic hulls (copies of
   demo records, so every status, grade and opacity occurs; a few hulls never screened), one fleet
   of them; GET .../exposure's selector timed 20 times in process (and the changes feed's first page).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from http_bench import BenchStack  # noqa: E402

BATCHES = """
import time
from datetime import date
from accounts.services import issue_key
from common import percentile
from screening import batches, demo
from screening.imo import imo_check_digit_valid
from screening.models import ScreeningBatch, ScreeningBatchItem

account, _, _ = issue_key(email="batcher@bench.example", environment="live", opened_on=date(2026, 9, 1), plan="paid")
hulls = [hull.imo for hull in demo.HULLS if imo_check_digit_valid(hull.imo)]
body = {{"items": [{{"imo": hulls[i % len(hulls)]}} for i in range(50)]}}
TERMINAL = ScreeningBatch.TERMINAL

def wait(ids, timeout=600):
    started = time.perf_counter()
    while ScreeningBatch.objects.filter(pk__in=ids).exclude(status__in=TERMINAL).exists():
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"batches still open after {{timeout}} s")
        time.sleep(0.02)

def e2e(ids):
    return [(b.completed_at - b.created_at).total_seconds() * 1000 for b in ScreeningBatch.objects.filter(pk__in=ids)]

batches.create_batch(account, "live", body)  # warm-up: every worker process builds its indexes
wait(list(ScreeningBatch.objects.values_list("pk", flat=True)))
one_by_one = []
for _ in range({count}):
    created = batches.create_batch(account, "live", body)
    wait([created.job.pk])
    one_by_one.append(created.job.pk)
samples = e2e(one_by_one)
print(f"sequential: {{len(samples)}} batches of 50: end to end p50={{percentile(samples, 50):.0f}} ms "
      f"p95={{percentile(samples, 95):.0f}} ms max={{max(samples):.0f}} ms", flush=True)
started = time.perf_counter()
together = [batches.create_batch(account, "live", body).job.pk for _ in range({count})]
wait(together)
wall = time.perf_counter() - started
samples = e2e(together)
print(f"at once: {{len(together)}} batches ({{50 * len(together)}} hulls) in {{wall:.1f}} s "
      f"({{50 * len(together) / wall:.0f}} hulls/s); end to end p50={{percentile(samples, 50):.0f}} ms "
      f"p95={{percentile(samples, 95):.0f}} ms", flush=True)
statuses = sorted(set(ScreeningBatch.objects.values_list("status", flat=True)))
failed = ScreeningBatchItem.objects.filter(status="failed").count()
print(f"batch statuses {{statuses}}, failed items {{failed}}", flush=True)
"""

FLEET = """
import time
from datetime import date, timedelta
from types import SimpleNamespace
from django.utils import timezone
from accounts.services import issue_key
from common import percentile
from core.api.ids import new_id
from core.api.responses import to_json_bytes
from screening import demo, fleet_selectors, fleet_services
from screening.imo import imo_check_digit_valid
from screening.models import Screening
from screening.services import CallerInput, screen

account, _, _ = issue_key(email="fleet@bench.example", environment="live", opened_on=date(2026, 9, 1), plan="paid")
owner = SimpleNamespace(account_id=account.pk, environment="live")
templates = [screen(account, "live", CallerInput(imo=h.imo)).screening for h in demo.HULLS if imo_check_digit_valid(h.imo)]
names = [f.attname for f in Screening._meta.concrete_fields if f.attname not in ("id", "imo", "screened_at")]

def valid_imo(n):
    base = f"{{800000 + n:06d}}"
    return next(base + d for d in "0123456789" if imo_check_digit_valid(base + d))

hulls = [valid_imo(n) for n in range({hulls})]
never = set(hulls[::50])  # 2 % never screened
earlier = timezone.now() - timedelta(days=2)
rows = []
for round_, at in enumerate((earlier, earlier + timedelta(days=1))):
    for i, imo in enumerate(hulls):
        if imo in never:
            continue
        template = templates[(i + round_) % len(templates)]
        rows.append(Screening(id=new_id("scr"), imo=imo, screened_at=at, **{{n: getattr(template, n) for n in names}}))
Screening.objects.bulk_create(rows, batch_size=2000)
started = time.perf_counter()
fleet = fleet_services.create_fleet(owner, {{"name": "Bench", "imos": hulls}}).document
print(f"fleet of {{fleet['hull_count']}} hulls created in {{(time.perf_counter() - started) * 1000:.0f}} ms; "
      f"{{len(rows)}} records held", flush=True)
samples, body = [], b""
for _ in range(20):
    started = time.perf_counter()
    body = to_json_bytes(fleet_selectors.fleet_exposure(owner, fleet["id"], {{"limit": 100}}))
    samples.append((time.perf_counter() - started) * 1000)
print(f"exposure ({{len(body)}} bytes, 100 hull rows): p50={{percentile(samples, 50):.0f}} ms "
      f"p95={{percentile(samples, 95):.0f}} ms", flush=True)
samples = []
for _ in range(20):
    started = time.perf_counter()
    whole = to_json_bytes(fleet_selectors.fleet_exposure(owner, fleet["id"], {{"limit": 5000}}))
    samples.append((time.perf_counter() - started) * 1000)
print(f"exposure ({{len(whole)}} bytes, every hull row): p50={{percentile(samples, 50):.0f}} ms "
      f"p95={{percentile(samples, 95):.0f}} ms", flush=True)
extracted = fleet_selectors.fleet_exposure(owner, fleet["id"], {{"limit": 5000}})
vendor_sql, fleet_selectors._READING_SQL = fleet_selectors._READING_SQL, {{}}
parsed = fleet_selectors.fleet_exposure(owner, fleet["id"], {{"limit": 5000}}, now=timezone.now())
fleet_selectors._READING_SQL = vendor_sql
same = {{k: v for k, v in extracted.items() if k != "as_of"}} == {{k: v for k, v in parsed.items() if k != "as_of"}}
print(f"check: values the database extracted == values parsed from the documents: {{same}}", flush=True)
from screening.models import Fleet
Fleet.objects.filter(pk=fleet["id"]).update(created_at=earlier - timedelta(days=1))
samples = []
for _ in range(10):
    started = time.perf_counter()
    page = fleet_selectors.fleet_changes(owner, fleet["id"], {{"limit": 200}})
    samples.append((time.perf_counter() - started) * 1000)
print(f"changes, first page of 200 moves: p50={{percentile(samples, 50):.0f}} ms p95={{percentile(samples, 95):.0f}} ms",
      flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--hulls", type=int, default=5000)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="svc-screening-batch-bench-"))
    stack = BenchStack(folder, workers=0, threads=0)
    worker: subprocess.Popen | None = None
    try:
        stack.start_servers()
        stack.manage("migrate", "--no-input")
        stack.manage("seed_demo")
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", f"--concurrency={args.concurrency}",
             "--loglevel=WARNING", "--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=stack.env, stdout=open(folder / "worker.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        print(f"one worker x {args.concurrency} (prefork), PostgreSQL + Redis of its own", flush=True)
        print(stack.python(BATCHES.format(count=args.batches)).strip(), flush=True)
        print(stack.python(FLEET.format(hulls=args.hulls)).strip(), flush=True)
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
