"""A new edition of a list, handed on: what it changed reaches the monitored hulls it can touch.

A load that replaced a real edition keeps its diff on the snapshot (screening/ingest.py: listings
added, removed and changed). When that diff is not empty, the monitoring app is asked, after the
load commits, to work out which monitored hulls it can affect and re-screen just those
(monitoring/list_updates.py). Follow-ups waiting on a list that could not be read (cause coverage,
first slot not yet run) are made due at once: the edition they were waiting for is here.

A refused, broken or empty file never reaches this point: it produces no snapshot, so no diff.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from core.task_sending import send_each, task_named
from screening import datastate
from screening.models import FollowUp, SourceSnapshot

logger = logging.getLogger("service.editions")

LIST_UPDATE_TASK = "monitoring.rescreen_for_edition"


def diff_counts(snapshot: SourceSnapshot) -> dict[str, int]:
    diff = snapshot.diff or {}
    return {part: len(diff.get(part) or ()) for part in ("added", "removed", "changed")}


def landed(snapshot: SourceSnapshot) -> None:
    """A loaded edition: bring waiting follow-ups forward and, if it changed any listing, send it on."""
    now = timezone.now()
    brought = FollowUp.objects.filter(
        status=FollowUp.Status.PENDING, cause=FollowUp.Cause.COVERAGE, attempts=0, next_attempt_at__gt=now
    ).update(next_attempt_at=now)
    if brought:
        logger.info("%s follow-up(s) waiting on a list made due by %s", brought, snapshot.pk)
    if snapshot.is_demo or not any(diff_counts(snapshot).values()):
        return
    transaction.on_commit(
        lambda: send_each(task_named(LIST_UPDATE_TASK), [(snapshot.pk,)], f"list update {snapshot.pk}")
    )


def read_newest_editions() -> None:
    """Make this process's next screening read the lists as they stand now, not as they stood at its
    last data-version check (up to datastate.CHECK_SECONDS ago): a re-screen an edition triggered
    must see that edition."""
    datastate.invalidate()
