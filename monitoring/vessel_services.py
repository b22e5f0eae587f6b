"""Vessel monitors: create (the first live run at once), delete, simulate; one transaction each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import ENV_LIVE
from accounts.tenancy import Owner
from core.api.errors import ApiError, FieldViolation
from core.api.responses import to_json_bytes
from monitoring import runs
from monitoring.models import VesselMonitor
from monitoring.vessel_selectors import monitor_document, owned_monitor, run_document
from monitoring.vessels import KIND, simulate
from screening.services import parse_caller_imo


@dataclass(frozen=True)
class Saved:
    document: dict
    body: bytes
    quota: Any = None  # nothing is drawn at creation; kept for the idempotency hook's shape


def _saved(document: dict) -> Saved:
    return Saved(document, to_json_bytes(document))


CREATE_CALL = "POST /api/v1/vessel-monitors"


def _checked_imo(value: str) -> str:
    imo, _, check_digit_valid = parse_caller_imo(value, correction=False, resend=CREATE_CALL)
    if not check_digit_valid:
        message = f"IMO {imo} fails its check digit; send the hull's 7-digit IMO number and resend {CREATE_CALL}."
        raise FieldViolation([{"field": "imo", "message": message}])
    return imo


def create_monitor(owner: Owner, values: dict, *, in_transaction: Callable[[Saved], None] | None = None) -> Saved:
    """A live monitor (live keys) runs its first screening at once, then every 24 hours; a
    simulation monitor (any key) only runs when simulated."""
    mode = values.get("mode") or (VesselMonitor.Mode.LIVE if owner.environment == ENV_LIVE else "")
    if not mode:
        raise ApiError(
            403,
            "environment_not_allowed",
            "Vessel monitors do not run on a test key; use a live key, or create a simulation monitor "
            '(mode "simulation") and feed it verdicts with POST /api/v1/vessel-monitors/{id}/simulate.',
        )
    if mode == VesselMonitor.Mode.LIVE and owner.environment != ENV_LIVE:
        raise ApiError(
            403,
            "environment_not_allowed",
            'A live vessel monitor needs a live key; on a test key send mode "simulation".',
        )
    imo = _checked_imo(values["imo"])
    now = timezone.now()
    live = mode == VesselMonitor.Mode.LIVE
    with transaction.atomic():
        existing = VesselMonitor.objects.owned_by(owner).select_for_update().count()
        cap = settings.VESSEL_MONITORS_PER_ACCOUNT
        if existing >= cap:
            raise ApiError(
                422,
                "monitor_limit_reached",
                f"This environment already watches {existing} hulls, the most a self-serve account may ({cap}); "
                "delete a monitor and resend.",
                extra={"limit": cap},
            )
        try:
            with transaction.atomic():
                monitor = VesselMonitor.objects.create(
                    account_id=owner.account_id,
                    environment=owner.environment,
                    imo=imo,
                    vessel_name=values.get("vessel_name") or "",
                    customer_reference=values.get("customer_reference") or "",
                    mode=mode,
                    next_run_at=now + KIND.cadence if live else None,
                    created_at=now,
                )
        except IntegrityError:
            other = VesselMonitor.objects.owned_by(owner).get(imo=imo, mode=mode)
            raise ApiError(
                409,
                "monitor_exists",
                f"IMO {imo} is already watched by {mode} monitor {other.id}; use it, or delete it first.",
                extra={"vessel_monitor_id": other.id},
            ) from None
        run = runs.open_run(KIND, monitor, now)[0] if live else None
        saved = _saved(monitor_document(monitor))
        if in_transaction is not None:
            in_transaction(saved)
    if run is not None:
        transaction.on_commit(lambda: runs.dispatch(KIND, [run.pk]))
    return saved


def delete_monitor(owner: Owner, monitor_id: str, *, in_transaction: Callable[[Saved], None] | None = None) -> Saved:
    with transaction.atomic():
        monitor = owned_monitor(owner, monitor_id, for_update=True)
        saved = _saved({"id": monitor.id, "deleted": True})
        monitor.delete()
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def simulate_run(
    owner: Owner, monitor_id: str, values: dict, *, in_transaction: Callable[[Saved], None] | None = None
) -> Saved:
    """Feed a hypothetical verdict into the change detector of a simulation monitor (no unit drawn)."""
    with transaction.atomic():
        monitor = owned_monitor(owner, monitor_id, for_update=True)
        if monitor.mode != VesselMonitor.Mode.SIMULATION:
            raise ApiError(
                409,
                "monitor_not_simulated",
                f"Monitor {monitor.id} is a live monitor; simulate on a monitor created with mode "
                '"simulation" (any key may create one).',
            )
        hypothetical = {
            "sanctions": {
                "status": values["sanctions_status"],
                "coverage_complete": values.get("coverage_complete", values["sanctions_status"] != "INCOMPLETE"),
                "coverage_gaps": list(values.get("coverage_gaps", [])),
            },
            "ownership_opacity": values.get("ownership_opacity"),
            "vetting_grade": values.get("vetting_grade"),
        }
        run = simulate(monitor, hypothetical, confirmed=values.get("confirmed", True))
        saved = _saved(run_document(run))
        if in_transaction is not None:
            in_transaction(saved)
    return saved
