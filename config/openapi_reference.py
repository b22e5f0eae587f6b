"""The reference page's documentation sections, placed in the OpenAPI document so Redoc draws them in its
own layout (a drf-spectacular post-processing hook, after core.api.openapi.group_operations):

- "Notices" (contract 2.8) joins the Markdown sections of `info.description`, before the changelog. Redoc
  makes a section of each level-1 heading there (`section/<heading>`) and a subsection of each level-2
  heading under it (`section/<heading>/<subheading>`), so each code's `## <code>` is the anchor
  `section/Notices/<code>` that the `docs` link of every notice points at (screening/notices.py). The
  sections settings.py puts there (matching quality, changelog) open with `##`: they become `#` here, or
  Redoc would file the changelog under Notices.
- "Verifying webhook signatures" is a trait tag (`x-traitTag`: a section with no operations) opening the
  Webhooks group, before the event types; Redoc's anchor for it is `tag/Verifying-webhook-signatures`.

It lives in config because it reads screening and webhooks, which core may not import.
"""

from __future__ import annotations

import re
from typing import Any

from django.template.loader import render_to_string
from drf_spectacular.drainage import warn

from core.api.openapi import WEBHOOK_GROUP
from screening.notices import CODES as NOTICE_CODES
from webhooks.templatetags.webhook_docs import webhook_signatures_markdown

CHANGELOG_HEADING = "# Changelog"  # core.changelog.as_markdown's first line, promoted to level 1
SIGNATURES_TAG = "Verifying webhook signatures"
SIGNATURES_ANCHOR = "#tag/Verifying-webhook-signatures"


def notices_markdown() -> str:
    """The Notices section: one `## <code>` per code of screening.notices.CODES (a code without its
    heading, or a heading for no code, is a schema warning, which fails tests/platform/test_openapi_warnings.py)."""
    markdown = render_to_string("drf_spectacular/notices.md").strip()
    headings = re.findall(r"^## (\S+)$", markdown, re.M)
    if headings != list(NOTICE_CODES):
        warn(f"the Notices section's headings {headings} are not screening.notices.CODES {list(NOTICE_CODES)}")
    return markdown


def add_reference_sections(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular post-processing hook."""
    info = result.setdefault("info", {})
    description = re.sub(r"^## ", "# ", info.get("description", ""), flags=re.M)
    notices = notices_markdown()
    if CHANGELOG_HEADING in description:
        before, after = description.split(CHANGELOG_HEADING, 1)
        info["description"] = f"{before.rstrip()}\n\n{notices}\n\n{CHANGELOG_HEADING}{after}"
    else:
        info["description"] = f"{description.rstrip()}\n\n{notices}\n"
    tag = {"name": SIGNATURES_TAG, "description": webhook_signatures_markdown(), "x-traitTag": True}
    tags = [t for t in result.get("tags", []) if t.get("name") != SIGNATURES_TAG]
    groups = result.setdefault("x-tagGroups", [])
    webhooks = next((group for group in groups if group["name"] == WEBHOOK_GROUP), None)
    if webhooks is None:
        webhooks = {"name": WEBHOOK_GROUP, "tags": []}
        groups.append(webhooks)
    webhooks["tags"] = [SIGNATURES_TAG, *(name for name in webhooks["tags"] if name != SIGNATURES_TAG)]
    first_event = next((i for i, t in enumerate(tags) if t["name"] in webhooks["tags"]), len(tags))
    tags.insert(first_event, tag)
    result["tags"] = tags
    return result
