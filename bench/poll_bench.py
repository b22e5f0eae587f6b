"""Source polling: the CPU one poll of every source costs when every publisher answers 304.

    DATABASE_URL=sqlite:////tmp/poll_bench.sqlite3 .venv/bin/python bench/poll_bench.py [--rounds 30]

(DATABASE_URL defaults to that SQLite file; a PostgreSQL URL works the same way.) A local
publisher in its own process serves one file per part of every source with an official URL
(OFAC's SDN/ALT/ADD, the UN consolidated XML, the EU FSF, the UK CSV, the aggregated FtM export:
the real files from ../shared/data where present, the test fixtures otherwise) with an ETag and
Last-Modified, and answers 304 to a request naming them. The first `poll_all` loads every
source (200s); then each round is one `poll_all` that is all 304s: claim, conditional GETs, mark
checked, settle, for every source. The figure is this process's CPU time (time.process_time:
the poller, its DNS thread and, on SQLite, the database) per round; the publisher's CPU is not
counted. Target: at most 50 ms per round. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import statistics
import subprocess
import sys
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import ROOT, SHARED_DATA, percentile, setup_django

FIXTURES = ROOT / "tests" / "screening" / "sources" / "fixtures"
SDN_ROWS = (
    b'4243,"EBANO","vessel","CUBA",-0- ,-0- ,"General Cargo","2595","1865","Panama",-0- ,'
    b'"Vessel Registration Identification IMO 7406784."\n'
)


def published_files() -> dict[str, tuple[str, bytes]]:
    """Environment variable naming each source part's URL -> (path served, body)."""
    sdn = SHARED_DATA / "ofac" / "sdn-2024-05-03.csv"
    un = SHARED_DATA / "un" / "consolidated-2026-02-27.xml"
    files = {
        "SOURCE_URL_OFAC_SDN_SDN": ("/SDN.CSV", sdn.read_bytes() if sdn.is_file() else SDN_ROWS),
        "SOURCE_URL_OFAC_SDN_ALT": ("/ALT.CSV", b""),
        "SOURCE_URL_OFAC_SDN_ADD": ("/ADD.CSV", b""),
        "SOURCE_URL_EU_SANCTIONS_EU_FSF": ("/eu_fsf.xml", (FIXTURES / "eu_fsf.xml").read_bytes()),
        "SOURCE_URL_UK_SANCTIONS_CSV": ("/uk.csv", (FIXTURES / "uk.csv").read_bytes()),
        "SOURCE_URL_OPENSANCTIONS_JSONL": ("/entities.ftm.json", (FIXTURES / "entities.ftm.json").read_bytes()),
    }
    if un.is_file():
        files["SOURCE_URL_UN_SANCTIONS_XML"] = ("/consolidated.xml", un.read_bytes())
    else:  # no UN file to serve: the UN list is not polled in this run
        files["SOURCE_URL_UN_SANCTIONS_XML"] = ("", b"")
    return files


def serve(port: int) -> None:
    """The publisher (run in its own process): 200 with validators, 304 when they are sent back."""
    modified = formatdate(time.time() - 86400, usegmt=True)
    by_path = {
        path: (body, f'"{hashlib.sha256(body).hexdigest()[:20]}"') for path, body in published_files().values() if path
    }

    class Publisher(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            body, etag = by_path[self.path]
            if self.headers.get("If-None-Match") == etag or self.headers.get("If-Modified-Since") == modified:
                self.send_response(304)
                body = b""
            else:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    ThreadingHTTPServer(("127.0.0.1", port), Publisher).serve_forever()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve)
        return

    port = free_port()
    publisher = subprocess.Popen([sys.executable, __file__, "--serve", str(port)], cwd=ROOT)
    try:
        run(port, options.rounds)
    finally:
        publisher.terminate()
        publisher.wait(10)


def run(port: int, rounds: int) -> None:
    os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/poll_bench.sqlite3")
    os.environ["OUTBOUND_ALLOW_LOOPBACK"] = "1"  # the publisher is on 127.0.0.1
    for variable, (path, _body) in published_files().items():
        os.environ[variable] = f"http://127.0.0.1:{port}{path}" if path else ""
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    from screening import polling
    from screening.models import SourceFeed, SourceSnapshot

    call_command("migrate", verbosity=0)
    polled = polling.polled_sources()
    names = {source.name for source in polled}
    SourceSnapshot.objects.filter(source__in=names).delete()
    SourceFeed.objects.filter(source__in=names).delete()
    deadline = time.monotonic() + 10
    while True:  # the publisher is up
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)

    started = time.perf_counter()
    first = polling.poll_all()
    print(
        f"first poll (every file in full) of {len(polled)} sources: {first} in {time.perf_counter() - started:.2f} s "
        f"({connection.vendor})"
    )
    cpu_ms: list[float] = []
    wall_ms: list[float] = []
    for _ in range(rounds + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        summary = polling.poll_all()
        cpu_ms.append((time.process_time() - cpu) * 1000)
        wall_ms.append((time.perf_counter() - wall) * 1000)
        if set(summary) != {"not_modified"}:
            raise SystemExit(f"a round was not all 304s: {summary}")
    requests = sum(len(source.urls) for source in polled)
    cold, cpu_ms, wall_ms = cpu_ms[0], cpu_ms[1:], wall_ms[1:]
    print(
        f"304 poll of every source ({len(polled)} sources, {requests} conditional GETs), {rounds} rounds: "
        f"CPU p50={percentile(cpu_ms, 50):.1f} ms  p95={percentile(cpu_ms, 95):.1f} ms  "
        f"max={max(cpu_ms):.1f} ms  mean={statistics.fmean(cpu_ms):.1f} ms  (first 304 round {cold:.1f} ms); "
        f"wall p50={percentile(wall_ms, 50):.1f} ms  [target: CPU <= 50 ms per round]"
    )


if __name__ == "__main__":
    main()
