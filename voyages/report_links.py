"""Signed links to the voyage report page: only whoever holds the link the API returned can open it."""

from __future__ import annotations

from django.conf import settings
from django.core import signing

_SALT = "voyages.report"


def report_token(assessment_id: str) -> str:
    return signing.Signer(salt=_SALT).sign(assessment_id)


def assessment_id_from(token: str) -> str | None:
    try:
        return signing.Signer(salt=_SALT).unsign(token)
    except signing.BadSignature:
        return None


def report_url(assessment_id: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/voyage-assessments/{report_token(assessment_id)}/report"
