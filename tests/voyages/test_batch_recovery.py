"""Voyage batch recovery: claims and leases, one transaction per item outcome, the sweep, the deadline.

Workers are played by calling the worker body (voyages.batches.run_item / claim_item + run_claimed)
in this process against the test database; "a worker killed mid-item" is an item claimed whose
run never finishes. The same faults with real processes are in tests/drills/test_voyage_batch_drills.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.services import issue_key
from metering import quota
from metering.models import QuotaCounter
from voyages import batches
from voyages.models import VoyageAssessment, VoyageBatch, VoyageBatchItem

pytestmark = pytest.mark.django_db

LANES = [
    {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
    {"route": {"origin": "NLRTM", "destination": "SGSIN"}},
    {"route": {"origin": "USNYC", "destination": "JPTYO"}},
]


@pytest.fixture
def account():
    account, _, _ = issue_key(email="batches@example.com", environment="test")
    return account


@pytest.fixture
def new_batch(account):
    def make(routes=None) -> VoyageBatch:
        return batches.create_batch(account, "test", {"routes": routes or LANES}).job

    return make


def units_used(account) -> int:
    counter = QuotaCounter.objects.filter(account=account, kind=quota.KIND_ASSESSMENT).first()
    return counter.used if counter else 0


def items(batch: VoyageBatch) -> list[VoyageBatchItem]:
    return list(batch.items.order_by("position"))


def after_lease() -> datetime:
    return timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS + 1)


def after_deadline() -> datetime:
    return timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_DEADLINE_SECONDS + 1)


def test_every_item_run_once_completes_the_batch_with_one_assessment_each(new_batch, account):
    batch = new_batch()
    for item in items(batch):
        assert batches.run_item(item.pk) == batches.RUN_SUCCEEDED
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.COMPLETED and batch.completed_at is not None
    assert [i.status for i in items(batch)] == [VoyageBatchItem.Status.SUCCEEDED] * 3
    assert VoyageAssessment.objects.filter(account=account).count() == 3
    assert units_used(account) == 3


def test_a_redelivered_message_for_a_succeeded_item_does_nothing(new_batch, account):
    batch = new_batch()
    first = items(batch)[0]
    assert batches.run_item(first.pk) == batches.RUN_SUCCEEDED
    assert batches.run_item(first.pk) == batches.RUN_SKIPPED
    assert VoyageAssessment.objects.filter(account=account).count() == 1
    first.refresh_from_db()
    assert first.attempts == 1


def test_an_item_another_worker_holds_under_a_live_lease_is_not_run_twice(new_batch, account):
    batch = new_batch()
    first = items(batch)[0]
    assert batches.claim_item(first.pk, timezone.now()) is not None  # worker A, mid-run
    assert batches.run_item(first.pk) == batches.RUN_SKIPPED  # worker B, a duplicate message
    assert not VoyageAssessment.objects.filter(account=account).exists()
    assert batches.sweep().redispatched == 0  # the lease is live: nothing to recover
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.RUNNING


def test_the_sweep_queues_again_an_item_whose_worker_was_lost_and_a_fresh_worker_completes_it(new_batch, account):
    batch = new_batch([LANES[0]])
    only = items(batch)[0]
    batches.claim_item(only.pk, timezone.now())  # the worker is killed here

    report = batches.sweep(after_lease())

    assert report.redispatched == 1
    only.refresh_from_db()
    assert only.status == VoyageBatchItem.Status.QUEUED and only.attempts == 1
    assert batches.run_item(only.pk) == batches.RUN_SUCCEEDED
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.COMPLETED
    assert VoyageAssessment.objects.filter(account=account).count() == 1
    assert units_used(account) == 1


def test_a_worker_whose_claim_was_taken_over_writes_no_assessment_and_no_status(new_batch, account):
    batch = new_batch([LANES[1]])
    only = items(batch)[0]
    slow_item, slow_attempt = batches.claim_item(only.pk, timezone.now())  # worker A stalls past its lease
    batches.sweep(after_lease())
    assert batches.run_item(only.pk) == batches.RUN_SUCCEEDED  # worker B, attempt 2

    assert batches.run_claimed(slow_item, slow_attempt) == batches.RUN_SUPERSEDED  # worker A wakes up

    only.refresh_from_db()
    assert only.status == VoyageBatchItem.Status.SUCCEEDED and only.attempts == 2
    assessments = VoyageAssessment.objects.filter(account=account)
    assert list(assessments.values_list("pk", flat=True)) == [only.assessment_id]  # no orphan
    assert units_used(account) == 1


def test_the_sweep_resends_a_queued_item_whose_message_was_lost_only_once_its_lease_has_run_out(new_batch):
    batch = new_batch()
    assert batches.sweep().redispatched == 0
    report = batches.sweep(after_lease())
    assert report.redispatched == 3
    assert batches.sweep(after_lease()).redispatched == 0  # re-sent under a fresh lease, not every minute
    assert all(i.status == VoyageBatchItem.Status.QUEUED and i.attempts == 0 for i in items(batch))


def test_an_item_lost_with_its_worker_on_every_attempt_fails_and_its_unit_is_refunded(new_batch, account):
    batch = new_batch([LANES[0], LANES[1]])
    lost, done = items(batch)
    assert batches.run_item(done.pk) == batches.RUN_SUCCEEDED
    now = timezone.now()
    for _ in range(settings.VOYAGE_BATCH_ITEM_MAX_ATTEMPTS):
        assert batches.claim_item(lost.pk, now) is not None  # each run is killed
        now += timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS + 1)
        report = batches.sweep(now)

    assert report.exhausted == 1 and report.redispatched == 0
    lost.refresh_from_db()
    assert lost.status == VoyageBatchItem.Status.FAILED
    assert lost.error["code"] == batches.ERROR_ATTEMPTS_EXHAUSTED
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.PARTIAL
    assert units_used(account) == 1


def test_a_batch_past_its_deadline_ends_partial_and_its_unfinished_items_are_refunded(new_batch, account):
    batch = new_batch()
    first, second, third = items(batch)
    batches.run_item(first.pk)
    batches.claim_item(second.pk, timezone.now())  # running when the deadline passes
    assert units_used(account) == 3

    report = batches.sweep(after_deadline())

    assert report.expired == 2 and report.settled == [batch.pk]
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.PARTIAL and batch.completed_at is not None
    statuses = {i.pk: (i.status, (i.error or {}).get("code")) for i in items(batch)}
    assert statuses == {
        first.pk: (VoyageBatchItem.Status.SUCCEEDED, None),
        second.pk: (VoyageBatchItem.Status.FAILED, batches.ERROR_DEADLINE_EXCEEDED),
        third.pk: (VoyageBatchItem.Status.FAILED, batches.ERROR_DEADLINE_EXCEEDED),
    }
    assert units_used(account) == 1


def test_a_batch_past_its_deadline_with_nothing_run_ends_failed_and_every_unit_is_refunded(new_batch, account):
    batch = new_batch([*LANES, {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}}])
    assert units_used(account) == 3  # the rejected route reserved nothing

    batches.sweep(after_deadline())

    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.FAILED
    assert units_used(account) == 0
    rejected = items(batch)[3]
    assert rejected.status == VoyageBatchItem.Status.REJECTED and rejected.error["code"] == "validation_failed"


def test_a_worker_finishing_after_the_deadline_ended_its_batch_changes_nothing(new_batch, account):
    batch = new_batch([LANES[0]])
    item, attempt = batches.claim_item(items(batch)[0].pk, timezone.now())
    batches.sweep(after_deadline())
    completed_at = VoyageBatch.objects.get(pk=batch.pk).completed_at

    assert batches.run_claimed(item, attempt) == batches.RUN_SUPERSEDED
    assert batches.run_item(item.pk) == batches.RUN_SKIPPED  # and a late redelivery

    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.FAILED and batch.completed_at == completed_at
    assert not VoyageAssessment.objects.filter(account=account).exists()
    assert units_used(account) == 0


def test_the_final_status_is_written_once_even_when_the_worker_died_before_settling_the_batch(new_batch):
    batch = new_batch([LANES[0]])
    item, attempt = batches.claim_item(items(batch)[0].pk, timezone.now())
    # The item's outcome committed, then the worker died before settling the batch.
    VoyageBatchItem.objects.filter(pk=item.pk).update(status=VoyageBatchItem.Status.SUCCEEDED)
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.RUNNING

    assert batches.sweep().settled == [batch.pk]
    settled_at = VoyageBatch.objects.get(pk=batch.pk).completed_at
    assert batches.settle_batch(batch.pk) == VoyageBatch.Status.COMPLETED
    assert batches.sweep().settled == []
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.COMPLETED and batch.completed_at == settled_at


def test_an_item_that_fails_is_marked_failed_and_refunded_together(new_batch, account):
    batch = new_batch([LANES[0], LANES[1]])
    broken, fine = items(batch)
    VoyageBatchItem.objects.filter(pk=broken.pk).update(request={"route": {"origin": "NLRTM"}})

    assert batches.run_item(broken.pk) == batches.RUN_FAILED
    assert batches.run_item(fine.pk) == batches.RUN_SUCCEEDED

    broken.refresh_from_db()
    assert broken.status == VoyageBatchItem.Status.FAILED and broken.error["code"] == "validation_failed"
    batch.refresh_from_db()
    assert batch.status == VoyageBatch.Status.PARTIAL
    assert units_used(account) == 1


def test_the_sweep_runs_on_beat_and_the_redis_broker_redelivers_well_within_the_hour():
    schedule = {entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert schedule["jobs.sweep"] == settings.JOBS_SWEEP_SECONDS == 60
    assert settings.VOYAGE_BATCH_DEADLINE_SECONDS == 1800
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == 900
