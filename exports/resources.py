"""What can be exported: each resource with its scope, its list's filters, its rows and their shapes.

The filters are the list endpoint's own filter serializer (less limit and cursor) and the rows come
from the same selector the list pages, so an export holds exactly what paging the list would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from accounts.tenancy import Owner
from cargo.selectors import CargoScreeningFilter, filtered_cargo_screenings, stored_document
from core.api.filters import ListFilter
from metering.selectors import AccessLogFilter, entry_document, filtered_entries
from screening import evidence
from screening.selectors import ScreeningFilter, filtered_screenings, overlaid_document


@dataclass(frozen=True)
class Exportable:
    name: str
    scope: str
    filter_class: type[ListFilter]
    rows: Callable[[Owner, dict[str, Any]], QuerySet]
    document: Callable[[Any], dict]  # one JSON Lines row (a zip member)
    columns: tuple[str, ...]  # CSV columns: dotted paths into the document
    formats: tuple[str, ...] = ("csv", "jsonl")

    @property
    def filter_names(self) -> list[str]:
        # keys(): iterating a BindingDict yields the field names; the DRF stubs type it as yielding fields.
        return [name for name in self.filter_class().fields.keys() if name not in ("limit", "cursor")]


def _screenings() -> Exportable:
    return Exportable(
        "screenings", "vessel:screen", ScreeningFilter, filtered_screenings, overlaid_document,
        ("id", "imo", "vessel_name", "sanctions.status", "ownership.opacity", "vetting.grade", "identity_basis",
         "customer_reference", "unit_charged", "screened_at", "superseded_by"),
    )  # fmt: skip


def _screening_evidence() -> Exportable:
    return Exportable(
        "screening_evidence", "vessel:screen", ScreeningFilter, filtered_screenings, evidence.pack_of, (),
        formats=("zip",),
    )  # fmt: skip


def _access_log() -> Exportable:
    return Exportable(
        "access_log", "logs:read", AccessLogFilter, filtered_entries, entry_document,
        ("id", "at", "method", "path", "status", "code", "request_id", "key_prefix", "client_ip", "duration_ms",
         "units_charged"),
    )  # fmt: skip


def _cargo_screenings() -> Exportable:
    return Exportable(
        "cargo_screenings", "cargo:screen", CargoScreeningFilter, filtered_cargo_screenings, stored_document,
        ("id", "status", "commodity.hs_code", "commodity.description", "origin_country.country_code",
         "destination_country.country_code", "load_port.locode", "discharge_port.locode", "vessel.imo",
         "vessel.status", "customer_reference", "unit_charged", "screened_at"),
    )  # fmt: skip


_FACTORIES: dict[str, Callable[[], Exportable]] = {
    "screenings": _screenings,
    "screening_evidence": _screening_evidence,
    "cargo_screenings": _cargo_screenings,
    "access_log": _access_log,
}


def names() -> list[str]:
    return list(_FACTORIES)


def get(name: str) -> Exportable:
    return _FACTORIES[name]()


def cell(document: dict, path: str) -> Any:
    value: Any = document
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
