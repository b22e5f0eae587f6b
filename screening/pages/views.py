"""The public vessel report page linked from the keyless check's fullReport."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.api.clientip import client_ip
from metering.auth import signup_url
from screening import keyless
from screening.imo import InvalidImoPath, parse_keyless_imo
from screening.verdict import Verdict

DISCLAIMER = (
    "This report carries derived scores, drivers, confidence and source-status summaries; raw third-party feed "
    "payloads and internal scoring weights are not shown. It is decision support, not navigation, safety, legal, "
    "insurance or sanctions-compliance advice. Test keys do not authorize production or customer-facing use."
)

STATUS_MEANING = {
    Verdict.GREEN: ("No match.", "Clear only when coverage is complete; with incomplete coverage re-screen."),
    Verdict.AMBER: ("Possible match needing review.", "Review; an identifier listing is about this hull."),
    Verdict.RED: ("Confirmed match on a vessel identifier on a designating list.", "Stop."),
    Verdict.INCOMPLETE: (
        "No clear verdict.",
        "Fails closed; never treat as a clear. Resolve the identity or re-screen.",
    ),
}


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
    meaning, treatment = STATUS_MEANING[sanctions["status"]]
    context = {
        "report": report,
        "sanctions": sanctions,
        "vetting": report["vetting"],
        "ownership": report["ownership"],
        "meaning": {"meaning": meaning, "treatment": treatment},
        "disclaimer": DISCLAIMER,
        "signup_url": signup,
    }
    return render(request, "screening/vessel_report.html", context)
