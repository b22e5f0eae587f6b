"""GET /usage and GET /access-log."""

from datetime import date

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.accounts.urls")]


def test_usage_reports_both_counters_limits_and_route_caps(client, issue_key, keyed):
    raw = issue_key("live", opened_on=date(2026, 11, 1))
    body = client.get("/api/v1/usage", **keyed(raw)).json()
    assert body["environment"] == "live"
    assert body["quota"]["screenings"] == {
        "used": 0,
        "limit": 2000,
        "remaining": 2000,
        "one_time": True,
        "resets_at": None,
    }
    assert body["quota"]["voyage_assessments"]["limit"] == 10_000
    assert body["quota"]["voyage_assessments"]["resets_at"].endswith("Z")
    assert body["limits"]["rate_limit_per_minute"] == 120
    assert body["limits"]["in_flight_screenings"] == 6
    assert body["limits"]["in_flight_assessments"] == 2
    assert {"test_max_routes", "live_max_routes"} <= body["limits"].keys()


def test_usage_counts_the_key_environment_only(client, issue_key, keyed):
    test_key = issue_key("test", email="u@example.com")
    live_key = issue_key("live", email="u@example.com")
    client.post(
        "/api/v1/_test/metered",
        data={"imo": "9074729"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="x",
        **keyed(test_key),
    )
    assert client.get("/api/v1/usage", **keyed(test_key)).json()["quota"]["screenings"]["used"] == 1
    assert client.get("/api/v1/usage", **keyed(live_key)).json()["quota"]["screenings"]["used"] == 0


def test_access_log_lists_keyed_requests_of_the_key_environment_without_secrets(client, issue_key, keyed):
    raw = issue_key("test", email="log@example.com")
    other = issue_key("live", email="log@example.com")
    client.get("/api/v1/usage", **keyed(raw), HTTP_X_REQUEST_ID="trace-abcdef12")
    client.get("/api/v1/usage", **keyed(other))
    client.post(
        "/api/v1/_test/metered",
        data={"imo": "9074729"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="x",
        **keyed(raw),
    )
    response = client.get("/api/v1/access-log", **keyed(raw))
    body = response.json()
    entries = body["entries"]
    assert [e["path"] for e in entries] == ["/api/v1/_test/metered", "/api/v1/usage"]
    assert entries[0]["units_charged"] == 1 and entries[0]["status"] == 201
    assert entries[1]["request_id"] == "trace-abcdef12"
    assert all(raw.split("_", 2)[2] not in str(e) for e in entries)
    assert entries[0]["key_prefix"].startswith("svc_test_")
    assert body["next_cursor"] is None


def test_access_log_filters_by_status_and_paginates(client, issue_key, keyed):
    raw = issue_key()
    for _ in range(3):
        client.get("/api/v1/usage", **keyed(raw))
    client.get("/api/v1/access-log?status=abc", **keyed(raw))
    only_422 = client.get("/api/v1/access-log?status=422", **keyed(raw)).json()["entries"]
    assert len(only_422) == 1 and only_422[0]["code"] == "validation_failed"
    page = client.get("/api/v1/access-log?limit=2&path=/api/v1/usage", **keyed(raw)).json()
    assert len(page["entries"]) == 2 and page["next_cursor"]
    rest = client.get(
        f"/api/v1/access-log?limit=2&path=/api/v1/usage&cursor={page['next_cursor']}", **keyed(raw)
    ).json()
    assert len(rest["entries"]) == 1 and rest["next_cursor"] is None


def test_a_bad_cursor_is_a_validation_error(client, issue_key, keyed):
    response = client.get("/api/v1/access-log?cursor=%%%", **keyed(issue_key()))
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == "cursor"
