"""Every kind of background work is claimed through core/leases.py: two runs of one piece of work
released at the same instant (two threads, each on its own database connection) do it once and
charge once, whichever wins the claim. The follow-up's overlap, with two processes and a real
worker, is tests/screening/test_follow_up_overlap.py; lease take-overs are tested per kind
(tests/jobs/test_flow.py, tests/monitoring, tests/webhooks/test_deliveries.py).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from core.leases import Lease, LeaseLost, SweepReport
from jobs import flow
from metering.auth import authenticate_header_value
from metering.models import QuotaCounter
from monitoring import runs
from monitoring.models import VesselMonitorRun
from monitoring.vessels import KIND as VESSEL_MONITOR
from screening import datastate, demo, resolution, services
from screening.batches import KIND as SCREENING_BATCH
from screening.models import FollowUp, Screening, ScreeningBatchItem
from webhooks import delivery
from webhooks.events import emit
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo_world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


def _at_once(work: Callable[[], str], runners: int = 2) -> list[str]:
    """Run `work` in `runners` threads released together; what each returned."""
    start = threading.Barrier(runners)
    outcomes: list[str] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            start.wait()
            outcome = work()
            with lock:
                outcomes.append(outcome)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(runners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def _units(environment: str) -> int:
    return sum(QuotaCounter.objects.filter(kind="screening", environment=environment).values_list("used", flat=True))


def test_a_screening_batch_item_run_twice_at_once_screens_and_charges_once(demo_world, issue_key, client, keyed):
    raw = issue_key("test")
    created = client.post(
        "/api/v1/screening-batches",
        data={"items": [{"imo": demo.GREEN_CLEAN}]},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="overlap-batch",
        **keyed(raw),
    )
    assert created.status_code == 202, created.content
    item = ScreeningBatchItem.objects.get()
    outcomes = _at_once(lambda: flow.run_item(SCREENING_BATCH, item.pk))
    assert sorted(outcomes) == [flow.RUN_SKIPPED, flow.RUN_SUCCEEDED]
    assert Screening.objects.count() == 1 and _units("test") == 1
    assert ScreeningBatchItem.objects.get().status == "succeeded"


def test_a_monitor_run_run_twice_at_once_screens_and_charges_once(demo_world, issue_key, client, keyed):
    raw = issue_key("live")
    created = client.post(
        "/api/v1/vessel-monitors",
        data={"imo": demo.GREEN_CLEAN, "mode": "live"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="overlap-monitor",
        **keyed(raw),
    )
    assert created.status_code == 201, created.content
    run = VesselMonitorRun.objects.get()
    outcomes = _at_once(lambda: runs.run(VESSEL_MONITOR, run.pk))
    assert sorted(outcomes) == [runs.RAN, runs.RAN_SKIPPED]
    assert Screening.objects.count() == 1 and _units("live") == 1
    assert VesselMonitorRun.objects.get().status == "completed"


def test_a_delivery_sent_twice_at_once_is_attempted_once(issue_key, client, keyed, settings):
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    raw = issue_key("live")
    created = client.post(
        "/api/v1/webhook-endpoints",
        data={"url": "https://127.0.0.1:1025/hook"},  # nothing listens: the attempt fails, once
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="overlap-endpoint",
        **keyed(raw),
    )
    assert created.status_code == 201, created.content
    owner = authenticate_header_value(f"Bearer {raw}")
    with transaction.atomic():
        emit(owner.account_id, owner.environment, "usage.quota_warning", {"used": 1600, "limit": 2000})
    queued = Delivery.objects.get()
    outcomes = _at_once(lambda: delivery.send(queued.pk))
    assert sorted(outcomes) == [delivery.SENT_FAILED, delivery.SENT_SKIPPED]
    assert DeliveryAttempt.objects.count() == 1
    assert Delivery.objects.get().attempt_count == 1


def test_a_follow_up_attempted_twice_at_once_is_attempted_once(demo_world, issue_key, client, keyed):
    raw = issue_key("test")
    client.post(
        "/api/v1/screenings",
        data={"imo": demo.INCOMPLETE_IDENTITY},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="overlap-incomplete",
        **keyed(raw),
    )
    FollowUp.objects.update(next_attempt_at=timezone.now() - timedelta(minutes=1))
    due = resolution.due()  # both runs read the same due follow-up, as two overlapping beat ticks do
    assert len(due) == 1
    outcomes = _at_once(lambda: services.attempt_follow_up(copy.copy(due[0])))
    assert sorted(outcomes) == ["pending", resolution.AttemptOutcome.SKIPPED]
    assert FollowUp.objects.get().attempts == 1


def test_a_lease_settles_once_and_a_lapsed_claim_taken_over_cannot_settle(demo_world, issue_key, client, keyed):
    """The primitive itself, on a follow-up: claim, take-over after the lease, fenced settle."""
    raw = issue_key("test")
    client.post(
        "/api/v1/screenings",
        data={"imo": demo.INCOMPLETE_IDENTITY},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="lease-primitive",
        **keyed(raw),
    )
    lease = Lease(FollowUp, FollowUp.Status.PENDING, lambda: 60, fence="claims")
    row = FollowUp.objects.get()
    now = timezone.now()
    assert lease.claim(Q(pk=row.pk), now) == 1
    assert lease.claim(Q(pk=row.pk) & resolution.unclaimed(now), now) == 0  # held
    later = now + timedelta(seconds=61)
    assert list(lease.lapsed(later)) == [row]
    assert lease.claim(Q(pk=row.pk) & resolution.unclaimed(later), later) == 1  # taken over: claim number 2
    with pytest.raises(LeaseLost):
        lease.settle(row.pk, 1, attempts=5)
    lease.settle(row.pk, 2, attempts=1)
    assert FollowUp.objects.get().attempts == 1 and FollowUp.objects.get().lease_expires_at is None


def test_a_sweep_report_counts_what_its_kind_declared():
    report = SweepReport("requeued", "failed", listed=("settled",))
    report.add("requeued", 2)
    report.add_id("settled", "vab_1")
    assert report.requeued == 2 and report.failed == 0 and report.settled == ["vab_1"]
    assert report.as_dict() == {"requeued": 2, "failed": 0, "settled": 1}
    with pytest.raises(AttributeError):
        _ = report.redispatched
