"""POST /api/v1/screenings against a running server: latency with vetting on and off, and throughput.

    # 1. a database with the full-scale world (bench/run.py screening loads it), and a server on it:
    DATABASE_URL=... REDIS_URL=... .venv/bin/gunicorn config.wsgi:application -w 4 --threads 4 -b 127.0.0.1:8766
    # 2. this client (same DATABASE_URL: it issues its keys directly):
    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/screening_http_bench.py --url http://127.0.0.1:8766

Each key may send 120 requests a minute and each account holds 6 screenings in flight, so the
client spreads its load over many accounts (--accounts), as a production mix of customers would.
"""

from __future__ import annotations

import argparse
import itertools
import random
import threading
import time
from datetime import date

import requests
from common import report, setup_django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--accounts", type=int, default=60)
    args = parser.parse_args()
    setup_django()
    from accounts.services import issue_key
    from screening.models import RegisterEntry

    imos = list(RegisterEntry.objects.values_list("imo", flat=True).distinct()[:20000])
    run = int(time.time())
    keys = [
        issue_key(email=f"bench{run}-{n}@example.com", environment="live", opened_on=date(2026, 9, 1), plan="paid")[2]
        for n in range(args.accounts)
    ]
    key_cycle = itertools.cycle(keys)
    lock = threading.Lock()
    results: dict[str, list[float]] = {"on": [], "off": []}
    statuses: dict[int, int] = {}

    def worker(count: int, seed: int) -> None:
        rng = random.Random(seed)
        session = requests.Session()
        for n in range(count):
            with lock:
                key = next(key_cycle)
            vetting = n % 2 == 0
            started = time.perf_counter()
            response = session.post(
                f"{args.url}/api/v1/screenings",
                json={"imo": rng.choice(imos), "include_vetting": vetting},
                headers={"Authorization": f"Bearer {key}", "Idempotency-Key": f"{run}-{seed}-{n}"},
                timeout=30,
            )
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                if response.status_code == 201:
                    results["on" if vetting else "off"].append(elapsed)

    per_client = args.requests // args.clients
    threads = [threading.Thread(target=worker, args=(per_client, seed)) for seed in range(args.clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    report("POST /screenings, include_vetting true", results["on"])
    report("POST /screenings, include_vetting false", results["off"])
    done = len(results["on"]) + len(results["off"])
    print(f"sustained: {done / wall:.1f} screenings/s with {args.clients} concurrent clients; statuses {statuses}")


if __name__ == "__main__":
    main()
