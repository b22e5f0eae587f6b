"""The job kind registry and the Celery tasks: thin, by name, and every name beat sends is registered."""

from __future__ import annotations

import pytest

from accounts.services import issue_key
from config.celery import app
from jobs import flow, kinds
from jobs.tasks import run_job_item, sweep_jobs
from voyages import batches
from voyages.models import VoyageAssessment, VoyageBatchItem
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


def test_the_task_names_work_is_sent_under_and_beat_uses_are_all_registered():
    from django.conf import settings

    app.loader.import_default_modules()
    sent = {"jobs.run_item", "monitoring.run", "webhooks.deliver"}  # core.task_sending.task_named
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert sent | scheduled <= set(app.tasks)


@pytest.mark.django_db
def test_the_item_task_runs_an_item_once_and_a_redelivery_does_nothing():
    account, _, _ = issue_key(email="tasks@example.com", environment="test")
    job = batches.create_batch(account, "test", {"routes": [LANE, LANE]}).job
    first, second = VoyageBatchItem.objects.filter(batch=job).order_by("position")

    assert run_job_item("voyage_batch", first.pk) == flow.RUN_SUCCEEDED
    assert run_job_item("voyage_batch", first.pk) == flow.RUN_SKIPPED
    assert run_job_item("voyage_batch", second.pk) == flow.RUN_SUCCEEDED

    assert VoyageAssessment.objects.filter(account=account).count() == 2
    assert sweep_jobs()["voyage_batch"] == {"redispatched": 0, "exhausted": 0, "expired": 0, "settled": 0}
