"""Celery tasks of webhook deliveries (thin: webhooks.delivery does the work)."""

from celery import shared_task

from webhooks import delivery


@shared_task(name="webhooks.deliver")
def deliver(delivery_id: str) -> str:
    """One attempt of a due delivery (a duplicate or early message does nothing)."""
    return delivery.send(delivery_id)


@shared_task(name="webhooks.sweep")
def sweep_deliveries() -> dict:
    """Beat: record attempts lost with their worker, send the tasks of due retries."""
    return delivery.sweep().as_dict()
