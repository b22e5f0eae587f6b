"""The free-account pause 402 reads like the quota 402 (contract 7, row 402): it states used/limit,
the reset instant and what still works; nothing ran and nothing was charged."""

from datetime import date

import pytest
from django.utils import timezone

from accounts.models import Account
from core.api.timefmt import rfc3339
from metering import quota
from metering.models import QuotaCounter

pytestmark = pytest.mark.django_db


def _pause(email: str) -> Account:
    account = Account.objects.get(email=email)
    account.paused_reason = "more than 250 screenings in ten minutes."
    account.paused_at = timezone.now()
    account.save()
    return account


def test_the_pause_402_states_used_limit_reset_and_what_still_works(client, issue_key, keyed):
    raw = issue_key("live", email="paused@example.com", opened_on=date(2026, 10, 20))
    account = _pause("paused@example.com")
    month = quota.allowance_for(account, "test", quota.KIND_SCREENING)
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=251)
    QuotaCounter.objects.create(account=account, environment="test", kind="screening", period=month.period, used=7)

    response = client.post(
        "/api/v1/screenings",
        data={"imo": "9074729"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="paused-1",
        **keyed(raw),
    )
    assert response.status_code == 402
    body = response.json()
    assert body["code"] == "quota_exhausted"
    message = body["message"]
    assert "more than 250 screenings in ten minutes" in message
    assert "251/2000" in message  # used/limit of the allowance this key draws on
    assert "7/500" in message  # the account's other environment: the pause covers both
    assert rfc3339(month.resets_at) in message  # the reset instant
    assert "does not reset" in message  # the one-time live allowance
    assert "operator" in message  # a reset does not lift the pause; an operator does
    assert "Nothing ran and nothing was charged" in message
    assert "Still working" in message and "GET" in message and "Idempotency-Key" in message
    assert "Retry-After" not in response  # the pause has no time at which it ends by itself
    assert QuotaCounter.objects.get(environment="live").used == 251


def test_the_pause_402_on_a_test_key_names_the_monthly_reset(client, issue_key, keyed):
    raw = issue_key("test", email="paused-test@example.com")
    account = _pause("paused-test@example.com")
    month = quota.allowance_for(account, "test", quota.KIND_SCREENING)
    response = client.post(
        "/api/v1/screenings",
        data={"imo": "9074729"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="paused-2",
        **keyed(raw),
    )
    assert response.status_code == 402
    message = response.json()["message"]
    assert "0/500" in message and rfc3339(month.resets_at) in message
    assert "X-RateLimit-Remaining" in response


def test_the_pause_402_carries_the_quota_headers_of_the_allowance_drawn_on(issue_key):
    from core.api.errors import ApiError
    from metering import pace

    issue_key("live", email="paused-headers@example.com", opened_on=date(2026, 10, 20))
    account = _pause("paused-headers@example.com")
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=40)
    with pytest.raises(ApiError) as error:
        pace.ensure_not_paused(account, "live")
    assert error.value.status == 402
    assert error.value.headers["X-Service-Quota-Limit"] == "2000"
    assert error.value.headers["X-Service-Quota-Remaining"] == "1960"
    assert "Retry-After" not in error.value.headers
    assert "40/2000" in error.value.message
