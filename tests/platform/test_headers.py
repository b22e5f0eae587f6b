"""X-Request-Id and X-Service-API-Version on every response."""

import pytest

pytestmark = pytest.mark.django_db


def test_request_id_is_generated_when_none_is_sent(client):
    response = client.get("/healthz")
    assert response["X-Request-Id"].startswith("req_")


def test_a_well_formed_request_id_is_echoed(client):
    response = client.get("/api/v1/nowhere", HTTP_X_REQUEST_ID="trace-1234abcd")
    assert response["X-Request-Id"] == "trace-1234abcd"
    assert response.json()["request_id"] == "trace-1234abcd"


@pytest.mark.parametrize("sent", ["short", "has spaces in it", "<script>alert(1)</script>", "x" * 200])
def test_a_malformed_request_id_is_replaced(client, sent):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=sent)
    assert response["X-Request-Id"] != sent
    assert response["X-Request-Id"].startswith("req_")


def test_api_version_header_is_on_success_and_error(client):
    assert client.get("/healthz")["X-Service-API-Version"] == "2026-10-08"
    assert client.get("/api/v1/nowhere")["X-Service-API-Version"] == "2026-10-08"
