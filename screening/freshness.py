"""How fresh each serving list edition is: its publisher's date, its age, our last check, stale or not.

Two clocks, never mixed:
- the edition's *age* is the publisher's own date (`published_at`, what the file stamps or the
  operator gave with --published) measured to now: an old list is shown as old;
- *stale* measures our copy: the last successful check of the source file (screening/feeds.py;
  before a feed row exists, the serving snapshot's retrieved_at) is older than the source's
  cadence in the catalogue (screening/sources/catalog.py) allows. A publisher that has not
  published for a month is not stale if we asked this morning; a list published yesterday is
  stale if our last check is a week old.

A stale list still screens (the sources row keeps status ok; the contract's status enum has no
"stale"), and the row, the report pages, the back office and /readyz say so. Demo editions are
fictional data and never stale. Both clocks depend on `now`, so they are worked out when a row is
rendered, never kept in the cached data state; the last checks are one small query, cached here
for CHECK_CACHE_SECONDS per process so screenings stay cheap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.api.timefmt import rfc3339
from screening import feeds
from screening.display_names import capitalised, edition_name, the
from screening.models import SourceSnapshot
from screening.sources.catalog import SANCTIONS_SOURCES, Source

CHECK_CACHE_SECONDS = 5.0

_SOURCES: dict[tuple[str, str], Source] = {(s.name, s.edition): s for s in SANCTIONS_SOURCES}
_lock = threading.Lock()
_cached: tuple[float, dict[tuple[str, str], datetime]] | None = None


def last_checks() -> dict[tuple[str, str], datetime]:
    """(source, edition) -> the last successful check, read at most every CHECK_CACHE_SECONDS."""
    global _cached
    cached = _cached
    if cached is not None and time.monotonic() - cached[0] < CHECK_CACHE_SECONDS:
        return cached[1]
    with _lock:
        checks = feeds.last_checks()
        _cached = (time.monotonic(), checks)
    return checks


def forget_cached() -> None:
    """Read the last checks afresh next time (tests; after a check made in this process)."""
    global _cached
    _cached = None


def catalog_entry(source: str, edition: str) -> Source | None:
    return _SOURCES.get((source, edition))


def cadence_of(source: str, edition: str) -> timedelta | None:
    """How long our copy of this file may go without a successful check; None: never stale."""
    entry = catalog_entry(source, edition)
    return entry.cadence if entry is not None else None


def edition_age(published_at: datetime | None, now: datetime) -> timedelta | None:
    """How old the edition is by its publisher's date; None when that date is unknown."""
    if published_at is None:
        return None
    return max(now - published_at, timedelta(0))


def is_stale(source: str, edition: str, last_check: datetime | None, now: datetime) -> bool:
    """True when our last successful check of the file is older than its cadence allows.

    Never checked at all (no check and no snapshot) is not "stale" but unavailable, a state the
    sources row already reports as an error; a source without a cadence is never stale.
    """
    cadence = cadence_of(source, edition)
    if cadence is None or last_check is None:
        return False
    return now - last_check > cadence


def describe_age(age: timedelta) -> str:
    """'937 days old', '1 day old', '5 hours old'."""
    if age >= timedelta(days=1):
        days = age.days
        return f"{days} day{'s' if days != 1 else ''} old"
    hours = int(age.total_seconds() // 3600)
    return f"{hours} hour{'s' if hours != 1 else ''} old"


def describe_span(span: timedelta) -> str:
    """A cadence in words: '2 days', '30 days', '12 hours'."""
    if span >= timedelta(days=1) and span % timedelta(days=1) == timedelta(0):
        return f"{span.days} day{'s' if span.days != 1 else ''}"
    hours = span.total_seconds() / 3600
    return f"{hours:g} hour{'s' if hours != 1 else ''}"


@dataclass(frozen=True)
class EditionFreshness:
    """One serving file of a source, as of `now`."""

    source: str
    edition: str
    published_at: datetime | None
    retrieved_at: datetime
    last_checked_at: datetime
    age: timedelta | None
    cadence: timedelta | None
    stale: bool
    is_demo: bool

    @property
    def display_name(self) -> str:
        """The file as a sentence names it: 'the OFAC SDN list', 'the EU Financial Sanctions File'."""
        return the(edition_name(self.source, self.edition))

    @property
    def display_name_capitalised(self) -> str:
        """As `display_name`, opening a sentence: 'The OFAC SDN list'."""
        return capitalised(self.display_name)

    def stale_sentence(self, *, name_edition: bool = False) -> str:
        """'Our copy [of the OFAC SDN list] may be out of date: last successful check <ts>, expected at least
        every <cadence>.'"""
        copy = f"Our copy of {self.display_name}" if name_edition else "Our copy"
        cadence = describe_span(self.cadence) if self.cadence is not None else "—"
        return (
            f"{copy} may be out of date: last successful check {rfc3339(self.last_checked_at)}, "
            f"expected at least every {cadence}."
        )

    def as_dict(self) -> dict:
        """For /readyz and the report pages: timestamps as RFC 3339, spans in words and seconds."""
        return {
            "source": self.source,
            "edition": self.edition,
            "published_at": rfc3339(self.published_at),
            "age": describe_age(self.age) if self.age is not None else None,
            "last_checked_at": rfc3339(self.last_checked_at),
            "expected_every": describe_span(self.cadence) if self.cadence is not None else None,
            "stale": self.stale,
        }


def edition_freshness(
    source: str,
    edition: str,
    *,
    published_at: datetime | None,
    retrieved_at: datetime,
    is_demo: bool,
    now: datetime,
    checks: dict[tuple[str, str], datetime],
) -> EditionFreshness:
    """The freshness of one serving file; its last check falls back to when the copy was taken."""
    last_check = checks.get((source, edition))
    last_check = max(last_check, retrieved_at) if last_check is not None else retrieved_at
    return EditionFreshness(
        source=source,
        edition=edition,
        published_at=published_at,
        retrieved_at=retrieved_at,
        last_checked_at=last_check,
        age=edition_age(published_at, now),
        cadence=cadence_of(source, edition),
        stale=not is_demo and is_stale(source, edition, last_check, now),
        is_demo=is_demo,
    )


def state_freshness(
    state: object, now: datetime, names: Iterable[str] | None = None
) -> dict[str, list[EditionFreshness]]:
    """source -> its serving editions' freshness, from a datastate.DataState (what screenings read).

    `names` defaults to the sanctions sources of the catalogue (register stores have no cadence).
    """
    checks = last_checks()
    sources = state.sources  # type: ignore[attr-defined]
    result: dict[str, list[EditionFreshness]] = {}
    for name in names if names is not None else sorted({s.name for s in SANCTIONS_SOURCES}):
        info = sources.get(name)
        if info is None or not info.editions:
            continue
        result[name] = [
            edition_freshness(
                name,
                edition.edition,
                published_at=edition.published_at,
                retrieved_at=edition.retrieved_at,
                is_demo=edition.is_demo,
                now=now,
                checks=checks,
            )
            for edition in sorted(info.editions.values(), key=lambda e: e.edition)
        ]
    return result


def serving_freshness(now: datetime) -> list[EditionFreshness]:
    """Every serving sanctions file's freshness straight from the database (one small query plus the
    cached last checks): for /readyz and the back office, which must not build the sanctions index."""
    names = {s.name for s in SANCTIONS_SOURCES}
    rows = (
        SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE, source__in=names)
        .order_by("source", "edition", "-retrieved_at", "-id")
        .values_list("source", "edition", "published_at", "retrieved_at", "is_demo")
    )
    checks = last_checks()
    seen: set[tuple[str, str]] = set()
    result = []
    for source, edition, published_at, retrieved_at, is_demo in rows:
        if (source, edition) in seen:
            continue
        seen.add((source, edition))
        result.append(
            edition_freshness(
                source,
                edition,
                published_at=published_at,
                retrieved_at=retrieved_at,
                is_demo=is_demo,
                now=now,
                checks=checks,
            )
        )
    return result


def stale_sources(state: object, now: datetime) -> list[str]:
    """The sanctions sources with at least one stale serving file, by name (for cache fingerprints)."""
    return sorted(name for name, rows in state_freshness(state, now).items() if any(r.stale for r in rows))
