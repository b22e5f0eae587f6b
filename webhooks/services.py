"""Webhook endpoints (create, update, delete, rotate the secret) and deliveries (test, redeliver).

One transaction each; the URL policy is checked at save."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone

from accounts.tenancy import Owner
from core import outbound
from core.api.errors import ApiError, FieldViolation
from core.api.responses import to_json_bytes
from webhooks.delivery import TEST_EVENT_TYPE, dispatch, queue_test_delivery
from webhooks.events import EVENT_TYPES
from webhooks.models import Delivery, WebhookEndpoint
from webhooks.selectors import delivery_document, endpoint_document, owned_delivery, owned_endpoint

MAX_ENDPOINTS_PER_ENVIRONMENT = 10
SECRET_PREFIX = "whsec_"
_LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".home.arpa", ".localdomain")


@dataclass(frozen=True)
class SavedEndpoint:
    endpoint: WebhookEndpoint
    document: dict
    body: bytes
    quota: Any = None  # no allowance is drawn; kept for the idempotency hook's shape


def _violation(field: str, message: str) -> FieldViolation:
    return FieldViolation([{"field": field, "message": message}])


def check_url(url: str) -> str | None:
    """Refuse a URL that is not public HTTPS (422 on `url`); returns a warning when the name does
    not resolve yet (the receiver may not exist yet). Deliveries check again at connect time."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        host = ""
    if host == "localhost" or host.endswith(_LOCAL_NAMES[1:]):
        raise _violation("url", f"{host} is a local name; send a public https:// URL and resend the request.")
    try:
        outbound.check(url, schemes=("https",))
    except outbound.OutboundRefused as exc:
        raise _violation("url", f"{exc}; send a public https:// URL and resend the request.") from None
    except outbound.OutboundFailed as exc:
        return f"{exc}: saved anyway; deliveries will fail until the name resolves to a public address."
    return None


def _checked_event_types(value: list[str]) -> list[str]:
    unknown = sorted(set(value) - set(EVENT_TYPES))
    if unknown:
        raise _violation("event_types", f"unknown event type(s) {', '.join(unknown)}; known: {', '.join(EVENT_TYPES)}.")
    return sorted(set(value), key=list(EVENT_TYPES).index)


def _saved(endpoint: WebhookEndpoint, warning: str | None, *, with_secret: bool) -> SavedEndpoint:
    document = endpoint_document(endpoint)
    if with_secret:
        document["secret"] = endpoint.secret
    if warning:
        document["url_warning"] = warning
    return SavedEndpoint(endpoint, document, to_json_bytes(document))


def create_endpoint(
    owner: Owner, values: dict, *, in_transaction: Callable[[SavedEndpoint], None] | None = None
) -> SavedEndpoint:
    warning = check_url(values["url"])
    event_types = _checked_event_types(values.get("event_types", []))
    with transaction.atomic():
        existing = WebhookEndpoint.objects.owned_by(owner).select_for_update().count()
        if existing >= MAX_ENDPOINTS_PER_ENVIRONMENT:
            raise ApiError(
                422,
                "endpoint_limit_reached",
                f"This environment already has {existing} webhook endpoints, the most it may hold "
                f"({MAX_ENDPOINTS_PER_ENVIRONMENT}); delete one and resend.",
            )
        endpoint = WebhookEndpoint.objects.create(
            account_id=owner.account_id,
            environment=owner.environment,
            url=values["url"],
            event_types=event_types,
            enabled=values.get("enabled", True),
            description=values.get("description", ""),
            secret=SECRET_PREFIX + secrets.token_hex(32),
        )
        saved = _saved(endpoint, warning, with_secret=True)
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def update_endpoint(
    owner: Owner, endpoint_id: str, values: dict, *, in_transaction: Callable[[SavedEndpoint], None] | None = None
) -> SavedEndpoint:
    warning = check_url(values["url"]) if "url" in values else None
    if "event_types" in values:
        values = {**values, "event_types": _checked_event_types(values["event_types"])}
    with transaction.atomic():
        endpoint = owned_endpoint(owner, endpoint_id, for_update=True)
        for name in ("url", "event_types", "enabled", "description"):
            if name in values:
                setattr(endpoint, name, values[name])
        if values.get("enabled") is True:
            endpoint.disabled_reason = ""  # enabled again: the reason it was disabled no longer holds
        endpoint.save()
        saved = _saved(endpoint, warning, with_secret=False)
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def delete_endpoint(
    owner: Owner, endpoint_id: str, *, in_transaction: Callable[[SavedEndpoint], None] | None = None
) -> SavedEndpoint:
    with transaction.atomic():
        endpoint = owned_endpoint(owner, endpoint_id, for_update=True)
        document = {"id": endpoint.id, "deleted": True}
        saved = SavedEndpoint(endpoint, document, to_json_bytes(document))
        endpoint.delete()
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def rotate_secret(
    owner: Owner,
    endpoint_id: str,
    overlap_hours: int,
    *,
    in_transaction: Callable[[SavedEndpoint], None] | None = None,
) -> SavedEndpoint:
    """A new signing secret (returned once); the old one keeps signing alongside it for `overlap_hours`."""
    with transaction.atomic():
        endpoint = owned_endpoint(owner, endpoint_id, for_update=True)
        now = timezone.now()
        if overlap_hours:
            endpoint.previous_secret = endpoint.secret
            endpoint.previous_secret_expires_at = now + timedelta(hours=overlap_hours)
        else:
            endpoint.previous_secret, endpoint.previous_secret_expires_at = "", None
        endpoint.secret = SECRET_PREFIX + secrets.token_hex(32)
        endpoint.save()
        saved = _saved(endpoint, None, with_secret=True)
        if in_transaction is not None:
            in_transaction(saved)
    return saved


@dataclass(frozen=True)
class QueuedDelivery:
    delivery: Delivery
    document: dict
    body: bytes
    quota: Any = None


def _queued(delivery: Delivery) -> QueuedDelivery:
    document = delivery_document(delivery)
    return QueuedDelivery(delivery, document, to_json_bytes(document))


def send_test_delivery(
    owner: Owner, endpoint_id: str, *, in_transaction: Callable[[QueuedDelivery], None] | None = None
) -> QueuedDelivery:
    """Queue a signed `webhook.test` event to this endpoint (sent even if it is disabled or lists types)."""
    with transaction.atomic():
        endpoint = owned_endpoint(owner, endpoint_id)
        queued = _queued(queue_test_delivery(endpoint))
        if in_transaction is not None:
            in_transaction(queued)
    return queued


def redeliver(
    owner: Owner, delivery_id: str, *, in_transaction: Callable[[QueuedDelivery], None] | None = None
) -> QueuedDelivery:
    """Send the same event (same event id) again now; the retry schedule starts again."""
    with transaction.atomic():
        delivery = owned_delivery(owner, delivery_id, for_update=True)
        if delivery.status == Delivery.Status.SENDING:
            raise ApiError(
                409,
                "delivery_in_progress",
                "An attempt of this delivery is in flight; wait for it (GET the delivery) and resend if it fails.",
            )
        if not delivery.endpoint.enabled and delivery.event_type != TEST_EVENT_TYPE:
            raise ApiError(
                409,
                "endpoint_disabled",
                f"Webhook endpoint {delivery.endpoint_id} is disabled; enable it (PATCH enabled=true) and resend.",
            )
        now = timezone.now()
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.PENDING, round_attempts=0, next_attempt_at=now, dispatched_at=now
        )
        delivery.refresh_from_db()
        queued = _queued(delivery)
        if in_transaction is not None:
            in_transaction(queued)
    transaction.on_commit(lambda: dispatch([delivery.pk]))
    return queued
