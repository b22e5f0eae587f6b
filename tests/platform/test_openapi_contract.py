"""The published OpenAPI document covers the contract's endpoints with every response they can return."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

CONTRACT_OPERATIONS = {
    ("/api/v1/screenings", "post"),
    ("/api/v1/screenings", "get"),
    ("/api/v1/screenings/{screening_id}", "get"),
    ("/api/v1/vessels/{imo}/check", "get"),
    ("/api/v1/ports", "get"),
    ("/api/v1/usage", "get"),
    ("/api/v1/access-log", "get"),
    ("/api/v1/voyage-assessments", "post"),
    ("/api/v1/voyage-assessments/{assessment_id}", "get"),
    ("/api/v1/voyage-assessment-batches", "post"),
    ("/api/v1/voyage-assessment-batches/{batch_id}", "get"),
    ("/api/v1/voyage-assessment-batches/{batch_id}/items", "get"),
}


@pytest.fixture(scope="module")
def document(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_document_is_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")


def test_every_implemented_contract_operation_is_published(document):
    published = {(path, method) for path, ops in document["paths"].items() for method in ops}
    assert CONTRACT_OPERATIONS <= published


def test_every_operation_documents_its_errors_in_a_json_body(document):
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            statuses = {int(s) for s in operation["responses"] if s.isdigit()}
            assert any(s >= 400 for s in statuses), f"{method} {path} documents no error"
            for status, response in operation["responses"].items():
                if status.isdigit() and int(status) >= 400:
                    assert "application/json" in response.get("content", {}), f"{method} {path} {status}"


def test_creating_posts_declare_the_idempotency_key_header(document):
    for path, operations in document["paths"].items():
        post = operations.get("post")
        if post is None or not path.startswith("/api/v1/") or post.get("security") == [{}]:
            continue
        if not any("BearerKey" in s for s in post.get("security", [])):
            continue
        headers = {p["name"] for p in post.get("parameters", []) if p["in"] == "header"}
        assert "Idempotency-Key" in headers, path


def test_keyless_operations_need_no_credentials(document):
    for path in ("/api/v1/vessels/{imo}/check", "/api/v1/ports"):
        operation = document["paths"][path]["get"]
        assert not any("BearerKey" in s for s in operation.get("security", [])), path
        assert {"200", "429"} <= set(operation["responses"])


def test_the_deprecated_source_status_map_is_marked(document):
    carriers = [s for s in document["components"]["schemas"].values() if "source_status" in s.get("properties", {})]
    assert carriers
    assert all(s["properties"]["source_status"].get("deprecated") is True for s in carriers)


def test_list_limits_publish_the_range_the_server_enforces(document):
    limit = next(p for p in document["paths"]["/api/v1/screenings"]["get"]["parameters"] if p["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"], limit["schema"]["default"]) == (1, 200, 50)
    ports_limit = next(p for p in document["paths"]["/api/v1/ports"]["get"]["parameters"] if p["name"] == "limit")
    assert ports_limit["schema"]["maximum"] >= 1


def test_the_keyless_check_publishes_its_imo_pattern_and_keys_their_bounds(document):
    import re

    check = document["paths"]["/api/v1/vessels/{imo}/check"]["get"]
    pattern = next(p for p in check["parameters"] if p["name"] == "imo")["schema"]["pattern"]
    assert (
        re.search(pattern, "IMO9074729")
        and not re.search(pattern, "12345")
        and not re.search(pattern, "1234567 7654321")
    )
    key = next(
        p for p in document["paths"]["/api/v1/screenings"]["post"]["parameters"] if p["name"] == "Idempotency-Key"
    )
    assert (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 255)


def test_the_webhook_url_publishes_its_https_rule(document):
    import re

    for path, method in (
        ("/api/v1/webhook-endpoints", "post"),
        ("/api/v1/webhook-endpoints/{endpoint_id}", "patch"),
    ):
        body = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
        name = body["$ref"].rsplit("/", 1)[-1]
        url = document["components"]["schemas"][name]["properties"]["url"]
        patterns = [url.get("pattern", "")] + [part["pattern"] for part in url.get("allOf", []) if "pattern" in part]
        for accepted in ("https://hooks.example.com/in?x=1", "HTTPS://hooks.example.com/in"):
            assert all(re.search(p, accepted) for p in patterns), (accepted, patterns)
        assert not all(re.search(p, "http://hooks.example.com/in") for p in patterns), patterns
        assert not all(re.search(p, "hooks.example.com/in") for p in patterns), patterns


def test_the_fuel_types_are_a_closed_list(document):
    route = document["components"]["schemas"]["RouteRequestSchemaRequest"]["properties"]["fuel_type"]
    assert "HFO" in str(route) and "methanol" in str(route)


def test_an_unknown_fuel_type_is_a_validation_failure_naming_the_field(client, issue_key):
    raw = issue_key("test")
    response = client.post(
        "/api/v1/voyage-assessments",
        data={"route": {"origin": "NLRTM", "destination": "SGSIN", "fuel_type": "unobtainium"}},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        HTTP_IDEMPOTENCY_KEY="fuel-1",
    )
    assert response.status_code == 422
    assert response.json()["code"] == "validation_failed"
    assert [v["field"] for v in response.json()["field_violations"]] == ["route.fuel_type"]


def test_a_non_ascii_digit_limit_on_the_port_lookup_is_a_422_not_a_500(client):
    response = client.get("/api/v1/ports", {"query": "Rotterdam", "limit": "\u00b2"})
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == "limit"
