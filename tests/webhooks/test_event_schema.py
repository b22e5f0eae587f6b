"""Issue 13 item 4: the OpenAPI document's `webhooks` section publishes every event type with its envelope
and `data`, and real events, as the code emits them, validate against it (JSON Schema 2020-12)."""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.utils import timezone
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from accounts.models import Account
from accounts.services import issue_key
from config import openapi_webhooks as events_schema
from core.api.responses import to_json_bytes
from jobs import flow
from metering.models import QuotaCounter
from screening import demo, services
from screening.models import FollowUp
from tests.screening.conftest import screen  # noqa: F401 (fixture)
from voyages import batches
from webhooks.delivery import TEST_EVENT_TYPE, envelope, queue_test_delivery
from webhooks.events import EVENT_TYPES
from webhooks.models import Event, WebhookEndpoint

pytestmark = pytest.mark.django_db

DOCUMENT_URI = "urn:service:openapi"
RESOLVED_FIELDS = {
    "screening_id",
    "supersedes_screening_id",
    "imo",
    "customer_reference",
    "vessel_name",
    "identity_basis",
    "sanctions_status",
    "vetting_grade",
    "ownership_opacity",
    "screened_at",
    "unit_charged",
}


@pytest.fixture(scope="module")
def document(django_db_blocker) -> dict:
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _body_pointer(event_type: str) -> str:
    return f"{DOCUMENT_URI}#/webhooks/{event_type}/post/requestBody/content/application~1json/schema"


def _errors(document: dict, event_type: str, body: dict) -> list[str]:
    registry = Registry().with_resource(
        DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT202012)
    )
    validator = Draft202012Validator(
        {"$ref": _body_pointer(event_type)}, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(body)'}: {error.message}"
        for error in validator.iter_errors(body)
    ]


def _schema(document: dict, ref: dict) -> dict:
    return document["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]


def _as_sent(event: Event) -> dict:
    """The envelope exactly as a delivery serializes it."""
    return json.loads(to_json_bytes(envelope(event)))


def test_every_event_type_and_the_test_event_is_a_published_webhook(document):
    assert set(document["webhooks"]) == {*EVENT_TYPES, TEST_EVENT_TYPE}


def test_every_type_documents_its_data_unless_its_emitter_is_explicitly_pending():
    undocumented = {*EVENT_TYPES, TEST_EVENT_TYPE} - set(events_schema.documented())
    assert undocumented <= events_schema.PENDING_PAYLOADS, (
        f"document the data of {undocumented - events_schema.PENDING_PAYLOADS}"
    )
    assert not events_schema.PENDING_PAYLOADS & set(events_schema.documented()), "documented types are not pending"


def test_each_webhook_posts_its_own_envelope_and_documents_signature_headers_and_2xx(document):
    for event_type, operations in document["webhooks"].items():
        post = operations["post"]
        envelope_schema = _schema(document, post["requestBody"]["content"]["application/json"]["schema"])
        assert set(envelope_schema["required"]) == {"id", "type", "created", "environment", "api_version", "data"}
        assert envelope_schema["properties"]["type"]["const"] == event_type
        assert "X-Service-Signature" in post["description"] and "X-Service-Event-Id" in post["description"]
        assert "2XX" in post["responses"] and "410" in post["responses"]


def test_screening_resolved_publishes_exactly_its_contract_fields(document):
    envelope_schema = _schema(
        document,
        document["webhooks"]["screening.resolved"]["post"]["requestBody"]["content"]["application/json"]["schema"],
    )
    data = _schema(document, envelope_schema["properties"]["data"])
    assert set(data["properties"]) == RESOLVED_FIELDS
    assert set(data["required"]) == RESOLVED_FIELDS
    assert data["additionalProperties"] is False


def test_a_real_screening_resolved_event_validates_and_an_extra_field_does_not(document, demo_world, issue_key, screen):  # noqa: F811
    raw = issue_key("test", email="resolved@example.com")
    original = screen(raw, demo.INCOMPLETE_IDENTITY).json()
    screen(raw, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO NEW NAME", customer_reference="po-7")
    event = Event.objects.get(type="screening.resolved")
    body = _as_sent(event)
    assert body["data"]["supersedes_screening_id"] == original["id"]
    assert set(body["data"]) == RESOLVED_FIELDS
    assert _errors(document, "screening.resolved", body) == []
    body["data"]["surprise"] = 1
    assert _errors(document, "screening.resolved", body)


def test_real_screening_unresolved_and_quota_warning_events_validate(document, demo_world, issue_key, screen):  # noqa: F811
    raw = issue_key("test", email="unresolved@example.com")
    screen(raw, demo.INCOMPLETE_IDENTITY)
    follow_up = FollowUp.objects.get()
    outcomes = [services.attempt_follow_up(FollowUp.objects.get(pk=follow_up.pk)) for _ in range(6)]
    assert outcomes[-1] == "unresolved"
    live = issue_key("live", email="warn@example.com", opened_on=date(2026, 11, 1))
    account = Account.objects.get(email="warn@example.com")
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=1599)
    screen(live, demo.GREEN_CLEAN)
    for event_type in ("screening.unresolved", "usage.quota_warning"):
        body = _as_sent(Event.objects.get(type=event_type))
        assert _errors(document, event_type, body) == [], event_type


def test_a_real_voyage_batch_completed_event_validates(document):
    account, _, _ = issue_key(email="batch@example.com", environment="test")
    rejected_only = batches._item_specs([{"route": {"origin": "ZZZZZ", "destination": "SGSIN"}}])
    flow.create(batches.KIND, account, "test", rejected_only)  # nothing accepted: it completes at once
    body = _as_sent(Event.objects.get(type="voyage_batch.completed"))
    assert _errors(document, "voyage_batch.completed", body) == []


def test_a_real_export_completed_event_validates(document, settings, tmp_path):
    from exports.models import ExportItem
    from exports.production import KIND as EXPORT_KIND

    settings.EXPORT_DIR = tmp_path
    account, _, _ = issue_key(email="export@example.com", environment="live")
    created = flow.create(
        EXPORT_KIND, account, "live", [flow.ItemSpec(request={})],
        job_fields={"resource": "access_log", "format": "csv", "filters": {}, "scope": "logs:read"},
    )  # fmt: skip
    flow.run_item(EXPORT_KIND, ExportItem.objects.get(export_id=created.job.pk).pk)
    body = _as_sent(Event.objects.get(type="export.completed"))
    assert _errors(document, "export.completed", body) == []


def test_a_real_test_event_validates(document):
    account, _, _ = issue_key(email="ping@example.com", environment="live")
    endpoint = WebhookEndpoint.objects.create(
        account=account, environment="live", url="https://receiver.invalid/hooks", secret="whsec_x"
    )
    delivery = queue_test_delivery(endpoint)
    assert _errors(document, TEST_EVENT_TYPE, _as_sent(delivery.event)) == []


def _reading(status: str = "GREEN", screening_id: str = "scr_1", **fields) -> dict:  # type: ignore[no-untyped-def]
    return {
        "screening_id": screening_id,
        "screened_at": "2026-11-23T08:00:00Z",
        "sanctions": {"status": status, "coverage_complete": status != "INCOMPLETE", "coverage_gaps": []},
        "ownership_opacity": "LOW",
        "vetting_grade": "A",
        **fields,
    }


def test_the_vessel_monitor_events_the_detector_emits_validate(document):
    from monitoring.models import VesselMonitor
    from monitoring.vessels import detect

    fresh = VesselMonitor(id="vmo_1", imo="9300776", customer_reference="", baseline_verdict=None)
    watching = VesselMonitor(id="vmo_2", imo="9300776", customer_reference="fleet-7", baseline_verdict=_reading())
    moved = _reading("RED", "scr_2", vetting_grade="E")
    detections = [
        detect(fresh, _reading(), None),
        detect(watching, moved, _reading("RED", "scr_3", vetting_grade="E")),
        detect(watching, _reading("INCOMPLETE", "scr_4", ownership_opacity=None, vetting_grade=None), None),
        detect(fresh, _reading("INCOMPLETE", "scr_5"), None),
    ]
    emitted = [event for detection in detections for event in detection.events]
    assert [kind for kind, _ in emitted] == [
        "vessel_monitor.ready",
        "vessel_risk.changed",
        "vessel_data.degraded",
        "vessel_data.degraded",
    ]
    for kind, data in emitted:
        event = Event(id="evt_1", type=kind, environment="live", data=data, created_at=timezone.now())
        assert _errors(document, kind, _as_sent(event)) == [], kind
