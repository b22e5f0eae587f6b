"""Cheap, frequent polling: every source with an official URL is asked "changed since?" every
SOURCE_POLL_SECONDS (beat: `screening.poll_sources`, one `screening.poll_source` task per source).

A poll sends, per file part, the validators of the copy held (If-None-Match: its ETag,
If-Modified-Since: its Last-Modified; screening/feeds.py keeps them):

- 304 on every part: nothing is downloaded or parsed; the feed is marked checked.
- 200 on any part: the source's file set is loaded through refresh.load_files (atomic, with the
  shrink and wrong-list guards; the same checksum as the serving copy is "unchanged"). Raw files
  are not kept, so a part that answered 304 beside one that changed is fetched again in full.
  A file that stamps no publication date takes the newest Last-Modified as its date. The new
  validators are kept only when the files were loaded or found unchanged: a refused file is
  recorded as a failed snapshot, as any refused load, and fetched again by the next poll.
- A failed exchange (timeout, 5xx, TLS, refused connection, a 4xx or an HTML page) on any part
  changes nothing but the feed's attempt and last_error: no snapshot row (an outage would
  otherwise add one every poll), no validators; the next poll tries again. The source turns
  stale only by its cadence (screening/freshness.py).

One poll per source at a time, cluster-wide: the feed row is claimed under a lease
(core/leases.py) by one conditional UPDATE, from idle or from a lapsed lease, and settled back to
idle at the end; a poll that finds it held does nothing ("busy").
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from core import outbound
from core.leases import Lease, LeaseLost
from core.task_sending import send_each, task_named
from screening import feeds
from screening.ingest import active_snapshot, files_checksum
from screening.models import SourceFeed
from screening.refresh import RefreshOutcome, fetch, load_downloads, source_for
from screening.sources.catalog import SANCTIONS_SOURCES, Source

logger = logging.getLogger("service.refresh")

POLL_TASK = "screening.poll_source"
# Each connection and read waits at most this long; the whole poll's downloads, at most the budget
# (under the lease, so a slow publisher cannot outlive the claim). A 5xx or a dropped connection
# is tried once more at once; past that the next poll is the retry.
POLL_TIMEOUT_SECONDS = 60.0
POLL_DOWNLOAD_BUDGET_SECONDS = 1200.0
POLL_ATTEMPTS = 2
# Long enough for the largest download and its load; a poll whose worker died holds the source
# this long at most.
POLL_LEASE_SECONDS = 1800.0


def _lease_seconds() -> float:
    return POLL_LEASE_SECONDS


LEASE = Lease(SourceFeed, SourceFeed.Status.POLLING, _lease_seconds, fence="claims")


def polled_sources() -> list[Source]:
    """The sources with an official URL for every part they download (or an operator's override)."""
    return [source for source in SANCTIONS_SOURCES if _urls(source)]


def _urls(source: Source) -> dict[str, str]:
    urls = {part: source.url(part) for part in source.urls}
    return urls if urls and all(urls.values()) else {}


def _claimable(now: datetime) -> Q:
    """Idle, or held by a poll whose lease lapsed (or was released without an outcome)."""
    return Q(status=SourceFeed.Status.IDLE) | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lte=now)


def poll_source(source: Source, now: datetime | None = None) -> RefreshOutcome:
    """Poll one source: not_modified, loaded, unchanged, failed, busy (another poll holds it) or
    not_configured (no URL)."""
    urls = _urls(source)
    if not urls:
        return RefreshOutcome(source.name, source.edition, "not_configured", "no official URL for this file is set")
    now = now or timezone.now()
    feed = feeds.feed_for(source.name, source.edition)
    # Conditional on the claim number read with the validators: a poll that ran in between makes
    # this one stand down, and the validators used are those of the copy held.
    if not LEASE.claim(Q(pk=feed.pk, claims=feed.claims) & _claimable(now), now):
        return RefreshOutcome(source.name, source.edition, "busy", "another poll of this source is under way")
    fence = feed.claims + 1
    try:
        return _poll(source, urls, feed, now)
    finally:
        try:
            LEASE.settle(feed.pk, fence, status=SourceFeed.Status.IDLE)
        except LeaseLost:
            logger.warning("poll of %s outlived its lease; another poll took the source over", _label(source))


def _poll(source: Source, urls: dict[str, str], feed: SourceFeed, now: datetime) -> RefreshOutcome:
    held: feeds.Validators = feed.validators
    current = active_snapshot(source.name, source.edition)
    if current is None or current.is_demo:
        held = {}  # nothing real is held: a 304 would leave the source without the publisher's file
    deadline = time.monotonic() + POLL_DOWNLOAD_BUDGET_SECONDS
    responses: dict[str, outbound.Response] = {}
    part = ""
    try:
        for part, url in urls.items():
            responses[part] = _get(url, held.get(part), deadline)
        if all(response.status_code == 304 for response in responses.values()):
            feeds.mark_checked(source.name, source.edition, now=now)
            return RefreshOutcome(source.name, source.edition, "not_modified", "304 on every file")
        for part in [part for part, response in responses.items() if response.status_code == 304]:
            responses[part] = _get(urls[part], None, deadline)  # another part changed: these bytes are needed too
    except outbound.OutboundError as exc:
        reason = f"poll of {part} failed: {exc}"
        logger.warning("%s: %s", _label(source), reason)
        feeds.mark_failed(source.name, source.edition, reason, now=now)
        return RefreshOutcome(source.name, source.edition, "failed", reason)
    digest = files_checksum({part: response.body for part, response in responses.items()})
    if feed.refused_checksum and digest == feed.refused_checksum:
        # Refused once and recorded: loading it again every poll would only add failed snapshots (and
        # make every process re-read the lists). The next different file is loaded as usual.
        reason = "the publisher still serves the file refused before (see its failed snapshot); not loaded again"
        feeds.mark_failed(source.name, source.edition, reason, now=now)
        return RefreshOutcome(source.name, source.edition, "failed", reason)
    outcome = load_downloads(source, responses, origin=", ".join(urls.values()))
    if outcome.status == "failed":  # the file was refused and recorded as a failed snapshot
        feeds.mark_failed(source.name, source.edition, outcome.detail, now=now, refused_checksum=digest)
    return outcome


def _get(url: str, validators: dict[str, str] | None, deadline: float) -> outbound.Response:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise outbound.OutboundFailed("the poll's download budget ran out")
    return fetch(
        url, validators=validators, attempts=POLL_ATTEMPTS, timeout=POLL_TIMEOUT_SECONDS, total_timeout=remaining
    )


def _label(source: Source) -> str:
    return f"{source.name}/{source.edition}" if source.edition else source.name


def poll_all(now: datetime | None = None) -> dict[str, list[str]]:
    """Poll every source with a URL here, one after another; names by outcome, for logs and benches."""
    summary: dict[str, list[str]] = {}
    for source in polled_sources():
        try:
            status = poll_source(source, now).status
        except Exception:  # one source's trouble does not stop the others' polls
            logger.exception("poll of %s failed", _label(source))
            status = "error"
        summary.setdefault(status, []).append(_label(source))
    return summary


def send_polls() -> int:
    """One poll task per source with a URL, so that a large download or load holds up no other
    source and the polls spread over the workers; how many were sent."""
    return send_each(task_named(POLL_TASK), [(s.name, s.edition) for s in polled_sources()], "source poll")


def poll_named(name: str, edition: str = "") -> str:
    """The poll task's work: the outcome's status (a failure is logged where it happens)."""
    return poll_source(source_for(name, edition)).status
