"""POST /api/v1/exports: the published schema of `filters` and the filters the server takes agree
(issue 25 item 8b). Each resource's export publishes exactly its list's filters (less limit and
cursor); every key the document allows is accepted, and any other key is 422 naming it.

The tests walk the served OpenAPI document: the request body's schema per resource, and the query
parameters of the resource's list operation."""

from __future__ import annotations

import itertools
import re

import pytest
from jsonschema import Draft202012Validator, FormatChecker

pytestmark = pytest.mark.django_db

EXPORTS = "/api/v1/exports"
LIST_PATHS = {
    "screenings": "/api/v1/screenings",
    "screening_evidence": "/api/v1/screenings",  # the same records, one evidence pack each
    "cargo_screenings": "/api/v1/cargo-screenings",
    "access_log": "/api/v1/access-log",
}
PAGING = {"limit", "cursor"}
ONLY_FORMAT = {"screening_evidence": "zip"}


def _format(resource: str, wanted: str = "csv") -> str:
    return ONLY_FORMAT.get(resource, wanted)


# Values tried for every key; those the published schema of the key allows are sent.
CANDIDATES = [True, False, "true", "false", 100, 404, 599, "GREEN", "INCOMPLETE", "9074729", "84",
              "2026-11-01T00:00:00Z", "/api/v1/usage", "x"]  # fmt: skip
_keys = itertools.count()

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_FORMATS = FormatChecker()
_FORMATS.checks("date-time")(lambda value: not isinstance(value, str) or bool(_RFC3339.match(value)))


@pytest.fixture(scope="module")
def document(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture(autouse=True)
def _export_dir(settings, tmp_path):
    settings.EXPORT_DIR = tmp_path / "exports"


@pytest.fixture
def raw(issue_key):
    return issue_key("live")


def _resolve(document: dict, schema: dict) -> dict:
    """The schema behind a $ref (or an allOf holding only one), as drf-spectacular writes them."""
    while True:
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        elif len(schema.get("allOf", [])) == 1 and "$ref" in schema["allOf"][0] and "properties" not in schema:
            schema = schema["allOf"][0]
        else:
            return schema


def _body_schema(document: dict) -> dict:
    return document["paths"][EXPORTS]["post"]["requestBody"]["content"]["application/json"]["schema"]


def _published_filters(document: dict) -> dict[str, dict]:
    """Each resource the body names, with the schema of its `filters`."""
    body = _resolve(document, _body_schema(document))
    found = {}
    for option in body.get("oneOf", [body]):
        variant = _resolve(document, option)
        resource = _resolve(document, variant["properties"]["resource"])
        names = [resource["const"]] if "const" in resource else resource["enum"]
        for name in names:
            found[name] = _resolve(document, variant["properties"].get("filters", {}))
    return found


def _list_filters(document: dict, resource: str) -> dict[str, dict]:
    """The query parameters of the resource's list operation, less limit and cursor."""
    parameters = document["paths"][LIST_PATHS[resource]]["get"]["parameters"]
    return {p["name"]: p["schema"] for p in parameters if p["in"] == "query" and p["name"] not in PAGING}


def _validator(document: dict) -> Draft202012Validator:
    # The document's components under the root, so "#/components/schemas/..." resolves as published.
    root = {**_body_schema(document), "components": document["components"]}
    return Draft202012Validator(root, format_checker=_FORMATS)


def _keys_the_document_allows(document: dict, resource: str, filters: dict) -> set[str]:
    """Named keys, or, where `filters` takes members it does not name, every list filter of every resource
    and the paging parameters (the document allows each of those for this resource too)."""
    if filters.get("additionalProperties", True) is False:
        return set(filters.get("properties", {}))
    every = {name for other in LIST_PATHS for name in _list_filters(document, other)}
    return set(filters.get("properties", {})) | every | PAGING


def _post(client, raw: str, body: dict):  # type: ignore[no-untyped-def]
    return client.post(
        EXPORTS,
        data=body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        HTTP_IDEMPOTENCY_KEY=f"filters-{next(_keys)}",
    )


def test_the_body_is_published_for_every_exportable_resource(document):
    assert set(_published_filters(document)) == set(LIST_PATHS)


@pytest.mark.parametrize("resource", sorted(LIST_PATHS))
def test_each_resources_published_filters_are_exactly_its_list_filters(document, resource):
    filters = _published_filters(document)[resource]
    assert filters.get("additionalProperties") is False, f"{resource}: filters takes members it does not name"
    assert set(filters.get("properties", {})) == set(_list_filters(document, resource))


@pytest.mark.parametrize("resource", sorted(LIST_PATHS))
def test_every_filter_key_and_value_the_document_allows_is_accepted(document, client, raw, resource):
    validator = _validator(document)
    filters = _published_filters(document)[resource]
    tried = 0
    for key in sorted(_keys_the_document_allows(document, resource, filters)):
        allowed = [
            value
            for value in CANDIDATES
            if validator.is_valid({"resource": resource, "format": _format(resource), "filters": {key: value}})
        ]
        assert allowed, f"{resource}: no candidate value fits the published schema of filters.{key}"
        for value in allowed:
            body = {"resource": resource, "format": _format(resource, "jsonl"), "filters": {key: value}}
            response = _post(client, raw, body)
            assert response.status_code == 202, f"{body} is published as valid: {response.content!r}"
            tried += 1
    assert tried


@pytest.mark.parametrize("resource", sorted(LIST_PATHS))
def test_all_of_a_resources_filters_together_are_accepted(document, client, raw, resource):
    validator = _validator(document)
    filters = {}
    for key in _published_filters(document)[resource].get("properties", {}):
        filters[key] = next(
            value
            for value in CANDIDATES
            if validator.is_valid({"resource": resource, "format": _format(resource), "filters": {key: value}})
        )
    body = {"resource": resource, "format": _format(resource), "filters": filters}
    assert validator.is_valid(body)
    response = _post(client, raw, body)
    assert response.status_code == 202, response.content


@pytest.mark.parametrize("resource", sorted(LIST_PATHS))
def test_an_unknown_key_is_422_naming_it_and_the_document_refuses_it_too(document, client, raw, resource):
    validator = _validator(document)
    # Unknown to this resource: made up, paging, and another resource's own filter.
    others = {name for other in LIST_PATHS for name in _list_filters(document, other)}
    unknown = ["colour", *sorted(PAGING), *sorted(others - set(_list_filters(document, resource)))]
    for key in unknown:
        body = {"resource": resource, "format": _format(resource), "filters": {key: "x"}}
        assert not validator.is_valid(body), f"the document allows filters.{key} for {resource}"
        response = _post(client, raw, body)
        assert response.status_code == 422, response.content
        payload = response.json()
        assert payload["code"] == "validation_failed"
        assert [v["field"] for v in payload["field_violations"]] == [f"filters.{key}"]
        assert key in payload["field_violations"][0]["message"]


def test_an_object_or_a_list_as_a_filter_value_is_422_naming_the_filter(client, raw):
    for value in ({"nested": "x"}, ["a", "b"]):
        body = {"resource": "screenings", "format": "csv", "filters": {"imo": value}}
        response = _post(client, raw, body)
        assert response.status_code == 422, response.content
        assert [v["field"] for v in response.json()["field_violations"]] == ["filters.imo"]
