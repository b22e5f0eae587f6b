"""Celery tasks of the voyages app (thin)."""

from celery import shared_task


@shared_task(name="voyages.run_voyage_batch")
def run_voyage_batch(batch_id: str) -> str:
    from voyages.batches import run_batch

    return run_batch(batch_id).status
