"""Signed deliveries of the event log to webhook endpoints: outbox, attempts, retries, sweep.

Outbox   emit() writes the event and one pending delivery per endpoint of its environment that
         receives its type, in the transaction that causes the event: an event rolled back is
         never sent, an event committed is never lost. After commit a task is sent per delivery.
Attempt  A worker claims a due pending delivery (pending -> sending under a lease, attempt n
         recorded as in progress), POSTs the signed envelope through the guarded outbound client
         (the address is checked again at connect time; no redirect followed), then records the
         outcome: 2xx delivered; 410 disables the endpoint and the delivery is dead; anything
         else waits for the next slot of the retry schedule, or is dead once the schedule ran out.
         Duplicate task messages do nothing: only a due pending delivery can be claimed.
Sweep    (beat) A sending delivery whose lease ran out lost its worker: its attempt is recorded
         as lost and the delivery is retried on the schedule (at-least-once: the receiver may
         have got it; it deduplicates by event id). A due pending delivery whose task was not
         sent, or was sent a while ago and never ran, is sent again.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core import outbound
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from core.leases import Lease, LeaseLost, SweepReport
from core.task_sending import send_each, task_named
from webhooks.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint

logger = logging.getLogger("service.webhooks")

SIGNATURE_HEADER = "X-Service-Signature"
EVENT_ID_HEADER = "X-Service-Event-Id"
EVENT_TYPE_HEADER = "X-Service-Event-Type"
DELIVERY_ID_HEADER = "X-Service-Delivery-Id"
ATTEMPT_HEADER = "X-Service-Delivery-Attempt"
TEST_EVENT_TYPE = "webhook.test"  # the signed test delivery; sent to the endpoint asked, whatever it lists

# What one worker message did.
SENT_DELIVERED = "delivered"
SENT_FAILED = "failed"  # will be retried
SENT_DEAD = "dead"
SENT_SKIPPED = "skipped"  # not due, not pending (a duplicate message), or gone
SENT_SUPERSEDED = "superseded"  # the sweep took the attempt over while it ran; outcome not written


def retry_delays() -> tuple[int, ...]:
    """Seconds to wait before each retry; attempts per delivery = len(retry_delays()) + 1."""
    return tuple(int(s) for s in settings.WEBHOOK_RETRY_DELAYS_SECONDS)


def max_attempts() -> int:
    return len(retry_delays()) + 1


def human_duration(seconds: int) -> str:
    """A retry delay as the documentation states it: 1 min, 5 min, 2 h."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def next_delay(round_attempts: int, *, rng: random.Random | None = None) -> float | None:
    """The wait after the `round_attempts`-th failed attempt (plus or minus 10 % jitter), None when none is left."""
    delays = retry_delays()
    if round_attempts > len(delays):
        return None
    base = delays[round_attempts - 1]
    return base * (rng or random).uniform(0.9, 1.1)


# -- the envelope and its signature -----------------------------------------------------------


def envelope(event: Event) -> dict:
    return {
        "id": event.id,
        "type": event.type,
        "created": rfc3339(event.created_at),
        "environment": event.environment,
        "api_version": settings.SERVICE_API_VERSION,
        "data": event.data,
    }


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """hex HMAC-SHA256(secret, "<timestamp>." + raw body), as contract 5.9 says."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def signing_secrets(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    """The current secret, and the previous one while a rotation's overlap lasts."""
    found = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now:
        found.append(endpoint.previous_secret)
    return found


def signature_header(secrets: Sequence[str], timestamp: int, body: bytes) -> str:
    return ",".join([f"t={timestamp}", *(f"v1={signature(secret, timestamp, body)}" for secret in secrets)])


# -- outbox ------------------------------------------------------------------------------------


def fan_out(event: Event) -> list[str]:
    """Write a pending delivery of `event` for every endpoint of its environment that receives it.

    Call inside the transaction that writes the event; the tasks are sent after commit.
    """
    endpoints = WebhookEndpoint.objects.filter(
        account_id=event.account_id, environment=event.environment, enabled=True
    ).only("id", "event_types", "enabled")
    receiving = [endpoint for endpoint in endpoints if endpoint.receives(event.type)]
    return _queue(event, receiving)


def _queue(event: Event, endpoints: Iterable[WebhookEndpoint]) -> list[str]:
    now = timezone.now()
    deliveries = Delivery.objects.bulk_create(
        [
            Delivery(
                account_id=event.account_id,
                environment=event.environment,
                event=event,
                endpoint=endpoint,
                event_type=event.type,
                next_attempt_at=now,
                dispatched_at=now,  # the task below; the sweep re-sends it if it never runs
            )
            for endpoint in endpoints
        ]
    )
    ids = [delivery.pk for delivery in deliveries]
    if ids:
        transaction.on_commit(lambda: dispatch(ids))
    return ids


def queue_test_delivery(endpoint: WebhookEndpoint) -> Delivery:
    """A signed `webhook.test` event for this one endpoint (inside the caller's transaction)."""
    event = Event.objects.create(
        account_id=endpoint.account_id,
        environment=endpoint.environment,
        type=TEST_EVENT_TYPE,
        data={"webhook_endpoint_id": endpoint.id, "message": "A test delivery asked for through the API."},
    )
    (delivery_id,) = _queue(event, [endpoint])
    return Delivery.objects.select_related("event", "endpoint").get(pk=delivery_id)


def dispatch(delivery_ids: Iterable[str]) -> int:
    """Send one task per delivery (best effort: the sweep re-sends what the broker did not take)."""
    return send_each(
        task_named("webhooks.deliver"), ((delivery_id,) for delivery_id in delivery_ids), "webhook delivery"
    )


# -- one attempt -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claimed:
    delivery: Delivery
    attempt: DeliveryAttempt


def _lease_seconds() -> float:
    return float(settings.WEBHOOK_TIMEOUT_SECONDS) + float(settings.WEBHOOK_LEASE_MARGIN_SECONDS)


# A delivery is held while sending, fenced by its attempt number (core/leases.py).
LEASE = Lease(Delivery, Delivery.Status.SENDING, _lease_seconds, fence="attempt_count")


def claim(delivery_id: str, now: datetime | None = None) -> Claimed | None:
    """pending and due -> sending under a lease, with attempt n recorded in progress; None if not ours."""
    now = now or timezone.now()
    with transaction.atomic():
        due = Q(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        claimed = LEASE.claim(due, now, round_attempts=F("round_attempts") + 1, last_attempt_at=now)
        if not claimed:
            return None
        delivery = Delivery.objects.select_related("event", "endpoint").get(pk=delivery_id)
        trigger = DeliveryAttempt.Trigger.AUTOMATIC
        if delivery.round_attempts == 1 and delivery.attempt_count > 1:
            trigger = DeliveryAttempt.Trigger.REDELIVERY
        attempt = DeliveryAttempt.objects.create(
            delivery=delivery, number=delivery.attempt_count, trigger=trigger, started_at=now
        )
    return Claimed(delivery, attempt)


def _excerpt(body: bytes) -> str:
    return body[: settings.WEBHOOK_RESPONSE_EXCERPT_BYTES].decode("utf-8", errors="replace")


def _post(delivery: Delivery, attempt_number: int, now: datetime) -> tuple[int | None, str, str]:
    """POST the signed envelope once: (status code or None, error, response excerpt)."""
    endpoint = delivery.endpoint
    body = to_json_bytes(envelope(delivery.event))
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: signature_header(signing_secrets(endpoint, now), timestamp, body),
        EVENT_ID_HEADER: delivery.event_id,
        EVENT_TYPE_HEADER: delivery.event_type,
        DELIVERY_ID_HEADER: delivery.id,
        ATTEMPT_HEADER: str(attempt_number),
    }
    try:
        response = outbound.post(
            endpoint.url,
            body=body,
            headers=headers,
            timeout=float(settings.WEBHOOK_TIMEOUT_SECONDS),
            keep_bytes=settings.WEBHOOK_RESPONSE_EXCERPT_BYTES,
            schemes=("https",),
        )
    except outbound.OutboundRefused as exc:
        return None, f"not sent: {exc}"[:500], ""
    except outbound.OutboundFailed as exc:
        return None, str(exc)[:500], ""
    error = "" if response.ok else f"the endpoint answered {response.status_code}"
    return response.status_code, error, _excerpt(response.body)


def send(delivery_id: str, now: datetime | None = None) -> str:
    """The worker's body for one message: claim the delivery if due, POST it, record the outcome."""
    claimed = claim(delivery_id, now)
    if claimed is None:
        return SENT_SKIPPED
    delivery, attempt = claimed.delivery, claimed.attempt
    started = time.monotonic()
    if not delivery.endpoint.enabled and delivery.event_type != TEST_EVENT_TYPE:
        status_code, error, excerpt = None, "not sent: the endpoint is disabled", ""
        final = True
    else:
        status_code, error, excerpt = _post(delivery, attempt.number, now or timezone.now())
        final = status_code == 410
    duration_ms = int((time.monotonic() - started) * 1000)
    return _record(claimed, status_code, error, excerpt, duration_ms, final=final)


def _record(
    claimed: Claimed, status_code: int | None, error: str, excerpt: str, duration_ms: int, *, final: bool
) -> str:
    delivery, attempt = claimed.delivery, claimed.attempt
    now = timezone.now()
    succeeded = status_code is not None and 200 <= status_code < 300
    with transaction.atomic():
        if succeeded:
            fields = {"status": Delivery.Status.DELIVERED, "delivered_at": now, "next_attempt_at": None}
            outcome = SENT_DELIVERED
        else:
            delay = None if final else next_delay(delivery.round_attempts)
            if delay is None:
                fields = {"status": Delivery.Status.DEAD, "next_attempt_at": None}
                outcome = SENT_DEAD
            else:
                fields = {"status": Delivery.Status.PENDING, "next_attempt_at": now + timedelta(seconds=delay)}
                outcome = SENT_FAILED
        try:
            LEASE.settle(delivery.pk, attempt.number, last_status_code=status_code, last_error=error, **fields)
        except LeaseLost:  # the sweep gave this attempt up for lost and the delivery moved on
            logger.warning("delivery %s attempt %s ended after its lease; dropped", delivery.pk, attempt.number)
            return SENT_SUPERSEDED
        DeliveryAttempt.objects.filter(pk=attempt.pk).update(
            outcome=DeliveryAttempt.Outcome.SUCCEEDED if succeeded else DeliveryAttempt.Outcome.FAILED,
            duration_ms=duration_ms,
            status_code=status_code,
            error=error,
            response_excerpt=excerpt,
        )
        if status_code == 410:
            WebhookEndpoint.objects.filter(pk=delivery.endpoint_id).update(
                enabled=False,
                disabled_reason=f"the endpoint answered 410 Gone to delivery {delivery.pk} on {rfc3339(now)}",
                updated_at=now,
            )
    return outcome


# -- sweep -------------------------------------------------------------------------------------


def _give_up_lost(delivery: Delivery, now: datetime) -> bool:
    """Record the running attempt of a delivery whose lease ran out as lost and schedule the retry."""
    delay = next_delay(delivery.round_attempts)
    fields = (
        {"status": Delivery.Status.DEAD, "next_attempt_at": None}
        if delay is None
        else {
            "status": Delivery.Status.PENDING,
            "next_attempt_at": now + timedelta(seconds=delay),
            "dispatched_at": None,
        }
    )
    error = "the worker stopped during the attempt; the receiver may have received it"
    with transaction.atomic():
        try:
            LEASE.settle(delivery.pk, delivery.attempt_count, last_status_code=None, last_error=error, **fields)
        except LeaseLost:  # its attempt ended meanwhile
            return False
        DeliveryAttempt.objects.filter(
            delivery_id=delivery.pk, number=delivery.attempt_count, outcome=DeliveryAttempt.Outcome.IN_PROGRESS
        ).update(outcome=DeliveryAttempt.Outcome.LOST, error=error)
    logger.warning("delivery %s attempt %s lost its worker; retried later", delivery.pk, delivery.attempt_count)
    return True


def sweep(now: datetime | None = None) -> SweepReport:
    now = now or timezone.now()
    report = SweepReport("lost", "redispatched")  # lost: attempts whose worker stopped (lease ran out)
    for delivery in LEASE.lapsed(now).only("id", "attempt_count", "round_attempts"):
        report.add("lost", _give_up_lost(delivery, now))
    resend_before = now - timedelta(seconds=settings.WEBHOOK_REDISPATCH_AFTER_SECONDS)
    due = Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now).filter(
        Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=F("next_attempt_at")) | Q(dispatched_at__lt=resend_before)
    )
    ids = list(due.values_list("id", flat=True)[: settings.WEBHOOK_SWEEP_BATCH])
    if ids:
        Delivery.objects.filter(pk__in=ids, status=Delivery.Status.PENDING).update(dispatched_at=now)
        report.add("redispatched", dispatch(ids))
    return report
