"""Webhook deliveries to a local HTTPS receiver: deliveries per second and commit-to-arrival latency.

    .venv/bin/python bench/webhook_bench.py [--events 500] [--paced 100] [--pace 10] \
        [--concurrency N] [--warmup 20]

Starts its own stack (nothing on the machine's PostgreSQL or Redis is touched): a throwaway
PostgreSQL and Redis on free ports (tests/drills/stack.py), `migrate`, one live account with one
webhook endpoint on a real local HTTPS receiver (tests/support/tls.py, a self-signed certificate
the workers trust through REQUESTS_CA_BUNDLE, OUTBOUND_ALLOW_LOOPBACK=1; TCP_NODELAY on, as real
receivers have it), and one Celery worker
as production runs it: the Procfile's `worker` line (prefork; concurrency = the CPU count unless
--concurrency; the Procfile's default is 2). No beat: this process runs
`webhooks.delivery.sweep()` every WEBHOOK_SWEEP_SECONDS, as beat would, and reports what it did.

Events are emitted by a separate Django process with `webhooks.events.emit(...)`, each in its own
committed transaction; the commit time of each is taken by an on_commit callback registered
before the event's own (so it runs right after COMMIT, before the task is sent). The receiver
stamps each request when its body has arrived. Phases, after a warm-up (--warmup events):

    A  burst: --events events committed back to back while the worker runs. Deliveries per second
       (events / first commit to last arrival, and arrival rate from first to last arrival) and
       commit-to-arrival p50/p95/p99 (queueing included).
    B  paced: --paced events at --pace per second (below capacity): commit-to-first-attempt
       p50/p95/p99, the latency a receiver sees when the workers are not backed up.

Every event must arrive exactly once with attempt 1 (the receiver answers 200): duplicates,
missing events and later attempts are reported. Everything started is torn down at the end (also
on Ctrl-C or SIGTERM). Figures go in the issue's closing note; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import percentile, setup_django  # noqa: E402

from tests.drills.stack import DrillPostgres, DrillRedis, missing_tools, start_from_procfile  # noqa: E402
from tests.support.tls import HttpsReceiver, start_https_receiver  # noqa: E402

# Environment passed through from the caller; everything else (DATABASE_URL, REDIS_URL, ...) is
# dropped so the stack runs on its own servers with production defaults.
PASS_THROUGH = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM")
EVENT_TYPE = "usage.quota_warning"

SETUP = """
from accounts.services import issue_key
from webhooks.services import create_endpoint
from types import SimpleNamespace
account, _, _ = issue_key(email="webhook-bench@example.com", environment="live", plan="paid")
owner = SimpleNamespace(account_id=account.id, environment="live")
saved = create_endpoint(owner, {"url": URL})
print("ACCOUNT", account.id)
print("ENDPOINT", saved.endpoint.id)
"""

EMIT = """
import time
from django.db import transaction
from webhooks.events import emit
stamps = []
interval = 1.0 / PACE if PACE else 0.0
started = time.perf_counter()
for n in range(COUNT):
    if interval:
        wait = started + n * interval - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    box = {}
    with transaction.atomic():
        transaction.on_commit(lambda box=box: box.__setitem__("t", time.time()))  # runs first, right after COMMIT
        event = emit(ACCOUNT, "live", "usage.quota_warning", {"used": 1600 + n, "limit": 2000})
    stamps.append((event.id, box["t"]))
for event_id, stamp in stamps:
    print("EVT", event_id, repr(stamp))
"""


class Stack:
    """Own PostgreSQL + Redis, one Celery worker on them; `destroy` stops all of it."""

    def __init__(self, folder: Path, receiver: HttpsReceiver) -> None:
        self.folder = folder
        self.receiver = receiver
        self.postgres: DrillPostgres | None = None
        self.redis: DrillRedis | None = None
        self.worker: subprocess.Popen | None = None
        self.env: dict[str, str] = {}

    def start_servers(self) -> None:
        self.postgres = DrillPostgres(self.folder / "pg")
        self.redis = DrillRedis(self.folder)
        self.env = {
            **{k: v for k, v in os.environ.items() if k in PASS_THROUGH or k.startswith("LC_")},
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": self.redis.url,
            "CELERY_BROKER_URL": self.redis.url,
            "OUTBOUND_ALLOW_LOOPBACK": "1",
            "REQUESTS_CA_BUNDLE": str(self.receiver.certificate),
            "ACCESS_LOG_MODE": "async",
            "DEBUG": "0",
            "PYTHONUNBUFFERED": "1",
        }

    def manage(self, *args: str, timeout: float = 600) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def python(self, code: str, timeout: float = 900, **values: object) -> str:
        """Run `code` in a fresh Django process on the stack's database, with `values` as globals."""
        prelude = (
            f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); sys.path.insert(0, {str(ROOT)!r})\n"
            "from common import setup_django\nsetup_django()\n"
            + "".join(f"{name} = {value!r}\n" for name, value in values.items())
        )
        done = subprocess.run(
            [sys.executable, "-c", prelude + code], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"bench subprocess failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def start_worker(self, concurrency: int) -> None:
        """The Procfile's `worker` line, as production runs it, with `concurrency` processes."""
        env = {**self.env, "CELERY_LOG_LEVEL": "WARNING", "CELERY_CONCURRENCY": str(concurrency)}
        self.worker = start_from_procfile("worker", env, self.folder / "worker.log", new_session=True)

    def worker_children(self) -> int:
        if self.worker is None:
            return 0
        try:
            with open(f"/proc/{self.worker.pid}/task/{self.worker.pid}/children") as handle:
                return len(handle.read().split())
        except OSError:
            return 0

    def worker_problems(self) -> list[str]:
        try:
            text = (self.folder / "worker.log").read_text(errors="replace")
        except OSError:
            return []
        return [line for line in text.splitlines() if "Traceback" in line or "ERROR" in line or "CRITICAL" in line]

    def destroy(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            try:
                os.killpg(self.worker.pid, signal.SIGTERM)
                self.worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.worker.pid, signal.SIGKILL)
                self.worker.wait(timeout=10)
            except ProcessLookupError:
                pass
        if self.redis is not None:
            self.redis.destroy()
        if self.postgres is not None:
            self.postgres.destroy()


class Sweeper(threading.Thread):
    """What beat would do: webhooks.delivery.sweep() every WEBHOOK_SWEEP_SECONDS, in this process."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stopping = threading.Event()
        self.runs = 0
        self.lost = 0
        self.redispatched = 0

    def run(self) -> None:
        from django.conf import settings
        from django.db import connection

        from webhooks import delivery

        while not self.stopping.wait(float(settings.WEBHOOK_SWEEP_SECONDS)):
            report = delivery.sweep()
            self.runs += 1
            self.lost += report.lost
            self.redispatched += report.redispatched
        connection.close()


def emit_events(stack: Stack, account: str, count: int, pace: float) -> dict[str, float]:
    """Commit `count` events (at `pace` per second, 0 = back to back); {event id: commit time}."""
    out = stack.python(EMIT, ACCOUNT=account, COUNT=count, PACE=pace)
    stamps = {}
    for line in out.splitlines():
        if line.startswith("EVT "):
            _, event_id, stamp = line.split(" ", 2)
            stamps[event_id] = float(stamp)
    if len(stamps) != count:
        raise RuntimeError(f"emitted {len(stamps)} of {count} events")
    return stamps


def wait_arrivals(receiver: HttpsReceiver, event_ids: set[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with receiver.lock:
            seen = {r.headers.get("X-Service-Event-Id") for r in receiver.received}
        if event_ids <= seen:
            return
        time.sleep(0.1)
    missing = len(event_ids - seen)
    print(f"  WARNING: {missing} of {len(event_ids)} events had not arrived after {timeout:.0f} s")


def measure(receiver: HttpsReceiver, stamps: dict[str, float]) -> dict:
    """First arrival per event, commit-to-arrival latencies, duplicates and later attempts."""
    first: dict[str, float] = {}
    duplicates = later_attempts = 0
    for request in list(receiver.received):
        event_id = request.headers.get("X-Service-Event-Id")
        if event_id not in stamps:
            continue
        if request.headers.get("X-Service-Delivery-Attempt") != "1":
            later_attempts += 1
        if event_id in first:
            duplicates += 1
        else:
            first[event_id] = request.at
    latencies = [(first[e] - stamps[e]) * 1000 for e in first]
    commits = sorted(stamps.values())
    arrivals = sorted(first.values())
    after_emit = [at for at in arrivals if at > commits[-1]]  # the emitter idle: the workers alone
    return {
        "after_emit": len(after_emit),
        "events": len(stamps),
        "arrived": len(first),
        "duplicates": duplicates,
        "later_attempts": later_attempts,
        "latencies": latencies,
        "first_commit": commits[0],
        "last_commit": commits[-1],
        "first_arrival": arrivals[0] if arrivals else float("nan"),
        "last_arrival": arrivals[-1] if arrivals else float("nan"),
    }


def attempt_durations(event_ids: set[str]) -> list[float]:
    """duration_ms of the recorded attempts of these events (connect to answer, as the worker timed it)."""
    from webhooks.models import DeliveryAttempt

    found = DeliveryAttempt.objects.filter(delivery__event_id__in=event_ids).values_list("duration_ms", flat=True)
    return [float(ms) for ms in found if ms is not None]


def latency_line(label: str, latencies: list[float]) -> str:
    return (
        f"  {label:<34} p50 {percentile(latencies, 50):8.1f} ms  p95 {percentile(latencies, 95):8.1f} ms  "
        f"p99 {percentile(latencies, 99):8.1f} ms  max {max(latencies, default=float('nan')):8.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=500, help="phase A: events committed back to back")
    parser.add_argument("--paced", type=int, default=100, help="phase B: events at --pace per second")
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=0, help="worker processes (default: Celery's, the CPUs)")
    args = parser.parse_args()

    reason = missing_tools()
    if reason:
        print(f"cannot start the bench stack: {reason}", file=sys.stderr)
        raise SystemExit(2)

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    concurrency = args.concurrency or os.cpu_count() or 1
    print(
        f"webhook bench: one worker, the Procfile's `worker` line (prefork, concurrency {concurrency}"
        f"{'' if args.concurrency else ', the default: CPU count'}), PostgreSQL + Redis of its own, "
        f"a local HTTPS receiver answering 200; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}",
        flush=True,
    )

    folder = Path(tempfile.mkdtemp(prefix="webhook-bench-"))
    receiver = start_https_receiver(folder)
    # The test receiver writes its answer's headers and body in two small writes; with Nagle on, the
    # body waits for the worker's delayed ACK (~40 ms a delivery). A real receiver (nginx, any HTTP
    # framework) sets TCP_NODELAY, so this one does too: the figures measure the service.
    receiver.server.RequestHandlerClass.disable_nagle_algorithm = True
    stack = Stack(folder, receiver)
    sweeper: Sweeper | None = None
    started = time.perf_counter()
    try:
        stack.start_servers()
        stack.manage("migrate", "--no-input")
        lines = stack.python(SETUP, URL=f"{receiver.url}/hook").splitlines()
        account = next(line.split(" ", 1)[1] for line in lines if line.startswith("ACCOUNT "))
        # This process sweeps as beat would, on the stack's database and broker.
        os.environ.update(stack.env)
        setup_django()
        stack.start_worker(concurrency)
        sweeper = Sweeper()
        sweeper.start()

        warm = emit_events(stack, account, args.warmup, pace=0)
        wait_arrivals(receiver, set(warm), timeout=120)
        print(
            f"stack up and warm in {time.perf_counter() - started:.0f} s ({stack.worker_children()} worker "
            f"processes, {args.warmup} warm-up deliveries); files in {folder}",
            flush=True,
        )

        burst = emit_events(stack, account, args.events, pace=0)
        wait_arrivals(receiver, set(burst), timeout=max(120, args.events))
        a = measure(receiver, burst)
        emit_seconds = a["last_commit"] - a["first_commit"]
        overall = a["last_arrival"] - a["first_commit"]
        arriving = a["last_arrival"] - a["first_arrival"]
        print(f"A  burst: {a['events']} events committed back to back in {emit_seconds:.2f} s "
              f"({a['events'] / emit_seconds:.0f} commits/s)")  # fmt: skip
        print(f"  deliveries/s (first commit to last arrival)   {a['arrived'] / overall:7.1f}  ({overall:.2f} s)")
        print(
            f"  deliveries/s (first to last arrival)          {(a['arrived'] - 1) / arriving:7.1f}  ({arriving:.2f} s)"
        )
        if a["after_emit"] > 1:
            draining = a["last_arrival"] - a["last_commit"]
            print(
                f"  deliveries/s (after the last commit)          {a['after_emit'] / draining:7.1f}  "
                f"({a['after_emit']} in {draining:.2f} s, the emitter idle)"
            )
        print(latency_line("commit to arrival (queueing incl.)", a["latencies"]))
        print(latency_line("attempt duration (the POST)", attempt_durations(set(burst))))

        paced = emit_events(stack, account, args.paced, pace=args.pace)
        wait_arrivals(receiver, set(paced), timeout=120)
        b = measure(receiver, paced)
        print(f"B  paced: {b['events']} events at {args.pace:g}/s")
        print(latency_line("commit to first attempt", b["latencies"]))

        for label, m in (("A", a), ("B", b)):
            if m["arrived"] != m["events"] or m["duplicates"] or m["later_attempts"]:
                print(f"  WARNING {label}: {m['arrived']}/{m['events']} arrived, {m['duplicates']} duplicates, "
                      f"{m['later_attempts']} later attempts")  # fmt: skip
        print(f"  sweep (as beat): {sweeper.runs} runs, {sweeper.lost} lost attempts, "
              f"{sweeper.redispatched} tasks re-sent")  # fmt: skip
        problems = stack.worker_problems()
        if problems:
            print(f"  WARNING: {len(problems)} error lines in the worker log, first ones:")
            for line in problems[:5]:
                print(f"    {line[:300]}")
    except KeyboardInterrupt:
        print("\ninterrupted; tearing the stack down", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        if sweeper is not None:
            sweeper.stopping.set()
            sweeper.join(timeout=15)
        stack.destroy()
        receiver.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
