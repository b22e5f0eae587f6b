"""Reads of webhook endpoints, scoped to the caller (tenancy). The secret is never read back."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import serializers

from accounts.tenancy import Owner
from core.api.filters import ListFilter, QueryTimestampField
from core.api.pagination import paginate
from core.api.timefmt import rfc3339
from webhooks.delivery import TEST_EVENT_TYPE, envelope
from webhooks.events import EVENT_TYPES
from webhooks.models import Delivery, DeliveryAttempt, WebhookEndpoint


class EndpointFilter(ListFilter):
    pass


def endpoint_document(endpoint: WebhookEndpoint) -> dict:
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "event_types": list(endpoint.event_types),
        "enabled": endpoint.enabled,
        "disabled_reason": endpoint.disabled_reason or None,
        "description": endpoint.description,
        "previous_secret_expires_at": _overlap_end(endpoint),
        "created_at": rfc3339(endpoint.created_at),
        "updated_at": rfc3339(endpoint.updated_at),
    }


def _overlap_end(endpoint: WebhookEndpoint) -> str | None:
    """When the previous secret stops signing, while a rotation's overlap lasts."""
    ends = endpoint.previous_secret_expires_at
    return rfc3339(ends) if endpoint.previous_secret and ends and ends > timezone.now() else None


def owned_endpoint(owner: Owner, endpoint_id: str, *, for_update: bool = False) -> WebhookEndpoint:
    return WebhookEndpoint.objects.owned_one(owner, endpoint_id, for_update=for_update)


def endpoint_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    return paginate(
        WebhookEndpoint.objects.owned_by(owner), filters, plural="webhook_endpoints", render=endpoint_document
    )


def endpoint_detail(owner: Owner, endpoint_id: str) -> dict:
    return endpoint_document(owned_endpoint(owner, endpoint_id))


# -- deliveries -------------------------------------------------------------------------------


class DeliveryFilter(ListFilter):
    endpoint_id = serializers.CharField(required=False, max_length=40, help_text="Only this endpoint's deliveries")
    event_type = serializers.ChoiceField(choices=[*EVENT_TYPES, TEST_EVENT_TYPE], required=False)
    status = serializers.ChoiceField(choices=Delivery.Status.values, required=False)
    created_after = QueryTimestampField(help_text="Only deliveries created at or after this instant (RFC 3339)")
    created_before = QueryTimestampField(help_text="Only deliveries created before this instant (RFC 3339)")


def attempt_document(attempt: DeliveryAttempt) -> dict:
    return {
        "number": attempt.number,
        "trigger": attempt.trigger,
        "outcome": attempt.outcome,
        "started_at": rfc3339(attempt.started_at),
        "duration_ms": attempt.duration_ms,
        "status_code": attempt.status_code,
        "error": attempt.error or None,
        "response_excerpt": attempt.response_excerpt,
    }


def delivery_document(delivery: Delivery, *, attempts: list[DeliveryAttempt] | None = None) -> dict:
    document = {
        "id": delivery.id,
        "event_id": delivery.event_id,
        "event_type": delivery.event_type,
        "endpoint_id": delivery.endpoint_id,
        "status": delivery.status,
        "attempt_count": delivery.attempt_count,
        "next_attempt_at": rfc3339(delivery.next_attempt_at) if delivery.status == Delivery.Status.PENDING else None,
        "last_attempt_at": rfc3339(delivery.last_attempt_at),
        "last_status_code": delivery.last_status_code,
        "last_error": delivery.last_error or None,
        "delivered_at": rfc3339(delivery.delivered_at),
        "created_at": rfc3339(delivery.created_at),
    }
    if attempts is not None:
        document["event"] = envelope(delivery.event)
        document["attempts"] = [attempt_document(attempt) for attempt in attempts]
    return document


def owned_delivery(owner: Owner, delivery_id: str, *, for_update: bool = False) -> Delivery:
    return Delivery.objects.select_related("endpoint").owned_one(owner, delivery_id, for_update=for_update)


def delivery_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    """Newest first; filter by endpoint, event type, status and creation time."""
    deliveries = Delivery.objects.owned_by(owner)
    for name, lookup in (
        ("endpoint_id", "endpoint_id"),
        ("event_type", "event_type"),
        ("status", "status"),
        ("created_after", "created_at__gte"),
        ("created_before", "created_at__lt"),
    ):
        if name in filters:
            deliveries = deliveries.filter(**{lookup: filters[name]})
    return paginate(deliveries, filters, plural="webhook_deliveries", render=delivery_document)


def delivery_detail(owner: Owner, delivery_id: str) -> dict:
    delivery = owned_delivery(owner, delivery_id)
    delivery = Delivery.objects.select_related("event").get(pk=delivery.pk)
    return delivery_document(delivery, attempts=list(delivery.attempts.all()))
