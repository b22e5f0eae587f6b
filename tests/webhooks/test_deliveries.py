"""Signed deliveries (contract 4.7, 5.9, 6): the outbox, signing and rotation, the envelope, attempts,
retries, dead, 410, the address check at connect time, the delivery log, redelivery, the test delivery.

Attempts are made in this process (`delivery.send`, the worker's body) against a real local HTTPS
receiver whose self-signed certificate is the only one trusted; through a real Celery worker in
test_delivery_worker.py.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from metering.auth import authenticate_header_value
from tests.support.tls import start_https_receiver
from webhooks import delivery
from webhooks.events import emit
from webhooks.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db
_keys = itertools.count()
QUOTA_WARNING = {"used": 1600, "limit": 2000}
SIGNATURE = re.compile(r"^t=(\d+)((?:,v1=[0-9a-f]{64})+)$")


@pytest.fixture
def receiver(tmp_path, settings, monkeypatch):
    found = start_https_receiver(tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(found.certificate))
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    yield found
    found.close()


def _headers(raw: str, idempotent: bool = False) -> dict[str, str]:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    if idempotent:
        headers["HTTP_IDEMPOTENCY_KEY"] = f"dlv-{next(_keys)}"
    return headers


def _post(client, raw: str, path: str, body: dict | None = None):  # type: ignore[no-untyped-def]
    return client.post(path, data=body or {}, content_type="application/json", **_headers(raw, idempotent=True))


def _endpoint(client, raw: str, url: str, **body) -> dict:  # type: ignore[no-untyped-def]
    created = _post(client, raw, "/api/v1/webhook-endpoints", {"url": url, **body})
    assert created.status_code == 201, created.content
    return created.json()


def _owner(raw: str):  # type: ignore[no-untyped-def]
    return authenticate_header_value(f"Bearer {raw}")


def _emit_committed(owner, event_type: str = "usage.quota_warning", data: dict | None = None) -> Event:  # type: ignore[no-untyped-def]
    with transaction.atomic():
        return emit(owner.account_id, owner.environment, event_type, data or QUOTA_WARNING)


def _verifies(secret: str, header: str, body: bytes) -> bool:
    match = SIGNATURE.match(header)
    assert match, header
    timestamp, signatures = match.group(1), match.group(2).split(",v1=")[1:]
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)


# -- the outbox --------------------------------------------------------------------------------


def test_an_event_rolled_back_leaves_no_delivery_and_a_committed_one_queues_one_per_receiving_endpoint(
    client, issue_key, receiver, django_capture_on_commit_callbacks
):
    raw = issue_key("live")
    every = _endpoint(client, raw, f"{receiver.url}/every")
    _endpoint(client, raw, f"{receiver.url}/other-types", event_types=["screening.resolved"])
    disabled = _endpoint(client, raw, f"{receiver.url}/off")
    client.patch(
        f"/api/v1/webhook-endpoints/{disabled['id']}", data={"enabled": False}, content_type="application/json",
        **_headers(raw, idempotent=True),
    )  # fmt: skip
    owner = _owner(raw)
    with pytest.raises(RuntimeError), transaction.atomic():
        emit(owner.account_id, owner.environment, "usage.quota_warning", QUOTA_WARNING)
        raise RuntimeError("the screening failed after the event was written")
    assert not Event.objects.exists() and not Delivery.objects.exists()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        event = _emit_committed(owner)
    queued = list(Delivery.objects.all())
    assert [(d.endpoint_id, d.event_id, d.status) for d in queued] == [(every["id"], event.id, "pending")]
    assert len(callbacks) == 1  # the task is sent after commit, never before


def test_a_test_key_endpoint_never_receives_live_events_and_the_reverse(client, issue_key, receiver):
    from accounts.models import ApiKey

    live = issue_key("live", email="both@example.com")
    test = issue_key("test", email="both@example.com")
    assert ApiKey.objects.values("account").distinct().count() == 1
    live_endpoint = _endpoint(client, live, f"{receiver.url}/live")
    test_endpoint = _endpoint(client, test, f"{receiver.url}/test")
    _emit_committed(_owner(live))
    _emit_committed(_owner(test))
    routed = {(d.endpoint_id, d.environment) for d in Delivery.objects.all()}
    assert routed == {(live_endpoint["id"], "live"), (test_endpoint["id"], "test")}


def test_an_endpoint_that_lists_types_gets_screening_resolved_only_once_it_adds_it(client, issue_key, receiver):
    raw = issue_key("live")
    listed = _endpoint(client, raw, f"{receiver.url}/listed", event_types=["usage.quota_warning"])
    owner = _owner(raw)
    _emit_committed(owner, "screening.resolved", {"screening_id": "scr_x"})
    assert not Delivery.objects.exists()
    client.patch(
        f"/api/v1/webhook-endpoints/{listed['id']}",
        data={"event_types": ["usage.quota_warning", "screening.resolved"]},
        content_type="application/json",
        **_headers(raw, idempotent=True),
    )
    _emit_committed(owner, "screening.resolved", {"screening_id": "scr_y"})
    assert list(Delivery.objects.values_list("event_type", flat=True)) == ["screening.resolved"]


# -- signing and the envelope ------------------------------------------------------------------


def test_a_delivery_is_signed_as_the_contract_says_and_carries_the_envelope_and_the_event_id(
    client, issue_key, receiver, settings
):
    raw = issue_key("live")
    created = _endpoint(client, raw, f"{receiver.url}/hook")
    event = _emit_committed(_owner(raw))
    (queued,) = Delivery.objects.all()
    assert delivery.send(queued.pk) == delivery.SENT_DELIVERED
    (request,) = receiver.received
    assert request.path == "/hook"
    assert _verifies(created["secret"], request.headers["X-Service-Signature"], request.body)
    assert not _verifies("whsec_wrong", request.headers["X-Service-Signature"], request.body)
    assert not _verifies(created["secret"], request.headers["X-Service-Signature"], request.body + b" ")
    timestamp = int(SIGNATURE.match(request.headers["X-Service-Signature"]).group(1))
    assert abs(timestamp - timezone.now().timestamp()) < 30
    body = request.json()
    assert set(body) == {"id", "type", "created", "environment", "api_version", "data"}
    assert body["id"] == event.id == request.headers["X-Service-Event-Id"]
    assert body["type"] == "usage.quota_warning" == request.headers["X-Service-Event-Type"]
    assert body["environment"] == "live" and body["api_version"] == settings.SERVICE_API_VERSION
    assert body["data"] == QUOTA_WARNING
    assert (
        request.headers["X-Service-Delivery-Id"] == queued.pk and request.headers["Content-Type"] == "application/json"
    )
    queued.refresh_from_db()
    assert queued.status == "delivered" and queued.delivered_at is not None and queued.last_status_code == 200
    (attempt,) = queued.attempts.all()
    assert attempt.outcome == "succeeded" and attempt.status_code == 200 and attempt.duration_ms is not None
    assert '"received": true' in attempt.response_excerpt


def test_during_a_rotation_both_secrets_sign_and_after_the_overlap_only_the_new_one(client, issue_key, receiver):
    raw = issue_key("live")
    old = _endpoint(client, raw, f"{receiver.url}/hook")
    rotated = _post(client, raw, f"/api/v1/webhook-endpoints/{old['id']}/rotate-secret", {"overlap_hours": 2})
    assert rotated.status_code == 200, rotated.content
    new = rotated.json()
    assert new["secret"] != old["secret"] and new["previous_secret_expires_at"] is not None
    detail = client.get(f"/api/v1/webhook-endpoints/{old['id']}", **_headers(raw)).json()
    assert "secret" not in detail and detail["previous_secret_expires_at"] == new["previous_secret_expires_at"]

    _emit_committed(_owner(raw))
    delivery.send(Delivery.objects.get().pk)
    header = receiver.received[0].headers["X-Service-Signature"]
    first, second = header.split(",v1=")[1:]
    body = receiver.received[0].body
    assert _verifies(new["secret"], f"{header.split(',')[0]},v1={first}", body)  # the new secret first
    assert _verifies(old["secret"], f"{header.split(',')[0]},v1={second}", body)

    WebhookEndpoint.objects.filter(pk=old["id"]).update(
        previous_secret_expires_at=timezone.now() - timedelta(seconds=1)
    )
    _emit_committed(_owner(raw))
    delivery.send(Delivery.objects.filter(status="pending").get().pk)
    header = receiver.received[1].headers["X-Service-Signature"]
    assert header.count("v1=") == 1 and _verifies(new["secret"], header, receiver.received[1].body)
    assert not _verifies(old["secret"], header, receiver.received[1].body)


def test_a_rotation_without_overlap_stops_the_old_secret_at_once(client, issue_key):
    raw = issue_key("live")
    old = _endpoint(client, raw, "https://receiver.invalid/hook")
    new = _post(client, raw, f"/api/v1/webhook-endpoints/{old['id']}/rotate-secret", {"overlap_hours": 0}).json()
    assert new["previous_secret_expires_at"] is None
    endpoint = WebhookEndpoint.objects.get(pk=old["id"])
    assert delivery.signing_secrets(endpoint, timezone.now()) == [new["secret"]]
    too_long = _post(client, raw, f"/api/v1/webhook-endpoints/{old['id']}/rotate-secret", {"overlap_hours": 169})
    assert too_long.status_code == 422 and too_long.json()["field_violations"][0]["field"] == "overlap_hours"


# -- attempts, retries, dead -------------------------------------------------------------------


def test_a_failed_attempt_is_recorded_and_retried_on_the_schedule_until_the_delivery_is_dead(
    client, issue_key, receiver, settings
):
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")
    receiver.default_status = 503
    _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    before = timezone.now()
    assert delivery.send(queued.pk) == delivery.SENT_FAILED
    queued.refresh_from_db()
    assert queued.status == "pending" and queued.last_status_code == 503
    wait = (queued.next_attempt_at - before).total_seconds()
    assert 54 <= wait <= 67  # the first retry after 60 s, plus or minus 10 % jitter
    assert delivery.send(queued.pk) == delivery.SENT_SKIPPED  # not due yet: nothing is sent
    assert len(receiver.received) == 1

    settings.WEBHOOK_RETRY_DELAYS_SECONDS = (0, 0)  # three attempts, due at once
    Delivery.objects.filter(pk=queued.pk).update(next_attempt_at=timezone.now())
    assert delivery.send(queued.pk) == delivery.SENT_FAILED
    assert delivery.send(queued.pk) == delivery.SENT_DEAD
    queued.refresh_from_db()
    assert queued.status == "dead" and queued.attempt_count == 3 and queued.next_attempt_at is None
    attempts = list(queued.attempts.all())
    assert [(a.number, a.outcome, a.status_code) for a in attempts] == [(n, "failed", 503) for n in (1, 2, 3)]
    assert all(a.error == "the endpoint answered 503" and a.response_excerpt for a in attempts)
    assert delivery.send(queued.pk) == delivery.SENT_SKIPPED and len(receiver.received) == 3


def test_the_retry_delays_grow_and_a_day_of_retries_is_spent_before_dead(settings):
    delays = delivery.retry_delays()
    assert list(delays) == sorted(delays) and delivery.max_attempts() == len(delays) + 1 == 8
    assert 24 * 3600 <= sum(delays) <= 30 * 3600
    assert delivery.next_delay(len(delays) + 1) is None


def test_a_410_disables_the_endpoint_ends_the_delivery_and_later_events_are_not_queued(client, issue_key, receiver):
    raw = issue_key("live")
    created = _endpoint(client, raw, f"{receiver.url}/gone")
    receiver.answers = [410]
    _emit_committed(_owner(raw))
    assert delivery.send(Delivery.objects.get().pk) == delivery.SENT_DEAD
    endpoint = client.get(f"/api/v1/webhook-endpoints/{created['id']}", **_headers(raw)).json()
    assert endpoint["enabled"] is False and "410" in endpoint["disabled_reason"]
    _emit_committed(_owner(raw))
    assert Delivery.objects.count() == 1


def test_a_pending_delivery_of_an_endpoint_disabled_since_is_not_sent(client, issue_key, receiver):
    raw = issue_key("live")
    created = _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    WebhookEndpoint.objects.filter(pk=created["id"]).update(enabled=False)
    assert delivery.send(Delivery.objects.get().pk) == delivery.SENT_DEAD
    assert receiver.received == []
    assert Delivery.objects.get().attempts.get().error == "not sent: the endpoint is disabled"


def test_a_receiver_slower_than_the_timeout_is_a_failed_attempt_with_its_duration(
    client, issue_key, receiver, settings
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/slow")
    receiver.answers = [(200, 3)]
    _emit_committed(_owner(raw))
    assert delivery.send(Delivery.objects.get().pk) == delivery.SENT_FAILED
    attempt = DeliveryAttempt.objects.get()
    assert attempt.outcome == "failed" and attempt.status_code is None and attempt.error
    assert 900 <= attempt.duration_ms < 2900


def test_the_address_is_checked_again_at_connect_time(client, issue_key, receiver, settings):
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")  # saved while loopback was allowed (tests only)
    settings.OUTBOUND_ALLOW_LOOPBACK = False  # what production does
    _emit_committed(_owner(raw))
    assert delivery.send(Delivery.objects.get().pk) == delivery.SENT_FAILED
    assert receiver.received == []
    assert "loopback" in DeliveryAttempt.objects.get().error


def test_a_duplicate_task_message_sends_nothing_twice(client, issue_key, receiver):
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    assert delivery.send(queued.pk) == delivery.SENT_DELIVERED
    assert delivery.send(queued.pk) == delivery.SENT_SKIPPED
    assert delivery.send("whd_does_not_exist") == delivery.SENT_SKIPPED
    assert len(receiver.received) == 1


def test_an_attempt_whose_worker_was_lost_is_recorded_lost_retried_and_its_late_outcome_dropped(
    client, issue_key, receiver, settings
):
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    lost = delivery.claim(queued.pk)  # a worker claims it, then dies
    assert lost is not None and Delivery.objects.get().status == "sending"
    assert delivery.sweep().lost == 0  # its lease still runs
    later = timezone.now() + timedelta(seconds=delivery._lease_seconds() + 1)
    assert delivery.sweep(later).lost == 1
    queued.refresh_from_db()
    assert queued.status == "pending" and queued.next_attempt_at > later
    assert list(queued.attempts.values_list("outcome", flat=True)) == ["lost"]
    # The lost worker wakes up: its outcome is not written over the sweep's.
    assert delivery._record(lost, 200, "", "", 5, final=False) == delivery.SENT_SUPERSEDED
    Delivery.objects.filter(pk=queued.pk).update(next_attempt_at=timezone.now())
    assert delivery.send(queued.pk) == delivery.SENT_DELIVERED
    assert list(queued.attempts.values_list("outcome", flat=True)) == ["lost", "succeeded"]


def test_the_sweep_sends_again_a_due_delivery_whose_task_never_ran(client, issue_key, receiver, settings):
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    assert delivery.sweep().redispatched == 0  # its task was sent at commit; it is not stale yet
    later = timezone.now() + timedelta(seconds=settings.WEBHOOK_REDISPATCH_AFTER_SECONDS + 1)
    report = delivery.sweep(later)
    assert report.redispatched == 1
    assert Delivery.objects.get(pk=queued.pk).dispatched_at >= later - timedelta(seconds=1)


# -- the delivery log, redelivery, the test delivery -------------------------------------------


def test_the_delivery_log_lists_filters_and_shows_each_delivery_with_its_attempts(client, issue_key, receiver):
    raw = issue_key("live")
    first = _endpoint(client, raw, f"{receiver.url}/a")
    second = _endpoint(client, raw, f"{receiver.url}/b", event_types=["screening.resolved"])
    owner = _owner(raw)
    _emit_committed(owner)
    _emit_committed(owner, "screening.resolved", {"screening_id": "scr_1"})
    sent = Delivery.objects.get(endpoint_id=first["id"], event_type="usage.quota_warning")
    delivery.send(sent.pk)

    def listed(query: str = "") -> list[str]:
        response = client.get(f"/api/v1/webhook-deliveries{query}", **_headers(raw))
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["webhook_deliveries"]]

    assert len(listed()) == 3
    assert listed(f"?endpoint_id={second['id']}") == list(
        Delivery.objects.filter(endpoint_id=second["id"]).values_list("id", flat=True)
    )
    assert listed("?status=delivered") == [sent.pk]
    assert len(listed("?event_type=screening.resolved")) == 2
    assert len(listed("?created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z")) == 3
    assert listed("?created_after=2100-01-01T00:00:00Z") == []
    page = client.get("/api/v1/webhook-deliveries?limit=2", **_headers(raw)).json()
    rest = client.get(f"/api/v1/webhook-deliveries?limit=2&cursor={page['next_cursor']}", **_headers(raw)).json()
    assert len(page["webhook_deliveries"]) == 2 and len(rest["webhook_deliveries"]) == 1

    detail = client.get(f"/api/v1/webhook-deliveries/{sent.pk}", **_headers(raw)).json()
    assert detail["status"] == "delivered" and detail["event"]["id"] == sent.event_id
    assert detail["event"]["data"] == QUOTA_WARNING
    assert [(a["number"], a["outcome"], a["status_code"]) for a in detail["attempts"]] == [(1, "succeeded", 200)]


@pytest.mark.parametrize(
    "query, field",
    [
        ("?status=lost", "status"),
        ("?event_type=ship.sank", "event_type"),
        ("?created_after=yesterday", "created_after"),
    ],
)
def test_bad_delivery_log_filters_are_422_naming_the_parameter(client, issue_key, query, field):
    response = client.get(f"/api/v1/webhook-deliveries{query}", **_headers(issue_key("live")))
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == field


def test_another_account_or_environment_never_sees_a_delivery(client, issue_key, receiver):
    raw = issue_key("live", email="owner@example.com")
    _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    theirs = Delivery.objects.get().pk
    for other in (issue_key("test", email="owner@example.com"), issue_key("live", email="stranger@example.com")):
        assert client.get("/api/v1/webhook-deliveries", **_headers(other)).json()["webhook_deliveries"] == []
        assert client.get(f"/api/v1/webhook-deliveries/{theirs}", **_headers(other)).status_code == 404
        assert _post(client, other, f"/api/v1/webhook-deliveries/{theirs}/redeliver").status_code == 404


def test_redelivery_sends_the_same_event_id_again_and_restarts_the_schedule(client, issue_key, receiver, settings):
    settings.WEBHOOK_RETRY_DELAYS_SECONDS = (0,)
    raw = issue_key("live")
    _endpoint(client, raw, f"{receiver.url}/hook")
    receiver.answers = [500, 500]
    event = _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    delivery.send(queued.pk)
    assert delivery.send(queued.pk) == delivery.SENT_DEAD

    response = _post(client, raw, f"/api/v1/webhook-deliveries/{queued.pk}/redeliver")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending" and response.json()["event_id"] == event.id
    assert delivery.send(queued.pk) == delivery.SENT_DELIVERED
    assert [r.headers["X-Service-Event-Id"] for r in receiver.received] == [event.id] * 3
    attempts = list(Delivery.objects.get().attempts.values_list("number", "trigger", "outcome"))
    assert attempts == [(1, "automatic", "failed"), (2, "automatic", "failed"), (3, "redelivery", "succeeded")]


def test_redelivery_is_refused_while_an_attempt_is_in_flight_or_the_endpoint_is_disabled(client, issue_key, receiver):
    raw = issue_key("live")
    created = _endpoint(client, raw, f"{receiver.url}/hook")
    _emit_committed(_owner(raw))
    queued = Delivery.objects.get()
    delivery.claim(queued.pk)
    in_flight = _post(client, raw, f"/api/v1/webhook-deliveries/{queued.pk}/redeliver")
    assert in_flight.status_code == 409 and in_flight.json()["code"] == "delivery_in_progress"
    Delivery.objects.filter(pk=queued.pk).update(status="dead")
    WebhookEndpoint.objects.filter(pk=created["id"]).update(enabled=False)
    disabled = _post(client, raw, f"/api/v1/webhook-deliveries/{queued.pk}/redeliver")
    assert disabled.status_code == 409 and disabled.json()["code"] == "endpoint_disabled"
    assert Delivery.objects.get().status == "dead"


def test_the_test_delivery_is_signed_and_reaches_an_endpoint_whatever_types_it_lists(client, issue_key, receiver):
    raw = issue_key("test")
    created = _endpoint(client, raw, f"{receiver.url}/hook", event_types=["screening.resolved"])
    response = _post(client, raw, f"/api/v1/webhook-endpoints/{created['id']}/test")
    assert response.status_code == 202, response.content
    queued = response.json()
    assert queued["event_type"] == "webhook.test" and queued["status"] == "pending"
    assert delivery.send(queued["id"]) == delivery.SENT_DELIVERED
    (request,) = receiver.received
    assert _verifies(created["secret"], request.headers["X-Service-Signature"], request.body)
    assert request.json()["type"] == "webhook.test" and request.json()["environment"] == "test"
    assert request.json()["data"]["webhook_endpoint_id"] == created["id"]
    missing = _post(client, raw, "/api/v1/webhook-endpoints/whe_missing/test")
    assert missing.status_code == 404


def test_the_delivery_operations_need_the_webhooks_scope(client, issue_key):
    raw = issue_key("live", scopes=["usage:read"])
    response = client.get("/api/v1/webhook-deliveries", **_headers(raw))
    assert response.status_code == 403 and "webhooks:manage" in response.json()["message"]


def test_enabling_an_endpoint_again_clears_the_reason_it_was_disabled(client, issue_key, receiver):
    raw = issue_key("live")
    created = _endpoint(client, raw, f"{receiver.url}/gone")
    receiver.answers = [410]
    _emit_committed(_owner(raw))
    delivery.send(Delivery.objects.get().pk)
    again = client.patch(
        f"/api/v1/webhook-endpoints/{created['id']}", data={"enabled": True}, content_type="application/json",
        **_headers(raw, idempotent=True),
    ).json()  # fmt: skip
    assert again["enabled"] is True and again["disabled_reason"] is None
