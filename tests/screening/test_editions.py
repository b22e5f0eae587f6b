"""What a loaded edition hands on (screening/editions.py): follow-ups waiting on a list come due."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from screening import demo, refresh
from screening.models import FollowUp
from tests.screening.conftest import undated_sdn_csv

pytestmark = pytest.mark.django_db


def test_a_new_edition_makes_follow_ups_waiting_on_a_list_due_at_once_and_leaves_the_others(
    demo_world, issue_key, screen
):
    key = issue_key("test", email="waiting@example.com")
    screen(key, demo.INCOMPLETE_IDENTITY)
    identity = FollowUp.objects.get()
    later = timezone.now() + timedelta(hours=6)
    coverage = FollowUp.objects.create(
        account=identity.account, environment=identity.environment, imo=demo.GREEN_CLEAN,
        screening=identity.screening, cause=FollowUp.Cause.COVERAGE, next_attempt_at=later,
        expires_at=later + timedelta(days=7),
    )  # fmt: skip
    identity_due = identity.next_attempt_at

    assert refresh.load_files("ofac_sdn", {"sdn": undated_sdn_csv().encode()}, origin="test").status == "loaded"

    coverage.refresh_from_db()
    assert coverage.next_attempt_at <= timezone.now()  # the list it waited for is here
    identity.refresh_from_db()
    assert identity.next_attempt_at == identity_due  # waiting on a name, not on a list
