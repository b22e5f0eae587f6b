"""Corridor monitors: create and delete (one transaction each).

A monitor's body is a voyage assessment's (contract 4.5: customer_reference and route with origin,
destination, via and vessel details), validated by the same parser; the route is computed once at
creation so a lane no sea route connects, or a via point on land, is refused (422) before anything is
stored. Creating charges nothing: each run draws one unit of the live voyage allowance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import ENV_LIVE, Account
from accounts.tenancy import Owner
from core.api.errors import ApiError, FieldViolation
from core.api.responses import to_json_bytes
from monitoring.corridor_selectors import monitor_document, owned_monitor
from monitoring.models import CorridorMonitor
from voyages.api.schema import AssessmentRequestSchema, RouteRequestSchema
from voyages.requests import RouteRequest, parse_route_request
from voyages.services import route_for

ROUTE_FIELDS = tuple(RouteRequestSchema().fields)  # what an assessment's route takes


@dataclass(frozen=True)
class SavedMonitor:
    monitor: CorridorMonitor
    document: dict
    body: bytes
    quota: Any = None  # no allowance is drawn at creation; kept for the idempotency hook's shape


CREATE_CALL = "POST /api/v1/corridor-monitors"


def _stored_request(body: dict, request: RouteRequest) -> dict:
    """The assessment body each run sends: known route fields only, ports as their locodes."""
    route = {name: body["route"][name] for name in ROUTE_FIELDS if body["route"].get(name) is not None}
    route["origin"], route["destination"] = request.origin.locode, request.destination.locode
    if request.via:
        route["via"] = [[lon, lat] for lon, lat in request.via]
    stored: dict = {"route": route}
    if request.customer_reference is not None:
        stored["customer_reference"] = request.customer_reference
    return stored


def create_monitor(
    owner: Owner, body: Any, *, in_transaction: Callable[[SavedMonitor], None] | None = None
) -> SavedMonitor:
    """Validate like an assessment, refuse past the cap (422 naming it), store; the first run is due now."""
    violations: list[dict] = []
    request = parse_route_request(body, violations, resend=CREATE_CALL, published=AssessmentRequestSchema)
    if violations or request is None:
        raise FieldViolation(violations)
    route_for(request, resend=CREATE_CALL)  # the lane must be routable now (an assessment's errors; no charge)
    cap = settings.CORRIDOR_MONITORS_PER_KEY
    with transaction.atomic():
        # One creation at a time per account, so two concurrent creates cannot both pass the cap.
        Account.objects.select_for_update().filter(pk=owner.account_id).values_list("pk", flat=True).first()
        existing = CorridorMonitor.objects.owned_by(owner).count()
        if existing >= cap:
            raise ApiError(
                422,
                "monitor_limit_reached",
                f"This {owner.environment} key's account already has {existing} corridor monitors, the most it may "
                f"hold ({cap}); delete one (DELETE /api/v1/corridor-monitors/{{id}}) and resend.",
            )
        monitor = CorridorMonitor.objects.create(
            account_id=owner.account_id,
            environment=owner.environment,
            request=_stored_request(body, request),
            customer_reference=request.customer_reference or "",
            next_run_at=timezone.now() if owner.environment == ENV_LIVE else None,
        )
        document = monitor_document(monitor)
        saved = SavedMonitor(monitor, document, to_json_bytes(document))
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def delete_monitor(
    owner: Owner, monitor_id: str, *, in_transaction: Callable[[SavedMonitor], None] | None = None
) -> SavedMonitor:
    """Delete the monitor and its run history; a run in flight then writes nothing and charges nothing."""
    with transaction.atomic():
        monitor = owned_monitor(owner, monitor_id, for_update=True)
        document = {"id": monitor.id, "deleted": True}
        saved = SavedMonitor(monitor, document, to_json_bytes(document))
        monitor.delete()
        if in_transaction is not None:
            in_transaction(saved)
    return saved
