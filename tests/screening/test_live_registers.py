"""Live registers: read in parallel within one budget, only when the five stores are silent."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from screening import demo
from screening.models import LiveRegisterName
from screening.sources.live_registers import lookup_live_registers

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _allow_loopback(settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = True  # the registers here are served on 127.0.0.1


class _Registers(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):  # noqa: N802 - http.server's naming
        imo = parse_qs(urlparse(self.path).query).get("imo", [""])[0]
        register = urlparse(self.path).path.strip("/")
        if register == "named":
            self._json(200, {"imo": imo, "name": "LIVE NAMED HULL"})
        elif register == "silent":
            self._json(404, {"detail": "not found"})
        elif register == "slow":
            time.sleep(2.0)
            self._json(200, {"imo": imo, "name": "TOO LATE"})
        else:
            self._json(500, {"detail": "boom"})

    def _json(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def registers_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_answers_within_the_budget_count_and_late_or_failing_ones_are_unreachable(registers_server):
    urls = {
        "classsoc_vessel_register": f"{registers_server}/named",
        "itf_ship_lookup": f"{registers_server}/silent",
        "iacs_vessels_in_class": f"{registers_server}/slow",
        "uscg_psix": f"{registers_server}/broken",
    }
    started = time.monotonic()
    answers = {a.register: a for a in lookup_live_registers("9074729", urls, budget=0.5)}
    assert time.monotonic() - started < 1.5  # asked in parallel, cut at the budget
    assert answers["classsoc_vessel_register"].name == "LIVE NAMED HULL"
    assert answers["itf_ship_lookup"].reachable is True and answers["itf_ship_lookup"].name is None
    assert answers["iacs_vessels_in_class"].reachable is False
    assert answers["uscg_psix"].reachable is False


def test_a_hull_only_a_live_register_names_is_screened_under_that_name(
    demo_world, issue_key, screen, registers_server, settings
):
    settings.LIVE_REGISTER_URLS = {
        "classsoc_vessel_register": f"{registers_server}/named",
        "itf_ship_lookup": f"{registers_server}/silent",
        "iacs_vessels_in_class": "",
        "uscg_psix": f"{registers_server}/broken",
    }
    settings.LIVE_REGISTER_BUDGET_SECONDS = 0.5
    body = screen(issue_key("test"), demo.INCOMPLETE_IDENTITY).json()
    assert body["identity_basis"] == "sources" and body["vessel_name"] == "LIVE NAMED HULL"
    live = {row["register"]: row for row in body["identity_sources"][5:]}
    assert set(live) == {"classsoc_vessel_register", "itf_ship_lookup", "uscg_psix"}  # unconfigured: not consulted
    assert live["classsoc_vessel_register"] == {
        "register": "classsoc_vessel_register",
        "named": True,
        "reachable": True,
        "name": "LIVE NAMED HULL",
    }
    assert live["uscg_psix"]["reachable"] is False and live["uscg_psix"]["named"] is False
    assert LiveRegisterName.objects.filter(imo=demo.INCOMPLETE_IDENTITY, register="classsoc_vessel_register").exists()


def test_a_live_name_is_kept_thirty_days_instead_of_asking_again(demo_world, issue_key, screen, settings):
    LiveRegisterName.objects.create(register="uscg_psix", imo=demo.INCOMPLETE_IDENTITY, name="KEPT NAME")
    settings.LIVE_REGISTER_URLS = dict.fromkeys(settings.LIVE_REGISTER_URLS, "")
    body = screen(issue_key("test"), demo.INCOMPLETE_IDENTITY).json()
    assert body["vessel_name"] == "KEPT NAME"
