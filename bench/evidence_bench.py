"""Decisions, evidence packs and as_of replay: their cost against a plain screening (issue 28 "Performance").

    .venv/bin/python bench/evidence_bench.py [--rounds 30]

Runs on a throwaway SQLite database of its own (migrated here, the demo world seeded), with the real
OFAC SDN.CSV of ../shared/data loaded as two editions when present (a generated list in the same layout
otherwise). Measured in one run, as ratios where a ratio is the target:
  - queries of a screening of a hull with 5 active decisions against the same screening with none;
  - GET /screenings/{id}/evidence as JSON, and as a PDF (the first render, then warm);
  - the first as_of screening (unpacking and parsing the kept OFAC edition), then as_of screenings against
    editions already unpacked, against a normal screening of the same hull.
Figures go in the issue's closing note; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import SHARED_DATA, percentile  # noqa: E402


def _ms(samples: list[float]) -> str:
    return f"p50 {percentile(samples, 50):7.1f} ms  p95 {percentile(samples, 95):7.1f} ms  mean {statistics.fmean(samples):7.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="evidence-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from datetime import timedelta

    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.services import issue_key
    from screening import datastate, demo, evidence, refresh, services
    from screening.models import MatchDecision, SourceSnapshot
    from screening.records import listing_content, listing_fingerprint

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    real = SHARED_DATA / "ofac" / "sdn-2024-05-03.csv"
    base = (
        real.read_bytes()
        if real.exists()
        else b"".join(
            f'{10000 + n},"GENERATED TRADING {n}",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n'.encode()
            for n in range(15000)
        )
    )
    silver_tide = b'990002,"DEMO SILVER TIDE","vessel","SDGT",-0- ,-0- ,"General Cargo",-0- ,-0- ,-0- ,-0- ,-0- \n'
    SourceSnapshot.objects.update(retrieved_at=timezone.now() - timedelta(days=30))
    assert refresh.load_files("ofac_sdn", {"sdn": base + silver_tide}, origin="bench").status == "loaded"
    SourceSnapshot.objects.filter(source="ofac_sdn", status="active").update(
        retrieved_at=timezone.now() - timedelta(days=10)
    )
    assert refresh.load_files("ofac_sdn", {"sdn": base + silver_tide + silver_tide.replace(b"990002", b"990009")},
                              origin="bench").status == "loaded"  # fmt: skip
    datastate.invalidate()
    print(f"OFAC edition: {'real SDN.CSV 2024-05-03' if real.exists() else 'generated'}, "
          f"{SourceSnapshot.objects.get(source='ofac_sdn', status='active').row_count} records")  # fmt: skip

    account, _, _ = issue_key(email="bench@example.com", environment="live", plan="paid")
    ask = services.CallerInput(imo=demo.AMBER_NAME_ONLY)

    def screened(**fields: object) -> services.Issued:
        return services.screen(account, "live", services.CallerInput(imo=demo.AMBER_NAME_ONLY, **fields))

    screened()
    with CaptureQueriesContext(connection) as without:
        record = screened()
    index = datastate.current().sanctions
    listings = [r for r in index.records if r.source == "ofac_sdn" and r.source_record_id][:5]
    listings[0] = index.record("ofac_sdn", "990002") or listings[0]
    for listing in listings:
        MatchDecision.objects.create(
            account=account, environment="live", imo=demo.AMBER_NAME_ONLY, source="ofac_sdn",
            source_record_id=listing.source_record_id, outcome="cleared", reason="bench", reviewer="bench",
            record=listing_content(listing), record_fingerprint=listing_fingerprint(listing),
        )  # fmt: skip
    with CaptureQueriesContext(connection) as with_five:
        record = screened()
    print(f"queries per screening: {len(without)} without decisions, {len(with_five)} with 5 on the hull "
          f"(+{len(with_five) - len(without)})")  # fmt: skip

    plain = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        services.screen(account, "live", ask)
        plain.append((time.perf_counter() - started) * 1000)
    print(f"screening, lists as they stand:        {_ms(plain)}")

    owner = type("Owner", (), {"account_id": account.pk, "environment": "live"})()
    as_json = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        pack = evidence.evidence_pack(owner, record.screening.pk)
        as_json.append((time.perf_counter() - started) * 1000)
    print(f"evidence pack, JSON:                   {_ms(as_json)}")
    started = time.perf_counter()
    first_pdf = evidence.evidence_pdf(pack)
    first = (time.perf_counter() - started) * 1000
    as_pdf = []
    for _ in range(max(5, args.rounds // 3)):
        started = time.perf_counter()
        evidence.evidence_pdf(pack)
        as_pdf.append((time.perf_counter() - started) * 1000)
    print(f"evidence pack, PDF: first {first:.0f} ms ({len(first_pdf):,} bytes), then {_ms(as_pdf)}")

    then = timezone.now() - timedelta(days=5)
    started = time.perf_counter()
    screened(as_of=then)
    unpack = (time.perf_counter() - started) * 1000
    replayed = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        screened(as_of=then)
        replayed.append((time.perf_counter() - started) * 1000)
    ratio = percentile(replayed, 50) / percentile(plain, 50)
    print(f"as_of screening: first (unpacks and parses the kept edition) {unpack:.0f} ms; then {_ms(replayed)}; "
          f"p50 ratio to a screening of the lists as they stand {ratio:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
