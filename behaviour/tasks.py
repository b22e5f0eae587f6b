"""Beat-driven AIS work (thin: services do it)."""

from __future__ import annotations

from celery import shared_task

from behaviour import services


@shared_task(name="behaviour.load_dropped_files")
def load_dropped_files() -> dict:
    """Files dropped into AIS_DROP_DIR, loaded one at a time (behaviour/services.py, load_drop_folder)."""
    return services.load_drop_folder().as_dict()


@shared_task(name="behaviour.prune_positions")
def prune_positions() -> list[str]:
    """Raw positions older than AIS_POSITION_RETENTION_DAYS, deleted a whole day at a time."""
    return [day.isoformat() for day in services.prune_positions()]
