"""The key row read on every request (compiled once) equals what the ORM would read."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import keys
from accounts.models import ApiKey
from metering import auth

pytestmark = pytest.mark.django_db


def test_the_compiled_key_read_matches_the_orm(issue_key):
    raw = issue_key("live", allowed_ips=["10.0.0.0/8"], expires_at=timezone.now() + timedelta(days=1))
    lookup = keys.parse(raw).lookup
    ApiKey.objects.filter(lookup=lookup).update(last_used_at=timezone.now())
    expected = ApiKey.objects.filter(lookup=lookup).select_related("account").values(*auth._KEY_ROW_FIELDS).first()
    assert auth._read_key_row(lookup) == expected
    assert auth._read_key_row("nosuchlookup") is None
