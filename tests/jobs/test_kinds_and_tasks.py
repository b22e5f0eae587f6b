"""The job kind registry and the Celery tasks: thin, by name, and the old voyage task names still run."""

from __future__ import annotations

import pytest

from accounts.services import issue_key
from config.celery import app
from jobs import flow, kinds
from jobs.tasks import run_job_item, sweep_jobs
from voyages import batches
from voyages.models import VoyageAssessment, VoyageBatchItem
from voyages.tasks import run_voyage_batch_item, sweep_voyage_batches
from webhooks.events import EVENT_TYPES

LANE = {"route": {"origin": "NLRTM", "destination": "DEHAM"}}


def test_every_registered_kind_emits_an_event_type_the_event_log_accepts():
    registered = kinds.all_kinds()
    assert batches.KIND in registered
    for kind in registered:
        assert kind.event_type in EVENT_TYPES
        assert kind.item_model.JOB_FIELD in {f.name for f in kind.item_model._meta.get_fields()}


def test_a_kind_is_found_by_name_and_an_unknown_name_is_refused():
    assert kinds.get("voyage_batch") is batches.KIND
    with pytest.raises(LookupError):
        kinds.get("no_such_kind")


def test_a_kind_name_cannot_be_taken_twice():
    import dataclasses

    with pytest.raises(ValueError):
        kinds.register(dataclasses.replace(batches.KIND, settings_prefix="OTHER"))


def test_the_task_names_queued_messages_and_beat_use_are_all_registered():
    app.loader.import_default_modules()
    for name in (
        "jobs.run_item",
        "jobs.sweep",
        "voyages.run_voyage_batch_item",
        "voyages.run_voyage_batch",
        "voyages.sweep_voyage_batches",
    ):
        assert name in app.tasks, name


@pytest.mark.django_db
def test_the_item_task_runs_an_item_once_and_a_redelivery_does_nothing():
    account, _, _ = issue_key(email="tasks@example.com", environment="test")
    job = batches.create_batch(account, "test", {"routes": [LANE, LANE]}).job
    first, second = VoyageBatchItem.objects.filter(batch=job).order_by("position")

    assert run_job_item("voyage_batch", first.pk) == flow.RUN_SUCCEEDED
    assert run_job_item("voyage_batch", first.pk) == flow.RUN_SKIPPED
    assert run_voyage_batch_item(second.pk) == flow.RUN_SUCCEEDED  # a message sent before the jobs layer
    assert run_voyage_batch_item(second.pk) == flow.RUN_SKIPPED

    assert VoyageAssessment.objects.filter(account=account).count() == 2
    assert sweep_jobs()["voyage_batch"] == {"redispatched": 0, "exhausted": 0, "expired": 0, "settled": 0}
    assert sweep_voyage_batches() == {"redispatched": 0, "exhausted": 0, "expired": 0, "settled": 0}
