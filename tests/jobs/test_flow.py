"""The jobs flow (jobs/flow.py), exercised through voyage batches: reserve -> run -> settle -> emit.

Workers are played by calling the flow in this process against the test database. A kind that
differs from voyage batches only in how an item runs reuses their tables (`dataclasses.replace`
of the registered kind, not registered itself). The same flow with a real worker killed mid-item
is tests/drills/test_voyage_batch_drills.py.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.services import issue_key
from core.api.errors import ApiError
from jobs import flow
from jobs.models import Job, JobItem
from metering import quota
from metering.models import QuotaCounter
from voyages import batches
from voyages.models import VoyageAssessment, VoyageBatch, VoyageBatchItem
from webhooks.models import Event

pytestmark = pytest.mark.django_db

LANES = [
    {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
    {"route": {"origin": "NLRTM", "destination": "SGSIN"}},
]
UNKNOWN_PORT = {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}}
COMPLETED = "voyage_batch.completed"


@pytest.fixture
def account():
    account, _, _ = issue_key(email="jobs@example.com", environment="test")
    return account


def units_used(account) -> int:
    counter = QuotaCounter.objects.filter(account=account, kind=quota.KIND_ASSESSMENT).first()
    return counter.used if counter else 0


def items(job: Job) -> list[VoyageBatchItem]:
    return list(VoyageBatchItem.objects.filter(batch=job).order_by("position"))


def completions() -> list[Event]:
    return list(Event.objects.filter(type=COMPLETED))


def create(account, routes, kind=batches.KIND) -> VoyageBatch:
    specs = batches._item_specs(routes)
    return flow.create(kind, account, "test", specs).job


def test_accepted_items_reserve_one_unit_each_and_rejected_items_none(account):
    job = create(account, [*LANES, UNKNOWN_PORT])
    assert units_used(account) == 2
    assert [(i.status, i.reserved_unit) for i in items(job)] == [
        (JobItem.Status.QUEUED, True),
        (JobItem.Status.QUEUED, True),
        (JobItem.Status.REJECTED, False),
    ]
    assert job.status == Job.Status.QUEUED and job.accepted_count == 2 and job.item_count == 3


def test_the_in_transaction_hook_gets_the_job_document_and_quota_inside_the_creating_transaction(account):
    seen = {}

    def hook(created: flow.CreatedJob) -> None:
        seen["in_atomic"] = transaction.get_connection().in_atomic_block
        seen["stored"] = VoyageBatch.objects.filter(pk=created.job.pk).exists()
        seen["body"], seen["used"] = created.body, created.quota.used

    created = batches.create_batch(
        account, "test", {"routes": LANES, "customer_reference": "ref-1"}, in_transaction=hook
    )

    assert seen["in_atomic"] and seen["stored"] and seen["used"] == 2
    assert seen["body"] == created.body and b'"customer_reference":"ref-1"' in created.body


def test_a_hook_that_fails_rolls_back_the_job_and_its_reservation(account):
    def hook(created: flow.CreatedJob) -> None:
        raise RuntimeError("the answer could not be stored")

    with pytest.raises(RuntimeError):
        batches.create_batch(account, "test", {"routes": LANES}, in_transaction=hook)
    assert not VoyageBatch.objects.exists() and units_used(account) == 0


def test_the_final_status_is_written_once_and_the_completion_is_emitted_once_with_counts(account):
    job = create(account, [*LANES, UNKNOWN_PORT])
    for item in items(job)[:2]:
        assert flow.run_item(batches.KIND, item.pk) == flow.RUN_SUCCEEDED
    job.refresh_from_db()
    completed_at = job.completed_at

    # Every later path to the same end changes nothing and emits nothing more.
    assert flow.settle_job(batches.KIND, job.pk) == Job.Status.PARTIAL
    assert flow.sweep(batches.KIND, timezone.now() + timedelta(days=1)).settled == []
    assert flow.run_item(batches.KIND, items(job)[0].pk) == flow.RUN_SKIPPED

    job.refresh_from_db()
    assert job.status == Job.Status.PARTIAL and job.completed_at == completed_at
    (event,) = completions()
    assert (event.account_id, event.environment) == (account.pk, "test")
    assert event.data["voyage_batch_id"] == job.pk and event.data["status"] == "partial"
    assert event.data["item_count"] == 3 and event.data["accepted_count"] == 2
    assert event.data["counts"] == {"queued": 0, "running": 0, "rejected": 1, "succeeded": 2, "failed": 0}


def test_the_completion_is_not_emitted_while_an_item_is_open(account):
    job = create(account, LANES)
    flow.run_item(batches.KIND, items(job)[0].pk)
    assert flow.settle_job(batches.KIND, job.pk) is None
    assert completions() == []


def test_a_job_with_no_accepted_item_ends_failed_at_creation_and_emits_its_completion_then(account):
    job = create(account, [UNKNOWN_PORT])
    assert job.status == Job.Status.FAILED and job.completed_at is not None
    assert units_used(account) == 0
    (event,) = completions()
    assert event.data["status"] == "failed" and event.data["counts"]["rejected"] == 1
    assert flow.sweep(batches.KIND).settled == []
    assert len(completions()) == 1


def test_an_item_that_fails_is_refunded_with_its_failed_status(account):
    def failing(run: flow.ItemRun) -> None:
        raise ApiError(422, "route_not_found", "No sea route connects them.")

    kind = dataclasses.replace(batches.KIND, run_item=failing)
    job = create(account, LANES, kind)

    assert flow.run_item(kind, items(job)[0].pk) == flow.RUN_FAILED

    first = items(job)[0]
    assert first.status == JobItem.Status.FAILED and first.error["code"] == "route_not_found"
    assert first.lease_expires_at is None
    assert units_used(account) == 1


def test_an_item_whose_result_came_back_uncharged_is_refunded_with_its_success(account):
    def uncharged(run: flow.ItemRun) -> None:
        with transaction.atomic():
            run.succeeded(charged=False)

    kind = dataclasses.replace(batches.KIND, run_item=uncharged)
    job = create(account, LANES, kind)

    for item in items(job):
        assert flow.run_item(kind, item.pk) == flow.RUN_SUCCEEDED

    assert [i.status for i in items(job)] == [JobItem.Status.SUCCEEDED] * 2
    assert units_used(account) == 0
    job.refresh_from_db()
    assert job.status == Job.Status.COMPLETED and len(completions()) == 1


def test_an_item_whose_worker_crashed_stays_running_unrefunded_until_the_sweep_queues_it_again(account):
    def crashing(run: flow.ItemRun) -> None:
        raise RuntimeError("the worker's process is going down")

    kind = dataclasses.replace(batches.KIND, run_item=crashing)
    job = create(account, [LANES[0]], kind)
    only = items(job)[0]

    with pytest.raises(RuntimeError):
        flow.run_item(kind, only.pk)
    only.refresh_from_db()
    assert only.status == JobItem.Status.RUNNING and units_used(account) == 1

    later = timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS + 1)
    assert flow.sweep(kind, later).redispatched == 1
    assert flow.run_item(batches.KIND, only.pk) == flow.RUN_SUCCEEDED  # a healthy worker
    assert VoyageAssessment.objects.filter(account=account).count() == 1
    assert units_used(account) == 1


def test_an_attempt_that_lost_its_lease_cannot_settle_and_its_result_rolls_back(account):
    job = create(account, [LANES[0]])
    stale = flow.claim(batches.KIND, items(job)[0].pk)
    flow.sweep(batches.KIND, timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS + 1))
    assert flow.run_item(batches.KIND, items(job)[0].pk) == flow.RUN_SUCCEEDED

    with pytest.raises(flow.LeaseLost), transaction.atomic():
        stale.succeeded()
    assert flow.run_claimed(stale) == flow.RUN_SUPERSEDED

    assert VoyageAssessment.objects.filter(account=account).count() == 1
    assert units_used(account) == 1 and len(completions()) == 1


def test_expired_items_are_failed_and_refunded_and_the_completion_counts_them(account):
    job = create(account, [*LANES, UNKNOWN_PORT])
    flow.run_item(batches.KIND, items(job)[0].pk)
    flow.claim(batches.KIND, items(job)[1].pk)  # its worker never comes back

    report = flow.sweep(batches.KIND, timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_DEADLINE_SECONDS + 1))

    assert report.expired == 1 and report.settled == [job.pk]
    assert units_used(account) == 1
    second = items(job)[1]
    assert second.error["code"] == flow.ERROR_DEADLINE_EXCEEDED
    assert "batch did not finish" in second.error["message"] and "route's unit is refunded" in second.error["message"]
    (event,) = completions()
    assert event.data["status"] == "partial"
    assert event.data["counts"] == {"queued": 0, "running": 0, "rejected": 1, "succeeded": 1, "failed": 1}


def test_an_item_lost_on_every_attempt_is_failed_and_refunded(account):
    job = create(account, [LANES[0]])
    now = timezone.now()
    for _ in range(settings.VOYAGE_BATCH_ITEM_MAX_ATTEMPTS):
        assert flow.claim(batches.KIND, items(job)[0].pk, now) is not None
        now += timedelta(seconds=settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS + 1)
        report = flow.sweep(batches.KIND, now)

    assert report.exhausted == 1 and units_used(account) == 0
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert completions()[0].data["counts"]["failed"] == 1


def test_the_lease_is_read_from_the_kind_settings_when_used(account, settings):
    settings.VOYAGE_BATCH_ITEM_LEASE_SECONDS = 3
    job = create(account, [LANES[0]])
    claimed_at = timezone.now()
    run = flow.claim(batches.KIND, items(job)[0].pk, claimed_at)
    assert run.item.lease_expires_at == claimed_at + timedelta(seconds=3)
