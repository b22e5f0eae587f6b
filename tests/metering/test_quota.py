"""Allowances of part 8, atomic charging, 402 quota_exhausted, quota headers and notices' inputs."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from accounts.models import Account
from metering import quota
from metering.models import MeteringEvent, QuotaCounter

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.accounts.urls")]


def account(opened: date, **fields) -> Account:
    return Account.objects.create(email=f"a{opened}{len(fields)}@example.com", opened_on=opened, **fields)


@pytest.mark.parametrize(
    ("opened", "limit", "one_time"),
    [
        (date(2026, 9, 30), 5000, False),
        (date(2026, 10, 1), 5000, True),
        (date(2026, 10, 7), 5000, True),
        (date(2026, 10, 8), 2000, True),
        (date(2026, 11, 20), 2000, True),
    ],
)
def test_live_screening_allowance_follows_the_opening_date(opened, limit, one_time):
    allowance = quota.allowance_for(account(opened), "live", quota.KIND_SCREENING)
    assert allowance.limit == limit
    assert allowance.one_time is one_time
    assert (allowance.resets_at is None) is one_time


def test_a_pilot_has_its_own_total():
    allowance = quota.allowance_for(account(date(2026, 11, 1), pilot_screening_total=750), "live", quota.KIND_SCREENING)
    assert (allowance.limit, allowance.one_time) == (750, True)


@pytest.mark.parametrize(
    ("environment", "kind", "limit"),
    [
        ("test", quota.KIND_SCREENING, 500),
        ("live", quota.KIND_ASSESSMENT, 10_000),
        ("test", quota.KIND_ASSESSMENT, 1_000),
    ],
)
def test_test_keys_and_assessments_stay_monthly_everywhere(environment, kind, limit):
    allowance = quota.allowance_for(account(date(2026, 11, 1)), environment, kind)
    assert allowance.limit == limit and not allowance.one_time
    assert allowance.resets_at == quota.next_month_start(timezone.now())


def post(client, keyed, raw, key, **body):
    return client.post(
        "/api/v1/_test/metered",
        data={"imo": "9074729", **body},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
        **keyed(raw),
    )


def test_metered_responses_carry_quota_headers(client, issue_key, keyed):
    raw = issue_key("test")
    response = post(client, keyed, raw, "q1")
    assert response.status_code == 201
    assert response["X-Service-Quota-Limit"] == "500"
    assert response["X-Service-Quota-Remaining"] == "499"
    assert response["X-Service-Quota-Reset"].endswith("Z")


def test_one_time_allowances_have_no_reset_header(client, issue_key, keyed):
    raw = issue_key("live", opened_on=date(2026, 11, 1))
    response = post(client, keyed, raw, "q1")
    assert response["X-Service-Quota-Limit"] == "2000"
    assert "X-Service-Quota-Reset" not in response


def test_an_uncharged_result_leaves_the_allowance_untouched(client, issue_key, keyed):
    raw = issue_key("test")
    response = post(client, keyed, raw, "q1", incomplete=True)
    assert response["X-Service-Quota-Remaining"] == "500"


def exhaust(raw_email: str, environment: str, kind: str = quota.KIND_SCREENING) -> None:
    acct = Account.objects.get(email=raw_email)
    allowance = quota.allowance_for(acct, environment, kind)
    QuotaCounter.objects.update_or_create(
        account=acct, environment=environment, kind=kind, period=allowance.period, defaults={"used": allowance.limit}
    )


def test_exhausted_monthly_allowance_is_402_with_retry_after_to_reset(client, issue_key, keyed):
    raw = issue_key("test", email="q@example.com")
    exhaust("q@example.com", "test")
    response = post(client, keyed, raw, "q2")
    assert response.status_code == 402
    body = response.json()
    assert body["code"] == "quota_exhausted"
    assert "500/500" in body["message"] and "resets at" in body["message"]
    assert int(response["Retry-After"]) > 0
    assert QuotaCounter.objects.get().used == 500


def test_exhausted_one_time_allowance_has_no_retry_after(client, issue_key, keyed):
    raw = issue_key("live", email="o@example.com", opened_on=date(2026, 11, 1))
    exhaust("o@example.com", "live")
    response = post(client, keyed, raw, "q3")
    assert response.status_code == 402
    assert "Retry-After" not in response
    assert "does not reset" in response.json()["message"]


def test_replays_and_reads_still_work_while_over_allowance(client, issue_key, keyed):
    raw = issue_key("test", email="r@example.com")
    first = post(client, keyed, raw, "same")
    exhaust("r@example.com", "test")
    replay = post(client, keyed, raw, "same")
    assert replay.status_code == 201 and replay.content == first.content
    assert client.get("/api/v1/usage", **keyed(raw)).status_code == 200


def test_live_exhaustion_leaves_test_keys_working(client, issue_key, keyed):
    live = issue_key("live", email="l@example.com", opened_on=date(2026, 11, 1))
    test = issue_key("test", email="l@example.com")
    exhaust("l@example.com", "live")
    assert post(client, keyed, live, "x").status_code == 402
    assert post(client, keyed, test, "x").status_code == 201


def test_quota_warning_is_due_at_eighty_percent_of_the_live_screening_allowance():
    acct = account(date(2026, 11, 1))
    allowance = quota.allowance_for(acct, "live", quota.KIND_SCREENING)
    assert not quota.warning_due(quota.QuotaState(allowance, 1599))
    assert quota.warning_due(quota.QuotaState(allowance, 1600))
    test_allowance = quota.allowance_for(acct, "test", quota.KIND_SCREENING)
    assert not quota.warning_due(quota.QuotaState(test_allowance, 499))


def _history(acct, per_day: int, days: int, environment="live"):
    now = timezone.now()
    events = [
        MeteringEvent(
            account=acct, environment=environment, kind="screening", at=now - timedelta(days=d, hours=1), imo="1"
        )
        for d in range(days)
        for _ in range(per_day)
    ]
    MeteringEvent.objects.bulk_create(events)
    return len(events)


def test_quota_pace_projects_exhaustion_before_reset():
    acct = account(date(2026, 9, 1))  # monthly 5000 live
    used = _history(acct, per_day=400, days=7)
    state = quota.QuotaState(quota.allowance_for(acct, "live", quota.KIND_SCREENING), used)
    projection = quota.pace_projection(acct, state)
    if quota.next_month_start(timezone.now()) - timezone.now() > timedelta(days=3):
        assert projection is not None
        assert projection.per_day == pytest.approx(400, rel=0.2)


def test_quota_pace_is_quiet_under_three_days_of_history():
    acct = account(date(2026, 9, 1))
    used = _history(acct, per_day=1000, days=2)
    state = quota.QuotaState(quota.allowance_for(acct, "live", quota.KIND_SCREENING), used)
    assert quota.pace_projection(acct, state) is None


def test_quota_pace_is_quiet_on_one_time_allowances():
    acct = account(date(2026, 11, 1))
    used = _history(acct, per_day=200, days=7)
    state = quota.QuotaState(quota.allowance_for(acct, "live", quota.KIND_SCREENING), used)
    assert quota.pace_projection(acct, state) is None


def test_quota_pace_is_quiet_once_the_warning_applies():
    acct = account(date(2026, 9, 1))
    _history(acct, per_day=400, days=7)
    state = quota.QuotaState(quota.allowance_for(acct, "live", quota.KIND_SCREENING), 4100)
    assert quota.pace_projection(acct, state) is None


def test_the_allowance_table_grants_every_kind_and_environment_for_any_opening_date():
    from datetime import date, timedelta

    from metering import quota

    start = date(2024, 1, 1)
    for offset in range(0, 1200, 3):
        opened = start + timedelta(days=offset)
        for kind in (quota.KIND_SCREENING, quota.KIND_ASSESSMENT):
            for environment in ("live", "test"):
                matching = [rule for rule in quota.ALLOWANCES if rule.applies(kind, environment, opened)]
                assert matching, (kind, environment, opened)
