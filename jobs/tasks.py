"""Celery tasks of the jobs layer (thin: jobs.flow does the work)."""

from celery import shared_task

from jobs import flow, kinds


@shared_task(name="jobs.run_item")
def run_job_item(kind: str, item_id: str) -> str:
    """Run one item of a job of `kind` (idempotent: a redelivered message does nothing)."""
    return flow.run_item(kinds.get(kind), item_id)


@shared_task(name="jobs.sweep")
def sweep_jobs() -> dict:
    """Beat: recover every kind's open jobs (re-send, give up on lost items, end overdue jobs)."""
    return flow.sweep_all()
