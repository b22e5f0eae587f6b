"""Webhook endpoints: create, update, delete (one transaction each), with the URL policy checked at save."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction

from accounts.tenancy import Owner
from config import outbound
from config.api.errors import ApiError, FieldViolation
from config.api.responses import to_json_bytes
from webhooks.events import EVENT_TYPES
from webhooks.models import WebhookEndpoint
from webhooks.selectors import endpoint_document, owned_endpoint

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
