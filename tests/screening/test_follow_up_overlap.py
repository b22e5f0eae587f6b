"""Automatic resolution under overlap (issue 25 item 1): two runs of the due follow-ups at once
(two processes; a real Celery worker and a direct call) re-screen an open INCOMPLETE once,
store one resolution record and charge one unit.

The hull is named only by a live register, served here, which holds its answers until two
look-ups are waiting (or a few seconds pass): both runs are then inside the re-screen at the
same time, which is exactly the overlap a slow beat tick and an acks-late redelivery produce.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from metering.models import QuotaCounter
from screening import datastate, demo, services
from screening.models import FollowUp, Screening
from screening.tasks import run_due_follow_ups
from tests.support.worker import ROOT, database_url, private_broker, start_worker, stop_worker, worker_log
from webhooks.models import Event

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

HOLD_SECONDS = 5.0


class _HoldingRegister(BaseHTTPRequestHandler):
    """Names every hull, but only once two look-ups wait (or HOLD_SECONDS passed)."""

    arrived = threading.Semaphore(0)
    both = threading.Event()
    count = 0
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - http.server's naming
        with _HoldingRegister.lock:
            _HoldingRegister.count += 1
            if _HoldingRegister.count >= 2:
                _HoldingRegister.both.set()
        _HoldingRegister.both.wait(HOLD_SECONDS)
        body = json.dumps({"name": "DEMO LIVE ANSWER"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def register(settings):
    _HoldingRegister.count = 0
    _HoldingRegister.both.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HoldingRegister)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/named"
    yield url
    server.shutdown()


@pytest.fixture
def due_follow_up(demo_world, issue_key, screen, settings):
    """An open INCOMPLETE (no register names the hull yet) whose first slot is due."""
    settings.LIVE_REGISTER_URLS = dict.fromkeys(settings.LIVE_REGISTER_URLS, "")
    original = screen(issue_key("test"), demo.INCOMPLETE_IDENTITY).json()
    assert original["sanctions"]["status"] == "INCOMPLETE"
    FollowUp.objects.update(next_attempt_at=timezone.now() - timedelta(minutes=1))
    datastate.invalidate()
    return original


def _register_env(url: str) -> dict[str, str]:
    return {
        "LIVE_REGISTER_URL_CLASSSOC_VESSEL_REGISTER": url,
        "LIVE_REGISTER_BUDGET_SECONDS": str(HOLD_SECONDS + 3),
        "OUTBOUND_ALLOW_LOOPBACK": "1",
    }


def _point_this_process_at(settings, url: str) -> None:
    settings.LIVE_REGISTER_URLS = {**dict.fromkeys(settings.LIVE_REGISTER_URLS, ""), "classsoc_vessel_register": url}
    settings.LIVE_REGISTER_BUDGET_SECONDS = HOLD_SECONDS + 3
    settings.OUTBOUND_ALLOW_LOOPBACK = True


def _assert_resolved_once(original: dict) -> None:
    answers = list(Screening.objects.filter(origin=services.ORIGIN_RESOLUTION))
    assert len(answers) == 1, [(a.id, a.supersedes_id) for a in answers]
    answer = answers[0]
    follow_up = FollowUp.objects.get()
    assert follow_up.status == FollowUp.Status.RESOLVED
    assert follow_up.resolved_screening_id == answer.id
    assert answer.supersedes_id == original["id"]
    assert Screening.objects.get(pk=original["id"]).superseded_by_id == answer.id
    assert QuotaCounter.objects.get(kind="screening").used == 1
    assert Event.objects.filter(type="screening.resolved").count() == 1


def _wait_for_first_look_up(timeout: float = 60) -> None:
    """The other run has read the follow-up as due and is inside its re-screen."""
    deadline = timezone.now() + timedelta(seconds=timeout)
    while _HoldingRegister.count < 1:
        assert timezone.now() < deadline, "the other run never reached the register"
        threading.Event().wait(0.05)


def _wait_until_settled(timeout: float = HOLD_SECONDS + 30) -> None:
    """Until the follow-up is no longer pending, then long enough for a second writer to show."""
    deadline = timezone.now() + timedelta(seconds=timeout)
    while FollowUp.objects.filter(status=FollowUp.Status.PENDING).exists():
        assert timezone.now() < deadline, "the follow-up was never resolved"
        threading.Event().wait(0.2)
    threading.Event().wait(2)


def test_two_processes_running_the_due_follow_ups_at_once_resolve_and_charge_once(due_follow_up, register, settings):
    other = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from screening.tasks import run_due_follow_ups; print(run_due_follow_ups())",
        ],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": database_url(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            **_register_env(register),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for_first_look_up()
        _point_this_process_at(settings, register)
        mine = run_due_follow_ups()
        output, _ = other.communicate(timeout=120)
    finally:
        other.kill()
    assert other.returncode == 0, output
    _assert_resolved_once(due_follow_up)
    assert mine.get("resolved", 0) + output.count("'resolved'") == 1, (mine, output)


def test_a_worker_and_a_direct_call_running_the_due_follow_ups_at_once_resolve_and_charge_once(
    due_follow_up, register, settings, tmp_path
):
    with private_broker(tmp_path / "broker") as broker_env:
        worker = start_worker({**broker_env, **_register_env(register)})
        try:
            run_due_follow_ups.delay()
            _wait_for_first_look_up()
            _point_this_process_at(settings, register)
            run_due_follow_ups()
            _wait_until_settled()
        finally:
            stop_worker(worker)
    assert "Traceback" not in worker_log(worker), worker_log(worker)[-3000:]
    _assert_resolved_once(due_follow_up)
