"""Authenticate first (contract 7.3, 5.5): every /api/v1 request that carries an Authorization
header is authenticated before any 404/405/406/413 answer, so a bad key is 401 (without
X-RateLimit-*) and a good key's answer carries X-RateLimit-* whatever the error."""

import pytest

pytestmark = pytest.mark.django_db

RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
BAD_KEY = "Bearer svc_test_" + "A" * 40


def _too_large(client, settings, **headers):
    settings.MAX_REQUEST_BODY_BYTES = 64
    return client.post(
        "/api/v1/screenings", data="{" + '"imo": "9074729", ' * 10 + "}", content_type="application/json", **headers
    )


CASES = {
    "unknown path": (404, lambda client, settings, **h: client.get("/api/v1/no-such-endpoint", **h)),
    "unknown nested path": (404, lambda client, settings, **h: client.post("/api/v1/screenings/x/y/z", **h)),
    "format query": (404, lambda client, settings, **h: client.get("/api/v1/usage?format=xml", **h)),
    "not acceptable": (406, lambda client, settings, **h: client.get("/api/v1/usage", HTTP_ACCEPT="text/html", **h)),
    "method not allowed": (405, lambda client, settings, **h: client.delete("/api/v1/usage", **h)),
    "body too large": (413, _too_large),
}


@pytest.mark.parametrize("case", CASES)
def test_a_good_key_gets_rate_headers_on_every_error(client, settings, issue_key, keyed, case):
    status, call = CASES[case]
    raw = issue_key()
    response = call(client, settings, **keyed(raw))
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    for name in RATE_HEADERS:
        assert name in response, f"{case}: {name} missing on a keyed {status}"
    assert response["X-RateLimit-Limit"] == "120"
    assert response["X-RateLimit-Remaining"] == "119"  # the request was counted once, not twice


@pytest.mark.parametrize("case", CASES)
def test_a_bad_key_is_401_before_any_other_error(client, settings, case):
    _, call = CASES[case]
    response = call(client, settings, HTTP_AUTHORIZATION=BAD_KEY)
    assert response.status_code == 401, f"{case}: {response.status_code} {response.content[:200]!r}"
    assert response.json()["code"] == "unauthorized"
    assert response["WWW-Authenticate"].startswith("Bearer")
    for name in RATE_HEADERS:
        assert name not in response


def test_a_keyed_request_counts_once_against_the_rate(client, issue_key, keyed):
    raw = issue_key()
    assert client.get("/api/v1/usage", **keyed(raw))["X-RateLimit-Remaining"] == "119"
    assert client.get("/api/v1/nowhere", **keyed(raw))["X-RateLimit-Remaining"] == "118"
    assert client.get("/api/v1/usage", **keyed(raw))["X-RateLimit-Remaining"] == "117"


def test_an_unknown_path_with_a_good_key_is_in_the_access_log(client, issue_key, keyed):
    from metering.models import AccessLogEntry

    raw = issue_key()
    client.get("/api/v1/nowhere", **keyed(raw))
    entry = AccessLogEntry.objects.get()
    assert entry.status == 404 and entry.path == "/api/v1/nowhere"


def test_keyless_endpoints_without_a_key_are_unchanged(client):
    assert client.get("/api/v1/no-such-endpoint").status_code == 404
    assert "X-RateLimit-Limit" not in client.get("/api/v1/no-such-endpoint")
