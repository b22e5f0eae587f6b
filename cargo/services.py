"""Issuing cargo screenings: one transaction holds the charge, the embedded hull record and the cargo record.

Charging (README "Cargo screenings"): a cargo screening that reaches a verdict (GREEN, AMBER, RED)
costs one unit of the screening allowance, the embedded vessel screening included; an INCOMPLETE
costs nothing. With a vessel, the hull is screened through the one screening path
(`screening.services.create_screening`, origin `cargo`), which draws the unit when the hull's
verdict is charged; the cargo then draws only what is still owed (one unit when the hull came back
INCOMPLETE and the cargo did not) or gives back what is not (a refund, when the cargo ends
INCOMPLETE). So exactly one unit is drawn per charged cargo screening, in the transaction that
writes the records; a replay is free.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import Account
from cargo import screening as cargo_engine
from cargo.models import CargoScreening
from core.api.ids import new_id
from core.api.responses import to_json_bytes
from core.api.timefmt import rfc3339
from metering import concurrency, pace, quota
from screening import datastate, engine
from screening.models import Screening
from screening.services import ScreeningRequest, create_screening

logger = logging.getLogger("service.cargo")

ORIGIN_CARGO = Screening.Origin.CARGO  # a hull screened for a cargo screening


@dataclass(frozen=True)
class IssuedCargo:
    """The record and its bytes, the units this cargo screening drew and the allowance's state."""

    record: CargoScreening
    body: bytes
    quota: quota.QuotaState

    @property
    def units_charged(self) -> int:
        return 1 if self.record.unit_charged else 0


def screen_cargo(
    account: Account,
    environment: str,
    request: cargo_engine.CargoRequest,
    *,
    in_transaction: Callable[[IssuedCargo], None] | None = None,
) -> IssuedCargo:
    """The door REST (and MCP through REST) uses: the pause, the allowance, one screening slot, the record.

    402 before anything runs when the account is paused or its screening allowance is used up.
    """
    pace.ensure_not_paused(account, environment)
    quota.ensure_available(account, environment, quota.KIND_SCREENING)
    with concurrency.customer_slot("screening", account.pk, environment):
        issued = create_cargo_screening(account, environment, request, in_transaction=in_transaction)
    if issued.record.vessel_screening_id is None:  # the hull screening ran the pace check itself
        try:
            pace.evaluate(account)
        except Exception:  # a step after the commit never turns the committed answer into an error
            logger.exception("pace.evaluate failed after a cargo screening was committed")
    return issued


def create_cargo_screening(
    account: Account,
    environment: str,
    request: cargo_engine.CargoRequest,
    *,
    now: datetime | None = None,
    in_transaction: Callable[[IssuedCargo], None] | None = None,
) -> IssuedCargo:
    """Screen the cargo (and its hull) and issue the record; 402 if the allowance cannot cover it."""
    now = now or timezone.now()
    state = datastate.current()
    hull = None
    if request.vessel is not None:
        hull = engine.screen_hull(
            request.vessel.imo,
            check_digit_valid=request.vessel.check_digit_valid,
            vessel_name=request.vessel.vessel_name,
            include_vetting=True,
            now=now,
        )
        # The cargo record answers for its hull: an INCOMPLETE hull is not enrolled for background
        # re-screening (that would draw a unit later, outside this cargo screening); re-screen the cargo
        # with vessel.vessel_name instead.
        hull = dataclasses.replace(hull, enroll_cause=None)
    vessel_verdict = (
        cargo_engine.VesselVerdict(
            imo=hull.imo,
            status=hull.status,
            detail=hull.sanctions.detail,
            vessel_name=hull.identity.chosen_name if hull.identity.named else None,
        )
        if hull is not None
        else None
    )
    outcome = cargo_engine.assess(request, state=state, vessel=vessel_verdict)
    owed = 1 if outcome.chargeable else 0
    record_id = new_id(CargoScreening.ID_PREFIX)
    with transaction.atomic():
        hull_issued = None
        if hull is not None:
            assert request.vessel is not None
            hull_issued = create_screening(
                account,
                environment,
                ScreeningRequest(
                    imo=request.vessel.imo,
                    check_digit_valid=request.vessel.check_digit_valid,
                    vessel_name=request.vessel.vessel_name,
                    customer_reference=request.customer_reference,
                ),
                origin=ORIGIN_CARGO,
                now=now,
                result=hull,
            )
        drawn = hull_issued.units_charged if hull_issued is not None else 0
        if hull is None or hull_issued is None:  # None together; testing both lets the checker see hull below
            state_after = quota.charge(account, environment, quota.KIND_SCREENING, owed)  # counted: no hull
        elif owed > drawn:
            state_after = quota.charge(
                account, environment, quota.KIND_SCREENING, owed - drawn, imo=hull.imo, reason=quota.Reason.TOPUP
            )
        elif owed < drawn:
            state_after = quota.refund(account, environment, quota.KIND_SCREENING, drawn - owed, imo=hull.imo)
        else:
            state_after = hull_issued.quota
        record = CargoScreening(
            id=record_id,
            account=account,
            environment=environment,
            status=outcome.status,
            hs_code=request.hs_code,
            origin_country=request.origin_country,
            destination_country=request.destination_country,
            vessel_imo=request.vessel.imo if request.vessel else "",
            vessel_screening=hull_issued.screening if hull_issued is not None else None,
            customer_reference=request.customer_reference or "",
            unit_charged=bool(owed),
            screened_at=now,
            created_at=now,
        )
        record.document = to_json_bytes(_assemble(record, request, outcome, hull_issued))
        record.save(force_insert=True)
        issued = IssuedCargo(record, bytes(record.document), state_after)
        if in_transaction is not None:
            in_transaction(issued)
    return issued


def _vessel_block(request: cargo_engine.CargoRequest, hull_issued: object | None) -> dict | None:
    if request.vessel is None or hull_issued is None:
        return None
    hull_record = hull_issued.screening  # type: ignore[attr-defined]
    result = hull_issued.result  # type: ignore[attr-defined]
    return {
        "imo": request.vessel.imo,
        "screening_id": hull_record.id,
        "status": result.status,
        "vessel_name": result.identity.chosen_name if result.identity.named else None,
        "identity_basis": result.identity.basis,
        "detail": result.sanctions.detail,
        "coverage_complete": result.sanctions.coverage_complete,
    }


def _assemble(
    record: CargoScreening,
    request: cargo_engine.CargoRequest,
    outcome: cargo_engine.CargoOutcome,
    hull_issued: object | None,
) -> dict:
    """The cargo screening document (published as CargoScreeningSchema)."""
    document: dict = {"id": record.id}
    if request.customer_reference is not None:
        document["customer_reference"] = request.customer_reference
    document.update(
        {
            "status": outcome.status,
            "detail": outcome.detail,
            "coverage_complete": outcome.coverage_complete,
            "coverage_gaps": outcome.coverage_gaps,
            "drivers": outcome.drivers(),
            "commodity": outcome.commodity,
            "origin_country": outcome.origin_country,
            "destination_country": outcome.destination_country,
            "load_port": outcome.load_port,
            "discharge_port": outcome.discharge_port,
            "parties": outcome.parties,
            "vessel": _vessel_block(request, hull_issued),
            "sources": outcome.sources,
            "screened_at": rfc3339(record.screened_at),
            "methodology_version": cargo_engine.METHODOLOGY_VERSION,
            "unit_charged": record.unit_charged,
            "disclaimer": cargo_engine.DISCLAIMER,
        }
    )
    return document
