"""Back-office tasks (thin: they call the services that do the work)."""

from __future__ import annotations

from celery import shared_task

from screening import refresh


@shared_task(name="backoffice.refresh_source")
def refresh_source(source: str, edition: str = "") -> dict:
    """Refresh one source (one edition) from its official URL, as `manage.py refresh_sources --source` does."""
    outcome = refresh.refresh_source(refresh.source_for(source, edition or None))
    return {"source": outcome.source, "edition": outcome.edition, "status": outcome.status, "detail": outcome.detail}
