"""The reference page's "Verifying webhook signatures" section, with the figures read from settings."""

from __future__ import annotations

from django import template
from django.conf import settings

from webhooks.delivery import EVENT_ID_HEADER, SIGNATURE_HEADER, human_duration, max_attempts, retry_delays

register = template.Library()

SIGNATURE_TOLERANCE_MINUTES = 5  # documented tolerance for `t`; the recipes hold it as 300 seconds


@register.inclusion_tag("drf_spectacular/webhook_signatures_section.html")
def webhook_signatures_section() -> dict:
    delays = retry_delays()
    return {
        "signature_header": SIGNATURE_HEADER,
        "event_id_header": EVENT_ID_HEADER,
        "tolerance_minutes": SIGNATURE_TOLERANCE_MINUTES,
        "timeout_seconds": settings.WEBHOOK_TIMEOUT_SECONDS,
        "attempts": max_attempts(),
        "delays": ", ".join(map(human_duration, delays)),
        "retry_hours": f"{sum(delays) / 3600:.1f}",
    }
