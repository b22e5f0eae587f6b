"""Reads of webhook endpoints, scoped to the caller (tenancy). The secret is never read back."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from accounts.tenancy import Owner
from config.api.filters import ListFilter
from config.api.pagination import paginate
from config.api.timefmt import rfc3339
from webhooks.models import WebhookEndpoint


class EndpointFilter(ListFilter):
    pass


def endpoint_document(endpoint: WebhookEndpoint) -> dict:
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "event_types": list(endpoint.event_types),
        "enabled": endpoint.enabled,
        "description": endpoint.description,
        "created_at": rfc3339(endpoint.created_at),
        "updated_at": rfc3339(endpoint.updated_at),
    }


def owned_endpoint(owner: Owner, endpoint_id: str, *, for_update: bool = False) -> WebhookEndpoint:
    endpoints = WebhookEndpoint.objects.owned_by(owner)
    if for_update:
        endpoints = endpoints.select_for_update()
    endpoint = endpoints.filter(pk=endpoint_id).first()
    if endpoint is None:
        raise Http404
    return endpoint


def endpoint_list(owner: Owner, filters: dict[str, Any]) -> dict[str, Any]:
    return paginate(
        WebhookEndpoint.objects.owned_by(owner), filters, plural="webhook_endpoints", render=endpoint_document
    )


def endpoint_detail(owner: Owner, endpoint_id: str) -> dict:
    return endpoint_document(owned_endpoint(owner, endpoint_id))
