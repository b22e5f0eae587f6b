"""Beat-driven screening work (thin: services do it)."""

from __future__ import annotations

import logging

from celery import shared_task

from screening import (
    batches,  # noqa: F401  (registers the screening_batch job kind in every worker)
    polling,
    resolution,
    services,
)
from screening.refresh import refresh_all

logger = logging.getLogger("service.resolution")


@shared_task(name="screening.run_due_follow_ups")
def run_due_follow_ups() -> dict:
    """Each due follow-up is claimed before it is re-screened (screening/resolution.py), so ticks
    that overlap (a slow one, an acks-late redelivery) split the work instead of repeating it."""
    outcomes: dict[str, int] = {}
    for follow_up in resolution.due():
        try:
            outcome = str(services.attempt_follow_up(follow_up))
        except Exception:
            logger.exception("follow-up %s failed", follow_up.pk)
            outcome = "error"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


@shared_task(name="screening.poll_sources")
def poll_sources() -> int:
    """Beat, every SOURCE_POLL_SECONDS: one poll task per source with an official URL (screening/polling.py)."""
    return polling.send_polls()


@shared_task(name="screening.poll_source")
def poll_source(name: str, edition: str = "") -> str:
    """A conditional GET of one source's files under its poll lease; loads a changed file."""
    return polling.poll_named(name, edition)


@shared_task(name="screening.refresh_sources")
def refresh_sources(kind: str = "sanctions") -> dict:
    """A full refresh, by hand: every source with a URL downloaded in full and loaded (or found unchanged)."""
    return refresh_all(kind=kind)
