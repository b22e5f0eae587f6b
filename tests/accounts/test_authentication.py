"""401 for every way a key can be missing or wrong; the message links to the free key."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiKey

pytestmark = pytest.mark.django_db

USAGE = "/api/v1/usage"


def assert_401(response):
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "unauthorized"
    assert "/signup" in body["message"]
    assert "X-RateLimit-Limit" not in response
    return body


def test_no_key_is_401_with_the_signup_link(client):
    assert_401(client.get(USAGE))


@pytest.mark.parametrize(
    "header",
    [
        "",
        "svc_test_abc",
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer ",
        "Bearer  svc_test_x",
        "bearer svc_test_" + "a" * 40 + " extra",
        "Bearer " + "x" * 5000,
    ],
)
def test_malformed_authorization_headers_are_401(client, header):
    assert_401(client.get(USAGE, HTTP_AUTHORIZATION=header))


def test_unknown_key_is_401(client):
    assert_401(client.get(USAGE, HTTP_AUTHORIZATION="Bearer svc_test_" + "A" * 40))


def test_a_key_in_the_query_string_is_not_accepted(client, issue_key):
    raw = issue_key()
    assert_401(client.get(f"{USAGE}?api_key={raw}"))


def test_prefix_that_disagrees_with_the_key_environment_is_401(client, issue_key):
    raw = issue_key("test")
    swapped = raw.replace("svc_test_", "svc_live_")
    body = assert_401(client.get(USAGE, HTTP_AUTHORIZATION=f"Bearer {swapped}"))
    assert "environment" in body["message"]


def test_revocation_takes_effect_on_the_next_request(client, issue_key, keyed):
    raw = issue_key()
    assert client.get(USAGE, **keyed(raw)).status_code == 200
    from accounts.services import revoke_key

    revoke_key(ApiKey.objects.get())
    assert_401(client.get(USAGE, **keyed(raw)))


def test_expired_key_is_401(client, issue_key, keyed):
    raw = issue_key(expires_at=timezone.now() - timedelta(seconds=1))
    assert_401(client.get(USAGE, **keyed(raw)))


def test_inactive_entitlement_is_401(client, issue_key, keyed):
    raw = issue_key()
    assert client.get(USAGE, **keyed(raw)).status_code == 200
    account = ApiKey.objects.get().account
    account.entitlement = "inactive"
    account.save()
    assert_401(client.get(USAGE, **keyed(raw)))


def test_the_secret_is_stored_only_as_a_keyed_hash(issue_key):
    raw = issue_key()
    key = ApiKey.objects.get()
    secret = raw.split("_", 2)[2]
    assert secret not in key.secret_hash
    assert len(key.secret_hash) == 64
    assert secret.startswith(key.lookup) and len(key.lookup) < len(secret)


def test_last_used_is_not_written_on_every_request(client, issue_key, keyed):
    raw = issue_key()
    client.get(USAGE, **keyed(raw))
    first = ApiKey.objects.get().last_used_at
    assert first is not None
    client.get(USAGE, **keyed(raw))
    assert ApiKey.objects.get().last_used_at == first


def test_keys_hashed_under_an_older_pepper_keep_working_after_rotation(client, issue_key, keyed, settings):
    raw = issue_key()
    settings.API_KEY_PEPPERS = ["p2:new-pepper-value", *settings.API_KEY_PEPPERS]
    from django.core.cache import cache

    cache.clear()
    assert client.get(USAGE, **keyed(raw)).status_code == 200
