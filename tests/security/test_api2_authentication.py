"""API2 Broken Authentication: every keyed operation refuses every kind of bad key the same way,
and neither the database nor the cache holds a key that could be used.

tests/accounts/test_authentication.py proves each 401 on one endpoint (malformed headers, query-string
keys, expiry, inactive entitlement, pepper rotation); this walks every published keyed operation.
"""

from __future__ import annotations

import pytest
from django.apps import apps
from django.conf import settings
from django.core.cache import cache

from accounts.models import ApiKey
from accounts.services import revoke_key
from tests.security.conftest import GREEN, UNKNOWN_ID, send

pytestmark = pytest.mark.django_db


def _bad_keys(issue_key) -> dict[str, str]:  # type: ignore[no-untyped-def]
    live = issue_key("live", email="holder@example.com")
    revoked = issue_key("live", email="holder@example.com")
    revoke_key(ApiKey.objects.get(lookup=revoked.split("_", 2)[2][:12]))
    prefix, secret = live[: len("svc_live_")], live[len("svc_live_") :]
    wrong_secret = prefix + secret[:12] + ("A" if secret[12] != "A" else "B") + secret[13:]  # a real key's lookup
    return {
        "malformed": "svc_live_short",
        "unknown": "svc_live_" + "Q" * 40,
        "wrong secret of a real key": wrong_secret,
        "other environment's prefix": live.replace("svc_live_", "svc_test_"),
        "revoked": revoked,
    }


def test_every_keyed_operation_refuses_every_bad_key_with_401_and_no_rate_headers(
    client, issue_key, published_operations
):
    keyed = [op for op in published_operations if op.keyed]
    assert len(keyed) >= 40
    wrong = []
    for label, raw in {"no key": None, **_bad_keys(issue_key)}.items():
        for op in keyed:
            response = send(client, op.method, raw, op.path(UNKNOWN_ID), {"imo": GREEN})
            if response.status_code != 401 or response.json().get("code") != "unauthorized":
                wrong.append(f"{op} with {label}: {response.status_code} {response.content[:120]!r}")
            elif "X-RateLimit-Limit" in response or response["WWW-Authenticate"] != 'Bearer realm="api"':
                wrong.append(f"{op} with {label}: rate headers or no WWW-Authenticate on a 401")
    assert not wrong, "\n".join(wrong)


def test_a_wrong_secret_for_a_real_key_is_refused_exactly_like_an_unknown_key(client, issue_key):
    bad = _bad_keys(issue_key)
    unknown = client.get("/api/v1/usage", HTTP_AUTHORIZATION=f"Bearer {bad['unknown']}").json()
    near_miss = client.get("/api/v1/usage", HTTP_AUTHORIZATION=f"Bearer {bad['wrong secret of a real key']}").json()
    assert near_miss["message"] == unknown["message"]  # no oracle for which lookup prefixes exist


def _every_stored_text() -> str:
    """Every row of every table (as Django reads it), and every value in the cache when it is Redis."""
    chunks = [repr(list(model._base_manager.values())) for model in apps.get_models()]
    if settings.CACHES["default"]["BACKEND"].startswith("django_redis"):
        redis = cache.client.get_client()
        for name in redis.scan_iter(count=1000):
            kind = redis.type(name)
            value = redis.get(name) if kind == b"string" else repr(redis.dump(name))
            chunks.append(f"{name!r}={value!r}")
    return "\n".join(chunks)


def test_neither_the_database_nor_the_cache_holds_a_usable_key_after_it_was_used(demo_world, client, issue_key):
    raw = issue_key("live", plan="paid")
    secret = raw.split("_", 2)[2]
    assert send(client, "post", raw, "/api/v1/screenings", {"imo": GREEN}).status_code == 201
    assert send(client, "get", raw, "/api/v1/usage").status_code == 200
    assert send(client, "get", raw, "/api/v1/access-log").status_code == 200
    stored = _every_stored_text()
    assert secret[:12] in stored  # the lookup prefix is stored (that is how a key is found) ...
    assert secret not in stored and secret[12:] not in stored  # ... the secret never is, nor the full key
    assert raw not in stored


def test_the_operator_login_limits_password_guesses_like_the_customer_login(client, django_user_model):
    django_user_model.objects.create_user("operator", password="a-long-operator-password", is_staff=True)
    answers = [
        client.post("/admin/login/", {"username": "operator", "password": f"guess-{n}"}).status_code for n in range(12)
    ]
    assert 429 in answers
