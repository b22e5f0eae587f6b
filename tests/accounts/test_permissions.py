"""403s: scope, allowed_ips, environment; 503 api_paused."""

import pytest

from metering.switches import set_switches

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.accounts.urls")]


def test_a_call_outside_the_key_scopes_is_insufficient_scope_naming_it(client, issue_key, keyed):
    raw = issue_key(scopes=["vessel:screen"])
    response = client.get("/api/v1/usage", **keyed(raw))
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"
    assert "usage:read" in response.json()["message"]
    assert "X-RateLimit-Limit" in response


def test_new_keys_carry_every_scope(issue_key):
    from accounts.models import ALL_SCOPES, ApiKey

    issue_key()
    assert sorted(ApiKey.objects.get().scopes) == sorted(ALL_SCOPES)


@pytest.mark.parametrize(
    ("allowed", "remote", "status"),
    [
        (["10.0.0.0/8"], "10.1.2.3", 200),
        (["10.0.0.0/8"], "192.0.2.1", 403),
        (["2001:db8::/32"], "2001:db8::5", 200),
        (["2001:db8::/32"], "2001:db9::5", 403),
        (["192.0.2.7"], "192.0.2.7", 200),
    ],
)
def test_allowed_ips_admit_only_listed_addresses_and_ranges(client, issue_key, keyed, allowed, remote, status):
    raw = issue_key(allowed_ips=allowed)
    response = client.get("/api/v1/usage", REMOTE_ADDR=remote, **keyed(raw))
    assert response.status_code == status
    if status == 403:
        assert response.json()["code"] == "ip_not_allowed"


def test_forwarded_for_is_honoured_only_behind_a_trusted_proxy(client, issue_key, keyed, settings):
    raw = issue_key(allowed_ips=["198.51.100.0/24"])
    spoofed = client.get("/api/v1/usage", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR="198.51.100.9", **keyed(raw))
    assert spoofed.status_code == 403
    settings.TRUSTED_PROXY_COUNT = 1
    proxied = client.get("/api/v1/usage", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR="198.51.100.9", **keyed(raw))
    assert proxied.status_code == 200


def test_monitors_are_forbidden_on_a_test_key(client, issue_key, keyed):
    response = client.get("/api/v1/_test/live-only", **keyed(issue_key("test")))
    assert response.status_code == 403
    assert response.json()["code"] == "environment_not_allowed"
    assert client.get("/api/v1/_test/live-only", **keyed(issue_key("live"))).status_code == 200


def test_api_pause_answers_503_with_retry_after_and_charges_nothing(client, issue_key, keyed):
    raw = issue_key()
    set_switches(api_paused=True, api_paused_retry_after=120)
    response = client.post(
        "/api/v1/_test/metered",
        data={"imo": "9074729"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k1",
        **keyed(raw),
    )
    assert response.status_code == 503
    assert response.json()["code"] == "api_paused"
    assert response["Retry-After"] == "120"
    from metering.models import IdempotencyRecord, QuotaCounter

    assert not QuotaCounter.objects.filter(used__gt=0).exists()
    assert not IdempotencyRecord.objects.exists()
    set_switches(api_paused=False)
    assert client.get("/api/v1/usage", **keyed(raw)).status_code == 200
