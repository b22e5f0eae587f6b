"""Operator pause switches, read on every request from a short-lived cache."""

from __future__ import annotations

from django.core.cache import cache
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import ServiceSwitches

_CACHE_KEY = "service-switches"
_CACHE_SECONDS = 5


def current_switches() -> ServiceSwitches:
    switches = cache.get(_CACHE_KEY)
    if switches is None:
        switches = ServiceSwitches.objects.order_by("pk").first() or ServiceSwitches()
        cache.set(_CACHE_KEY, switches, _CACHE_SECONDS)
    return switches


def set_switches(**values: object) -> ServiceSwitches:
    switches = ServiceSwitches.objects.order_by("pk").first() or ServiceSwitches()
    for name, value in values.items():
        setattr(switches, name, value)
    switches.save()
    return switches


@receiver(post_save, sender=ServiceSwitches)
def _forget(sender, **kwargs) -> None:  # type: ignore[no-untyped-def]
    cache.delete(_CACHE_KEY)
