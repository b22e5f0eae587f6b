"""Fleets: create, update (name and membership), delete; one transaction each.

A fleet is a name and a set of up to FLEET_MAX_HULLS hulls by IMO. IMOs follow the input rules
of POST /screenings except that the appended-digit correction never applies, and an IMO whose
check digit fails is refused: a fleet lists hulls, and a number that is no hull's would only
ever read "never screened". Every refused IMO is named by its index (`imos[3]`), duplicates
with the index they repeat.

Membership is changed by PATCH in one of two forms, never both at once: `imos` replaces the
whole list; `add_imos` / `remove_imos` change it incrementally as set operations (adding a
member or removing a non-member changes nothing). Nothing here screens: exposure and changes
read the records the owner already holds (screening/fleet_selectors.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, overload

from django.db import transaction
from django.utils import timezone

from accounts.tenancy import Owner
from core.api.errors import FieldViolation
from core.api.responses import to_json_bytes
from screening.batches import read_imo
from screening.fleet_selectors import fleet_document, owned_fleet
from screening.models import Fleet, FleetMember

FLEET_MAX_HULLS = 5000
MAX_NAME_LENGTH = 200
MAX_VIOLATIONS = 100  # listed in one 422; the message gives the total
MEMBERSHIP_FIELDS = ("imos", "add_imos", "remove_imos")


@dataclass(frozen=True)
class Saved:
    document: dict
    body: bytes


def _saved(document: dict) -> Saved:
    return Saved(document, to_json_bytes(document))


def _resend(method: str) -> str:
    return f"resend {method} /api/v1/fleets" + ("/{id}" if method != "POST" else "")


def _refuse(violations: list[dict], what: str = "IMOs") -> FieldViolation:
    if len(violations) <= MAX_VIOLATIONS:
        return FieldViolation(violations)
    return FieldViolation(
        violations[:MAX_VIOLATIONS],
        message=f"{len(violations)} {what} are refused; the first {MAX_VIOLATIONS} are listed. "
        "Correct them and resend.",
    )


def read_imo_list(values: Any, field: str, method: str) -> list[str]:
    """A list of IMOs as 7-digit strings in the order sent, or 422 naming each refused entry."""
    resend = _resend(method)
    if not isinstance(values, list):
        raise FieldViolation(
            [{"field": field, "message": f"must be an array of IMO numbers; correct it and {resend}."}]
        )
    violations: list[dict] = []
    seen: dict[str, int] = {}
    imos: list[str] = []
    for index, value in enumerate(values):
        where = f"{field}[{index}]"
        parsed, violation = read_imo(value, correction=False, field=where, resend=resend)
        if violation is not None:
            violations.append(violation)
            continue
        assert parsed is not None  # read_imo gives the parsed IMO whenever it gives no violation
        if not parsed.check_digit_valid:
            violations.append(
                {
                    "field": where,
                    "message": f"IMO {parsed.imo} fails its check digit, so it is no hull's number; "
                    f"send the hull's 7-digit IMO number and {resend}.",
                }
            )
        elif parsed.imo in seen:
            violations.append(
                {
                    "field": where,
                    "message": f"IMO {parsed.imo} repeats {field}[{seen[parsed.imo]}]; "
                    f"send each hull once and {resend}.",
                }
            )
        else:
            seen[parsed.imo] = index
            imos.append(parsed.imo)
    if violations:
        raise _refuse(violations)
    return imos


@overload
def _read_name(body: dict, method: str, *, required: Literal[True]) -> str: ...
@overload
def _read_name(body: dict, method: str, *, required: Literal[False]) -> str | None: ...
def _read_name(body: dict, method: str, *, required: bool) -> str | None:
    if "name" not in body and not required:
        return None
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH:
        raise FieldViolation(
            [
                {
                    "field": "name",
                    "message": f"name is required: a string of 1 to {MAX_NAME_LENGTH} characters; "
                    f"correct it and {_resend(method)}.",
                }
            ]
        )
    return name.strip()


def _cap(count: int, field: str, method: str) -> None:
    if count > FLEET_MAX_HULLS:
        raise FieldViolation(
            [
                {
                    "field": field,
                    "message": f"a fleet holds at most {FLEET_MAX_HULLS} hulls and this one would hold {count}; "
                    f"split it into several fleets and {_resend(method)}.",
                }
            ]
        )


def _body(body: Any, method: str) -> dict:
    if not isinstance(body, dict):
        raise FieldViolation([{"field": "body", "message": f"must be a JSON object; {_resend(method)}."}])
    return body


def create_fleet(owner: Owner, body: Any, *, in_transaction: Callable[[Saved], None] | None = None) -> Saved:
    """A fleet with its hulls (422 naming every refused IMO; nothing is written)."""
    body = _body(body, "POST")
    name = _read_name(body, "POST", required=True)
    imos = read_imo_list(body.get("imos", []), "imos", "POST")
    _cap(len(imos), "imos", "POST")
    now = timezone.now()
    with transaction.atomic():
        fleet = Fleet.objects.create(
            account_id=owner.account_id,
            environment=owner.environment,
            name=name,
            hull_count=len(imos),
            created_at=now,
            updated_at=now,
        )
        FleetMember.objects.bulk_create([FleetMember(fleet=fleet, imo=imo, added_at=now) for imo in imos])
        saved = _saved(fleet_document(fleet, imos=sorted(imos)))
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def update_fleet(
    owner: Owner, fleet_id: str, body: Any, *, in_transaction: Callable[[Saved], None] | None = None
) -> Saved:
    """Rename, replace the hulls (`imos`), or add and remove hulls (`add_imos`, `remove_imos`)."""
    body = _body(body, "PATCH")
    name = _read_name(body, "PATCH", required=False)
    present = [field for field in MEMBERSHIP_FIELDS if field in body]
    if name is None and not present:
        raise FieldViolation(
            [
                {
                    "field": "body",
                    "message": "send at least one of name, imos (replaces the hulls), add_imos or remove_imos; "
                    f"{_resend('PATCH')}.",
                }
            ]
        )
    if "imos" in present and len(present) > 1:
        raise FieldViolation(
            [
                {
                    "field": "imos",
                    "message": "imos replaces the whole list and cannot be combined with add_imos or remove_imos; "
                    f"send one form and {_resend('PATCH')}.",
                }
            ]
        )
    lists = {field: read_imo_list(body[field], field, "PATCH") for field in present}
    both = set(lists.get("add_imos", [])) & set(lists.get("remove_imos", []))
    if both:
        raise _refuse(
            [
                {
                    "field": f"remove_imos[{index}]",
                    "message": f"IMO {imo} is also in add_imos; send it in one of the two and {_resend('PATCH')}.",
                }
                for index, imo in enumerate(lists["remove_imos"])
                if imo in both
            ]
        )
    now = timezone.now()
    with transaction.atomic():
        fleet = owned_fleet(owner, fleet_id, for_update=True)
        members = FleetMember.objects.filter(fleet=fleet)
        current = set(members.values_list("imo", flat=True))
        if "imos" in lists:
            wanted = set(lists["imos"])
            _cap(len(wanted), "imos", "PATCH")
        else:
            wanted = (current | set(lists.get("add_imos", []))) - set(lists.get("remove_imos", []))
            _cap(len(wanted), "add_imos", "PATCH")
        gone = current - wanted
        if gone:
            members.filter(imo__in=gone).delete()
        FleetMember.objects.bulk_create([FleetMember(fleet=fleet, imo=imo, added_at=now) for imo in wanted - current])
        if name is not None:
            fleet.name = name
        fleet.hull_count = len(wanted)
        fleet.updated_at = now
        fleet.save(update_fields=["name", "hull_count", "updated_at"])
        saved = _saved(fleet_document(fleet, imos=sorted(wanted)))
        if in_transaction is not None:
            in_transaction(saved)
    return saved


def delete_fleet(owner: Owner, fleet_id: str, *, in_transaction: Callable[[Saved], None] | None = None) -> Saved:
    """The fleet and its membership go; the screening records of its hulls stay."""
    with transaction.atomic():
        fleet = owned_fleet(owner, fleet_id, for_update=True)
        saved = _saved({"id": fleet.id, "deleted": True})
        fleet.delete()
        if in_transaction is not None:
            in_transaction(saved)
    return saved
