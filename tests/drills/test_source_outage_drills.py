"""Drill: a data source out — a live register failing mid-screening, a list download failing.

Expected, and checked:

- a hull no register store names is named by the live registers; when they fail (connection
  refused, a 500, no answer within the budget, the connection dropped) the screening answers
  INCOMPLETE with every register row `reachable: false` and charges nothing, never GREEN (the
  control: the same register answering a name gives a charged verdict, so the drill sees the
  difference);
- `manage.py refresh_sources` whose download fails (a dead port) or brings a list that would drop
  every listing (one unrelated row: the shrink guard of screening/ingest.py) keeps the previous
  copy of the UK list serving (the same active snapshot, the same listings: its listed hull is
  still RED), records each failed attempt, says so in the screening's `sources` row ("Last refresh
  failed"), and exits non-zero.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from screening import demo
from tests.drills.extra import ExtraServer, ScriptedRegister, dead_url, issue_keys, keyed_headers, wait_until
from tests.drills.stack import ROOT

pytestmark = pytest.mark.slow

BUDGET_SECONDS = 2  # the live registers' budget on the drill's server
_stems = itertools.count(985_000 + (int(time.time()) % 500) * 20)


def fresh_imo() -> str:
    """A valid IMO no store names and no register was asked about yet (its name is not cached)."""
    return demo.imo_from_stem(next(_stems))


def screen(base_url: str, key: str, imo: str) -> dict:
    response = requests.post(
        f"{base_url}/api/v1/screenings",
        json={"imo": imo},
        headers=keyed_headers(key, f"source-outage-{imo}"),
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_live_registers_failing_give_incomplete_never_green_and_charge_nothing(drill):
    register = ScriptedRegister(hang_seconds=BUDGET_SECONDS + 4)
    server = ExtraServer(
        drill,
        LIVE_REGISTER_URL_CLASSSOC_VESSEL_REGISTER=register.url,
        LIVE_REGISTER_URL_ITF_SHIP_LOOKUP=dead_url("/register"),  # connection refused, throughout
        LIVE_REGISTER_BUDGET_SECONDS=str(BUDGET_SECONDS),
    )
    (key,) = issue_keys(drill, 1, prefix="register-outage")
    try:
        register.mode = "name"
        control = screen(server.url, key, fresh_imo())
        assert control["sanctions"]["status"] == "GREEN", control["sanctions"]
        assert control["unit_charged"] is True
        assert control["vessel_name"] == ScriptedRegister.NAME

        for mode in ("error", "hang", "drop"):
            register.mode = mode
            asked_before = register.requests
            started = time.monotonic()
            found = screen(server.url, key, fresh_imo())
            took = time.monotonic() - started
            sanctions = found["sanctions"]
            assert sanctions["status"] == "INCOMPLETE", f"{mode}: {sanctions}"
            assert found["unit_charged"] is False, mode
            assert found["identity_basis"] == "none", mode
            live = {row["register"]: row for row in found["identity_sources"]}
            assert {name: live[name]["reachable"] for name in ("classsoc_vessel_register", "itf_ship_lookup")} == {
                "classsoc_vessel_register": False,
                "itf_ship_lookup": False,
            }, f"{mode}: {found['identity_sources']}"
            assert register.requests > asked_before, f"{mode}: the register was never asked"
            assert took < BUDGET_SECONDS + 10, (
                f"{mode}: the screening waited {took:.1f} s on a {BUDGET_SECONDS} s budget"
            )
    finally:
        server.stop()
        register.shutdown()


UK_HEADER = "Unique ID,Name 1,Name type,Regime Name,Designation Type,IMO number,Date Designated\n"


def uk_list(rows: list[tuple[str, str, str]]) -> bytes:
    """A UK Sanctions List CSV of ships: (unique id, name, IMO) per row."""
    lines = [f"{uid},{name},Primary name,Drill,Ship,{imo},01/11/2026\n" for uid, name, imo in rows]
    return (UK_HEADER + "".join(lines)).encode()


class ListServer:
    """Answers every GET with 200 and `body` as CSV: a download that works."""

    def __init__(self, body: bytes) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/csv")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/UK-Sanctions-List.csv"

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def refresh_uk(drill, *args: str, url: str = "") -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    """`manage.py refresh_sources --source uk_sanctions [args]`, its download URL set to `url`."""
    env = {**drill.env, "SOURCE_URL_UK_SANCTIONS_CSV": url} if url else drill.env
    return subprocess.run(
        [sys.executable, "manage.py", "refresh_sources", "--source", "uk_sanctions", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def uk_snapshots(drill) -> list[tuple]:
    return drill.postgres.sql(
        "SELECT id, status, row_count, is_demo, message FROM screening_sourcesnapshot "
        "WHERE source = 'uk_sanctions' ORDER BY retrieved_at, id"
    )


def uk_row(found: dict) -> dict:
    return next(row for row in found["sources"] if row["source"] == "uk_sanctions")


def test_a_failed_list_download_keeps_the_previous_copy_serving_and_says_so(drill):
    # A real (non-demo) copy of the UK list serves first: five ships, the drill's hull among them.
    # (It replaces the demo copy for the rest of the session; no other drill screens a UK-listed hull.)
    listed = fresh_imo()
    ships = [
        (f"DRILL-UK-{n}", f"DRILL UK SHIP {n}", imo) for n, imo in enumerate([listed, *(fresh_imo() for _ in range(4))])
    ]
    real_copy = drill.folder / "UK-Sanctions-List.csv"
    real_copy.write_bytes(uk_list(ships))
    loaded = refresh_uk(drill, "--file", str(real_copy))
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    before = uk_snapshots(drill)
    serving = [row for row in before if row[1] == "active"]
    assert [(row[2], row[3]) for row in serving] == [(5, False)], before

    shrunk = ListServer(uk_list([("DRILL-UK-X", "DRILL UNRELATED SHIP", fresh_imo())]))
    try:
        refused = refresh_uk(drill, url=dead_url("/UK-Sanctions-List.csv"))
        brought_one_row = refresh_uk(drill, url=shrunk.url)
    finally:
        shrunk.shutdown()
    try:
        assert refused.returncode != 0 and "download of csv failed" in refused.stderr, refused.stderr[-500:]
        assert brought_one_row.returncode != 0 and "refused" in brought_one_row.stderr, brought_one_row.stderr[-500:]
        after = uk_snapshots(drill)
        assert [row for row in after if row[1] == "active"] == serving, "the serving copy was replaced"
        failed = [row for row in after if row not in before]
        assert [row[1] for row in failed] == ["failed", "failed"], failed
        assert failed[0][4].startswith("download failed") and failed[1][4].startswith("refused"), failed

        def screened_with_the_failure_noted() -> dict | None:
            response = requests.post(
                f"{drill.url}/api/v1/screenings",
                json={"imo": listed},
                headers=keyed_headers(drill.live_key, f"source-outage-{listed}-{time.monotonic_ns()}"),
                timeout=60,
            )
            assert response.status_code == 201, response.text
            found = response.json()
            return found if "Last refresh failed" in (uk_row(found).get("message") or "") else None

        # Every process re-reads the sources' state within its 2 s data-state check.
        found = wait_until(
            screened_with_the_failure_noted, 20, "the screening's uk_sanctions row never noted the failure", every=1
        )
        assert found["sanctions"]["status"] == "RED", "the previous UK copy must still serve"
        assert uk_row(found)["status"] == "ok", uk_row(found)
    finally:
        # The failed attempts stay out of the next drills' screenings (this stack is shared).
        ids = "','".join(row[0] for row in uk_snapshots(drill) if row not in before and row[1] == "failed")
        drill.postgres.sql(f"DELETE FROM screening_sourcesnapshot WHERE id IN ('{ids}')")
