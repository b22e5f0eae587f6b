"""Webhook endpoints (contract 4.7, 5.4, 6): create with the secret shown once, list, get, update,
delete; public HTTPS URLs only; event types from the published list; a cap per environment."""

from __future__ import annotations

import itertools

import pytest

pytestmark = pytest.mark.django_db

_keys = itertools.count()
PUBLIC_LOOKING = "https://receiver.invalid/hooks"  # .invalid never resolves: saved with a warning


def _send(client, method: str, raw: str, path: str, body: dict | None = None, key: str | None = "auto"):  # type: ignore[no-untyped-def]
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = f"whk-{next(_keys)}" if key == "auto" else key
    call = getattr(client, method)
    return call(path, data=body if body is not None else {}, content_type="application/json", **headers)


def _create(client, raw: str, **body):  # type: ignore[no-untyped-def]
    return _send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": PUBLIC_LOOKING, **body})


def test_the_secret_is_returned_once_at_creation_and_never_read_back(client, issue_key):
    raw = issue_key("live")
    created = _create(client, raw, event_types=["screening.resolved"])
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["id"].startswith("whe_") and body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    assert body["event_types"] == ["screening.resolved"] and body["enabled"] is True
    assert "url_warning" in body  # the name does not resolve (yet)
    detail = client.get(f"/api/v1/webhook-endpoints/{body['id']}", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    listed = client.get("/api/v1/webhook-endpoints", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert "secret" not in detail
    assert [row["id"] for row in listed["webhook_endpoints"]] == [body["id"]]
    assert all("secret" not in row for row in listed["webhook_endpoints"])


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # not https
        "https://localhost/x",
        "https://hooks.localhost/x",
        "https://127.0.0.1/x",
        "https://10.1.2.3/x",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/x",
        "https://[::1]/x",
        "https://[fd00::1]/x",
        "https://user:pw@hooks.example.com/x",
        "https://hooks.example.com:22/x",
        "not a url",
    ],
)
def test_urls_that_are_not_public_https_are_refused_on_the_url_field(client, issue_key, url):
    response = _send(client, "post", issue_key("live"), "/api/v1/webhook-endpoints", {"url": url})
    assert response.status_code == 422, response.content
    assert response.json()["field_violations"][0]["field"] == "url"


def test_unknown_event_types_are_refused_naming_the_field(client, issue_key):
    response = _create(client, issue_key("live"), event_types=["screening.resolved", "ship.sank"])
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == "event_types[1]"


def test_an_endpoint_receives_every_type_when_it_lists_none_and_only_its_own_otherwise(client, issue_key):
    from webhooks.models import WebhookEndpoint

    raw = issue_key("live")
    every = WebhookEndpoint.objects.get(pk=_create(client, raw).json()["id"])
    listed = WebhookEndpoint.objects.get(pk=_create(client, raw, event_types=["usage.quota_warning"]).json()["id"])
    assert every.receives("screening.resolved") and every.receives("usage.quota_warning")
    assert listed.receives("usage.quota_warning") and not listed.receives("screening.resolved")


def test_update_changes_what_was_sent_and_keeps_the_secret(client, issue_key):
    from webhooks.models import WebhookEndpoint

    raw = issue_key("live")
    created = _create(client, raw).json()
    updated = _send(
        client, "patch", raw, f"/api/v1/webhook-endpoints/{created['id']}", {"enabled": False, "event_types": []}
    )
    assert updated.status_code == 200, updated.content
    assert updated.json()["enabled"] is False and "secret" not in updated.json()
    assert WebhookEndpoint.objects.get(pk=created["id"]).secret == created["secret"]
    refused = _send(client, "patch", raw, f"/api/v1/webhook-endpoints/{created['id']}", {"url": "https://10.0.0.1/"})
    assert refused.status_code == 422
    assert WebhookEndpoint.objects.get(pk=created["id"]).url == PUBLIC_LOOKING


def test_delete_removes_the_endpoint_and_needs_an_idempotency_key(client, issue_key):
    raw = issue_key("live")
    created = _create(client, raw).json()
    path = f"/api/v1/webhook-endpoints/{created['id']}"
    assert _send(client, "delete", raw, path, key=None).json()["code"] == "missing_idempotency_key"
    deleted = _send(client, "delete", raw, path, key="del-1")
    assert deleted.status_code == 200 and deleted.json() == {"id": created["id"], "deleted": True}
    assert _send(client, "delete", raw, path, key="del-1").headers["X-Service-Idempotent-Replay"] == "true"
    assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 404


@pytest.mark.parametrize("outsider_environment", ["test", "live"])
def test_endpoints_are_invisible_to_other_environments_and_accounts(client, issue_key, outsider_environment):
    from accounts.services import issue_key as issue

    _, _, owner_live = issue(email="hooks-owner@example.com", environment="live")
    if outsider_environment == "test":
        _, _, outsider = issue(email="hooks-owner@example.com", environment="test")
    else:
        outsider = issue_key("live")
    created = _create(client, owner_live).json()
    path = f"/api/v1/webhook-endpoints/{created['id']}"
    assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {outsider}").status_code == 404
    assert (
        client.get("/api/v1/webhook-endpoints", HTTP_AUTHORIZATION=f"Bearer {outsider}").json()["webhook_endpoints"]
        == []
    )
    assert _send(client, "delete", outsider, path).status_code == 404


def test_an_environment_holds_at_most_ten_endpoints(client, issue_key):
    from webhooks.services import MAX_ENDPOINTS_PER_ENVIRONMENT

    raw = issue_key("live")
    for _ in range(MAX_ENDPOINTS_PER_ENVIRONMENT):
        assert _create(client, raw).status_code == 201
    refused = _create(client, raw)
    assert refused.status_code == 422 and refused.json()["code"] == "endpoint_limit_reached"
    assert str(MAX_ENDPOINTS_PER_ENVIRONMENT) in refused.json()["message"]


def test_a_key_without_the_webhooks_scope_is_refused(client, issue_key):
    raw = issue_key("live", scopes=["vessel:screen"])
    response = _create(client, raw)
    assert response.status_code == 403 and response.json()["code"] == "insufficient_scope"


# Issue 25 item 8c: overlap_hours is a JSON integer, as the document publishes it; nothing is coerced.
@pytest.mark.parametrize("overlap", ["24", "0", True, 24.5, [24], {"hours": 24}])
def test_rotate_secret_refuses_an_overlap_that_is_not_a_json_integer_and_keeps_the_secret(client, issue_key, overlap):
    raw = issue_key("live")
    created = _create(client, raw).json()
    path = f"/api/v1/webhook-endpoints/{created['id']}/rotate-secret"

    refused = _send(client, "post", raw, path, {"overlap_hours": overlap})

    assert refused.status_code == 422, refused.content
    (violation,) = refused.json()["field_violations"]
    assert violation["field"] == "overlap_hours" and "integer" in violation["message"]
    detail = client.get(f"/api/v1/webhook-endpoints/{created['id']}", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert detail["previous_secret_expires_at"] is None  # nothing was rotated


@pytest.mark.parametrize("overlap", [0, 24, 168, 24.0])
def test_rotate_secret_takes_a_json_integer_overlap(client, issue_key, overlap):
    raw = issue_key("live")
    created = _create(client, raw).json()
    path = f"/api/v1/webhook-endpoints/{created['id']}/rotate-secret"

    rotated = _send(client, "post", raw, path, {"overlap_hours": overlap})

    assert rotated.status_code == 200, rotated.content
    assert rotated.json()["secret"] != created["secret"]
    assert (rotated.json()["previous_secret_expires_at"] is None) == (overlap == 0)
