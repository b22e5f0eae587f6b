"""POST /voyage-assessment-batches under an Idempotency-Key, and reads of batches and assessments."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from metering.models import IdempotencyRecord, QuotaCounter
from voyages.models import VoyageAssessment, VoyageBatch

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
