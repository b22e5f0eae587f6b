"""Load on the production shape (issue 18 item 9): many keep-alive clients, many keys, a bounded time.

    .venv/bin/python bench/load_bench.py [--seconds 60] [--clients 200] [--accounts 50] [--warmup 10]
        [--settle-seconds 120] [--database-url postgres://... --redis-url redis://...] [--keep]

Starts its own stack unless given --database-url and --redis-url (then it migrates and seeds
those; give it a database of its own): a throwaway PostgreSQL and Redis on free ports
(tests/drills/stack.py), `migrate`, `seed_demo`, then the Procfile's `web` (gunicorn with
config/gunicorn.conf.py: 4 workers x 4 threads, the psycopg pool of 10 per process) and `worker`
(Celery) on them, in SERVICE_MODE=production. It issues a live and a test key for each of
--accounts paid accounts opened 2026-09-01, plus --pilot-accounts live keys on pilots whose
one-time total is 2 screenings (so the 402 path runs), and sends TRUSTED_PROXY_COUNT=1 with one
X-Forwarded-For address per client, as clients behind the reverse proxy would arrive. A share of
the traffic (--hot-share, 10 %) goes to one hot key and, keyless, from one hot address, so the
per-key rate, the in-flight ceilings and the keyless allowance answer 429 during the run.

Each client is one asyncio task with one keep-alive connection (httpx2, in requirements.txt). In a
closed loop it picks an operation by weight and a key at random:

    keyless_check   GET /api/v1/vessels/{imo}/check          (no key)
    port_lookup     GET /api/v1/ports?query=...              (no key)
    screening       POST /api/v1/screenings                   (a fresh Idempotency-Key)
    screening_replay  the same POST again (key, body, Idempotency-Key) after a 201: a free replay
    screening_batch POST /api/v1/screening-batches           (2 to 8 hulls, an INCOMPLETE and an invalid one
                                                              among them; items run on the worker)
    assessment      POST /api/v1/voyage-assessments           (a fresh Idempotency-Key)
    usage           GET /api/v1/usage
    screening_read  GET /api/v1/screenings/{id}               (an id created with that key)
    screening_list  GET /api/v1/screenings
    assessment_read GET /api/v1/voyage-assessments/{id}       (an id created with that key)

After a 429 or 503 a client waits Retry-After (at most --max-backoff seconds), as the contract asks.
A warm-up runs first, in rounds of --warmup seconds with 16 clients, repeated (for up to
--warmup-limit seconds) while a round's slowest answer takes over 2 s: each web process builds its
screening indexes and routing graph on first use, which must not land in the measured run. At the end it prints, per operation, the count per status and p50/p95/p99, then
checks (exit status 1 when any fails):

- no 5xx and no transport error;
- every status is one the contract gives that operation;
- every 429 carries Retry-After and X-RateLimit-Limit/-Remaining/-Reset; every 402 and 429 is
  the JSON envelope (code, message, request_id) with the contract's code;
- every replay is a 201 with X-Service-Idempotent-Replay: true and the original record's id;
- the ledger reconciles for every key (account and environment), once every screening batch has
  settled (waited for, up to --settle-seconds, the sweep run if items are left): for every
  allowance period the ledger entries' units (accounts_meteringevent: charges, batch reservations,
  settlements, refunds) sum to the units drawn (accounts_quotacounter), and per kind the units drawn
  = records charged (screenings with unit_charged, batch items' included, and voyage assessments);
  the records the clients were given (201 ids) are exactly the records stored: no unit lost or doubled;
- the gunicorn and worker logs hold no traceback or ERROR line.

The client shares the 2 cores with the servers: latencies include its own event-loop delay.
Everything it started is stopped at the end (also on Ctrl-C), and its folder removed unless --keep.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import httpx2  # noqa: E402
import psycopg  # noqa: E402
from common import percentile  # noqa: E402

from tests.drills.stack import DrillPostgres, DrillRedis, free_port, missing_tools, start_from_procfile  # noqa: E402

# Environment passed through from the caller; everything else (DATABASE_URL, LIVE_REGISTER_URL_*, ...)
# is dropped so the stack runs on its own servers with production defaults.
PASS_THROUGH = ("HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM")

# Demo hulls (README "Demo world"): every verdict path, an INCOMPLETE (never charged) included.
SCREEN_IMOS = (
    "9300116",  # RED
    "9300336",  # AMBER name only
    "9300441",  # AMBER watch list
    "9300776",  # GREEN
    "9300881",
    "9300996",
    "9301017",
    "9301122",
    "9301237",
    "9301562",
    "9301677",
    "9301897",  # RED, renamed
    "9301342",  # INCOMPLETE identity: recorded, not charged
)
BATCH_INVALID_IMO = "93001"  # rejected in the batch: reserves nothing
CHECK_IMOS = ("9300116", "9300221", "9300441", "9300776", "9300881", "9301017", "9301562", "9301897")
PORT_QUERIES = ("Rotterdam", "Singapore", "Shanghai", "Hamburg", "Santos", "Durban", "Antwerp", "Mumbai",
                "Busan", "Gdansk", "New York", "Piraeus", "NLRTM", "Houston", "Jebel Ali")  # fmt: skip
ROUTES = (("NLRTM", "SGSIN"), ("CNSHA", "USLAX"), ("DEHAM", "USNYC"), ("AEJEA", "INBOM"), ("BRSSZ", "ZADUR"),
          ("GRPIR", "EGALY"), ("KRPUS", "AUSYD"), ("BEANR", "GBFXT"), ("USHOU", "NLRTM"), ("JPYOK", "CNSHA"))  # fmt: skip

OPERATION_WEIGHTS = {
    "keyless_check": 12,
    "port_lookup": 12,
    "screening": 22,
    "screening_replay": 3,
    "screening_batch": 2,
    "assessment": 10,
    "usage": 10,
    "screening_read": 12,
    "screening_list": 7,
    "assessment_read": 8,
}
# What the contract lets each operation answer under load (parts 4, 7 and 8). Anything else fails.
KEYLESS_STATUSES = {200, 429}
KEYED_READ_STATUSES = {200, 429}
ALLOWED_STATUSES = {
    "keyless_check": KEYLESS_STATUSES,
    "port_lookup": KEYLESS_STATUSES,
    "screening": {201, 402, 429},
    "screening_replay": {201, 429},
    "screening_batch": {202, 402, 429},
    "assessment": {201, 429},
    "usage": KEYED_READ_STATUSES,
    "screening_read": KEYED_READ_STATUSES,
    "screening_list": KEYED_READ_STATUSES,
    "assessment_read": KEYED_READ_STATUSES,
}
CODES_BY_STATUS = {
    402: {"quota_exhausted"},
    429: {"rate_limit_exceeded", "concurrency_limit", "service_concurrency_limit"},
}
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
PILOT_TOTAL = 2
HOT_ADDRESS = "10.255.255.254"
WARM_MAX_MS = 2000.0
LOG_PROBLEM = re.compile(r"Traceback|\bERROR\b|\bCRITICAL\b")


# -- the stack -------------------------------------------------------------------------------------


class LoadStack:
    """PostgreSQL + Redis (own or given) and the Procfile's web and worker on them."""

    def __init__(self, folder: Path, database_url: str | None, redis_url: str | None) -> None:
        self.folder = folder
        self.postgres: DrillPostgres | None = None
        self.redis: DrillRedis | None = None
        if database_url is None:
            self.postgres = DrillPostgres(folder / "pg")
            database_url = self.postgres.url
        if redis_url is None:
            self.redis = DrillRedis(folder)
            redis_url = self.redis.url
        self.database_url = database_url
        self.port = free_port()
        self.web: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self.env = {
            **{k: v for k, v in os.environ.items() if k in PASS_THROUGH or k.startswith("LC_")},
            "PATH": os.environ.get("PATH", os.defpath),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SERVICE_MODE": "production",
            "SECRET_KEY": os.urandom(32).hex(),
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "PUBLIC_BASE_URL": self.url,
            "TRUSTED_PROXY_COUNT": "1",
            "PYTHONUNBUFFERED": "1",
        }

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def python(self, code: str, timeout: float = 600) -> str:
        """Run `code` in a fresh Django process on the stack's database."""
        prelude = f"import sys; sys.path.insert(0, {str(ROOT)!r})\nimport django; django.setup()\n"
        done = subprocess.run(
            [sys.executable, "-c", prelude + code], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"bench subprocess failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def manage(self, *args: str) -> None:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")

    def start_processes(self) -> None:
        self.web = start_from_procfile(
            "web", {**self.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}"}, self.folder / "gunicorn.log",
            new_session=True,
        )  # fmt: skip
        self.worker = start_from_procfile(
            "worker", {**self.env, "CELERY_NODE_NAME": "load"}, self.folder / "worker.log", new_session=True
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            for name, process in (("gunicorn", self.web), ("celery worker", self.worker)):
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited ({process.returncode}); see {self.folder}")
            worker_ready = "ready." in (self.folder / "worker.log").read_text(errors="replace")
            if worker_ready and self._ready():
                return
            time.sleep(0.3)
        raise RuntimeError(f"the stack did not become ready within 180 s; see {self.folder}")

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/readyz", timeout=5) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def log_problems(self) -> list[str]:
        problems = []
        for name in ("gunicorn.log", "worker.log"):
            try:
                text = (self.folder / name).read_text(errors="replace")
            except OSError:
                continue
            problems += [f"{name}: {line}" for line in text.splitlines() if LOG_PROBLEM.search(line)]
        return problems

    def destroy(self) -> None:
        for process in (self.web, self.worker):
            if process is None or process.poll() is not None:
                continue
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            except ProcessLookupError:
                pass
        if self.redis is not None:
            self.redis.destroy()
        if self.postgres is not None:
            self.postgres.destroy()


@dataclass
class Key:
    raw: str
    account_id: str
    environment: str
    screenings: list[tuple[str, dict, str]] = field(default_factory=list)  # (idempotency key, body, id)
    assessment_ids: list[str] = field(default_factory=list)


def issue_keys(stack: LoadStack, accounts: int, pilots: int, stamp: str) -> list[Key]:
    """A live and a test key per paid account; a live key per pilot account (one-time total of 5)."""
    code = (
        "import json\nfrom datetime import date\n"
        "from accounts.models import Account\nfrom accounts.services import issue_key\n"
        f"for n in range({accounts + pilots}):\n"
        f"    pilot = n >= {accounts}\n"
        f"    email = f'load-{stamp}-{{n}}@example.com'\n"
        "    for environment in (('live',) if pilot else ('live', 'test')):\n"
        "        account, _, raw = issue_key(email=email, environment=environment, opened_on=date(2026, 9, 1),\n"
        "                                    plan='paid')\n"
        "        if pilot:\n"
        f"            Account.objects.filter(pk=account.pk).update(pilot_screening_total={PILOT_TOTAL})\n"
        "        print('KEY', json.dumps([raw, account.pk, environment]))\n"
    )
    rows = [json.loads(line[4:]) for line in stack.python(code).splitlines() if line.startswith("KEY ")]
    if len(rows) != 2 * accounts + pilots:
        raise RuntimeError(f"asked for {2 * accounts + pilots} keys, got {len(rows)}")
    return [Key(raw, account_id, environment) for raw, account_id, environment in rows]


# -- the clients -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    operation: str
    status: int | None  # None: a transport error
    latency_ms: float
    problem: str = ""  # a contract check this answer failed, if any


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)
    transport_errors: list[str] = field(default_factory=list)
    given_screenings: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    given_assessments: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    given_batches: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))


def envelope_problem(response: httpx2.Response) -> str:
    """Why a 402 or 429 is not the contract's answer, or ''."""
    if not response.headers.get("content-type", "").startswith("application/json"):
        return f"{response.status_code} is not JSON: {response.headers.get('content-type')}"
    try:
        body = response.json()
    except ValueError:
        return f"{response.status_code} body is not JSON"
    if not all(isinstance(body.get(name), str) and body.get(name) for name in ("code", "message", "request_id")):
        return f"{response.status_code} envelope lacks code/message/request_id: {str(body)[:200]}"
    if body["code"] not in CODES_BY_STATUS[response.status_code]:
        return f"{response.status_code} with code {body['code']}"
    return ""


def headers_problem(response: httpx2.Response, keyed: bool) -> str:
    missing = []
    if response.status_code == 429:
        retry_after = response.headers.get("retry-after", "")
        if not retry_after.isdigit() or int(retry_after) < 1:
            missing.append(f"Retry-After={retry_after!r}")
    if response.status_code == 429 or (keyed and response.status_code != 401):
        missing += [name for name in RATE_HEADERS if name.lower() not in response.headers]
    return f"{response.status_code} missing {', '.join(missing)}" if missing else ""


class LoadClient:
    """One keep-alive connection, behind the proxy at its own address, in a closed loop."""

    def __init__(
        self,
        tag: str,
        index: int,
        base_url: str,
        keys: list[Key],
        tally: Tally,
        rng: random.Random,
        max_backoff: float,
        hot_share: float,
    ) -> None:
        self.tag = tag  # Idempotency-Keys are unique across runs: `<tag>-<client>-<n>`
        self.index = index
        self.keys = keys
        self.tally = tally
        self.rng = rng
        self.max_backoff = max_backoff
        self.hot_share = hot_share
        self.address = f"10.{index // 250 % 250}.{index % 250}.{1 + index // 62500}"
        self.sent = 0
        self.client = httpx2.AsyncClient(
            base_url=base_url,
            timeout=httpx2.Timeout(60.0),
            limits=httpx2.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=60),
        )
        self.operations = list(OPERATION_WEIGHTS)
        self.weights = list(OPERATION_WEIGHTS.values())

    async def run(self, deadline: float) -> None:
        try:
            while time.monotonic() < deadline:
                await self.one()
        finally:
            await self.client.aclose()

    async def one(self) -> None:
        operation = self.rng.choices(self.operations, self.weights)[0]
        hot = self.rng.random() < self.hot_share
        key = self.keys[0] if hot else self.rng.choice(self.keys)  # keys[0]: a paid account's live key
        self.sent += 1
        idempotency_key = f"{self.tag}-{self.index}-{self.sent}"
        headers = {"X-Forwarded-For": HOT_ADDRESS if hot else self.address}
        method, path, body = "GET", "", None
        if operation == "keyless_check":
            path = f"/api/v1/vessels/{self.rng.choice(CHECK_IMOS)}/check"
        elif operation == "port_lookup":
            path = f"/api/v1/ports?query={self.rng.choice(PORT_QUERIES)}&limit=5"
        else:
            headers["Authorization"] = f"Bearer {key.raw}"
        if operation == "screening_replay":
            if not key.screenings:
                operation = "screening"
            else:
                idempotency_key, body, _ = self.rng.choice(key.screenings)
                method, path = "POST", "/api/v1/screenings"
        if operation == "screening":
            method, path = "POST", "/api/v1/screenings"
            body = {"imo": self.rng.choice(SCREEN_IMOS), "customer_reference": idempotency_key}
        elif operation == "screening_batch":
            method, path = "POST", "/api/v1/screening-batches"
            hulls = [*self.rng.sample(SCREEN_IMOS, self.rng.randint(1, 7)), BATCH_INVALID_IMO]
            body = {"items": [{"imo": imo} for imo in hulls], "customer_reference": idempotency_key}
        elif operation == "assessment":
            origin, destination = self.rng.choice(ROUTES)
            method, path = "POST", "/api/v1/voyage-assessments"
            body = {"route": {"origin": origin, "destination": destination}, "customer_reference": idempotency_key}
        elif operation == "usage":
            path = "/api/v1/usage"
        elif operation == "screening_read":
            path = f"/api/v1/screenings/{self.rng.choice(key.screenings)[2]}" if key.screenings else "/api/v1/usage"
        elif operation == "screening_list":
            path = "/api/v1/screenings"
        elif operation == "assessment_read":
            # The contract has no assessment list: a key with no assessment yet reads its usage.
            chosen = self.rng.choice(key.assessment_ids) if key.assessment_ids else None
            path = f"/api/v1/voyage-assessments/{chosen}" if chosen else "/api/v1/usage"
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key
        await self.send(operation, key, method, path, headers, body, idempotency_key)

    async def send(
        self, operation: str, key: Key, method: str, path: str, headers: dict, body: dict | None, idempotency_key: str
    ) -> None:
        started = time.perf_counter()
        try:
            response = await self.client.request(method, path, headers=headers, json=body)
            await response.aread()
        except httpx2.TransportError as exc:
            latency = (time.perf_counter() - started) * 1000
            self.tally.transport_errors.append(f"{operation} {method} {path}: {type(exc).__name__}: {exc}")
            self.tally.outcomes.append(Outcome(operation, None, latency, "transport error"))
            return
        latency = (time.perf_counter() - started) * 1000
        status = response.status_code
        keyed = "Authorization" in headers
        problems = []
        if status not in ALLOWED_STATUSES[operation]:
            problems.append(f"unexpected {status}: {response.text[:200]}")
        if status in CODES_BY_STATUS:
            problems.append(envelope_problem(response))
        problems.append(headers_problem(response, keyed))
        if status == 202 and operation == "screening_batch":
            self.tally.given_batches[(key.account_id, key.environment)].add(response.json()["id"])
        if status == 201 and operation in {"screening", "screening_replay", "assessment"}:
            record_id = response.json()["id"]
            owner = (key.account_id, key.environment)
            replayed = response.headers.get("x-service-idempotent-replay", "").lower() == "true"
            if operation == "screening_replay":
                original = next(entry[2] for entry in key.screenings if entry[0] == idempotency_key)
                if not replayed or record_id != original:
                    problems.append(f"replay answered replay={replayed} id={record_id} (original {original})")
            elif replayed:
                problems.append(f"a fresh Idempotency-Key was answered as a replay ({idempotency_key})")
            elif operation == "screening":
                key.screenings.append((idempotency_key, body or {}, record_id))
                self.tally.given_screenings[owner].add(record_id)
            else:
                key.assessment_ids.append(record_id)
                self.tally.given_assessments[owner].add(record_id)
        self.tally.outcomes.append(Outcome(operation, status, latency, "; ".join(p for p in problems if p)))
        if status in {429, 503}:
            retry_after = response.headers.get("retry-after", "1")
            await asyncio.sleep(min(float(retry_after) if retry_after.isdigit() else 1.0, self.max_backoff))


async def run_clients(
    tag: str,
    base_url: str,
    keys: list[Key],
    clients: int,
    seconds: float,
    tally: Tally,
    seed: int,
    max_backoff: float,
    hot_share: float = 0.0,
) -> float:
    """Run `clients` clients for `seconds`; returns the measured wall time (until the last answer)."""
    started = time.monotonic()
    deadline = started + seconds
    workers = [
        LoadClient(tag, index, base_url, keys, tally, random.Random(seed * 100_003 + index), max_backoff, hot_share)
        for index in range(clients)
    ]
    await asyncio.gather(*(worker.run(deadline) for worker in workers))
    return time.monotonic() - started


# -- the ledger ------------------------------------------------------------------------------------


LEDGER_SQL = """
WITH owners AS (
    SELECT id AS account_id FROM accounts_account WHERE email LIKE %(pattern)s
), drawn AS (
    SELECT account_id, environment, kind, sum(used) AS units FROM accounts_quotacounter
    WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2, 3
), metered AS (
    SELECT account_id, environment, kind, sum(units) AS units FROM accounts_meteringevent
    WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2, 3
), records AS (
    SELECT account_id, environment, 'screening' AS kind, count(*) FILTER (WHERE unit_charged) AS units,
           count(*) FILTER (WHERE origin = 'api') AS api_records
    FROM screening_screening WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2
    UNION ALL
    SELECT account_id, environment, 'assessment', count(*), count(*)
    FROM voyages_voyageassessment WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2
)
SELECT coalesce(d.account_id, m.account_id, r.account_id), coalesce(d.environment, m.environment, r.environment),
       coalesce(d.kind, m.kind, r.kind), coalesce(d.units, 0), coalesce(m.units, 0), coalesce(r.units, 0),
       coalesce(r.api_records, 0)
FROM drawn d
FULL JOIN metered m USING (account_id, environment, kind)
FULL JOIN records r USING (account_id, environment, kind)
"""

# Per allowance period: the ledger entries' units against the counter's `used` (they must be equal).
PERIOD_SQL = """
WITH owners AS (
    SELECT id AS account_id FROM accounts_account WHERE email LIKE %(pattern)s
), drawn AS (
    SELECT account_id, environment, kind, period, sum(used) AS units FROM accounts_quotacounter
    WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2, 3, 4
), entered AS (
    SELECT account_id, environment, kind, period, sum(units) AS units FROM accounts_meteringevent
    WHERE account_id IN (SELECT account_id FROM owners) GROUP BY 1, 2, 3, 4
)
SELECT coalesce(d.account_id, e.account_id), coalesce(d.environment, e.environment), coalesce(d.kind, e.kind),
       coalesce(d.period, e.period), coalesce(d.units, 0), coalesce(e.units, 0)
FROM drawn d FULL JOIN entered e USING (account_id, environment, kind, period)
"""

OPEN_BATCHES_SQL = """
SELECT count(*) FROM screening_screeningbatch
WHERE status IN ('queued', 'running')
  AND account_id IN (SELECT id FROM accounts_account WHERE email LIKE %(pattern)s)
"""


def open_batches(database_url: str, stamp: str) -> int:
    with psycopg.connect(database_url) as connection:
        return int(connection.execute(OPEN_BATCHES_SQL, {"pattern": f"load-{stamp}-%"}).fetchone()[0])


def settle_batches(stack: LoadStack, stamp: str, seconds: float) -> int:
    """Wait for the bench's screening batches to end (the worker runs their items); half way, run the
    sweep (no beat runs here) for items whose message was lost. Returns how many are still open."""
    deadline = time.monotonic() + seconds
    swept = False
    while (remaining := open_batches(stack.database_url, stamp)) and time.monotonic() < deadline:
        if not swept and deadline - time.monotonic() < seconds / 2:
            stack.python("from screening import batches\nbatches.sweep()\n")
            swept = True
        time.sleep(1)
    return remaining


def reconcile(database_url: str, stamp: str, tally: Tally) -> tuple[list[str], dict[str, int]]:
    """Problems found (empty when every key's ledger balances) and the totals per kind."""
    problems: list[str] = []
    totals: Counter[str] = Counter()
    with psycopg.connect(database_url) as connection:
        pattern = f"load-{stamp}-%"
        rows = connection.execute(LEDGER_SQL, {"pattern": pattern}).fetchall()
        periods = connection.execute(PERIOD_SQL, {"pattern": pattern}).fetchall()
        stored_ids = {
            "screening": stored_records(connection, "screening_screening", pattern),
            "assessment": stored_records(connection, "voyages_voyageassessment", pattern),
        }
    seen = set()
    for account, environment, kind, drawn, metered, charged, api_records in rows:
        seen.add((account, environment, kind))
        totals[f"{kind} units drawn"] += int(drawn)
        totals[f"{kind} entry units"] += int(metered)
        totals[f"{kind} records"] += int(api_records)
        if not (drawn == metered == charged):
            problems.append(
                f"{account}/{environment} {kind}: drawn {drawn}, ledger entries {metered}, records charged {charged}"
            )
    for account, environment, kind, period, drawn, entered in periods:
        if drawn != entered:
            problems.append(f"{account}/{environment} {kind} {period}: counter {drawn}, ledger entries {entered}")
    for kind, given in (("screening", tally.given_screenings), ("assessment", tally.given_assessments)):
        for owner, ids in given.items():
            stored = stored_ids[kind].get(owner, set())
            if ids != stored:
                problems.append(
                    f"{owner[0]}/{owner[1]} {kind}: clients were given {len(ids)} records, {len(stored)} stored "
                    f"({len(ids - stored)} given but not stored, {len(stored - ids)} stored but never given)"
                )
        totals[f"{kind} records given"] += sum(len(ids) for ids in given.values())
    totals["screening batches given"] = sum(len(ids) for ids in tally.given_batches.values())
    return problems, dict(totals)


def stored_records(connection: psycopg.Connection, table: str, pattern: str) -> dict[tuple[str, str], set[str]]:
    """(account, environment) -> ids of the records the API created for the bench's accounts."""
    origin = " AND origin = 'api'" if table == "screening_screening" else ""
    rows = connection.execute(
        f"SELECT account_id, environment, id FROM {table} "
        f"WHERE account_id IN (SELECT id FROM accounts_account WHERE email LIKE %(pattern)s){origin}",
        {"pattern": pattern},
    ).fetchall()
    stored: dict[tuple[str, str], set[str]] = defaultdict(set)
    for account, environment, row_id in rows:
        stored[(account, environment)].add(row_id)
    return stored


# -- the report ------------------------------------------------------------------------------------


def report(tally: Tally, wall_seconds: float) -> None:
    by_operation: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in tally.outcomes:
        by_operation[outcome.operation].append(outcome)
    total = len(tally.outcomes)
    print(f"\n{total} requests in {wall_seconds:.1f} s = {total / wall_seconds:.1f}/s")
    print(f"{'operation':<17} {'n':>6} {'rate/s':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  statuses")
    for operation in OPERATION_WEIGHTS:
        outcomes = by_operation.get(operation, [])
        if not outcomes:
            continue
        latencies = [o.latency_ms for o in outcomes]
        statuses = Counter("transport" if o.status is None else str(o.status) for o in outcomes)
        status_text = " ".join(f"{code}:{n}" for code, n in sorted(statuses.items()))
        print(
            f"{operation:<17} {len(outcomes):>6} {len(outcomes) / wall_seconds:>7.1f} {percentile(latencies, 50):>8.1f} "
            f"{percentile(latencies, 95):>8.1f} {percentile(latencies, 99):>8.1f}  {status_text}"
        )
    ok = [o.latency_ms for o in tally.outcomes if o.status is not None and o.status < 300]
    if ok:
        print(f"{'all 2xx':<17} {len(ok):>6} {len(ok) / wall_seconds:>7.1f} {percentile(ok, 50):>8.1f} "
              f"{percentile(ok, 95):>8.1f} {percentile(ok, 99):>8.1f}")  # fmt: skip


def warm_up(base_url: str, keys: list[Key], tally: Tally, args: argparse.Namespace) -> None:
    """Rounds of 16 clients until a round's slowest answer is under WARM_MAX_MS (or the time limit)."""
    started = time.monotonic()
    round_number = 0
    while True:
        round_number += 1
        warm = Tally()
        asyncio.run(
            run_clients(
                f"w{round_number}", base_url, keys, 16, args.warmup, warm, args.seed + round_number, args.max_backoff
            )
        )
        # Its records count in the ledger like any other: the measured tally learns of them too.
        for owner, ids in warm.given_screenings.items():
            tally.given_screenings[owner] |= ids
        for owner, ids in warm.given_assessments.items():
            tally.given_assessments[owner] |= ids
        for owner, ids in warm.given_batches.items():
            tally.given_batches[owner] |= ids
        slowest = max((o.latency_ms for o in warm.outcomes if o.status is not None and o.status < 300), default=0.0)
        print(f"warm-up round {round_number}: {len(warm.outcomes)} requests, slowest answer {slowest:.0f} ms")
        if slowest <= WARM_MAX_MS or time.monotonic() - started >= args.warmup_limit:
            return


def checks(tally: Tally, ledger_problems: list[str], log_problems: list[str]) -> list[tuple[str, bool, str]]:
    outcomes = tally.outcomes
    server_errors = [o for o in outcomes if o.status is not None and o.status >= 500]
    problems = [o for o in outcomes if o.problem and o.problem != "transport error"]
    limited = [o for o in outcomes if o.status in (402, 429)]

    def sample(items: list[str]) -> str:
        return "; ".join(items[:3])

    def grouped(items: list[str]) -> str:
        """The most frequent problems, each on its first line, with their counts."""
        counts = Counter(" ".join(item.split())[:160] for item in items)
        return "; ".join(f"{text} (x{n})" for text, n in counts.most_common(5))

    return [
        ("no 5xx", not server_errors, sample([f"{o.operation} {o.status}" for o in server_errors])),
        ("no transport errors", not tally.transport_errors, sample(tally.transport_errors)),
        (
            f"every answer as the contract says ({len(limited)} were 402/429)",
            not problems,
            grouped([f"{o.operation}: {o.problem}" for o in problems]),
        ),
        ("ledger reconciles for every key", not ledger_problems, sample(ledger_problems)),
        ("no error in the server logs", not log_problems, sample(log_problems)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--accounts", type=int, default=50, help="paid accounts, a live and a test key each")
    parser.add_argument("--pilot-accounts", type=int, default=5, help=f"live keys on a one-time total of {PILOT_TOTAL}")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds per warm-up round (0: no warm-up)")
    parser.add_argument("--warmup-limit", type=float, default=120.0, help="longest warm-up in all (s)")
    parser.add_argument("--hot-share", type=float, default=0.1, help="share of requests on the hot key/address")
    parser.add_argument("--max-backoff", type=float, default=1.0, help="longest wait after a 429/503 (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settle-seconds", type=float, default=120.0, help="longest wait for batches to end (s)")
    parser.add_argument("--database-url", help="an existing PostgreSQL database of its own (migrated and seeded)")
    parser.add_argument("--redis-url", help="an existing Redis (with --database-url)")
    parser.add_argument("--keep", action="store_true", help="keep the stack's folder (logs) at the end")
    args = parser.parse_args()
    if bool(args.database_url) != bool(args.redis_url):
        parser.error("give both --database-url and --redis-url, or neither")
    if args.database_url is None and (reason := missing_tools()):
        print(f"cannot start a stack: {reason}", file=sys.stderr)
        return 2

    began = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="svc-load-"))
    stack: LoadStack | None = None

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    try:
        stack = LoadStack(folder, args.database_url, args.redis_url)
        stack.manage("migrate", "--no-input")
        stack.manage("seed_demo")
        stamp = time.strftime("%H%M%S")
        keys = issue_keys(stack, args.accounts, args.pilot_accounts, stamp)
        stack.start_processes()
        print(f"stack up in {time.monotonic() - began:.0f} s: {stack.url}, {len(keys)} keys, folder {folder}")
        tally = Tally()
        if args.warmup > 0:
            warm_up(stack.url, keys, tally, args)
        load_before = os.getloadavg()
        client_cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        wall = asyncio.run(
            run_clients(
                "run", stack.url, keys, args.clients, args.seconds, tally, args.seed, args.max_backoff, args.hot_share
            )
        )
        load_after = os.getloadavg()
        client_cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        report(tally, wall)
        print(f"load average (1/5/15 min) before: {' '.join(f'{x:.2f}' for x in load_before)}, "
              f"after: {' '.join(f'{x:.2f}' for x in load_after)}; {os.cpu_count()} CPUs")  # fmt: skip
        client_cpu = (client_cpu_after.ru_utime + client_cpu_after.ru_stime) - (
            client_cpu_before.ru_utime + client_cpu_before.ru_stime
        )
        print(f"the clients' own CPU: {client_cpu:.1f} s in {wall:.1f} s ({100 * client_cpu / wall:.0f}% of one core)")
        time.sleep(1)  # the access log's background writer and the worker settle before the logs are read
        still_open = settle_batches(stack, stamp, args.settle_seconds)
        ledger_problems, totals = reconcile(stack.database_url, stamp, tally)
        if still_open:
            ledger_problems.insert(0, f"{still_open} screening batches still open after {args.settle_seconds:.0f} s")
        print("ledger: " + ", ".join(f"{name} {value}" for name, value in sorted(totals.items())))
        results = checks(tally, ledger_problems, stack.log_problems())
        print()
        for label, passed, detail in results:
            print(f"{'PASS' if passed else 'FAIL'}  {label}" + (f": {detail}" if detail else ""))
        print(f"\nwhole run: {time.monotonic() - began:.0f} s")
        return 0 if all(passed for _, passed, _ in results) else 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if stack is not None:
            stack.destroy()
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
