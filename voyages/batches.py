"""Voyage assessment batches: up to 10 routes, validated up front, run on workers by the jobs flow.

Only accepted routes reserve quota (one unit each, drawn when the batch is created; a batch with
no valid route is 422, like a screening batch with no valid hull, and writes and reserves nothing);
a route that then fails, or that the sweep gives up on, is refunded. The batch ends completed (all
succeeded), partial (some) or failed (none) and emits `voyage_batch.completed`. How items are
claimed, settled, recovered and refunded is jobs/flow.py; this module says what a voyage batch
is (its kind) and how one route runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from accounts.models import ENV_LIVE, Account
from core.api.errors import FieldViolation
from jobs import flow, kinds
from jobs.flow import (  # noqa: F401  (the voyage batch names of the flow's outcomes and errors)
    ERROR_ATTEMPTS_EXHAUSTED,
    ERROR_DEADLINE_EXCEEDED,
    RUN_FAILED,
    RUN_SKIPPED,
    RUN_SUCCEEDED,
    RUN_SUPERSEDED,
    CreatedJob,
    ItemRun,
    ItemSpec,
    LeaseLost,
    SweepReport,
)
from metering import quota
from voyages import selectors, services
from voyages.api.schema import AssessmentRequestSchema
from voyages.models import VoyageBatch, VoyageBatchItem
from voyages.requests import parse_route_request

MAX_ROUTES = 10


def max_routes(environment: str) -> int:
    return quota.LIVE_MAX_ROUTES if environment == ENV_LIVE else quota.TEST_MAX_ROUTES


def run_route(run: ItemRun[VoyageBatch, VoyageBatchItem]) -> None:
    """Assess one route: the assessment (charged nothing: its unit was reserved) and the item's
    status commit in one transaction."""
    batch = run.job
    violations: list[dict] = []
    request = parse_route_request(run.item.request, violations)
    if request is None:
        raise FieldViolation(violations)
    services.create_assessment(
        batch.account,
        batch.environment,
        request,
        charge_units=0,
        in_transaction=lambda issued: run.succeeded(assessment=issued.assessment),
    )


KIND = kinds.register(
    kinds.JobKind(
        name="voyage_batch",
        job_model=VoyageBatch,
        item_model=VoyageBatchItem,
        quota_kind=quota.KIND_ASSESSMENT,
        run_item=run_route,
        render=selectors.batch_document,
        settings_prefix="VOYAGE_BATCH",
        job_noun="batch",
        item_noun="route",
    )
)


CREATE_CALL = "POST /api/v1/voyage-assessment-batches"


def _item_specs(routes: list) -> list[ItemSpec]:
    specs = []
    for index, item in enumerate(routes):
        violations: list[dict] = []
        request = parse_route_request(
            item, violations, prefix=f"routes[{index}]", resend=CREATE_CALL, published=AssessmentRequestSchema
        )
        specs.append(
            ItemSpec(
                request=item if isinstance(item, dict) else {"value": item},
                error=None if request is not None else {"code": "validation_failed", "field_violations": violations},
            )
        )
    return specs


def _every_violation(specs: list[ItemSpec]) -> list[dict]:
    return [violation for spec in specs if spec.error is not None for violation in spec.error["field_violations"]]


def create_batch(
    account: Account,
    environment: str,
    body: Any,
    *,
    in_transaction: Callable[[CreatedJob], None] | None = None,
) -> CreatedJob:
    """Validate a batch request and create the batch: 422 (nothing written or reserved) when the batch
    itself is wrong or no route is valid.

    `in_transaction` runs inside the transaction that writes the batch and reserves its units,
    with the CreatedJob (`.body`, the 202 document; `.quota`): the idempotent answer commits with it.
    """
    if not isinstance(body, dict) or not isinstance(body.get("routes"), list) or not body["routes"]:
        raise FieldViolation(
            [
                {
                    "field": "routes",
                    "message": "routes must be a non-empty array of route requests "
                    "({route: {origin, destination, …}}); correct it and "
                    f"resend {CREATE_CALL}.",
                }
            ]
        )
    routes = body["routes"]
    cap = max_routes(environment)
    if len(routes) > cap:
        raise FieldViolation(
            [
                {
                    "field": "routes",
                    "message": f"a batch holds at most {cap} routes on a {environment} key; split it and "
                    f"resend {CREATE_CALL}.",
                }
            ]
        )
    reference = body.get("customer_reference")
    if reference is not None and not isinstance(reference, str):
        message = f"must be a string; correct it and resend {CREATE_CALL}."
        raise FieldViolation([{"field": "customer_reference", "message": message}])
    specs = _item_specs(routes)
    if not any(spec.accepted for spec in specs):
        # As a screening batch with no valid hull: 422 naming each route's violations, before anything
        # is written, reserved or emitted (a batch that could only end failed is not created).
        raise FieldViolation(_every_violation(specs), message=f"No route of the batch is valid: {len(specs)} rejected.")
    return flow.create(
        KIND,
        account,
        environment,
        specs,
        customer_reference=reference or "",
        in_transaction=in_transaction,
    )


# The flow, for voyage batches (workers, the sweep, tests and drills call these).


def dispatch(item_ids: Iterable[str]) -> int:
    return flow.dispatch(KIND, item_ids)


def claim_item(item_id: str, now: datetime | None = None) -> tuple[VoyageBatchItem, int] | None:
    """(item, attempt) when this worker now holds the item, else None."""
    run = flow.claim(KIND, item_id, now)
    return None if run is None else (run.item, run.attempt)


def run_item(item_id: str, now: datetime | None = None) -> str:
    return flow.run_item(KIND, item_id, now)


def run_claimed(item: VoyageBatchItem, attempt: int) -> str:
    return flow.run_claimed(ItemRun(KIND, item, attempt))


def settle_batch(batch_id: str, now: datetime | None = None) -> str | None:
    return flow.settle_job(KIND, batch_id, now)


def sweep(now: datetime | None = None) -> SweepReport:
    return flow.sweep(KIND, now)
