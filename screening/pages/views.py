"""The public vessel report page linked from the keyless check's fullReport."""

from __future__ import annotations

from datetime import date, timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import mark_safe

from core.api.clientip import client_ip
from core.api.timefmt import parse_rfc3339
from metering.auth import signup_url
from screening import behaviour_block, keyless
from screening.display_names import source_name
from screening.imo import InvalidImoPath, parse_keyless_imo
from screening.models import InspectionEntry, SourceSnapshot
from screening.pages import labels
from screening.verdict import Verdict
from screening.vetting import DETENTION_WINDOW_DAYS

DISCLAIMER = (
    "This report carries derived scores, drivers, confidence and source-status summaries; raw third-party feed "
    "payloads and internal scoring weights are not shown. It is decision support, not navigation, safety, legal, "
    "insurance or sanctions-compliance advice. Test keys do not authorize production or customer-facing use."
)

STATUS_MEANING = {
    Verdict.GREEN: ("No match.", "Clear: no loaded sanctions list names this hull."),
    Verdict.AMBER: ("Possible match needing review.", "Review; an identifier listing is about this hull."),
    Verdict.RED: ("Confirmed match on a vessel identifier on a designating list.", "Stop."),
    Verdict.INCOMPLETE: (
        "No clear verdict.",
        "Fails closed; never treat as a clear. Resolve the identity or re-screen.",
    ),
}
GREEN_INCOMPLETE_TREATMENT = (
    "Not a clear: coverage is incomplete, so a listing on a source not reached could be missed. "
    "Re-screen when every source is back."
)


def _treatment(sanctions: dict) -> str:
    if sanctions["status"] == Verdict.GREEN and not sanctions.get("coverage_complete", True):
        return GREEN_INCOMPLETE_TREATMENT
    return STATUS_MEANING[sanctions["status"]][1]


def _detention_dates(imo: str) -> list[date]:
    """Dates of the hull's detentions in the serving inspection snapshots, newest first."""
    records = InspectionEntry.objects.filter(imo=imo, snapshot__status=SourceSnapshot.Status.ACTIVE).values_list(
        "record", flat=True
    )
    found = set()
    for record in records:
        if record.get("detained") and record.get("inspected_on"):
            try:
                found.add(date.fromisoformat(str(record["inspected_on"])[:10]))
            except ValueError:
                continue
    return sorted(found, reverse=True)


def _detentions(imo: str, count: int, checked_at: str | None) -> dict:
    """The detention count in words, with the scoring window and which detentions fall outside it."""
    checked = parse_rfc3339(checked_at) if checked_at else None
    today = checked.date() if checked else date.today()
    window_start = today - timedelta(days=DETENTION_WINDOW_DAYS)
    dates = _detention_dates(imo) if count else []
    inside = [d for d in dates if d >= window_start]
    outside = [d for d in dates if d < window_start]
    years = labels.DETENTION_WINDOW_YEARS
    if not count:
        sentence = f"No detention on record. The detention score counts detentions of the last {years} years."
    elif dates and not inside:
        shown = ", ".join(d.isoformat() for d in outside)
        sentence = (
            f"Detained on {shown}: outside the {years}-year window (since {window_start.isoformat()}) over which "
            "the detention score counts detentions, so it adds nothing to that score."
        )
    elif outside:
        sentence = (
            f"{len(inside)} within the {years}-year window (since {window_start.isoformat()}) over which the "
            f"detention score counts detentions; {len(outside)} older ({', '.join(d.isoformat() for d in outside)}), "
            "not counted."
        )
    elif dates:
        sentence = (
            f"All within the {years}-year window (since {window_start.isoformat()}) over which the detention "
            "score counts detentions."
        )
    else:
        sentence = f"The detention score counts only detentions of the last {years} years."
    return {"count": count, "sentence": sentence, "window_years": years, "outside": len(outside)}


def _factors(vetting: dict) -> list[dict]:
    rows = []
    for factor in vetting.get("factors") or []:
        name, sentence = labels.FACTORS.get(factor["name"], (factor["name"].replace("_", " ").capitalize(), ""))
        rows.append({**factor, "label": name, "sentence": sentence})
    return rows


def _floor(vetting: dict) -> dict | None:
    floor = vetting.get("score_floor")
    if not floor:
        return None
    sentence = labels.FLOOR_SENTENCES.get(floor["basis"], f"raised to {floor.get('value')} ({floor['basis']})")
    return {**floor, "sentence": sentence}


def _with_source_name(rows: list[dict] | None, key: str = "source") -> list[dict]:
    return [{**row, "display_name": source_name(row.get(key))} for row in rows or []]


def _sources(rows: list[dict] | None) -> list[dict]:
    return [
        {
            **row,
            "display_name": source_name(row.get("source")),
            "status_text": labels.SOURCE_STATUS.get(row.get("status", ""), row.get("status", "")),
            "basis_text": labels.BASES.get(row.get("basis", ""), row.get("basis", "")),
        }
        for row in rows or []
    ]


def _matches(rows: list[dict]) -> list[dict]:
    return [
        {
            **row,
            "source_name": source_name(row.get("source")),
            "match_text": labels.MATCH_TYPES.get(row.get("match_type", ""), row.get("match_type", "")),
            "confidence_text": labels.CONFIDENCE.get(row.get("confidence_class", ""), row.get("confidence_class", "")),
        }
        for row in rows
    ]


def vessel_report(request: HttpRequest, imo: str) -> HttpResponse:
    signup = signup_url()
    try:
        parsed = parse_keyless_imo(imo)
    except InvalidImoPath as exc:
        return render(request, "screening/report_error.html", {"message": str(exc), "signup_url": signup}, status=400)
    report = keyless.cached_report(parsed)
    if report is None:
        try:
            outcome = keyless.run_check(parsed, client_ip(request), getattr(request, "request_id", ""))
        except keyless.KeylessRefused as refused:
            response = render(
                request,
                "screening/report_error.html",
                {"message": refused.message, "signup_url": signup},
                status=refused.status,
            )
            for name, value in refused.headers.items():
                response[name] = value
            return response
        report = outcome.report
    if report is None:  # run_check answers with the report it screened or found cached, never without one
        raise RuntimeError(f"the keyless check of IMO {parsed} came back without its report")
    sanctions = report["sanctions"]
    vetting = report["vetting"]
    meaning = STATUS_MEANING[sanctions["status"]][0]
    context = {
        "report": report,
        "sanctions": sanctions,
        "matches": _matches(sanctions.get("matches") or []),
        "coverage_gap_names": [source_name(gap) for gap in sanctions.get("coverage_gaps") or []],
        "vetting": vetting,
        "factors": _factors(vetting),
        "score_floor": _floor(vetting),
        "detentions": _detentions(report["imo"], vetting.get("detention_count") or 0, report.get("checked_at")),
        "ownership": report["ownership"],
        "identity_sources": _with_source_name(report.get("identity_sources"), "register"),
        "identity_basis_text": labels.IDENTITY_BASES.get(
            report.get("identity_basis", ""), report.get("identity_basis")
        ),
        "sources": _sources(report.get("sources")),
        "list_editions": _with_source_name(report.get("list_editions")),
        "context_sentence": labels.CONTEXT_SENTENCES.get(
            report.get("context_coverage", ""), f"Incident context: {report.get('context_coverage')}."
        ),
        "meaning": {"meaning": meaning, "treatment": _treatment(sanctions)},
        "disclaimer": DISCLAIMER,
        "signup_url": signup,
        "behaviour": _behaviour_panel(report["imo"]),
    }
    return render(request, "screening/vessel_report.html", context)


def _behaviour_panel(imo: str) -> dict:
    panel = behaviour_block.reader().report_panel(imo, timezone.now())
    # The SVG is built from numbers and escaped text (voyages.report_map.route_svg).
    return {**panel, "svg": mark_safe(panel["svg"])}  # noqa: S308
