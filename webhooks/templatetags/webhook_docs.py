"""The reference page's "Verifying webhook signatures" section, with the figures read from settings.

Rendered as Markdown (templates/drf_spectacular/webhook_signatures.md) into the OpenAPI document, where
config/openapi_reference.py makes it the description of a tag Redoc draws as a section of its own.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.template.loader import render_to_string

from webhooks.delivery import EVENT_ID_HEADER, SIGNATURE_HEADER, human_duration, max_attempts, retry_delays

SIGNATURE_TOLERANCE_MINUTES = 5  # documented tolerance for `t`; the recipes hold it as 300 seconds


def webhook_signatures_context() -> dict:
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


def webhook_signatures_markdown() -> str:
    """The section as Markdown: the delivery headers, the steps, the retry schedule and both recipes."""
    markdown = render_to_string("drf_spectacular/webhook_signatures.md", webhook_signatures_context())
    # An included recipe ends with its file's newline: no blank last line inside the code block.
    return re.sub(r"\n+```$", "\n```", markdown.strip(), flags=re.M) + "\n"
