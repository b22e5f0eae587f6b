"""Free-account pause: >250 screenings in ten minutes, or a walk through IMO numbers."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Account
from metering import pace
from metering.models import MeteringEvent

pytestmark = pytest.mark.django_db


def events(account, imos, environment="live", spacing=timedelta(seconds=1)):
    now = timezone.now()
    MeteringEvent.objects.bulk_create(
        MeteringEvent(
            account=account, environment=environment, kind="screening", imo=str(imo), at=now - spacing * (len(imos) - i)
        )
        for i, imo in enumerate(imos)
    )


def test_more_than_250_screenings_in_ten_minutes_pauses_a_free_account():
    account = Account.objects.create(email="burst@example.com")
    events(account, [9074729] * 200, "live")
    events(account, [9074729] * 51, "test")
    assert pace.evaluate(account)
    account.refresh_from_db()
    assert account.is_paused and "250" in account.paused_reason
    with pytest.raises(Exception) as error:
        pace.ensure_not_paused(account)
    assert error.value.status == 402


def test_250_screenings_in_ten_minutes_do_not_pause():
    account = Account.objects.create(email="edge@example.com")
    events(account, [9074729 + (i % 7) * 5000 for i in range(250)])
    assert pace.evaluate(account) is None


def test_stepping_through_imo_numbers_pauses_a_free_account():
    account = Account.objects.create(email="walk@example.com")
    events(account, [9000000 + 11 * i for i in range(40)], spacing=timedelta(minutes=1))
    assert "step through IMO" in pace.evaluate(account)


def test_unrelated_imo_numbers_do_not_count_as_a_walk():
    account = Account.objects.create(email="mixed@example.com")
    events(account, [9000000 + 7919 * i for i in range(40)], spacing=timedelta(minutes=1))
    assert pace.evaluate(account) is None


def test_paid_accounts_are_never_paused():
    account = Account.objects.create(email="paid@example.com", plan="paid")
    events(account, [9000000 + i for i in range(300)])
    assert pace.evaluate(account) is None
