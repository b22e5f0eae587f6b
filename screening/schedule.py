"""When scheduled fetches run, so a record can say by when one will have run (retry_after).

The beat schedule (screening/tasks.py) refreshes sanctions sources daily at
SANCTIONS_REFRESH_HOUR UTC, register stores daily at REGISTER_REFRESH_HOUR UTC, and retries
a failing core source every hour at FAILED_SOURCE_RETRY_MINUTE.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

SANCTIONS_REFRESH_HOUR = 2
REGISTER_REFRESH_HOUR = 3
FAILED_SOURCE_RETRY_MINUTE = 15
# A scheduled fetch is done within this margin after it starts.
FETCH_MARGIN = timedelta(minutes=10)


def _next_daily(now: datetime, hour: int) -> datetime:
    candidate = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    if candidate <= now:
        candidate += timedelta(days=1)
    return candidate


def next_register_refresh(now: datetime) -> datetime:
    return _next_daily(now, REGISTER_REFRESH_HOUR) + FETCH_MARGIN


def next_source_refresh(sources: Iterable[str], now: datetime) -> datetime | None:
    """The hourly retry of failing sources; None when no source is named."""
    if not list(sources):
        return None
    candidate = now.replace(minute=FAILED_SOURCE_RETRY_MINUTE, second=0, microsecond=0)
    if candidate <= now:
        candidate += timedelta(hours=1)
    return candidate + FETCH_MARGIN
