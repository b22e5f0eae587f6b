"""The verdict of a cargo screening: pure functions over in-memory data (no table is read here).

Parts and what each can set (the verdict is the worst part; `drivers` name every part that is
not clear, and `sets_verdict` marks those at the verdict's level):

party      each party's name against company and person records of every sanctions list, through
           the sanctions index the hull screening uses (screening.index `search_names`: the same
           folding — transliteration, case, punctuation, trailing legal forms — and the company
           threshold of 92, names under five letters matched only exactly). Vessel records are not
           read for parties (the vessel part screens hulls). A listed name or alias equal to the
           party's (after folding; spacing aside) on a designating list (OFAC, UN, EU, UK) is RED;
           any other hit (a near name, or a name on the aggregated dataset or a watchlist) is AMBER.
           Unlike a hull screening, a company or person record drives the verdict here.
country    origin_country and destination_country against the country regimes of
           voyages/layers/sanctions_regimes.py (the table voyage EEZ transit reads): comprehensive
           is RED, sectoral is AMBER.
port       load_port and discharge_port: the port's region regime when it has one (Crimea and the
           occupied oblasts of Ukraine, the same table), else its country's; comprehensive RED,
           sectoral AMBER.
commodity  the HS code against cargo/export_controls.py for the countries on each side of the route:
           a prohibited measure is RED, a restricted one AMBER.
vessel     the hull screening's sanctions status (RED, AMBER, INCOMPLETE; GREEN sets nothing).

Order: RED stands whatever else is missing (a listing on a loaded list is not made less true by a
missing one); otherwise INCOMPLETE when a core sanctions source (OFAC SDN, aggregated dataset, EU)
is missing — the parties cannot be cleared — or the vessel screening is INCOMPLETE; then AMBER;
then GREEN (coverage_complete false when a supplementary list is missing: not a clean pass).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pycountry

from cargo import export_controls
from screening.datastate import DataState
from screening.display_names import in_words, source_name
from screening.name_rules import ENTITY_NAME_CUTOFF
from screening.normalize import normalize_vessel_name
from screening.records import (
    CONFIDENCE_CONFIRMED,
    CONFIDENCE_POSSIBLE,
    CONFIDENCE_PROBABLE,
    RECORD_ENTITY,
    ROLE_DESIGNATING,
    ROLE_WATCHLIST,
    MatchHit,
)
from screening.sources_rows import sanctions_source_rows
from screening.verdict import (
    CORE_SOURCES,
    SANCTIONS_SOURCES,
    SOURCE_ROLES,
    Verdict,
    editions_for,
    render_match,
)
from voyages.layers.sanctions_regimes import COMPREHENSIVE, regimes_for, regimes_for_port
from voyages.ports import Port

METHODOLOGY_VERSION = "cargo_screening_external_v1"

PART_PARTY = "party"
PART_COUNTRY = "country"
PART_PORT = "port"
PART_COMMODITY = "commodity"
PART_VESSEL = "vessel"
PARTS = (PART_PARTY, PART_COUNTRY, PART_PORT, PART_COMMODITY, PART_VESSEL)

PARTY_ROLES = ("shipper", "consignee", "notify_party", "charterer")
MAX_PARTIES = 20

# A party name whose folded letters equal a listed name's (spacing aside) is an exact name match.
EXACT_NAME_SCORE = 99.0
MATCH_NAME_EXACT = "name_exact"
MATCH_NAME_FUZZY = "name_fuzzy"

_RANK: dict[str, int] = {Verdict.RED: 3, Verdict.INCOMPLETE: 2, Verdict.AMBER: 1, Verdict.GREEN: 0}

DISCLAIMER = (
    "Decision support only: derived statuses, drivers and source-status summaries. Not legal, insurance or "
    "sanctions-compliance advice; HS chapters are matched to export-control categories, not licensing "
    "determinations. Test keys do not authorize production or customer-facing use."
)


@dataclass(frozen=True)
class PartyInput:
    name: str
    role: str


@dataclass(frozen=True)
class VesselInput:
    imo: str
    check_digit_valid: bool = True
    vessel_name: str | None = None


@dataclass(frozen=True)
class CargoRequest:
    """A validated cargo screening request (cargo/api/schema.py validates and builds it)."""

    hs_code: str
    description: str
    origin_country: str
    destination_country: str
    parties: tuple[PartyInput, ...]
    load_port: Port | None = None
    discharge_port: Port | None = None
    vessel: VesselInput | None = None
    customer_reference: str | None = None


@dataclass(frozen=True)
class VesselVerdict:
    """What the cargo verdict reads from the hull screening (screening.engine.ScreenResult)."""

    imo: str
    status: str
    detail: str
    vessel_name: str | None


@dataclass
class Finding:
    part: str
    field: str
    status: str
    summary: str


@dataclass
class CargoOutcome:
    status: str
    detail: str
    coverage_complete: bool
    coverage_gaps: list[str]
    findings: list[Finding]
    commodity: dict
    origin_country: dict
    destination_country: dict
    load_port: dict | None
    discharge_port: dict | None
    parties: list[dict]
    sources: list[dict] = field(default_factory=list)

    @property
    def chargeable(self) -> bool:
        return self.status != Verdict.INCOMPLETE

    def drivers(self) -> list[dict]:
        """Every part that is not clear, worst first; sets_verdict on those at the verdict's level."""
        ordered = sorted(self.findings, key=lambda f: (-_RANK[f.status], PARTS.index(f.part), f.field))
        return [
            {
                "part": f.part,
                "field": f.field,
                "status": f.status,
                "summary": f.summary,
                "sets_verdict": f.status == self.status,
            }
            for f in ordered
        ]


def worst(statuses: list[str]) -> str:
    return max(statuses, key=lambda s: _RANK[s], default=Verdict.GREEN)


def country_name(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    return getattr(country, "common_name", None) or (country.name if country else code)


def _regime_status(kind: str | None) -> str:
    if kind == COMPREHENSIVE:
        return Verdict.RED
    return Verdict.AMBER if kind is not None else Verdict.GREEN


def _regime_block(kind: str | None, regimes: list[str]) -> dict:
    return {"is_sanctioned": kind is not None, "kind": kind, "regimes": regimes}


def _regime_words(kind: str | None, regimes: list[str]) -> str:
    if kind == COMPREHENSIVE:
        return "a comprehensive sanctions regime (" + "; ".join(regimes) + "): do not proceed"
    return "sectoral sanctions (" + "; ".join(regimes) + "): review the cargo against them"


def assess_country(code: str, field_name: str) -> tuple[dict, Finding | None]:
    kind, regimes = regimes_for(code)
    status = _regime_status(kind)
    block = {
        "country_code": code,
        "country_name": country_name(code),
        "status": status,
        "sanctions": _regime_block(kind, regimes),
    }
    if status == Verdict.GREEN:
        return block, None
    summary = f"{field_name} {code} ({country_name(code)}) is under {_regime_words(kind, regimes)}."
    return block, Finding(PART_COUNTRY, field_name, status, summary)


def assess_port(port: Port | None, field_name: str) -> tuple[dict | None, Finding | None]:
    if port is None:
        return None, None
    kind, regimes, region = regimes_for_port(port.locode, port.country_code)
    status = _regime_status(kind)
    block = {
        "locode": port.locode,
        "name": port.name,
        "country_code": port.country_code,
        "region": region,
        "status": status,
        "sanctions": _regime_block(kind, regimes),
    }
    if status == Verdict.GREEN:
        return block, None
    where = f"the {region} region of {port.country}" if region else f"{port.country_code} ({port.country})"
    summary = f"{field_name} {port.locode} ({port.name}) lies in {where}, under {_regime_words(kind, regimes)}."
    return block, Finding(PART_PORT, field_name, status, summary)


def assess_commodity(request: CargoRequest) -> tuple[dict, list[Finding]]:
    to = {"destination_country": request.destination_country}
    came_from = {"origin_country": request.origin_country}
    if request.discharge_port is not None:
        to["discharge_port"] = request.discharge_port.country_code
    if request.load_port is not None:
        came_from["load_port"] = request.load_port.country_code
    hits = export_controls.controls_met(request.hs_code, to=to, came_from=came_from)
    findings = []
    for hit in hits:
        status = Verdict.RED if hit.measure.severity == export_controls.PROHIBITED else Verdict.AMBER
        side = "to" if hit.field in to else "from"
        what = (
            "prohibits the whole chapter"
            if status == Verdict.RED
            else "restricts part of it: check the full code against the measure's annex"
        )
        summary = (
            f"HS {request.hs_code} falls in {hit.category.label}, shipped {side} {hit.measure.country} "
            f"({hit.field}): {hit.measure.regime} {what}."
        )
        findings.append(Finding(PART_COMMODITY, "commodity.hs_code", status, summary))
    block = {
        "hs_code": request.hs_code,
        "hs_chapter": request.hs_code[:2],
        "description": request.description,
        "status": worst([f.status for f in findings]),
        "categories": [c.key for c in export_controls.categories_for(request.hs_code)],
        "export_controls": [hit.as_dict() for hit in hits],
    }
    return block, findings


def _role_words(role: str) -> str:
    return role.replace("_", " ")


def party_hits(state: DataState, name: str) -> list[MatchHit]:
    """Company and person records whose name or alias reaches the company threshold, best first."""
    hits = []
    for candidate in state.sanctions.search_names(name, cutoff=ENTITY_NAME_CUTOFF):
        record = candidate.record
        if record.record_type != RECORD_ENTITY:
            continue
        exact = candidate.score >= EXACT_NAME_SCORE
        designating = SOURCE_ROLES.get(record.source, ROLE_WATCHLIST) == ROLE_DESIGNATING
        if exact:
            confidence = CONFIDENCE_CONFIRMED if designating else CONFIDENCE_PROBABLE
        else:
            confidence = CONFIDENCE_POSSIBLE
        match_type = MATCH_NAME_EXACT if exact else MATCH_NAME_FUZZY
        hits.append(
            MatchHit(
                record,
                match_type,
                confidence,
                candidate.score,
                matched_listed_name=candidate.listed_name,
                hull_name=name,
                name_rule=candidate.rule,
            )
        )
    return hits


def _confirmed(hit: MatchHit) -> bool:
    return hit.confidence_class == CONFIDENCE_CONFIRMED


def assess_party(state: DataState, editions: dict, party: PartyInput, index: int) -> tuple[dict, Finding | None]:
    hits = party_hits(state, party.name)
    red = [h for h in hits if _confirmed(h)]
    status = Verdict.RED if red else (Verdict.AMBER if hits else Verdict.GREEN)
    driving = {id(h) for h in (red or hits)}
    matches = []
    for hit in sorted(hits, key=lambda h: (id(h) not in driving, -h.score)):
        drove = id(hit) in driving
        if _confirmed(hit):
            why = ("cargo parties", "the party's name is listed exactly on a designating list: RED")
        elif drove:
            why = ("cargo parties", "a party name resembling a listed company or person makes AMBER")
        else:
            why = ("cargo parties", "on RED only the exact listings drive the party's verdict")
        row = render_match(hit, None if drove and not hit.record.source_record_id else drove, editions, why)
        matches.append(row)
    block = {"name": party.name, "role": party.role, "status": status, "matches": matches}
    if status == Verdict.GREEN:
        return block, None
    field_name = f"parties[{index}]"
    who = f"{_role_words(party.role)} {party.name!r}"
    if red:
        listed = red[0]
        label = source_name(listed.record.source)
        programs = f" ({', '.join(listed.record.programs)})" if listed.record.programs else ""
        summary = (
            f"{who} is listed by that name on the {label}{programs} as {listed.matched_listed_name!r}: "
            "do not deal with this party."
        )
    else:
        top = hits[0]
        label = source_name(top.record.source)
        how = "carries the name of" if top.match_type == MATCH_NAME_EXACT else "resembles"
        summary = (
            f"{who} {how} {top.matched_listed_name!r}, a company or person record on the {label}: "
            "compare registration details and addresses."
        )
        if len(hits) > 1:
            summary = summary[:-1] + f" ({len(hits)} records in all)."
    return block, Finding(PART_PARTY, field_name, status, summary)


def assess_vessel(vessel: VesselVerdict | None) -> Finding | None:
    if vessel is None or vessel.status == Verdict.GREEN:
        return None
    name = f" ({vessel.vessel_name})" if vessel.vessel_name else ""
    summary = f"Vessel IMO {vessel.imo}{name} screened {vessel.status}: {vessel.detail}"
    return Finding(PART_VESSEL, "vessel.imo", vessel.status, summary)


_LEADS: dict[str, str] = {
    Verdict.RED: "Stop: ",
    Verdict.AMBER: "Review needed: ",
    Verdict.INCOMPLETE: "No clear verdict: ",
}


def _detail(status: str, findings: list[Finding], gaps: list[str], *, vessel_screened: bool) -> str:
    if status == Verdict.GREEN:
        where = "on the sanctions sources that loaded" if gaps else "on any sanctions source"
        text = (
            f"No party is listed {where}; no country or port is under a sanctions regime this service holds; "
            "the commodity meets no export-control measure on this route"
        )
        text += "; the vessel screened GREEN." if vessel_screened else "."
        if gaps:
            text += (
                f" Coverage is incomplete: {in_words(gaps)} could not be loaded, so this is not a clean pass; "
                "re-screen once it is back."
            )
        return text
    setting = [f for f in findings if f.status == status]
    parts = sorted({f.part for f in setting}, key=PARTS.index)
    text = _LEADS[status] + f"set by {', '.join(parts)}. " + " ".join(f.summary for f in setting)
    others = [f for f in findings if f.status != status]
    if others:
        text += f" Also to review: {len(others)} other finding(s) in drivers."
    return text


def assess(
    request: CargoRequest,
    *,
    state: DataState,
    vessel: VesselVerdict | None = None,
) -> CargoOutcome:
    """The cargo verdict from the request, the data state's sanctions index and the hull's verdict."""
    editions = editions_for(state)
    gaps = sorted(name for name in SANCTIONS_SOURCES if not state.source(name).available)
    findings: list[Finding] = []
    parties = []
    for index, party in enumerate(request.parties):
        block, finding = assess_party(state, editions, party, index)
        parties.append(block)
        findings += [finding] if finding else []
    core_gaps = [g for g in gaps if g in CORE_SOURCES]
    if core_gaps:
        findings.append(
            Finding(
                PART_PARTY,
                "parties",
                Verdict.INCOMPLETE,
                f"Core sanctions source(s) {in_words(core_gaps)} could not be loaded, so no party can be cleared; "
                "re-screen once they are back.",
            )
        )
    origin, finding = assess_country(request.origin_country, "origin_country")
    findings += [finding] if finding else []
    destination, finding = assess_country(request.destination_country, "destination_country")
    findings += [finding] if finding else []
    load, finding = assess_port(request.load_port, "load_port")
    findings += [finding] if finding else []
    discharge, finding = assess_port(request.discharge_port, "discharge_port")
    findings += [finding] if finding else []
    commodity, commodity_findings = assess_commodity(request)
    findings += commodity_findings
    vessel_finding = assess_vessel(vessel)
    findings += [vessel_finding] if vessel_finding else []
    status = worst([f.status for f in findings])
    detail = _detail(status, findings, gaps, vessel_screened=vessel is not None)
    return CargoOutcome(
        status=status,
        detail=detail,
        coverage_complete=not gaps,
        coverage_gaps=gaps,
        findings=findings,
        commodity=commodity,
        origin_country=origin,
        destination_country=destination,
        load_port=load,
        discharge_port=discharge,
        parties=parties,
        sources=sanctions_source_rows(state),
    )


def folded_party_name(name: str) -> str:
    """What a party name is compared as (empty when it holds no letter or digit to screen)."""
    return normalize_vessel_name(name)
