"""Client input that used to reach the database or the stack as a 500 (issue 18, defects 1 and 4): each is
a 4xx envelope with nothing stored, nothing charged and no Idempotency-Key left held."""

from __future__ import annotations

import pytest

from metering.models import IdempotencyRecord, QuotaCounter
from screening.models import Screening
from voyages.models import VoyageBatch

pytestmark = pytest.mark.django_db


def _post(client, raw: str, path: str, body: bytes, key: str):  # type: ignore[no-untyped-def]
    return client.post(
        path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )


def _nothing_stored() -> None:
    assert not Screening.objects.exists() and not VoyageBatch.objects.exists()
    assert not IdempotencyRecord.objects.exists()
    assert not QuotaCounter.objects.filter(used__gt=0).exists()


@pytest.mark.parametrize(
    "body, field",
    [
        (b'{"imo": "9074729", "vessel_name": "\\ud800"}', "vessel_name"),
        (b'{"imo": "9074729", "customer_reference": "a\\u0000b"}', "customer_reference"),
        (b'{"imo": "9074729", "vessel_name": "ok", "\\udfff": 1}', "\ufffd"),
    ],
)
def test_unstorable_text_in_a_creating_post_is_422_naming_the_field_and_the_key_stays_free(
    client, issue_key, body, field
):
    raw = issue_key("live")
    response = _post(client, raw, "/api/v1/screenings", body, "same-key")
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/json"
    violations = response.json()["field_violations"]
    assert [v["field"] for v in violations] == [field]
    _nothing_stored()
    retried = _post(client, raw, "/api/v1/screenings", b'{"imo": "IMO 9074729 x"}', "same-key")
    assert retried.status_code != 409  # the key was never claimed


def test_nul_inside_a_batch_route_is_422_naming_its_place_and_no_batch_is_written(client, issue_key):
    body = (
        b'{"routes": [{"route": {"origin": "NLRTM", "destination": "SGSIN"}}, {"route": {"origin": "NL\\u0000RTM"}}]}'
    )
    response = _post(client, issue_key("live"), "/api/v1/voyage-assessment-batches", body, "batch-nul")
    assert response.status_code == 422, response.content
    assert response.json()["field_violations"][0]["field"] == "routes[1].route.origin"
    _nothing_stored()


@pytest.mark.parametrize("depth", [33, 200, 5000])
def test_json_nested_too_deep_is_400_invalid_json(client, issue_key, depth):
    body = b"[" * depth + b"]" * depth
    response = _post(client, issue_key("live"), "/api/v1/screenings", body, f"deep-{depth}")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_json" and "32" in response.json()["message"]
    _nothing_stored()


def test_nesting_within_the_limit_is_read_normally(client, issue_key):
    nested = b'{"imo": "9074729", "customer_reference": ' + b"[" * 30 + b"]" * 30 + b"}"
    response = _post(client, issue_key("live"), "/api/v1/screenings", nested, "shallow")
    assert response.status_code == 422  # a list is not a string: the field's own rule answers
    assert response.json()["field_violations"][0]["field"] == "customer_reference"


@pytest.mark.parametrize(
    "path, status, field",
    [
        ("/api/v1/screenings/%00", 404, None),
        ("/api/v1/screenings/scr_%00x", 404, None),
        ("/api/v1/webhook-deliveries/%00", 404, None),
        ("/api/v1/screenings?imo=%00", 422, "imo"),
        ("/api/v1/webhook-deliveries?status=%00", 422, "status"),
        ("/api/v1/access-log?cursor=a%00", 422, "cursor"),
    ],
)
def test_a_nul_in_a_path_id_or_a_filter_is_a_clean_4xx(client, issue_key, path, status, field):
    response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {issue_key('live')}")
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    if field:
        assert response.json()["field_violations"][0]["field"] == field
    assert response["X-RateLimit-Limit"]  # authenticated first, as every keyed answer


@pytest.mark.parametrize(
    "path", ["/api/v1/screenings?cursor=" + "a" * 5000, "/api/v1/ports?query=" + "x" * 5000, "/api/v1/" + "p" * 2000]
)
def test_urls_longer_than_the_service_reads_are_414_in_the_envelope(client, issue_key, path):
    response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {issue_key('live')}")
    assert response.status_code == 414, response.content
    assert response.json()["code"] == "uri_too_long"
