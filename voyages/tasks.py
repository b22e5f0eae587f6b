"""Celery tasks of the voyages app (thin: voyages.batches does the work)."""

from celery import shared_task


@shared_task(name="voyages.run_voyage_batch_item")
def run_voyage_batch_item(item_id: str) -> str:
    from voyages.batches import run_item

    return run_item(item_id)


@shared_task(name="voyages.sweep_voyage_batches")
def sweep_voyage_batches() -> dict:
    from voyages.batches import sweep

    return sweep().as_dict()


@shared_task(name="voyages.run_voyage_batch")
def run_voyage_batch(batch_id: str) -> int:
    """Messages sent before items became tasks of their own: send the batch's queued items."""
    from voyages.batches import dispatch
    from voyages.models import VoyageBatchItem

    return dispatch(
        VoyageBatchItem.objects.filter(batch_id=batch_id, status=VoyageBatchItem.STATUS_QUEUED).values_list(
            "pk", flat=True
        )
    )
