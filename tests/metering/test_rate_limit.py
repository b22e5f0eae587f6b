"""120 requests per minute per key; X-RateLimit-* on every authenticated response."""

import pytest

pytestmark = pytest.mark.django_db


def test_rate_limit_headers_are_on_every_authenticated_response(client, issue_key, keyed):
    raw = issue_key()
    ok = client.get("/api/v1/usage", **keyed(raw))
    assert ok["X-RateLimit-Limit"] == "120"
    assert ok["X-RateLimit-Remaining"] == "119"
    assert int(ok["X-RateLimit-Reset"]) > 0
    not_found = client.get("/api/v1/access-log?limit=0", **keyed(raw))
    assert not_found.status_code == 422
    assert not_found["X-RateLimit-Remaining"] == "118"


def test_the_121st_request_in_a_minute_is_429_with_retry_after(client, issue_key, keyed):
    raw = issue_key()
    for _ in range(120):
        assert client.get("/api/v1/usage", **keyed(raw)).status_code == 200
    limited = client.get("/api/v1/usage", **keyed(raw))
    assert limited.status_code == 429
    assert limited.json()["code"] == "rate_limit_exceeded"
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert limited["X-RateLimit-Remaining"] == "0"


def test_keys_have_separate_windows(client, issue_key, keyed):
    first, second = issue_key(), issue_key()
    for _ in range(120):
        client.get("/api/v1/usage", **keyed(first))
    assert client.get("/api/v1/usage", **keyed(first)).status_code == 429
    assert client.get("/api/v1/usage", **keyed(second)).status_code == 200
