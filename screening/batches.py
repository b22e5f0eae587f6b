"""Screening batches: up to 50 hulls, validated up front, each screened on a worker by the jobs flow.

Each accepted hull reserves one screening unit when the batch is created (a rejected one reserves
nothing; a batch with no valid hull is 422 and reserves nothing). A hull runs through the one
screening write path (`services.create_screening`, origin `batch`): its record carries an empty
`notices` array and, like any verdict, resolves an open INCOMPLETE of the same hull
(`screening.resolved`). A hull that comes back INCOMPLETE is not charged: its reserved unit is
refunded with its result. The batch ends completed (every hull screened), partial (some) or
failed (none) and emits `screening_batch.completed` once. How items are claimed, settled,
recovered and refunded is jobs/flow.py; this module says what a screening batch is and how one
hull runs.

Items take no in-flight slot (voyage batch items do not either): the number of worker processes
bounds how many of a customer's hulls run at once, and a slot refused on a worker would fail an
item that the customer's own concurrent calls happened to crowd out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from rest_framework import serializers

from accounts.models import Account
from accounts.tenancy import Owner
from core.api.errors import FieldViolation
from core.api.fields import StrictStringField
from core.api.pagination import encode_cursor
from core.api.strict_input import unknown_member_violations
from core.api.timefmt import rfc3339
from jobs import flow, kinds
from jobs.flow import CreatedJob, ItemRun, ItemSpec, SweepReport, status_counts
from jobs.models import JobItem
from metering import pace, quota
from screening import engine, services
from screening.imo import ImoInputError, ParsedImo, imo_check_digit_valid, parse_screening_imo
from screening.models import ScreeningBatch, ScreeningBatchItem
from screening.selectors import overlaid_document
from screening.verdict import Verdict
from webhooks.events import emit

MAX_HULLS = 50
PATH = "/api/v1/screening-batches"
RESEND = f"correct it and resend POST {PATH}"
IMO_FORMS = "send the 7-digit IMO number (e.g. 9074729, IMO9074729 or 'IMO 9074729')"


def read_imo(value: Any, *, correction: bool, field: str, resend: str) -> tuple[ParsedImo | None, dict | None]:
    """The IMO input rules of POST /screenings (screening.imo) for an IMO inside a list: the parsed
    IMO, or the violation naming `field` and how to resend (`resend`: "… and resend POST …")."""
    if not isinstance(value, str):
        return None, {"field": field, "message": f"must be a JSON string; {IMO_FORMS} and {resend}."}
    try:
        return parse_screening_imo(value, appended_digit_correction=correction), None
    except ImoInputError as exc:
        return None, {"field": field, "message": f"{exc}; {IMO_FORMS} and {resend}."}


class ItemInput(serializers.Serializer):
    """One hull of a batch besides its IMO (read by `read_imo`, with the IMO rules of POST /screenings)."""

    vessel_name = StrictStringField(required=False, max_length=200, allow_blank=False, allow_null=True)
    customer_reference = StrictStringField(required=False, max_length=200, allow_blank=True, allow_null=True)


ITEM_FIELDS = ("imo", *ItemInput().fields)  # every member a hull takes


# --- running one hull (the worker's body) ----------------------------------------------------


def screen_item(run: ItemRun[ScreeningBatch, ScreeningBatchItem]) -> None:
    """Screen one hull: the record and the item's status commit in one transaction.

    The engine runs first, outside any transaction. create_screening draws the record's own unit
    (one for a verdict, none for an INCOMPLETE), so for a verdict the unit this item reserved is
    handed back in the same transaction just before that draw (it cannot then fail for want of
    the unit the batch holds); an INCOMPLETE keeps its reservation until `succeeded(charged=False)`
    refunds it. If anything fails, or the claim was taken over (LeaseLost), all of it rolls back
    and the reservation stands for the next attempt or the flow's refund.
    """
    batch, item = run.job, run.item
    request = services.ScreeningRequest(
        imo=item.imo,
        check_digit_valid=imo_check_digit_valid(item.imo),
        normalized_from=item.imo_normalized_from or None,
        vessel_name=item.request.get("vessel_name") or None,
        customer_reference=item.request.get("customer_reference"),
        include_vetting=batch.include_vetting,
        include_behaviour=batch.include_behaviour,
    )
    now = timezone.now()
    result = engine.screen_hull(
        request.imo,
        check_digit_valid=request.check_digit_valid,
        vessel_name=request.vessel_name,
        include_vetting=request.include_vetting,
        now=now,
    )
    with transaction.atomic():
        if result.chargeable and item.reserved_unit:
            quota.refund(
                batch.account,
                batch.environment,
                quota.KIND_SCREENING,
                reason=quota.Reason.SETTLEMENT,
                drawn_at=batch.created_at,
            )
        services.create_screening(
            batch.account,
            batch.environment,
            request,
            origin=services.ORIGIN_BATCH,
            now=now,
            result=result,
            in_transaction=lambda issued: run.succeeded(
                charged=issued.screening.unit_charged, screening=issued.screening
            ),
        )


# --- documents -------------------------------------------------------------------------------


def batch_document(batch: ScreeningBatch) -> dict:
    """The batch as POST answers it and GET polls it."""
    statuses = list(ScreeningBatchItem.objects.filter(batch=batch).values_list("status", flat=True))
    counts = status_counts(statuses)
    verdicts = dict.fromkeys(Verdict.values, 0)
    for row in (
        ScreeningBatchItem.objects.filter(batch=batch, screening__isnull=False)
        .values("screening__status")
        .annotate(n=Count("pk"))
    ):
        verdicts[row["screening__status"]] = row["n"]
    finished = counts[JobItem.Status.SUCCEEDED] + counts[JobItem.Status.FAILED]
    total = batch.accepted_count
    return {
        "id": batch.id,
        "status": batch.status,
        "customer_reference": batch.customer_reference or None,
        "include_vetting": batch.include_vetting,
        "include_behaviour": batch.include_behaviour,
        "item_count": batch.item_count,
        "accepted_count": batch.accepted_count,
        "counts": counts,
        "progress": {"finished": finished, "total": total, "percent": 100 * finished // total if total else 100},
        "verdicts": verdicts,
        "created_at": rfc3339(batch.created_at),
        "completed_at": rfc3339(batch.completed_at),
        "items_url": f"{PATH}/{batch.id}/items",
    }


def item_document(item: ScreeningBatchItem) -> dict:
    row: dict = {
        "id": item.id,
        "position": item.position,
        "status": item.status,
        "imo": item.imo or None,
        "customer_reference": (item.request.get("customer_reference") if isinstance(item.request, dict) else None)
        or None,
    }
    if item.screening is not None:
        row["screening"] = overlaid_document(item.screening)
    if item.error is not None:
        row["error"] = item.error
    return row


KIND = kinds.register(
    kinds.JobKind(
        name="screening_batch",
        job_model=ScreeningBatch,
        item_model=ScreeningBatchItem,
        quota_kind=quota.KIND_SCREENING,
        run_item=screen_item,
        render=batch_document,
        settings_prefix="SCREENING_BATCH",
        job_noun="batch",
        item_noun="hull",
    )
)


# --- creating a batch ------------------------------------------------------------------------


def _violation(field: str, message: str) -> dict:
    return {"field": field, "message": message}


def _read_item(index: int, item: Any, correction: bool) -> tuple[ParsedImo | None, list[dict]]:
    """One hull: its parsed IMO, or None and every violation naming `items[i].<field>`."""
    prefix = f"items[{index}]"
    if not isinstance(item, dict):
        return None, [_violation(prefix, f"must be an object {{imo, vessel_name?, customer_reference?}}; {RESEND}.")]
    # A member a hull does not take (a misspelt vessel_name) rejects the hull rather than being dropped.
    violations = unknown_member_violations(item, ITEM_FIELDS, prefix=prefix, resend=RESEND)
    parsed = None
    if item.get("imo") is None:
        violations.append(_violation(f"{prefix}.imo", f"is required; {IMO_FORMS} and resend POST {PATH}."))
    else:
        parsed, bad_imo = read_imo(
            item["imo"], correction=correction, field=f"{prefix}.imo", resend=f"resend POST {PATH}"
        )
        if bad_imo is not None:
            violations.append(bad_imo)
    form = ItemInput(data=item)
    if not form.is_valid():
        for name, errors in form.errors.items():
            violations.append(_violation(f"{prefix}.{name}", f"{errors[0]}; {RESEND}."))
    return (parsed if not violations else None), violations


def _batch_fields(body: Any) -> tuple[list, dict[str, bool], str]:
    """The items, the batch-level flags (include_vetting, include_behaviour) and the reference, or 422 naming
    the first field that is wrong (nothing is reserved)."""
    if not isinstance(body, dict):
        raise FieldViolation([_violation("body", f"must be a JSON object {{items: [...]}}; {RESEND}.")])
    items = body.get("items")
    if not isinstance(items, list) or not items:
        raise FieldViolation(
            [
                _violation(
                    "items",
                    f"items must be a non-empty array of hulls ({{imo, vessel_name?, customer_reference?}}); {RESEND}.",
                )
            ]
        )
    if len(items) > MAX_HULLS:
        raise FieldViolation(
            [
                _violation(
                    "items",
                    f"a batch holds at most {MAX_HULLS} hulls and this one has {len(items)}; "
                    f"split it into batches of {MAX_HULLS} and resend each under its own Idempotency-Key.",
                )
            ]
        )
    violations = []
    include_vetting = body.get("include_vetting", True)
    if not isinstance(include_vetting, bool):
        violations.append(_violation("include_vetting", f"must be true or false; {RESEND}."))
    include_behaviour = body.get("include_behaviour", False)
    if not isinstance(include_behaviour, bool):
        violations.append(_violation("include_behaviour", f"must be true or false; {RESEND}."))
    reference = body.get("customer_reference")
    if reference is not None and (not isinstance(reference, str) or len(reference) > 200):
        violations.append(_violation("customer_reference", f"must be a string of at most 200 characters; {RESEND}."))
    if violations:
        raise FieldViolation(violations)
    return items, {"include_vetting": include_vetting, "include_behaviour": include_behaviour}, reference or ""


def create_batch(
    account: Account,
    environment: str,
    body: Any,
    *,
    in_transaction: Callable[[CreatedJob], None] | None = None,
) -> CreatedJob:
    """Validate a batch request and create the batch: 422 (nothing reserved) when the batch itself
    is wrong or no hull is valid; 402 when paused or the allowance cannot cover the valid hulls.

    `in_transaction` runs inside the transaction that writes the batch and reserves its units,
    with the CreatedJob (`.body`, the 202 document; `.quota`): the idempotent answer commits with it.
    """
    items, flags, reference = _batch_fields(body)
    correction = account.appended_digit_correction
    specs: list[ItemSpec] = []
    parsed: dict[int, ParsedImo] = {}
    every_violation: list[dict] = []
    for index, item in enumerate(items):
        imo, violations = _read_item(index, item, correction)
        every_violation.extend(violations)
        if imo is not None:
            parsed[index] = imo
        specs.append(
            ItemSpec(
                request=item if isinstance(item, dict) else {"value": item},
                error=None if imo is not None else {"code": "validation_failed", "field_violations": violations},
            )
        )
    if not parsed:
        raise FieldViolation(every_violation, message=f"No hull of the batch is valid: {len(items)} rejected.")
    pace.ensure_not_paused(account, environment)

    def written(created: CreatedJob) -> None:
        accepted = list(ScreeningBatchItem.objects.filter(batch_id=created.job.pk, position__in=list(parsed)))
        for row in accepted:
            row.imo = parsed[row.position].imo
            row.imo_normalized_from = parsed[row.position].normalized_from or ""
        ScreeningBatchItem.objects.bulk_update(accepted, ["imo", "imo_normalized_from"])
        state = created.quota
        if state is not None and state.crossed_warning:  # the reservation took the allowance over 80 %
            emit(account.pk, environment, "usage.quota_warning", {"used": state.used, "limit": state.allowance.limit})
        if in_transaction is not None:
            in_transaction(created)

    return flow.create(
        KIND,
        account,
        environment,
        specs,
        customer_reference=reference,
        job_fields=flags,
        in_transaction=written,
    )


# --- reads (scoped to the caller) ------------------------------------------------------------


def _owned_batch(owner: Owner, batch_id: str) -> ScreeningBatch:
    return ScreeningBatch.objects.owned_one(owner, batch_id)


def batch_detail(owner: Owner, batch_id: str) -> dict:
    return batch_document(_owned_batch(owner, batch_id))


def batch_items(owner: Owner, batch_id: str, filters: dict[str, Any]) -> dict:
    """The batch's items in position order; `?cursor=` (the previous page's next_cursor) resumes
    after the last position shown. The default page (50) holds a whole batch."""
    batch = _owned_batch(owner, batch_id)
    after = filters.get("cursor")
    if after is not None and not after.isdigit():
        raise FieldViolation(
            [
                _violation(
                    "cursor", "cursor is not one this API issued; resend with the next_cursor of the previous page."
                )
            ]
        )
    limit = filters["limit"]
    rows = ScreeningBatchItem.objects.filter(batch=batch).select_related("screening__follow_up").order_by("position")
    if after is not None:
        rows = rows.filter(position__gt=int(after))
    page = list(rows[: limit + 1])
    next_cursor = encode_cursor(str(page[limit - 1].position)) if len(page) > limit else None
    return {"items": [item_document(item) for item in page[:limit]], "next_cursor": next_cursor}


# --- the flow, for screening batches (workers, the sweep, tests and the bench call these) ----


def dispatch(item_ids: Iterable[str]) -> int:
    return flow.dispatch(KIND, item_ids)


def claim_item(item_id: str, now: datetime | None = None) -> ItemRun[ScreeningBatch, ScreeningBatchItem] | None:
    return flow.claim(KIND, item_id, now)


def run_item(item_id: str, now: datetime | None = None) -> str:
    return flow.run_item(KIND, item_id, now)


def sweep(now: datetime | None = None) -> SweepReport:
    return flow.sweep(KIND, now)
