"""From a new list edition to the customers' webhooks, at scale (issue 27 "Performance").

    .venv/bin/python bench/designation_bench.py [--monitors 1000000] [--accounts 20000] [--concurrency 2]

Starts its own stack (bench/webhook_bench.py's Stack: a throwaway PostgreSQL and Redis, one Celery
worker from the Procfile's `worker` line, a real local HTTPS receiver). Seeds --accounts live
accounts watching --monitors hulls in all (popular hulls are watched by several accounts, as in life;
a hull's name is made of words drawn from a few thousand, with hull numbers on some), every monitor
with a GREEN baseline from an earlier day and its daily slot a day away, so only the chain measured
here runs. One account in twenty has a webhook endpoint, and every account watching an affected hull.

Edition 1 of the OFAC list (the real SDN.CSV of ../shared/data when present, a generated one in the
same layout otherwise) lists 10 monitored hulls by IMO (their baselines read RED). Edition 2 removes
those 10 and adds 50 vessel listings: 25 naming monitored hulls by IMO, 25 by name only.

Measured:
  1. In this process: building the monitored-names index (time, resident memory it adds) and finding
     the hulls edition 2 can affect (target <= 1 s), and how many.
  2. End to end: a warm-up edition (one entity listing renamed: the worker builds its index), then
     edition 2 loaded as a poll loads it; the time from the load's start to the receiver accepting the
     last vessel_risk.changed (target <= 60 s), how many hulls were re-screened (must be the affected
     ones, not the monitored set), and that nothing was charged.
Figures go in the issue's closing note; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import SHARED_DATA  # noqa: E402
from webhook_bench import Stack  # noqa: E402

from tests.drills.stack import missing_tools  # noqa: E402
from tests.support.tls import start_https_receiver  # noqa: E402

SEED = r"""
import random
from datetime import timedelta
from django.db import connection
from django.utils import timezone
from accounts.models import Account
from monitoring.models import VesselMonitor

rng = random.Random(27)
consonants, vowels = "BCDFGHKLMNPRSTVZ", "AEIOU"
words = sorted({"".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))
                for _ in range(4000)})
def hull_name(n):
    r = random.Random(n)
    name = " ".join(r.choice(words) for _ in range(r.choice((1, 2, 2, 2, 3))))
    return f"{name} {r.randint(1, 99)}" if r.random() < 0.3 else name
def imo_of(stem):
    digits = f"{stem:06d}"
    return digits + str(sum(int(d) * w for d, w in zip(digits, range(7, 1, -1))) % 10)

accounts = [Account(email=f"desk{n}@bench.example.com", plan="paid") for n in range(ACCOUNTS)]
Account.objects.bulk_create(accounts, batch_size=5000)
green = {"screening_id": None, "screened_at": "2026-11-01T00:00:00Z",
         "sanctions": {"status": "GREEN", "coverage_complete": True, "coverage_gaps": []},
         "ownership_opacity": None, "vetting_grade": None}
tomorrow = timezone.now() + timedelta(days=1)
hulls = max(1, int(MONITORS * 0.6))  # distinct hulls; some are watched by several accounts
per_account = MONITORS // ACCOUNTS
batch = []
made = 0
for a, account in enumerate(accounts):
    stems = rng.sample(range(100000, 100000 + hulls), per_account)
    for stem in stems:
        batch.append(VesselMonitor(account=account, environment="live", imo=imo_of(stem), vessel_name=hull_name(stem),
                                   mode="live", status="watching", baseline_verdict=green, next_run_at=tomorrow))
    if len(batch) >= 20000:
        VesselMonitor.objects.bulk_create(batch, batch_size=20000)
        made += len(batch)
        batch = []
VesselMonitor.objects.bulk_create(batch, batch_size=20000)
made += len(batch)
with connection.cursor() as cursor:
    cursor.execute("ANALYZE monitoring_vesselmonitor")
print("MONITORS", made, "HULLS", hulls)
"""

ENDPOINTS = """
from types import SimpleNamespace
from accounts.models import Account
from webhooks.models import WebhookEndpoint
import secrets
accounts = list(Account.objects.filter(email__endswith="@bench.example.com").values_list("id", flat=True))
chosen = set(accounts[::20]) | set(EXTRA)
WebhookEndpoint.objects.bulk_create([
    WebhookEndpoint(account_id=a, environment="live", url=URL, secret="whsec_" + secrets.token_hex(24))
    for a in sorted(chosen)], batch_size=5000)
print("ENDPOINTS", len(chosen))
"""

LOAD = """
import time
from pathlib import Path
from screening import refresh
started = time.time()
outcome = refresh.load_files("ofac_sdn", {"sdn": Path(PATH).read_bytes()}, origin="bench", allow_shrink=ALLOW_SHRINK)
print("LOADED", repr(started), outcome.status, outcome.detail)
"""

INDEX = """
import time
from monitoring import list_updates
from screening.models import SourceSnapshot
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
before = rss()
started = time.perf_counter()
held, mmsis = list_updates._hull_names()
built = list_updates.MonitoredHulls.build(list_updates._monitored_hulls(held), mmsis, "bench")
build_seconds = time.perf_counter() - started
built_mb = rss() - before
del built, held
version = list_updates._index_version()
started = time.perf_counter()
index = list_updates._build_index(version)  # the folder a worker wrote: mapped, not rebuilt
load_seconds = time.perf_counter() - started
snapshot = SourceSnapshot.objects.get(pk=SNAPSHOT)
timings = []
for _ in range(3):
    started = time.perf_counter()
    affected = list_updates.affected_hulls(snapshot.diff, index)
    timings.append(time.perf_counter() - started)
by_basis = {}
for hit in affected.values():
    by_basis[hit.basis] = by_basis.get(hit.basis, 0) + 1
print("INDEX", len(index), f"{build_seconds:.1f}", f"{built_mb:.0f}", f"{load_seconds:.2f}", f"{min(timings):.3f}",
      f"{max(timings):.3f}", len(affected), sorted(by_basis.items()))
"""

STATE = """
from django.db.models import Count
from monitoring.models import VesselMonitorRun
from metering.models import MeteringEvent
from webhooks.models import Delivery, Event
runs = VesselMonitorRun.objects.filter(trigger="list_update", list_snapshot_id=SNAPSHOT)
by_status = dict(runs.values_list("status").annotate(n=Count("id")))
by_outcome = dict(runs.values_list("outcome").annotate(n=Count("id")))
changed = Event.objects.filter(type="vessel_risk.changed", data__trigger__list_snapshot_id=SNAPSHOT)
delivered = Delivery.objects.filter(event__in=changed).values_list("event_id", flat=True)  # accounts with an endpoint
print("STATE", sum(by_status.values()), by_status.get("completed", 0), sorted(by_outcome.items()), changed.count(),
      sorted(set(delivered)), sum(MeteringEvent.objects.values_list("units", flat=True)))
"""

NEWEST = """
from screening.models import SourceSnapshot
snapshot = SourceSnapshot.objects.filter(source="ofac_sdn", status="active").get()
print("SNAPSHOT", snapshot.pk, snapshot.added, snapshot.removed, snapshot.changed)
"""

IMOS = """
from monitoring.models import VesselMonitor
rows = list(VesselMonitor.objects.order_by("?").values_list("imo", "vessel_name", "account_id")[:70])
for imo, name, account in rows:
    print("HULL", imo, account, name)
"""


def _base_rows(rng: random.Random) -> list[str]:
    real = SHARED_DATA / "ofac" / "sdn-2024-05-03.csv"
    if real.exists():
        return [line for line in real.read_text(encoding="latin-1").splitlines() if line.strip()]
    return [
        f'{10000 + n},"GENERATED TRADING {n}",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ' for n in range(3000)
    ]


def _vessel_row(ent_num: int, name: str, imo: str | None) -> str:
    remarks = f'"Vessel Registration Identification IMO {imo}."' if imo else "-0- "
    return f'{ent_num},"{name}","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,-0- ,-0- ,{remarks}'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--monitors", type=int, default=1_000_000)
    parser.add_argument("--accounts", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if missing := missing_tools():
        print(f"skipped: {missing}")
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # Ctrl-C or a kill still tears the stack down
    folder = Path(tempfile.mkdtemp(prefix="designation-bench-"))
    receiver = start_https_receiver(folder)
    stack = Stack(folder, receiver)
    try:
        stack.start_servers()
        stack.manage("migrate", "--noinput")
        stack.manage("seed_demo")  # the other lists' demo copies: screenings are complete, not INCOMPLETE
        started = time.perf_counter()
        print(stack.python(SEED, MONITORS=args.monitors, ACCOUNTS=args.accounts).strip(),
              f"(seeded in {time.perf_counter() - started:.0f} s)")  # fmt: skip
        hulls = [line.split(" ", 3)[1:] for line in stack.python(IMOS).splitlines() if line.startswith("HULL ")]
        rng = random.Random(2027)
        base = _base_rows(rng)
        removed = [_vessel_row(900000 + n, f"BENCH LISTED {n}", imo) for n, (imo, _, _) in enumerate(hulls[:10])]
        by_imo = [_vessel_row(910000 + n, f"BENCH DESIGNATED {n}", imo) for n, (imo, _, _) in enumerate(hulls[10:35])]
        by_name = [_vessel_row(920000 + n, name, None) for n, (_, _, name) in enumerate(hulls[35:60])]
        editions = {
            "edition-1.csv": base + removed,
            "warm-up.csv": [base[0].replace(',"', ',"RENAMED ', 1), *base[1:], *removed],
            "edition-2.csv": base + by_imo + by_name,
        }
        for name, rows in editions.items():
            (folder / name).write_text("\n".join(rows) + "\n", encoding="latin-1")
        extra = sorted({account for _, account, _ in hulls[:60]})
        print(stack.python(ENDPOINTS, URL=f"{receiver.url}/hook", EXTRA=extra).strip())
        print(stack.python(LOAD, PATH=str(folder / "edition-1.csv"), ALLOW_SHRINK=True).strip())
        # The ten hulls edition 1 lists read RED in their baselines (the worker is not running yet).
        stack.python(
            "from monitoring.models import VesselMonitor\n"
            "VesselMonitor.objects.filter(imo__in=IMOS).update(baseline_verdict={'screening_id': None, "
            "'screened_at': '2026-11-01T00:00:00Z', 'sanctions': {'status': 'RED', 'coverage_complete': True, "
            "'coverage_gaps': []}, 'ownership_opacity': None, 'vetting_grade': None})",
            IMOS=[imo for imo, _, _ in hulls[:10]],
        )

        stack.start_worker(args.concurrency)
        warm_started = time.time()
        print(stack.python(LOAD, PATH=str(folder / "warm-up.csv"), ALLOW_SHRINK=False).strip())
        warm_snapshot = stack.python(NEWEST).split()[1]
        while True:
            state = stack.python(STATE, SNAPSHOT=warm_snapshot)
            if stack.python("from screening.models import SourceSnapshot\n"
                            "print(SourceSnapshot.objects.get(pk=SNAPSHOT).rescreened_at is not None)",
                            SNAPSHOT=warm_snapshot).strip() == "True":  # fmt: skip
                break
            if time.time() - warm_started > 900:
                raise RuntimeError("the warm-up edition was never handled")
            time.sleep(1)
        print(f"warm-up edition handled in {time.time() - warm_started:.1f} s (the worker built its index)")
        receiver.received.clear()

        load = stack.python(LOAD, PATH=str(folder / "edition-2.csv"), ALLOW_SHRINK=False)
        load_started = float(next(line for line in load.splitlines() if line.startswith("LOADED")).split()[1])
        print(load.strip())
        snapshot_line = stack.python(NEWEST).split()
        snapshot = snapshot_line[1]
        print(f"edition 2: {snapshot} +{snapshot_line[2]} -{snapshot_line[3]} ~{snapshot_line[4]}")
        while True:
            state = stack.python(STATE, SNAPSHOT=snapshot).split(" ", 1)[1]
            opened, completed = (int(v) for v in state.split()[:2])
            if opened and opened == completed:
                break
            if time.time() - load_started > 600:
                print("runs not completed after 600 s:", state)
                break
            time.sleep(0.5)
        final = stack.python(STATE, SNAPSHOT=snapshot)
        event_ids = set(final.split("[", 2)[2].split("]")[0].replace("'", "").replace(",", " ").split())
        deadline = time.time() + 120
        while time.time() < deadline:
            with receiver.lock:
                arrived = {r.headers.get("X-Service-Event-Id"): r.at for r in receiver.received}
            if event_ids <= set(arrived):
                break
            time.sleep(0.2)
        last = max((arrived[e] for e in event_ids if e in arrived), default=float("nan"))
        print(final.strip())
        queued_at = float(stack.python(
            "from screening.models import SourceSnapshot\n"
            "print(SourceSnapshot.objects.get(pk=SNAPSHOT).rescreened_at.timestamp())", SNAPSHOT=snapshot,
        ).strip())  # fmt: skip
        print(f"vessel_risk.changed delivered: {len(event_ids & set(arrived))} of {len(event_ids)}; "
              f"load start to runs queued: {queued_at - load_started:.1f} s (a worker process without the index "
              f"builds it first); to last accepted: {last - load_started:.1f} s")  # fmt: skip
        print(
            stack.python(INDEX, SNAPSHOT=snapshot).strip(),
            "(hulls, build s, MB resident the build added, load of the mapped copy s, find min s, find max s, affected)",
        )
        problems = stack.worker_problems()
        if problems:
            print(f"worker problems: {problems[:5]}")
    finally:
        stack.destroy()
        receiver.close()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
