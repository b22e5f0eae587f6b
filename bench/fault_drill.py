"""Fault drill figures (issue 19): `python bench/fault_drill.py [--rounds N]`.

Starts its own PostgreSQL, Redis and gunicorn (tests/drills/stack.py), then per round lands
three faults in the middle of a real POST /api/v1/screenings and restores the servers:
  redis_after_commit   Redis killed while the screening runs (its slot release comes after commit)
  pg_while_completing  PostgreSQL stopped while the stored answer is being written
  pg_before_commit     PostgreSQL restarted under the request before it writes anything
After each, the same Idempotency-Key is retried (three tries, a second apart, as a client would).
Counts: first answers that were 500, double charges (units > 1 for one key), keys left stuck
(every retry 409 idempotency_in_progress) and keys still `running` at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.drills.stack import DrillStack  # noqa: E402


def imo_of(stem: int) -> str:
    digits = [int(d) for d in str(stem)]
    return f"{stem}{sum(d * (7 - i) for i, d in enumerate(digits)) % 10}"


def _in_flight(stack: DrillStack, imo: str, key: str) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run() -> None:
        try:
            box["response"] = stack.post("/api/v1/screenings", {"imo": imo}, key)
        except Exception as exc:  # noqa: BLE001
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def _lock_waiting(stack: DrillStack) -> bool:
    return bool(stack.postgres.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")[0][0])


def one_round(stack: DrillStack, scenario: str, imo: str, key: str) -> dict:
    import psycopg

    before = stack.units_used()
    stack.gate.close()
    thread, box = _in_flight(stack, imo, key)
    stack.gate.wait_arrival()
    holder = None
    if scenario == "redis_after_commit":
        stack.redis.stop()
        stack.gate.open()
    elif scenario == "pg_while_completing":
        holder = psycopg.connect(stack.postgres.url)
        holder.execute(f"SELECT 1 FROM accounts_idempotencyrecord WHERE key = '{key}' FOR UPDATE")
        stack.gate.open()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not _lock_waiting(stack):
            time.sleep(0.05)
        stack.postgres.stop()
    else:
        stack.postgres.stop()
        stack.postgres.start()
        stack.gate.open()
    thread.join(90)
    stack.restore()
    if holder is not None:
        try:
            holder.close()
        except Exception:  # noqa: BLE001
            pass
    first = box.get("response")
    retries = []
    for _ in range(3):
        retry = stack.post("/api/v1/screenings", {"imo": imo}, key)
        retries.append(retry.status_code)
        if retry.status_code != 409:
            break
        time.sleep(1)
    charged = stack.units_used() - before
    return {
        "first": first.status_code if first is not None else "transport error",
        "retries": retries,
        "charged": charged,
        "stuck": retries[-1] == 409,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    stack = DrillStack(Path(tempfile.mkdtemp(prefix="svc-fault-drill-")))
    totals: Counter = Counter()
    stem = 972_000
    try:
        for round_number in range(args.rounds):
            for scenario in ("redis_after_commit", "pg_while_completing", "pg_before_commit"):
                stem += 1
                outcome = one_round(stack, scenario, imo_of(stem), f"fault-drill-{scenario}-{round_number}")
                print(f"round {round_number} {scenario:20s} {outcome}", flush=True)
                totals["requests"] += 1
                totals["first_500"] += outcome["first"] == 500
                totals["first_503"] += outcome["first"] == 503
                totals["double_charges"] += outcome["charged"] > 1
                totals["stuck_keys"] += outcome["stuck"]
        running = stack.postgres.sql("SELECT count(*) FROM accounts_idempotencyrecord WHERE state = 'running'")[0][0]
        print(f"totals: {dict(totals)}, keys still running at the end: {running}")
    finally:
        stack.destroy()


if __name__ == "__main__":
    main()
