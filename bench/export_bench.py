"""An export of 100,000 screenings: wall time and the worker's peak memory.

    .venv/bin/python bench/export_bench.py [--rows 100000] [--format csv|jsonl]

Own throwaway PostgreSQL (bench/http_bench.py BenchStack; nothing on the machine's servers is
touched), `migrate`, `seed_demo`; one real screening is made and its record copied --rows times
(bulk insert), then the export's one item is run by the jobs layer's worker body in a fresh
process, which reports the time and its peak RSS before and after (ru_maxrss): the rows are
streamed in chunks, so the peak should not grow with the row count.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from http_bench import BenchStack  # noqa: E402

FILL = """
from datetime import date
from django.utils import timezone
from accounts.services import issue_key
from core.api.ids import new_id
from screening import demo
from screening.models import Screening
from screening.services import CallerInput, screen

account, _, _ = issue_key(email="exporter@bench.example", environment="live", opened_on=date(2026, 9, 1))
template = screen(account, "live", CallerInput(imo=demo.GREEN_CLEAN)).screening
fields = {f.attname: getattr(template, f.attname) for f in Screening._meta.concrete_fields if f.attname != "id"}
made = 1
while made < {rows}:
    batch = [Screening(id=new_id("scr"), **fields) for _ in range(min(5000, {rows} - made))]
    Screening.objects.bulk_create(batch)
    made += len(batch)
print("ROWS", made, "ACCOUNT", account.pk)
"""

EXPORT = """
import resource, time
from django.test import override_settings
from metering.auth import authenticate_header_value
from accounts.models import Account
from exports.models import ExportItem
from exports.production import KIND
from exports import services
from jobs import flow

class Context:
    def __init__(self, account):
        self.account = account
        self.account_id = account.pk
        self.environment = "live"
        self.scopes = ["vessel:screen"]

account = Account.objects.get(email="exporter@bench.example")
created = services.create_export(Context(account), {{"resource": "screenings", "format": "{fmt}"}})
item = ExportItem.objects.get(export_id=created.job.pk)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
outcome = flow.run_item(KIND, item.pk)
elapsed = time.perf_counter() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
export = created.job.__class__.objects.get(pk=created.job.pk)
print("OUTCOME", outcome, "ROWS", export.rows_written, "BYTES", export.size_bytes, "SECONDS", round(elapsed, 1),
      "RSS_BEFORE_MB", round(before / 1024), "RSS_PEAK_MB", round(after / 1024))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="svc-export-bench-"))
    stack = BenchStack(folder, workers=0, threads=0)
    try:
        stack.start_servers()
        stack.env["EXPORT_DIR"] = str(folder / "exports")
        stack.manage("migrate", "--no-input")
        stack.manage("seed_demo")
        print(stack.python(FILL.replace("{rows}", str(args.rows))).strip(), flush=True)
        print(stack.python(EXPORT.format(fmt=args.format)).strip(), flush=True)
        return 0
    finally:
        stack.destroy()


if __name__ == "__main__":
    raise SystemExit(main())
