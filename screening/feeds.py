"""The watch kept on each source file (a source and edition): when our copy was last checked.

A check succeeds when the publisher answered and we hold what it serves: a 304, a file with the
checksum of the serving copy, or a load. "Stale" (screening/freshness.py) is measured from the
last successful check, never from the publisher's own date: a list nobody has republished for a
month is current if we asked this morning.

The validators (ETag, Last-Modified) of each file part held are kept here too, so the next poll
can ask "changed since?" (screening/polling.py); they are written only with a successful check.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from screening.models import SourceFeed

# The HTTP validators of the copy held, by file part: {"sdn": {"etag": ..., "last_modified": ...}}.
Validators = dict[str, dict[str, str]]


def feed_for(source: str, edition: str = "") -> SourceFeed:
    """The feed row of a source file, created on first use."""
    try:
        return SourceFeed.objects.get(source=source, edition=edition)
    except SourceFeed.DoesNotExist:
        try:
            with transaction.atomic():
                return SourceFeed.objects.create(source=source, edition=edition)
        except IntegrityError:  # created meanwhile by another process
            return SourceFeed.objects.get(source=source, edition=edition)


def mark_checked(
    source: str, edition: str = "", *, now: datetime | None = None, validators: Validators | None = None
) -> None:
    """Record a successful check; with `validators`, those of the copy now held replace the stored
    ones (None keeps them: the copy held did not change)."""
    now = now or timezone.now()
    fields: dict[str, Any] = {"checked_at": now, "attempted_at": now, "last_error": "", "refused_checksum": ""}
    if validators is not None:
        fields["validators"] = validators
    _update(source, edition, **fields)


def mark_failed(
    source: str, edition: str = "", reason: str = "", *, now: datetime | None = None, refused_checksum: str = ""
) -> None:
    """Record a failed poll: the copy held and its last successful check stand. `refused_checksum`:
    the poll downloaded a file set that was refused (later polls skip the same bytes)."""
    fields: dict[str, Any] = {"attempted_at": now or timezone.now(), "last_error": reason[:500]}
    if refused_checksum:
        fields["refused_checksum"] = refused_checksum
    _update(source, edition, **fields)


def _update(source: str, edition: str, **fields: Any) -> None:
    """One UPDATE of the feed row (created first when the source was never watched)."""
    if not SourceFeed.objects.filter(source=source, edition=edition).update(**fields):
        SourceFeed.objects.filter(pk=feed_for(source, edition).pk).update(**fields)


def last_checks() -> dict[tuple[str, str], datetime]:
    """(source, edition) -> the last successful check, for every feed checked at least once."""
    rows = SourceFeed.objects.filter(checked_at__isnull=False).values_list("source", "edition", "checked_at")
    return {(source, edition): checked_at for source, edition, checked_at in rows if checked_at is not None}
