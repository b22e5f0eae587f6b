"""Celery tasks of exports. Importing exports.production registers the export job kind in every worker;
items run as `jobs.run_item` like every job's."""

from celery import shared_task

from exports import (
    production,  # noqa: F401  (registers the export job kind)
    services,
)


@shared_task(name="exports.remove_expired")
def remove_expired_exports() -> int:
    """Beat: delete the files of exports past their retention (the records stay, status expired)."""
    return services.remove_expired_files()
