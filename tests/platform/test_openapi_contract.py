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
