"""API3 Broken Object Property Level Authorization: secrets are shown once, responses carry only
their published properties, and a request cannot set a property it does not own.

Keys shown once on the key page: tests/accounts/test_key_pages.py::test_a_new_key_is_shown_once_with_a_copy_button_and_its_prefix.
"""

from __future__ import annotations

import pytest

from accounts.models import ApiKey
from screening.models import Screening
from tests.security.conftest import GREEN, RECEIVER_URL, send
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(client, django_user_model):  # type: ignore[no-untyped-def]
    return django_user_model.objects.create_superuser("operator", "operator@example.com", "a-long-operator-password")


def test_a_webhook_secret_is_shown_at_creation_and_rotation_and_nowhere_else(client, issue_key, operator):
    raw = issue_key("live")
    created = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": RECEIVER_URL}).json()
    endpoint = f"/api/v1/webhook-endpoints/{created['id']}"
    rotated = send(client, "post", raw, f"{endpoint}/rotate-secret", {"overlap_hours": 24}).json()
    secrets = {created["secret"], rotated["secret"]}
    assert len(secrets) == 2 and all(secret.startswith("whsec_") for secret in secrets)

    elsewhere = {
        "GET endpoint": send(client, "get", raw, endpoint),
        "GET endpoints": send(client, "get", raw, "/api/v1/webhook-endpoints"),
        "PATCH endpoint": send(client, "patch", raw, endpoint, {"description": "renamed"}),
        "POST test delivery": send(client, "post", raw, f"{endpoint}/test"),
        "GET deliveries": send(client, "get", raw, "/api/v1/webhook-deliveries"),
    }
    delivery_id = elsewhere["POST test delivery"].json()["id"]
    elsewhere["GET delivery"] = send(client, "get", raw, f"/api/v1/webhook-deliveries/{delivery_id}")
    elsewhere["GET access log"] = send(client, "get", raw, "/api/v1/access-log")
    client.force_login(operator)
    for page in (
        "/admin/webhooks/webhookendpoint/",
        f"/admin/webhooks/webhookendpoint/{created['id']}/change/",
        f"/admin/webhooks/delivery/{delivery_id}/change/",
        "/admin/webhooks/event/",
    ):
        elsewhere[f"admin {page}"] = client.get(page)
    for label, response in elsewhere.items():
        assert response.status_code in (200, 202), (label, response.status_code)
        text = response.content.decode()
        assert not any(secret in text for secret in secrets), f"a webhook secret is shown by {label}"
        assert "whsec_" not in text, label


def test_the_admin_never_shows_a_key_hash_or_pepper(client, issue_key, operator):
    issue_key("live")
    key = ApiKey.objects.get()
    client.force_login(operator)
    for page in ("/admin/accounts/apikey/", f"/admin/accounts/apikey/{key.pk}/change/"):
        html = client.get(page).content.decode()
        assert key.display_prefix in html
        assert key.secret_hash not in html and "secret_hash" not in html and "pepper" not in html


def test_a_request_cannot_set_properties_the_service_owns(demo_world, client, issue_key):
    raw = issue_key("live", plan="paid")
    created = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": RECEIVER_URL}).json()
    endpoint = f"/api/v1/webhook-endpoints/{created['id']}"
    owned_fields = {
        "id": "whe_chosen",
        "secret": "whsec_chosen_by_the_caller",
        "environment": "test",
        "account": "acc_someone_else",
        "account_id": "acc_someone_else",
        "disabled_reason": "chosen",
        "created_at": "2000-01-01T00:00:00Z",
    }
    refused = send(client, "patch", raw, endpoint, {"description": "x", **owned_fields})
    assert refused.status_code == 422  # refused naming each (core.api.strict_input), never silently dropped
    assert {v["field"] for v in refused.json()["field_violations"]} == set(owned_fields)
    stored = WebhookEndpoint.objects.get(pk=created["id"])
    assert stored.secret == created["secret"] and stored.environment == "live" and stored.description != "x"
    assert stored.account_id == ApiKey.objects.get().account_id and stored.disabled_reason in ("", None)

    owned_by_a_record = {
        "id": "scr_chosen",
        "unit_charged": False,
        "environment": "test",
        "sanctions": {"status": "RED"},
    }
    refused = send(client, "post", raw, "/api/v1/screenings", {"imo": GREEN, **owned_by_a_record})
    assert refused.status_code == 422
    assert {v["field"] for v in refused.json()["field_violations"]} == set(owned_by_a_record)
    assert not Screening.objects.exists()


# Sent but missing from the document: metering/api/views.py binds one UsageCounter field instance to two
# names, and drf-spectacular publishes only the last (reported with its fix in the issue's closing note).
KNOWN_UNPUBLISHED: set[str] = set()


def _declared(schema: dict, document: dict) -> tuple[set[str], bool]:
    """The property names `schema` declares (following $ref, allOf, oneOf, anyOf), and whether it is open."""
    if "$ref" in schema:
        return _declared(document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]], document)
    names, open_ = set(schema.get("properties", {})), False
    if "properties" not in schema and schema.get("type") in ("object", ["object"], None):
        open_ = not any(k in schema for k in ("allOf", "oneOf", "anyOf"))
    if schema.get("additionalProperties") not in (None, False):
        open_ = True
    for combinator in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(combinator, []):
            more, part_open = _declared(part, document)
            names |= more
            open_ = open_ or part_open
    return names, open_


def _property_schema(schema: dict, name: str, document: dict) -> dict | None:
    if "$ref" in schema:
        return _property_schema(document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]], name, document)
    if name in schema.get("properties", {}):
        return schema["properties"][name]
    for combinator in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(combinator, []):
            found = _property_schema(part, name, document)
            if found is not None:
                return found
    return None


def undocumented_properties(body: object, schema: dict, document: dict, where: str = "") -> list[str]:
    """Paths of properties in `body` that the published `schema` does not declare (open objects excepted)."""
    if isinstance(body, list):
        items = schema.get("items") or next(
            (part.get("items") for part in schema.get("oneOf", []) + schema.get("anyOf", []) if "items" in part), None
        )
        if items is None:
            return []
        return [found for n, element in enumerate(body) for found in undocumented_properties(element, items, document, f"{where}[{n}]")]  # fmt: skip
    if not isinstance(body, dict):
        return []
    names, open_ = _declared(schema, document)
    if open_:
        return []
    found = [f"{where}.{name}" for name in body if name not in names]
    for name, value in body.items():
        inner = _property_schema(schema, name, document)
        if inner is not None:
            found += undocumented_properties(value, inner, document, f"{where}.{name}")
    return found


def test_responses_carry_only_the_properties_their_published_schema_declares(
    client, tenants, openapi_document, published_operations
):
    reads = [op for op in published_operations if op.keyed and op.method == "get"]
    checked, extra = 0, []
    for op in reads:
        identifier = tenants.ids.get(op.collection, "")
        response = send(client, "get", tenants.owner, op.path(identifier))
        if response.status_code != 200 or not response["Content-Type"].startswith("application/json"):
            continue
        content = openapi_document["paths"][op.template]["get"]["responses"]["200"]["content"]
        schema = content["application/json"]["schema"]
        extra += [f"{op}: {path}" for path in undocumented_properties(response.json(), schema, openapi_document)]
        checked += 1
    assert checked >= 20
    assert sorted(set(extra) - KNOWN_UNPUBLISHED) == [], "properties sent but not published:\n" + "\n".join(extra)
    assert KNOWN_UNPUBLISHED <= set(extra), "a known gap is fixed: remove it from KNOWN_UNPUBLISHED"
