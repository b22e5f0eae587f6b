"""Issue 17 item 3: accounts opened through sign-up get the allowances of contract part 8 by their opening date.

The opening date is the UTC day the address is confirmed (the account does not exist before). One test per row
of the allowance table, each through the sign-up pages, a key made on the key page and GET /api/v1/usage.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest
from django.test import Client

from accounts import signup
from accounts.models import ALL_SCOPES
from tests.accounts.test_signup import PASSWORD, confirm, mail_dir, sign_up  # noqa: F401  (mail_dir: autouse)

pytestmark = pytest.mark.django_db

RAW_KEY = re.compile(r'value="(svc_(?:test|live)_[A-Za-z0-9]{40})"')


def opened_on(client, mail_dir, monkeypatch, day: date):  # noqa: F811
    """Sign up and confirm on `day`; the usage of a live and a test key made on the key page."""
    monkeypatch.setattr(signup, "opening_date", lambda: day)
    email = f"owner-{day.isoformat()}@shipping.example"
    sign_up(client, email)
    assert confirm(client, mail_dir, email).status_code == 302
    usage = {}
    for environment in ("live", "test"):
        page = client.post("/keys", {"environment": environment, "scopes": list(ALL_SCOPES), "allowed_ips": ""})
        raw = RAW_KEY.search(page.content.decode()).group(1)
        usage[environment] = Client().get("/api/v1/usage", HTTP_AUTHORIZATION=f"Bearer {raw}").json()["quota"]
    return usage


def test_accounts_opened_before_2026_10_01_get_5000_live_screenings_a_month(client, mail_dir, monkeypatch):  # noqa: F811
    live = opened_on(client, mail_dir, monkeypatch, date(2026, 9, 30))["live"]["screenings"]
    assert (live["limit"], live["one_time"]) == (5000, False) and live["resets_at"] is not None


@pytest.mark.parametrize("day", [date(2026, 10, 1), date(2026, 10, 4), date(2026, 10, 7)])
def test_accounts_opened_2026_10_01_to_10_07_keep_5000_live_screenings_once(client, mail_dir, monkeypatch, day):  # noqa: F811
    live = opened_on(client, mail_dir, monkeypatch, day)["live"]["screenings"]
    assert (live["limit"], live["one_time"], live["resets_at"]) == (5000, True, None)


@pytest.mark.parametrize("day", [date(2026, 10, 8), date(2026, 11, 23), date(2027, 3, 1)])
def test_accounts_opened_from_2026_10_08_get_2000_live_screenings_once(client, mail_dir, monkeypatch, day):  # noqa: F811
    live = opened_on(client, mail_dir, monkeypatch, day)["live"]["screenings"]
    assert (live["limit"], live["one_time"], live["resets_at"]) == (2000, True, None)


@pytest.mark.parametrize("day", [date(2026, 9, 30), date(2026, 10, 1), date(2026, 11, 23)])
def test_test_keys_get_500_screenings_a_month_whatever_the_opening_date(client, mail_dir, monkeypatch, day):  # noqa: F811
    test = opened_on(client, mail_dir, monkeypatch, day)["test"]["screenings"]
    assert (test["limit"], test["one_time"]) == (500, False) and test["resets_at"] is not None


@pytest.mark.parametrize("day", [date(2026, 9, 30), date(2026, 10, 1), date(2026, 11, 23)])
def test_voyage_assessments_are_10000_live_and_1000_test_a_month(client, mail_dir, monkeypatch, day):  # noqa: F811
    usage = opened_on(client, mail_dir, monkeypatch, day)
    live, test = usage["live"]["voyage_assessments"], usage["test"]["voyage_assessments"]
    assert (live["limit"], live["one_time"], test["limit"], test["one_time"]) == (10000, False, 1000, False)


def test_the_opening_date_is_the_utc_day_of_confirmation(client, mail_dir, monkeypatch):  # noqa: F811
    from django.utils import timezone

    sign_up(client, "late@shipping.example")
    # Confirmed at 23:30 UTC on 2026-10-07 (already the 8th in UTC+2): the account keeps 5,000 once.
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 10, 7, 23, 30, tzinfo=UTC))
    assert signup.opening_date() == date(2026, 10, 7)
    monkeypatch.undo()
    monkeypatch.setattr(signup, "opening_date", lambda: date(2026, 10, 7))
    assert confirm(client, mail_dir, "late@shipping.example").status_code == 302
    from accounts.models import Account
    from metering import quota

    account = Account.objects.get(email="late@shipping.example")
    assert account.opened_on == date(2026, 10, 7)
    allowance = quota.allowance_for(account, "live", quota.KIND_SCREENING)
    assert (allowance.limit, allowance.one_time) == (5000, True)
