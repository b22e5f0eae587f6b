"""Operator pause switches, read on every request from a short-lived cache.

Two layers: this process keeps what it read for LOCAL_SECONDS (no round trip on most requests),
the shared cache for _CACHE_SECONDS; a change through the admin or set_switches clears both here
and the shared one everywhere, so every process sees it within LOCAL_SECONDS.
"""

from __future__ import annotations

import time

from django.core.cache import cache
from django.db.models.signals import post_save
from django.dispatch import receiver

from metering.models import ServiceSwitches

_CACHE_KEY = "service-switches"
_CACHE_SECONDS = 5
LOCAL_SECONDS = 1.0
_local: tuple[float, ServiceSwitches] | None = None


def current_switches() -> ServiceSwitches:
    global _local
    now = time.monotonic()
    if _local is not None and now - _local[0] < LOCAL_SECONDS:
        return _local[1]
    switches = cache.get(_CACHE_KEY)
    if switches is None:
        switches = ServiceSwitches.objects.order_by("pk").first() or ServiceSwitches()
        cache.set(_CACHE_KEY, switches, _CACHE_SECONDS)
    _local = (now, switches)
    return switches


def set_switches(**values: object) -> ServiceSwitches:
    switches = ServiceSwitches.objects.order_by("pk").first() or ServiceSwitches()
    for name, value in values.items():
        setattr(switches, name, value)
    switches.save()
    return switches


def forget_cached() -> None:
    """Read the switches afresh on the next request (after a change; tests between cases)."""
    global _local
    _local = None
    cache.delete(_CACHE_KEY)


@receiver(post_save, sender=ServiceSwitches)
def _forget(sender, **kwargs) -> None:
    forget_cached()
