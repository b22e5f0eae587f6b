"""POST /voyage-assessment-batches under an Idempotency-Key, and reads of batches and assessments."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from metering.models import IdempotencyRecord, QuotaCounter
from voyages.models import VoyageAssessment, VoyageBatch, VoyageBatchItem
from webhooks.models import Event

pytestmark = pytest.mark.django_db

BATCHES = "/api/v1/voyage-assessment-batches"
ROUTES = [
    {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
    {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}},
]


def post(client, keyed, key, body, idempotency_key="batch-a"):  # type: ignore[no-untyped-def]
    return client.post(
        BATCHES, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=idempotency_key, **keyed(key)
    )


def test_the_202_answer_is_stored_with_the_batch_and_a_retry_replays_it_without_reserving_again(
    client, keyed, issue_key
):
    key = issue_key("test")
    first = post(client, keyed, key, {"routes": ROUTES, "customer_reference": "lane-check"})
    again = post(client, keyed, key, {"customer_reference": "lane-check", "routes": ROUTES})

    assert first.status_code == again.status_code == 202
    assert again.content == first.content
    record = IdempotencyRecord.objects.get()
    assert record.state == IdempotencyRecord.STATE_COMPLETED and bytes(record.body) == first.content
    assert record.status_code == 202 and "X-Service-Quota-Remaining" in record.headers
    assert VoyageBatch.objects.count() == 1 and QuotaCounter.objects.get().used == 1
    body = first.json()
    assert body["id"].startswith("vab_") and body["status"] == "queued"
    assert body["counts"] == {"queued": 1, "running": 0, "rejected": 1, "succeeded": 0, "failed": 0}


def test_an_unknown_batch_is_404_on_detail_and_items(client, keyed, issue_key):
    key = issue_key("test")
    for path in (f"{BATCHES}/vab_nope", f"{BATCHES}/vab_nope/items"):
        response = client.get(path, **keyed(key))
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_an_assessment_past_its_expires_at_is_404(client, keyed, issue_key):
    key = issue_key("test")
    created = client.post(
        "/api/v1/voyage-assessments",
        data=ROUTES[0],
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="one",
        **keyed(key),
    ).json()
    assert created["id"].startswith("vas_")
    path = f"/api/v1/voyage-assessments/{created['id']}"
    assert client.get(path, **keyed(key)).status_code == 200
    VoyageAssessment.objects.filter(pk=created["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client.get(path, **keyed(key)).status_code == 404


def test_an_assessment_records_when_it_was_created(client, keyed, issue_key):
    key = issue_key("test")
    client.post(
        "/api/v1/voyage-assessments",
        data=ROUTES[0],
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="two",
        **keyed(key),
    )
    assessment = VoyageAssessment.objects.get()
    assert assessment.created_at == assessment.assessed_at


# Issue 25 item 8a: a batch with no valid route is 422, as a screening batch with no valid hull is.
NO_VALID_ROUTE = [
    {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}},
    {"route": {"origin": "NLRTM", "destination": "NLRTM"}},
    "not a route",
]


def test_a_batch_with_no_valid_route_is_422_naming_each_routes_violations_and_stores_nothing(client, keyed, issue_key):
    key = issue_key("test")
    response = post(client, keyed, key, {"routes": NO_VALID_ROUTE}, idempotency_key="none-valid")

    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "validation_failed" and "No route of the batch is valid" in body["message"]
    assert [v["field"] for v in body["field_violations"]] == [
        "routes[0].route.origin",
        "routes[1].route.destination",
        "routes[2]",
    ]
    assert "X-Service-Quota-Remaining" not in response  # nothing was reserved
    assert not VoyageBatch.objects.exists() and not VoyageBatchItem.objects.exists()
    assert not Event.objects.filter(type="voyage_batch.completed").exists()
    assert not QuotaCounter.objects.filter(used__gt=0).exists()
    assert not IdempotencyRecord.objects.exists()


def test_after_a_batch_with_no_valid_route_the_same_key_runs_the_corrected_batch(client, keyed, issue_key):
    key = issue_key("test")
    assert post(client, keyed, key, {"routes": NO_VALID_ROUTE}, idempotency_key="fix-me").status_code == 422

    corrected = post(client, keyed, key, {"routes": ROUTES}, idempotency_key="fix-me")

    assert corrected.status_code == 202, corrected.content  # the key was not held by the refusal
    assert corrected.json()["accepted_count"] == 1
    assert VoyageBatch.objects.count() == 1 and QuotaCounter.objects.get().used == 1


def test_the_document_publishes_the_422_of_a_batch_with_no_valid_route(client):
    operation = client.get("/api/v1/openapi.json").json()["paths"][BATCHES]["post"]
    assert "no valid route" in operation["responses"]["422"]["description"]
