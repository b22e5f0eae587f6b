"""Who is this hull? The five register stores on every screening, the four live registers
only when all five are silent (contract 2.5, 3.2.7–3.2.9).

`service_vessel_register` is compiled from every vessel record the service holds (list
vessel records with their names, as held in the sanctions index) plus operator imports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import CharField, Value
from django.utils import timezone

from core.compiled_query import CompiledQuery
from screening.datastate import DataState
from screening.ingest import record_from_json
from screening.models import InspectionEntry, LiveRegisterName, RegisterEntry, SourceSnapshot
from screening.normalize import normalize_name
from screening.records import RECORD_VESSEL, Inspection, RegisterRecord
from screening.sources.live_registers import lookup_live_registers

STORES = ("service_vessel_register", "ais_registry", "tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")
LIVE_REGISTERS = ("classsoc_vessel_register", "itf_ship_lookup", "iacs_vessels_in_class", "uscg_psix")
CONTESTED_NAME_COUNT = 4
LIVE_NAME_RETENTION = timedelta(days=30)

BASIS_SOURCES = "sources"
BASIS_USER = "user"
BASIS_NONE = "none"


@dataclass
class Identity:
    imo: str
    rows: list[dict] = field(default_factory=list)  # identity_sources rows
    names: list[str] = field(default_factory=list)  # every name returned, chosen first
    chosen_name: str | None = None
    basis: str = BASIS_NONE
    contested: bool = False
    records: list[RegisterRecord] = field(default_factory=list)
    inspections: list[Inspection] = field(default_factory=list)
    mmsi: str | None = None
    flag: str | None = None

    @property
    def named(self) -> bool:
        return self.basis != BASIS_NONE


def _loaded_stores(state: DataState) -> set[str]:
    """Stores with a serving snapshot, from the in-memory data state (no query per screening)."""
    return {store for store in STORES if state.source(store).available}


_INSPECTION_ROW = "__inspection__"


def _particulars_and_inspections(imo: str):
    active = {"snapshot__status": SourceSnapshot.Status.ACTIVE}
    particulars = RegisterEntry.objects.filter(imo=imo, **active).values("register", "record")
    inspected = (
        InspectionEntry.objects.filter(imo=imo, **active)
        .annotate(row_kind=Value(_INSPECTION_ROW, output_field=CharField()))
        .values("row_kind", "record")
    )
    return particulars.union(inspected, all=True)


# Built once per process: building this UNION costs about twice what running it does.
_STORE_ROWS = CompiledQuery(_particulars_and_inspections, "imo")


def _store_lookup(imo: str, loaded: set[str]) -> tuple[dict[str, list[RegisterRecord]], list[Inspection]]:
    """Particulars and inspections of the serving snapshots, in one round trip (UNION ALL)."""
    by_register: dict[str, list[RegisterRecord]] = {}
    inspections: list[Inspection] = []
    for row in _STORE_ROWS.rows(imo=imo):
        register, payload = row["register"], row["record"]
        if register == _INSPECTION_ROW:
            inspections.append(record_from_json(Inspection, payload))  # type: ignore[arg-type]
        else:
            by_register.setdefault(register, []).append(record_from_json(RegisterRecord, payload))  # type: ignore[arg-type]
    return by_register, inspections


def _listed_vessel_names(state: DataState, imo: str) -> list[str]:
    return [r.name for r in state.sanctions.records_by_imo(imo) if r.record_type == RECORD_VESSEL and r.name]


def _choose(names_by_register: dict[str, str]) -> list[str]:
    """Distinct names, the most often returned first (ties: store order)."""
    counts = Counter(normalize_name(name) for name in names_by_register.values())
    first_seen: dict[str, str] = {}
    for name in names_by_register.values():
        first_seen.setdefault(normalize_name(name), name)
    order = sorted(first_seen, key=lambda key: (-counts[key], list(first_seen).index(key)))
    return [first_seen[key] for key in order]


def _live_lookup(imo: str) -> list[dict]:
    now = timezone.now()
    cached = {
        row.register: row for row in LiveRegisterName.objects.filter(imo=imo, fetched_at__gte=now - LIVE_NAME_RETENTION)
    }
    rows: list[dict] = []
    to_ask = {
        name: settings.LIVE_REGISTER_URLS.get(name, "")
        for name in LIVE_REGISTERS
        if name not in cached and settings.LIVE_REGISTER_URLS.get(name)
    }
    answers = (
        {a.register: a for a in lookup_live_registers(imo, to_ask, settings.LIVE_REGISTER_BUDGET_SECONDS)}
        if to_ask
        else {}
    )
    for register in LIVE_REGISTERS:
        if register not in cached and not to_ask.get(register):
            continue  # not configured here: not consulted, so no row (2.5)
        name: str | None
        if register in cached:
            name = cached[register].name
            rows.append(_row(register, name, reachable=True))
            continue
        answer = answers.get(register)
        reachable = bool(answer and answer.reachable)
        name = answer.name if answer and answer.reachable else None
        if reachable:
            LiveRegisterName.objects.update_or_create(
                register=register, imo=imo, defaults={"name": name or "", "fetched_at": now}
            )
        rows.append(_row(register, name, reachable=reachable))
    return rows


def _row(register: str, name: str | None, *, reachable: bool) -> dict:
    row: dict = {"register": register, "named": bool(name), "reachable": reachable}
    if name:
        row["name"] = name
    return row


def resolve_identity(state: DataState, imo: str, *, user_name: str | None) -> Identity:
    identity = Identity(imo=imo)
    try:
        loaded = _loaded_stores(state)
        by_register, identity.inspections = _store_lookup(imo, loaded)
        store_error = False
    except Exception:  # a store that throws is unreachable, never evidence
        loaded, by_register, store_error = set(), {}, True
    listed_names = _listed_vessel_names(state, imo)
    names_by_register: dict[str, str] = {}
    for store in STORES:
        records = by_register.get(store, [])
        name = next((r.name for r in records if r.name), None)
        if store == "service_vessel_register" and not name and listed_names:
            name = listed_names[0]
        reachable = not store_error and (store in loaded or store == "service_vessel_register")
        if name:
            names_by_register[store] = name
        identity.rows.append(_row(store, name, reachable=reachable))
        identity.records.extend(records)
    if not names_by_register:
        for row in _live_lookup(imo):
            identity.rows.append(row)
            if row.get("name"):
                names_by_register[row["register"]] = row["name"]
    all_names = _choose(names_by_register)
    former = [n for r in identity.records for n in r.former_names]
    if len(all_names) >= CONTESTED_NAME_COUNT:
        identity.contested = True
        return identity
    if all_names:
        identity.basis = BASIS_SOURCES
        identity.chosen_name = all_names[0]
        identity.names = all_names + [
            n for n in former if normalize_name(n) not in {normalize_name(a) for a in all_names}
        ]
    elif user_name:
        identity.basis = BASIS_USER
        identity.chosen_name = user_name
        identity.names = [user_name]
    identity.mmsi = next((r.mmsi for r in identity.records if r.mmsi), None)
    identity.flag = next((r.flag for r in identity.records if r.flag), None)
    return identity
