"""Every error under /api/v1 answers in the envelope {code, message, request_id}, never HTML."""

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.platform.urls")]


def assert_envelope(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code
    assert body["message"]
    assert body["request_id"] == response["X-Request-Id"]
    return body


def test_unknown_path_is_not_found_in_the_envelope(client):
    assert_envelope(client.get("/api/v1/no-such-thing"), 404, "not_found")


def test_unknown_deep_path_with_trailing_slash_is_not_found(client):
    assert_envelope(client.get("/api/v1/screenings/x/y/z/"), 404, "not_found")


def test_wrong_method_is_405_in_the_envelope(client):
    body = assert_envelope(client.delete("/api/v1/_test/echo"), 405, "method_not_allowed")
    assert "DELETE" in body["message"]


def test_unparseable_json_is_invalid_json(client):
    response = client.post("/api/v1/_test/echo", data="{not json", content_type="application/json")
    assert_envelope(response, 400, "invalid_json")


def test_form_encoded_body_is_unsupported_media_type(client):
    response = client.post("/api/v1/_test/echo", data={"name": "x"})
    assert_envelope(response, 415, "unsupported_media_type")


def test_validation_names_each_field_and_how_to_resolve_it(client):
    response = client.post(
        "/api/v1/_test/echo", data={"name": "far too long a name", "count": "many"}, content_type="application/json"
    )
    body = assert_envelope(response, 422, "validation_failed")
    fields = {violation["field"] for violation in body["field_violations"]}
    assert fields == {"name", "count"}
    assert all("resend POST /api/v1/_test/echo" in v["message"] for v in body["field_violations"])


def test_nested_field_violations_use_dotted_names(client):
    response = client.post(
        "/api/v1/_test/echo", data={"name": "ok", "count": 1, "route": "not-an-object"}, content_type="application/json"
    )
    body = assert_envelope(response, 422, "validation_failed")
    assert [v["field"] for v in body["field_violations"]] == ["route"]


def test_unhandled_exception_is_500_in_the_envelope(client):
    client.raise_request_exception = False
    assert_envelope(client.get("/api/v1/_test/boom"), 500, "internal_error")


def test_oversized_body_is_refused_before_parsing(client, settings):
    settings.MAX_REQUEST_BODY_BYTES = 100
    response = client.post("/api/v1/_test/echo", data='{"name": "' + "x" * 200 + '"}', content_type="application/json")
    assert_envelope(response, 413, "request_too_large")


def test_successful_post_is_json(client):
    response = client.post("/api/v1/_test/echo", data={"name": "ok", "count": 2}, content_type="application/json")
    assert response.status_code == 201
    assert response.json() == {"name": "ok", "count": 2}


def test_browsable_api_is_off_even_when_html_is_asked_for(client):
    response = client.get("/api/v1/no-such-thing", HTTP_ACCEPT="text/html")
    assert response["Content-Type"].startswith("application/json")
