"""The HTTP request path side by side: GET /healthz, a keyed read, POST /api/v1/screenings, one run.

    .venv/bin/python bench/http_bench.py [--world demo|full] [--seconds 10] [--connections 8] \
        [--workers 4] [--threads 4] [--warmup 3] [--keys N]

Starts its own stack (nothing on the machine's PostgreSQL or Redis is touched): a throwaway
PostgreSQL and Redis on free ports (tests/drills/stack.py), `migrate`, `seed_demo`, with
`--world full` the full-scale synthetic world (bench/synthetic_world.py), and the Procfile's `web`
line (gunicorn with config/gunicorn.conf.py, W workers x T gthread threads: the production shape)
on them. It issues live keys for paid accounts opened on 2026-09-01 (5,000 screenings a
month each, no free-account pause) and drives three phases with wrk (-t2 -c<connections>), each
after a short warm-up:

    A  GET /healthz
    B  GET /api/v1/usage, cycling keys (a keyed read)
    C  POST /api/v1/screenings, cycling keys and hull IMOs, a unique Idempotency-Key per request

Each key may send 120 requests a minute (moving window) and each account holds 6 screenings in
flight, so phases B and C each get their own pool of keys, sized for the run's length. A warm-up
round (--warmup seconds) is repeated, for up to 90 s, while its slowest request takes over a
second: each worker builds its indexes on its first screening, which must not land in the run.

Prints each phase's rate, latency percentiles (wrk's, over every response) and statuses (tallied
by a Lua `response` hook, with the first non-2xx body of each wrk thread), then the ratios of the
2xx rates and the issue 11 targets: a keyed read at least 40 % of the /healthz rate; screenings at
least 40 % of the keyed-read rate, at least 120/s, p95 under 80 ms; and any error lines in the
gunicorn log. Everything started is torn down at the end (also on Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.drills.stack import (  # noqa: E402
    DrillPostgres,
    DrillRedis,
    free_port,
    missing_tools,
    start_from_procfile,
)

WRK = "/usr/bin/wrk"
# GREEN demo hulls (README "Demo world"): charged screenings that take the whole path, vetting included.
DEMO_IMOS = ("9300776", "9300881", "9300996", "9301017", "9301122", "9301237", "9301562", "9301677")
# Environment passed through from the caller; everything else (DATABASE_URL, LIVE_REGISTER_URL_*, ...)
# is dropped so the stack runs on its own servers with production defaults.
PASS_THROUGH = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM")

WARM_MAX_LATENCY_MS = 1000.0  # a warm-up round slower than this at its worst is followed by another
WARMUP_LIMIT_S = 90.0  # ... for at most this long
TARGET_KEYED_OVER_HEALTHZ = 0.40
TARGET_SCREENINGS_OVER_KEYED = 0.40
TARGET_SCREENINGS_PER_S = 120.0
TARGET_SCREENINGS_P95_MS = 80.0

LUA_COMMON = r"""
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

statuses = {}
sample = nil

function response(status, headers, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
  if status >= 300 and sample == nil then
    sample = key .. " " .. string.gsub(string.sub(body or "", 1, 400), "[\r\n]", " ")
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    "HTTPBENCH requests=%d duration_us=%d p50_us=%d p95_us=%d p99_us=%d mean_us=%.1f max_us=%d "
    .. "non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.mean, latency.max, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout))
  local total = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    if counts then
      for code, n in pairs(counts) do total[code] = (total[code] or 0) + n end
    end
    local s = thread:get("sample")
    if s then io.write("HTTPBENCH_SAMPLE " .. s .. "\n") end
  end
  for code, n in pairs(total) do io.write(string.format("HTTPBENCH_STATUS %s=%d\n", code, n)) end
end
"""

LUA_HEALTHZ = r"""
function init(args)
  req = wrk.format("GET", "/healthz")
end

function request()
  return req
end
"""

LUA_KEYED_READ = r"""
function init(args)
  counter = id * 7919
end

function request()
  counter = counter + 1
  local key = keys[(counter % #keys) + 1]
  return wrk.format("GET", "/api/v1/usage", {["Authorization"] = "Bearer " .. key})
end
"""

LUA_SCREENINGS = r"""
function init(args)
  tag = args[1] or "run"
  counter = 0
  offset = id * 7919
end

function request()
  counter = counter + 1
  local n = offset + counter
  local key = keys[(n % #keys) + 1]
  local imo = imos[(n * 31 % #imos) + 1]
  return wrk.format("POST", "/api/v1/screenings", {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = string.format("%s-t%d-%d", tag, id, counter),
  }, '{"imo": "' .. imo .. '"}')
end
"""


@dataclass
class PhaseResult:
    label: str
    requests: int = 0
    seconds: float = 0.0
    p50_ms: float = math.nan
    p95_ms: float = math.nan
    p99_ms: float = math.nan
    mean_ms: float = math.nan
    max_ms: float = math.nan
    non_2xx: int = 0
    socket_errors: dict[str, int] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def ok_rate(self) -> float:
        """Responses below 300 per second (what the targets are about)."""
        ok = sum(n for code, n in self.statuses.items() if code.isdigit() and int(code) < 300)
        return ok / self.seconds if self.seconds else 0.0


def lua_list(name: str, values: list[str]) -> str:
    return f"{name} = {{{', '.join(json.dumps(v) for v in values)}}}\n"


class BenchStack:
    """Own PostgreSQL + Redis on free ports and gunicorn on them; `destroy` stops all of it."""

    def __init__(self, folder: Path, workers: int, threads: int) -> None:
        self.folder = folder
        self.workers = workers
        self.threads = threads
        self.postgres: DrillPostgres | None = None
        self.redis: DrillRedis | None = None
        self.server: subprocess.Popen | None = None
        self.port = free_port()
        self.env: dict[str, str] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_servers(self) -> None:
        self.postgres = DrillPostgres(self.folder / "pg")
        self.redis = DrillRedis(self.folder)
        self.env = {
            **{k: v for k, v in os.environ.items() if k in PASS_THROUGH or k.startswith("LC_")},
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": self.redis.url,
            "CELERY_BROKER_URL": self.redis.url,
            "ACCESS_LOG_MODE": "async",
            "DEBUG": "0",
            "PUBLIC_BASE_URL": self.url,
            "PYTHONUNBUFFERED": "1",
        }

    def manage(self, *args: str, timeout: float = 600) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args[:1])} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def python(self, code: str, timeout: float = 1800) -> str:
        """Run `code` in a fresh Django process on the stack's database (bench/ on the path)."""
        prelude = (
            f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); sys.path.insert(0, {str(ROOT)!r})\n"
            "from common import setup_django\nsetup_django()\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", prelude + code],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bench subprocess failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def start_gunicorn(self) -> None:
        """The Procfile's `web` line, as production runs it, on this stack's port and concurrency."""
        env = {
            **self.env,
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": str(self.workers),
            "GUNICORN_THREADS": str(self.threads),
        }
        self.server = start_from_procfile(
            "web",
            env,
            self.folder / "gunicorn.log",
            extra=("--graceful-timeout", "5", "--log-level", "warning"),
            new_session=True,
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.server.returncode}); see {self.folder / 'gunicorn.log'}")
            if self._healthy() and len(self._worker_pids()) >= self.workers:
                return
            time.sleep(0.2)
        raise RuntimeError("gunicorn did not come up within 180 s")

    def _worker_pids(self) -> list[int]:
        assert self.server is not None
        try:
            with open(f"/proc/{self.server.pid}/task/{self.server.pid}/children") as handle:
                return [int(pid) for pid in handle.read().split()]
        except OSError:
            return []

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def log_problems(self) -> list[str]:
        """Tracebacks and ERROR/CRITICAL lines the server logged (they would not show in the rates)."""
        try:
            text = (self.folder / "gunicorn.log").read_text(errors="replace")
        except OSError:
            return []
        return [line for line in text.splitlines() if re.search(r"Traceback|\bERROR\b|\bCRITICAL\b", line)]

    def destroy(self) -> None:
        if self.server is not None and self.server.poll() is None:
            try:
                os.killpg(self.server.pid, signal.SIGTERM)
                self.server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.server.pid, signal.SIGKILL)
                self.server.wait(timeout=10)
            except ProcessLookupError:
                pass
        if self.redis is not None:
            self.redis.destroy()
        if self.postgres is not None:
            self.postgres.destroy()


def issue_keys(stack: BenchStack, count: int, stamp: str) -> list[str]:
    """`count` live keys, one paid account each, opened 2026-09-01."""
    code = (
        "from datetime import date\n"
        "from accounts.services import issue_key\n"
        f"for n in range({count}):\n"
        f"    raw = issue_key(email=f'httpbench-{stamp}-{{n}}@example.com', environment='live',\n"
        "                    opened_on=date(2026, 9, 1), plan='paid')[2]\n"
        "    print('KEY', raw)\n"
    )
    keys = [line.split(" ", 1)[1] for line in stack.python(code).splitlines() if line.startswith("KEY ")]
    if len(keys) != count:
        raise RuntimeError(f"asked for {count} keys, got {len(keys)}")
    return keys


def load_full_world(stack: BenchStack) -> list[str]:
    """Load the full-scale synthetic world; returns register IMOs to screen."""
    code = (
        "from synthetic_world import load_world\n"
        "from screening.models import RegisterEntry\n"
        "load_world()\n"
        "for imo in RegisterEntry.objects.values_list('imo', flat=True).distinct()[:20000]:\n"
        "    print('IMO', imo)\n"
    )
    return [line.split(" ", 1)[1] for line in stack.python(code).splitlines() if line.startswith("IMO ")]


def run_wrk(
    wrk: str, stack: BenchStack, script: Path, path: str, seconds: float, connections: int, tag: str, label: str
) -> PhaseResult:
    command = [
        wrk,
        "-t2",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--latency",
        "--timeout",
        "30s",
        "-s",
        str(script),
        f"{stack.url}{path}",
        "--",
        tag,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=seconds + 120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        raise RuntimeError(f"wrk failed ({process.returncode}):\n{out}\n{err}")
    result = PhaseResult(label)
    for line in out.splitlines():
        if line.startswith("HTTPBENCH "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
            result.requests = int(fields["requests"])
            result.seconds = int(fields["duration_us"]) / 1e6
            result.p50_ms = int(fields["p50_us"]) / 1000
            result.p95_ms = int(fields["p95_us"]) / 1000
            result.p99_ms = int(fields["p99_us"]) / 1000
            result.mean_ms = float(fields["mean_us"]) / 1000
            result.max_ms = int(fields["max_us"]) / 1000
            result.non_2xx = int(fields["non2xx"])
            result.socket_errors = {k: int(fields[k]) for k in ("connect", "read", "write", "timeout")}
        elif line.startswith("HTTPBENCH_STATUS "):
            code, _, count = line.split(" ", 1)[1].partition("=")
            result.statuses[code] = int(count)
        elif line.startswith("HTTPBENCH_SAMPLE "):
            result.samples.append(line.split(" ", 1)[1])
    wrk_non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
    if wrk_non2xx:
        result.non_2xx = max(result.non_2xx, int(wrk_non2xx.group(1)))
    return result


def describe(result: PhaseResult) -> str:
    statuses = ", ".join(f"{code}: {n}" for code, n in sorted(result.statuses.items()))
    errors = {k: v for k, v in result.socket_errors.items() if v}
    line = (
        f"{result.label:<28} {result.rate:8.1f} req/s  ({result.requests} in {result.seconds:.1f} s)  "
        f"p50 {result.p50_ms:7.1f} ms  p95 {result.p95_ms:7.1f} ms  p99 {result.p99_ms:7.1f} ms  "
        f"non-2xx {result.non_2xx}  [{statuses}]"
    )
    if errors:
        line += f"  socket errors {errors}"
    for sample in result.samples[:2]:
        line += f"\n{'':<30}first non-2xx: {sample}"
    return line


def _verdict(holds: bool) -> str:
    return "holds" if holds else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--world", choices=("demo", "full"), default="demo")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--keys", type=int, default=0, help="keys per keyed phase (default: sized for the run)")
    args = parser.parse_args()

    wrk = WRK if os.path.exists(WRK) else shutil.which("wrk")
    if wrk is None:
        print("wrk is not installed; install it with:  apt-get install wrk", file=sys.stderr)
        raise SystemExit(2)
    reason = missing_tools()
    if reason:
        print(f"cannot start the bench stack: {reason}", file=sys.stderr)
        raise SystemExit(2)

    # 120 requests a minute per key (moving window): keep every key well under it for warm-up + run.
    window = min(60.0, args.seconds + args.warmup)
    read_keys = args.keys or max(150, math.ceil(12 * window))  # room for ~1,400 keyed reads/s
    screen_keys = args.keys or max(150, math.ceil(5 * window))  # room for ~600 screenings/s

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started in the background (SIGINT ignored)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    print(
        f"http bench @ {commit.stdout.strip()}{' + working tree' if dirty.stdout.strip() else ''}: "
        f"world {args.world}, gunicorn {args.workers} workers x {args.threads} threads (gthread), "
        f"wrk -t2 -c{args.connections} -d{args.seconds:g}s (warm-up {args.warmup:g} s), "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}",
        flush=True,
    )

    folder = Path(tempfile.mkdtemp(prefix="http-bench-"))
    stack = BenchStack(folder, args.workers, args.threads)
    started = time.perf_counter()
    try:
        stack.start_servers()
        stack.manage("migrate", "--no-input")
        stack.manage("seed_demo")
        imos = list(DEMO_IMOS)
        if args.world == "full":
            loading = time.perf_counter()
            imos = load_full_world(stack)
            print(f"full-scale world loaded in {time.perf_counter() - loading:.0f} s ({len(imos)} register IMOs)")
        stamp = str(int(time.time()))
        keys = issue_keys(stack, read_keys + screen_keys, stamp)
        stack.start_gunicorn()
        print(
            f"stack up in {time.perf_counter() - started:.0f} s: {stack.url}, {len(keys)} live keys "
            f"({read_keys} for reads, {screen_keys} for screenings), {len(imos)} hull IMOs; files in {folder}",
            flush=True,
        )

        scripts = {
            "healthz": LUA_COMMON + LUA_HEALTHZ,
            "keyed": LUA_COMMON + lua_list("keys", keys[:read_keys]) + LUA_KEYED_READ,
            "screenings": LUA_COMMON + lua_list("keys", keys[read_keys:]) + lua_list("imos", imos) + LUA_SCREENINGS,
        }
        phases = (
            ("healthz", "/healthz", "A  GET /healthz"),
            ("keyed", "/api/v1/usage", "B  GET /api/v1/usage"),
            ("screenings", "/api/v1/screenings", "C  POST /api/v1/screenings"),
        )
        results: dict[str, PhaseResult] = {}
        for name, path, label in phases:
            script = folder / f"{name}.lua"
            script.write_text(scripts[name])
            # Warm up until no request is slow any more: each worker builds its indexes on its first
            # screening (seconds on the full-scale world), which must not land in the measured run.
            warm_until = time.monotonic() + max(args.warmup, WARMUP_LIMIT_S)
            for round_number in range(1, 100):
                if args.warmup <= 0:
                    break
                warm = run_wrk(
                    wrk, stack, script, path, args.warmup, args.connections, f"{stamp}-warm{round_number}", label
                )
                print(
                    f"  warm-up {round_number} {label}: {warm.rate:.0f} req/s, max {warm.max_ms:.0f} ms, "
                    f"statuses {warm.statuses}",
                    flush=True,
                )
                if warm.max_ms < WARM_MAX_LATENCY_MS or time.monotonic() > warm_until:
                    break
            results[name] = run_wrk(wrk, stack, script, path, args.seconds, args.connections, f"{stamp}-run", label)
            print(describe(results[name]), flush=True)

        healthz, keyed, screenings = results["healthz"], results["keyed"], results["screenings"]
        keyed_ratio = keyed.ok_rate / healthz.ok_rate if healthz.ok_rate else 0.0
        screen_ratio = screenings.ok_rate / keyed.ok_rate if keyed.ok_rate else 0.0
        print()
        print("rates of 2xx responses:")
        print(
            f"  healthz {healthz.ok_rate:.1f}/s  keyed read {keyed.ok_rate:.1f}/s  screenings {screenings.ok_rate:.1f}/s"
        )
        print(
            f"  keyed / healthz     = {keyed_ratio:6.1%}  (target >= {TARGET_KEYED_OVER_HEALTHZ:.0%}: "
            f"{_verdict(keyed_ratio >= TARGET_KEYED_OVER_HEALTHZ)})"
        )
        print(
            f"  screenings / keyed  = {screen_ratio:6.1%}  (target >= {TARGET_SCREENINGS_OVER_KEYED:.0%}: "
            f"{_verdict(screen_ratio >= TARGET_SCREENINGS_OVER_KEYED)})"
        )
        print(
            f"  screenings/s        = {screenings.ok_rate:6.1f}  (target >= {TARGET_SCREENINGS_PER_S:.0f}: "
            f"{_verdict(screenings.ok_rate >= TARGET_SCREENINGS_PER_S)})"
        )
        print(
            f"  screenings p95      = {screenings.p95_ms:6.1f} ms (target < {TARGET_SCREENINGS_P95_MS:.0f} ms: "
            f"{_verdict(screenings.p95_ms < TARGET_SCREENINGS_P95_MS)})"
        )
        failing = [r.label for r in results.values() if r.non_2xx or any(r.socket_errors.values())]
        if failing:
            print(f"  WARNING: non-2xx responses or socket errors in: {', '.join(failing)} (latencies include them)")
        problems = stack.log_problems()
        if problems:
            print(f"  WARNING: {len(problems)} error lines in the gunicorn log, first ones:")
            for line in problems[:5]:
                print(f"    {line[:300]}")
    except KeyboardInterrupt:
        print("\ninterrupted; tearing the stack down", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        stack.destroy()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
