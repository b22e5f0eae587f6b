"""Webhook deliveries end to end: a real Celery worker process, the real local HTTPS receiver.

The worker runs the service's app on the test database (tests/support/worker.py; on the embedded
default a broker folder of the test's own) with a short retry schedule. Where beat would run the
sweep every WEBHOOK_SWEEP_SECONDS, the test process calls `webhooks.delivery.sweep()`, which sends
its tasks through the same broker. Issue 13, "Reliability".
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from types import SimpleNamespace

import pytest
from django.db import transaction

from tests.support.tls import start_https_receiver
from tests.support.worker import private_broker, start_worker, stop_worker, wait_until, worker_log
from webhooks import delivery
from webhooks.events import emit
from webhooks.models import Delivery, Event
from webhooks.services import create_endpoint

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

RETRY_DELAYS = (1, 1, 1)
TIMEOUT_SECONDS = 2
LEASE_MARGIN_SECONDS = 3  # lease 5 s: a worker slowed by a busy machine is not taken for lost
QUOTA_WARNING = {"used": 1600, "limit": 2000}
SIGNATURE = re.compile(r"^t=(\d+)((?:,v1=[0-9a-f]{64})+)$")


@pytest.fixture
def receiver(tmp_path, settings):
    found = start_https_receiver(tmp_path)
    # This process saves the endpoint (the URL check) and runs the sweep with the worker's schedule.
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    settings.WEBHOOK_RETRY_DELAYS_SECONDS = RETRY_DELAYS
    settings.WEBHOOK_TIMEOUT_SECONDS = TIMEOUT_SECONDS
    settings.WEBHOOK_LEASE_MARGIN_SECONDS = LEASE_MARGIN_SECONDS
    yield found
    found.close()


@pytest.fixture
def workers(tmp_path, receiver):
    """start() -> a worker on this test's broker, trusting the receiver; all stopped at the end."""
    started = []
    with private_broker(tmp_path / "broker") as broker_env:
        env = {
            **broker_env,
            "OUTBOUND_ALLOW_LOOPBACK": "1",
            "REQUESTS_CA_BUNDLE": str(receiver.certificate),
            "WEBHOOK_RETRY_DELAYS_SECONDS": ",".join(str(delay) for delay in RETRY_DELAYS),
            "WEBHOOK_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
            "WEBHOOK_LEASE_MARGIN_SECONDS": str(LEASE_MARGIN_SECONDS),
        }

        def start():  # type: ignore[no-untyped-def]
            process = start_worker(env, log_path=tmp_path / f"worker-{len(started) + 1}.log")
            started.append(process)
            return process

        yield SimpleNamespace(start=start, started=started)
        for process in started:
            stop_worker(process)


@pytest.fixture
def owner(db):
    from accounts.services import issue_key

    account, _, _ = issue_key(email="hooks-worker@example.com", environment="live")
    return SimpleNamespace(account_id=account.id, environment="live")


@pytest.fixture
def endpoint(owner, receiver):
    return create_endpoint(owner, {"url": f"{receiver.url}/hook"}).endpoint


def _emit_committed(owner) -> Event:  # type: ignore[no-untyped-def]
    with transaction.atomic():
        return emit(owner.account_id, owner.environment, "usage.quota_warning", QUOTA_WARNING)


def _verifies(secret: str, header: str, body: bytes) -> bool:
    match = SIGNATURE.match(header)
    assert match, header
    timestamp, signatures = match.group(1), match.group(2).split(",v1=")[1:]
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)


def _settled(event: Event, timeout: float, workers) -> Delivery:  # type: ignore[no-untyped-def]
    """Run the sweep as beat would until the event's delivery is delivered or dead."""

    def done() -> Delivery | None:
        found = Delivery.objects.get(event=event)
        return found if found.status in {Delivery.Status.DELIVERED, Delivery.Status.DEAD} else None

    try:
        return wait_until(done, timeout, f"delivery of {event.id} settled", every=0.25, on_each=delivery.sweep)
    finally:  # captured: pytest shows it when the test fails
        _explain(Delivery.objects.get(event=event), workers)


def _explain(found: Delivery, workers) -> None:  # type: ignore[no-untyped-def]
    """What a failing test shows: the delivery, its attempts and the workers' logs."""
    print(f"delivery {found.pk}: {found.status}, {found.attempt_count} attempts, last error {found.last_error!r}")
    for a in found.attempts.order_by("number"):
        print(f"  #{a.number} {a.outcome} {a.status_code} {a.duration_ms} ms at {a.started_at}: {a.error!r}")
    for process in workers.started:
        print(f"--- worker {process.pid} (exit {process.poll()}):\n{worker_log(process)[-4000:]}")


def _attempts(found: Delivery) -> list[tuple[int, str, int | None]]:
    return [(a.number, a.outcome, a.status_code) for a in found.attempts.order_by("number")]


def test_an_event_committed_is_delivered_signed_by_a_worker(owner, endpoint, receiver, workers, settings):
    workers.start()
    event = _emit_committed(owner)
    (request,) = receiver.wait_for(1, timeout=20)
    assert request.path == "/hook"
    assert _verifies(endpoint.secret, request.headers["X-Service-Signature"], request.body)
    assert not _verifies(endpoint.secret, request.headers["X-Service-Signature"], request.body + b" ")
    body = request.json()
    assert set(body) == {"id", "type", "created", "environment", "api_version", "data"}
    assert body["id"] == event.id == request.headers["X-Service-Event-Id"]
    assert body["type"] == "usage.quota_warning" and body["environment"] == "live"
    assert body["api_version"] == settings.SERVICE_API_VERSION and body["data"] == QUOTA_WARNING

    found = _settled(event, 20, workers)
    assert found.status == "delivered" and found.delivered_at is not None and found.attempt_count == 1
    assert _attempts(found) == [(1, "succeeded", 200)]
    assert len(receiver.received) == 1


def test_a_receiver_failing_then_answering_200_ends_delivered_with_every_attempt_on_record(
    owner, endpoint, receiver, workers
):
    receiver.answers = [503, 503, 503, 200]
    workers.start()
    event = _emit_committed(owner)
    found = _settled(event, 40, workers)
    assert found.status == "delivered"
    assert _attempts(found) == [(1, "failed", 503), (2, "failed", 503), (3, "failed", 503), (4, "succeeded", 200)]
    assert [r.headers["X-Service-Event-Id"] for r in receiver.received] == [event.id] * 4
    assert [r.headers["X-Service-Delivery-Attempt"] for r in receiver.received] == ["1", "2", "3", "4"]


def test_a_receiver_that_always_fails_ends_dead_after_the_last_attempt_of_the_schedule(
    owner, endpoint, receiver, workers
):
    receiver.default_status = 503
    workers.start()
    event = _emit_committed(owner)
    found = _settled(event, 40, workers)
    attempts = len(RETRY_DELAYS) + 1
    assert found.status == "dead" and found.next_attempt_at is None and found.attempt_count == attempts
    assert _attempts(found) == [(n, "failed", 503) for n in range(1, attempts + 1)]
    # the sweep sends nothing more for a dead delivery
    delivery.sweep()
    assert len(receiver.received) == attempts
    assert all(r.headers["X-Service-Event-Id"] == event.id for r in receiver.received)


def test_a_worker_killed_mid_delivery_is_resent_after_its_lease_by_the_sweep_and_a_fresh_worker(
    owner, endpoint, receiver, workers
):
    # The receiver holds the first request far longer than the kill takes; then answers at once.
    receiver.answers = [(200, 8)]
    first = workers.start()
    event = _emit_committed(owner)
    receiver.wait_for(1, timeout=20)
    stop_worker(first, kill=True)
    in_flight = Delivery.objects.get(event=event)
    assert in_flight.status == "sending" and _attempts(in_flight) == [(1, "in_progress", None)]

    workers.start()
    found = _settled(event, 40, workers)
    assert found.status == "delivered"
    assert [(number, outcome) for number, outcome, _ in _attempts(found)] == [(1, "lost"), (2, "succeeded")]
    assert [r.headers["X-Service-Event-Id"] for r in receiver.received] == [event.id, event.id]
    # not before the lease (timeout + margin, from the claim) ran out and the sweep gave the attempt up
    assert receiver.received[1].at - receiver.received[0].at >= TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS
    assert receiver.received[0].json()["id"] == receiver.received[1].json()["id"] == event.id


def test_an_event_rolled_back_is_never_sent(owner, endpoint, receiver, workers):
    workers.start()
    with pytest.raises(RuntimeError), transaction.atomic():
        emit(owner.account_id, owner.environment, "usage.quota_warning", QUOTA_WARNING)
        raise RuntimeError("the work that caused the event failed")
    # A few seconds with a worker running and the sweep beating: nothing arrives, nothing is queued.
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        delivery.sweep()
        time.sleep(0.25)
    assert receiver.received == []
    assert not Event.objects.exists() and not Delivery.objects.exists()
    # The worker was live all along: an event committed now arrives, alone.
    committed = _emit_committed(owner)
    (request,) = receiver.wait_for(1, timeout=20)
    assert request.headers["X-Service-Event-Id"] == committed.id
