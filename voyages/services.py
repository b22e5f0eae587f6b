"""Voyage assessments: route → layers → score → the stored 2.10 document."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import Account
from core.api.errors import ApiError, FieldViolation
from core.api.ids import new_id
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from metering import concurrency, quota
from voyages import ais_driver, carbon, layers_state, routing
from voyages.api.schema import AssessmentRequestSchema
from voyages.layers.geo import RouteInput
from voyages.models import VoyageAssessment
from voyages.report_links import report_url
from voyages.requests import RouteRequest, parse_route_request
from voyages.scoring import assess_route_risk
from voyages.selectors import stored_document  # noqa: F401  (the report page reads it from here)

METHODOLOGY_VERSION = "voyage_risk_external_v1"
RETENTION = timedelta(days=30)
DISCLAIMER = (
    "Decision support only: derived scores, drivers, route context, confidence and source-status summaries. "
    "Not navigation, safety, legal, insurance or sanctions-compliance advice. The route is a modelled sea path, "
    "not a passage plan. Test keys do not authorize production or customer-facing use."
)


@dataclass(frozen=True)
class IssuedAssessment:
    assessment: VoyageAssessment
    body: bytes
    quota: quota.QuotaState


ASSESSMENT_CALL = "POST /api/v1/voyage-assessments"


def route_for(request: RouteRequest, *, resend: str = ASSESSMENT_CALL) -> routing.Route:
    """The sea route of a validated request, or what an assessment answers when there is none: 422 naming
    the via point on land (and `resend`, the caller's operation), or 422 route_not_found."""
    try:
        return routing.compute_route(
            request.origin, request.destination, via=request.via, closed_passages=request.closed_passages
        )
    except routing.ViaPointError as exc:
        message = f"{exc.message}; move the point to open water and resend {resend}."
        raise FieldViolation([{"field": f"route.via[{exc.index}]", "message": message}]) from None
    except routing.RouteNotFound as exc:
        raise ApiError(
            422,
            "route_not_found",
            f"No sea route connects {request.origin.locode} and {request.destination.locode}: {exc}",
        ) from None


def assess(
    account: Account,
    environment: str,
    body: object,
    *,
    in_transaction: Callable[[IssuedAssessment], None] | None = None,
) -> IssuedAssessment:
    """The one way a caller assesses a voyage (REST and MCP): the request rules, the allowance (402 before
    anything runs), the in-flight ceiling, then the record. 422 on a bad request or a route none connects."""
    violations: list[dict] = []
    request = parse_route_request(body, violations, resend=ASSESSMENT_CALL, published=AssessmentRequestSchema)
    if violations or request is None:
        raise FieldViolation(violations)
    quota.ensure_available(account, environment, quota.KIND_ASSESSMENT)
    with concurrency.customer_slot("assessment", account.pk, environment):
        return create_assessment(account, environment, request, in_transaction=in_transaction)


def compute_document(request: RouteRequest, *, assessment_id: str, now: datetime) -> dict:
    """The assessment document (2.10) for a validated request. Raises ApiError on routing failures."""
    route = route_for(request)
    route_input = RouteInput(
        coordinates=list(route.coordinates),
        distance_nm=route.distance_nm,
        origin_country=request.origin.country_code,
        dest_country=request.destination.country_code,
    )
    layer_set = layers_state.current()
    forecast, forecast_ok = layers_state.forecast_for(route_input)
    risk = assess_route_risk(route_input, as_of=now, layers=layer_set, forecast=forecast if forecast_ok else None)
    document: dict = {"id": assessment_id}
    if request.customer_reference is not None:
        document["customer_reference"] = request.customer_reference
    document["route"] = {
        "origin_locode": request.origin.locode,
        "dest_locode": request.destination.locode,
        "via_waypoints": [list(point) for point in route.via_waypoints],
        "distance_nm": round(route.distance_nm, 1),
        "geometry": routing.route_geojson(route),
    }
    document["score"] = risk.score
    document["risk_level"] = risk.risk_level
    document["drivers"] = risk.drivers
    if request.imo is not None:
        document["imo"] = request.imo
        document["drivers"] = [*risk.drivers, ais_driver.driver(request.imo, now, rank=len(risk.drivers) + 1)]
    document["jwc_intersected_areas"] = risk.jwc_intersected_areas
    document["eez_transit"] = risk.eez_transit
    if risk.score_floor is not None:
        document["score_floor"] = risk.score_floor
    document["confidence"] = risk.confidence
    document["missing_sources"] = risk.missing_sources
    document["sources"] = risk.sources
    document["source_status"] = risk.source_status
    document["methodology_version"] = METHODOLOGY_VERSION
    document["assessed_at"] = rfc3339(now)
    document["expires_at"] = rfc3339(now + RETENTION)
    document["disclaimer"] = DISCLAIMER
    carbon_block = carbon.block_for_request(request, route.distance_nm, now.year)
    if carbon_block is not None:
        document["carbon_intensity"] = carbon_block
    document["report_url"] = report_url(assessment_id)
    return document


def create_assessment(
    account: Account,
    environment: str,
    request: RouteRequest,
    now: datetime | None = None,
    *,
    charge_units: int = 1,
    in_transaction: Callable[[IssuedAssessment], None] | None = None,
) -> IssuedAssessment:
    """Compute, charge and store one assessment in one transaction.

    `in_transaction` runs inside that transaction once the record is written: what it writes (an
    idempotency completion, a batch item's status) commits or rolls back with the assessment.
    """
    now = now or timezone.now()
    assessment_id = new_id(VoyageAssessment.ID_PREFIX)
    document = compute_document(request, assessment_id=assessment_id, now=now)
    body = to_json_bytes(document)
    with transaction.atomic():
        # A batch route (charge_units=0) settles against its batch's reservation: a 0-unit entry.
        reason = quota.Reason.CHARGE if charge_units else quota.Reason.SETTLEMENT
        state = quota.charge(account, environment, quota.KIND_ASSESSMENT, charge_units, reason=reason)
        assessment = VoyageAssessment.objects.create(
            id=assessment_id,
            account=account,
            environment=environment,
            origin_locode=request.origin.locode,
            dest_locode=request.destination.locode,
            score=document["score"],
            risk_level=document["risk_level"],
            document=body,
            created_at=now,
            assessed_at=now,
            expires_at=now + RETENTION,
        )
        issued = IssuedAssessment(assessment, body, state)
        if in_transaction is not None:
            in_transaction(issued)
    return issued
