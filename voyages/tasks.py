"""Celery task names of voyage batches from before the jobs layer, kept for messages already queued.

Items now run as `jobs.run_item` and the beat sweep is `jobs.sweep` (jobs/tasks.py). Importing
voyages.batches here registers the voyage_batch job kind in every worker.
"""

from celery import shared_task

from voyages import batches


@shared_task(name="voyages.run_voyage_batch_item")
def run_voyage_batch_item(item_id: str) -> str:
    return batches.run_item(item_id)


@shared_task(name="voyages.sweep_voyage_batches")
def sweep_voyage_batches() -> dict:
    return batches.sweep().as_dict()


@shared_task(name="voyages.run_voyage_batch")
def run_voyage_batch(batch_id: str) -> int:
    """Messages sent before items became tasks of their own: send the batch's queued items."""
    from voyages.models import VoyageBatchItem

    return batches.dispatch(
        VoyageBatchItem.objects.filter(batch_id=batch_id, status=VoyageBatchItem.STATUS_QUEUED).values_list(
            "pk", flat=True
        )
    )
