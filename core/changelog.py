"""The dated changelog of the wire contract (contract part 9): every behaviour change since the
contract of 2026-10-08, newest first, with the screening engine_version it ships in where it touches
screenings. Published as the page /changelog and at the end of the OpenAPI description."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime


@dataclass(frozen=True)
class Change:
    on: date
    kind: str  # added, changed, deprecated, removed, fixed
    text: str
    engine_version: int | None = None


CHANGES = (
    Change(date(2026, 12, 23), "removed",
           "The camelCase duplicates coverageComplete and coverageGaps leave vessel monitor verdicts "
           "(baseline_verdict, previous_verdict); coverage_complete and coverage_gaps stay."),
    Change(date(2026, 11, 28), "added",
           "Vessel behaviour from AIS: GET /api/v1/vessels/{imo}/behaviour (scope vessel:screen; free for windows "
           "of up to 30 days, one screening unit beyond, at most 366) returns the MMSIs linked to the hull "
           "(static_imo: the IMO its static messages carried, check digit valid; register_mmsi), what AIS the "
           "window holds (observed, positions, files), a summary by kind, and the events with their evidence: "
           "dark_period, sts_meeting, identity_change, shared_mmsi, position_jump, position_on_land, port_call, "
           "draught_change_at_sea, each naming the deceptive practice of the May 2020 US maritime advisory it "
           "answers. AIS comes in through manage.py load_ais (DMA, MarineCadastre, NMEA) or a drop folder."),
    Change(date(2026, 11, 28), "added",
           "POST /api/v1/screenings takes include_behaviour (default false): the record carries behaviour, the "
           "last 90 days of the hull's AIS (observed, counts by kind, the strongest events, a link to the "
           "report). It never changes sanctions.status, and the vetting grade keeps its five factors. Screening "
           "batches take it for every hull (and echo it); so do MCP screen_vessel and submit_screening_batch.", 34),
    Change(date(2026, 11, 28), "added",
           "Webhook event vessel_behaviour.flagged: a live-monitored hull's AIS shows a new event of medium or "
           "high severity (sent once per event and monitor when the AIS load revealing it commits)."),
    Change(date(2026, 11, 28), "added",
           "POST /api/v1/voyage-assessments (and corridor monitors) take an optional imo: the drivers then end "
           "with ais_behaviour (label AIS anomalies), what the hull's AIS showed over the last 90 days, at "
           "weight 0: the score stays the weighted average of the five drivers of voyage_risk_external_v1."),
    Change(date(2026, 11, 28), "added",
           "Every sanctions match carries explanation: the hull's name (hull_name) and the listed name it met "
           "(listed_name), the rule that made them one (basis: exact_imo, exact_mmsi, or a name rule such as "
           "spacing, transliteration, dropped_letter) with basis_text, the score, and the rule of the contract "
           "that decided drove_verdict (verdict_rule, verdict_reason). Records stored before this lack it.", 33),
    Change(date(2026, 11, 28), "changed",
           "Name matching follows the rules of screening/name_rules.py, measured on real variants and real ship "
           "names (README 'Matching quality', the reference page's 'Matching quality'): numbers written as roman "
           "numerals or words match their digits (STAR III, STAR THREE, STAR 3); transliteration variants (KH/H, "
           "SCH/SH, OU/U, -IY/-II/-Y) match; names of 5-7 letters match a dropped, swapped, doubled or "
           "neighbouring-key letter, no longer an added or arbitrary one; names whose numbers differ, or with a "
           "number on one side only (MARGARITA / MARGARITA 1), are other hulls; the same words reordered score "
           "96, not 100. Real ship names taken for a variant of a listed one: 11 of 5,146 before, 8 now.", 33),
    Change(date(2026, 11, 26), "fixed",
           "Name matching drops a hull-type prefix written with dots (M.V., M.T., M. V.), glued to the name "
           "(M.V.ARIES) or as the word TANKER, as it already dropped M/V and MT: on the OFAC snapshot of "
           "2024-05-03, hull names under such a prefix are now found at rank 1 every time (0.63 before)."),
    Change(date(2026, 11, 26), "added",
           "Exports take resource screening_evidence with format zip: one <screening id>.json evidence pack per "
           "record matching the screenings list's filters. The create_export request body is published as "
           "required (it always was)."),
    Change(date(2026, 11, 26), "added",
           "POST /api/v1/screenings takes an optional as_of (a past date or RFC 3339 timestamp): the hull is "
           "screened against the sanctions list editions in force at that instant, rebuilt from the file of every "
           "loaded edition, which the service now keeps (compressed, by sha256). The record carries as_of and "
           "as_of_editions; a list with no edition held then is a coverage gap (a core one makes it INCOMPLETE, "
           "never GREEN); it is charged like any screening, never followed up and never counted by fleets. A "
           "future as_of is 422. MCP screen_vessel takes as_of too."),
    Change(date(2026, 11, 26), "added",
           "GET /api/v1/screenings/{id}/evidence: the evidence pack of a screening (the record exactly as issued "
           "and the sha256 of its bytes, every list and register edition in force at screened_at with the "
           "publisher's date, retrieval time, sha256 of the file set as loaded and record count, engine and "
           "methodology versions, the matching thresholds, the decisions the record shows) under a sha256 of its "
           "canonical JSON; with Accept: application/pdf the same content as a paginated PDF, the hash on every "
           "page."),
    Change(date(2026, 11, 26), "added",
           "Match decisions: POST /api/v1/match-decisions records a reviewer's decision on one match of a hull "
           "(cleared or confirmed, reason, reviewer, optional expires_at), GET lists and reads them (filters imo, "
           "source, outcome, active), POST /{id}/revoke revokes one (who and when kept; never rewritten). A "
           "decision binds to the listing as it stands; later screenings of the hull show it on the match "
           "(matches[].decision) and in sanctions.review (none, partly_cleared, all_cleared, confirmed), never "
           "changing sanctions.status. When the listing changes in a later edition or the decision expires it "
           "stops applying and the record carries the new notice decision_lapsed. Vessel monitors do not report "
           "a sanctions move whose driving matches the account has all cleared. MCP tools record_match_decision "
           "and list_match_decisions."),
    Change(date(2026, 11, 26), "added",
           "A new edition of a sanctions list reaches vessel monitors within minutes instead of at their next "
           "daily run: each loaded edition keeps its diff (listings added, removed, changed), and the live "
           "monitors of exactly the hulls it can touch (by IMO, MMSI, or by name with a screening's thresholds) "
           "are re-screened out of cycle, free of charge, without moving the daily slot. vessel_risk.changed is "
           "emitted as a daily run would (a delisting moves RED back to GREEN the same way), with a trigger "
           "naming the edition; monitor runs carry trigger (schedule, list_update) and list_snapshot_id. New "
           "webhook event sanctions_list.updated: source, edition, published, counts, and how many of the "
           "account's monitored hulls are being re-screened."),
    Change(date(2026, 11, 23), "fixed",
           "MCP tool calls hand their database connection back when they end and drop one the database closed "
           "in between: after a database restart or failover a tool call answered internal_error (keyless tools "
           "until the MCP process restarted)."),
    Change(date(2026, 11, 23), "fixed",
           "Syria's waters are no longer scored as a comprehensively sanctioned state's (the US, UK and EU "
           "lifted their country-wide Syria measures in 2025): eez_transit names the measures that remain, "
           "risk_category is listed_area (the JWC still lists its 12 nm band) and a passage there is no longer "
           "floored as sanctioned_eez_transit. In cargo screenings a Syrian country or port reads as a sectoral "
           "regime (AMBER) instead of a comprehensive one (RED); arms to Syria stay RED. Iran's regimes name the "
           "UN Security Council's 1737 measures, reinstated on 27 September 2025; Somalia's name resolution 2713 "
           "(al-Shabaab), which replaced the 751 regime."),
    Change(date(2026, 11, 23), "added",
           "Deprecation (RFC 9745) and Link rel=deprecation headers on answers that carry a deprecated part: "
           "voyage assessments (source_status) and vessel monitors (coverageComplete, coverageGaps)."),
    Change(date(2026, 11, 23), "fixed",
           "route.fuel_type takes only the fuels the carbon block knows (capitals or lower case, e.g. HFO, "
           "methanol); an unknown fuel is 422 on route.fuel_type instead of being ignored. A port look-up limit "
           "such as ?limit=\u00b2 is 422 (was a server error), and so is a vessel monitor runs cursor that the "
           "service did not issue. Cargo screenings refuse a party name without a letter or digit, an HS code "
           "outside chapters 01-97 and country codes that are not ISO 3166 alpha-2. The OpenAPI document "
           "carries the lengths, patterns, ranges and item counts the server enforces, checked by schemathesis."),
    Change(date(2026, 11, 23), "added",
           "Signed webhook deliveries with retries over about 27.5 hours, the delivery log and redelivery, "
           "the signed test delivery and secret rotation (X-Service-Signature carries v1= twice during a "
           "rotation's overlap)."),
    Change(date(2026, 11, 23), "added",
           "Vessel monitors (daily re-screen, vessel_monitor.ready, vessel_risk.changed, vessel_data.degraded, "
           "simulate), exports (CSV or JSON Lines), and the keyed MCP tools, one per REST operation.",
           32),
    Change(date(2026, 11, 23), "changed",
           "Request bodies with a NUL character or an unpaired UTF-16 surrogate in any string are refused 422 "
           "naming the field; JSON nested deeper than 32 levels is 400 invalid_json; URLs over 1,024 path or "
           "4,096 query characters are 414 uri_too_long (all were server errors before)."),
    Change(date(2026, 10, 31), "deprecated",
           "source_status on the voyage assessment is deprecated in favour of sources; it keeps working in "
           "/api/v1 and its removal ships as /api/v2."),
    Change(date(2026, 10, 8), "deprecated",
           "The camelCase duplicates coverageComplete and coverageGaps in vessel monitor verdicts are deprecated "
           "in favour of coverage_complete and coverage_gaps; they are removed on 2026-12-23."),
    Change(date(2026, 10, 8), "changed",
           "The wire contract of this date (X-Service-API-Version: 2026-10-08)."),
    Change(date(2026, 10, 1), "changed",
           "Live screening allowance of accounts opened from this date: 2,000 once, no reset (accounts opened "
           "2026-10-01 to 2026-10-07 keep 5,000 once; earlier accounts 5,000 a month)."),
    Change(date(2026, 9, 15), "added",
           "engine_version on screening records, and the last four fields of sanctions matches.", 32),
    Change(date(2026, 9, 13), "changed",
           "unit_charged on screening records: an INCOMPLETE record is not charged (absent before this date "
           "means true); a later answer to an INCOMPLETE is charged one unit at delivery."),
    Change(date(2026, 9, 10), "added",
           "notices on screening records (absent before this date means empty)."),
)  # fmt: skip


def is_scheduled(change: Change, today: date | None = None) -> bool:
    """An entry dated after today announces a change that has not shipped yet."""
    return change.on > (today or datetime.now(UTC).date())


def as_markdown(today: date | None = None) -> str:
    lines = ["## Changelog", ""]
    for change in CHANGES:
        engine = f" (engine_version {change.engine_version})" if change.engine_version else ""
        scheduled = " *(scheduled)*" if is_scheduled(change, today) else ""
        lines.append(f"- **{change.on.isoformat()}**{scheduled} {change.kind}{engine}: {change.text}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Deprecation:
    """A deprecated part of responses: the operations (URL name, methods) whose successful answers
    carry it are marked with a Deprecation header (RFC 9745) and a Link to the changelog, from
    `since` until `removed_on` (None: for as long as /api/v1 serves it). No Sunset header: contract
    9.2 keeps Sunset for retiring an endpoint, and no endpoint is being retired."""

    what: str
    since: date
    removed_on: date | None
    operations: frozenset[tuple[str, str]]

    def header_value(self) -> str:
        return f"@{int(datetime(self.since.year, self.since.month, self.since.day, tzinfo=UTC).timestamp())}"

    def applies(self, url_name: str, method: str, today: date) -> bool:
        in_window = self.since <= today and (self.removed_on is None or today < self.removed_on)
        return in_window and (url_name, method) in self.operations


DEPRECATIONS = (
    Deprecation(
        "source_status on voyage assessments",
        since=date(2026, 10, 31),
        removed_on=None,  # removed in /api/v2 only (contract 9.6)
        operations=frozenset({
            ("voyage-assessments", "POST"), ("voyage-assessment", "GET"),
            ("voyage-batch-items", "GET"),
        }),
    ),
    Deprecation(
        "coverageComplete and coverageGaps in vessel monitor verdicts",
        since=date(2026, 10, 8),
        removed_on=date(2026, 12, 23),
        operations=frozenset({
            ("vessel-monitors", "GET"), ("vessel-monitors", "POST"), ("vessel-monitor", "GET"),
            ("vessel-monitor", "PATCH"), ("vessel-monitor-runs", "GET"), ("vessel-monitor-simulate", "POST"),
        }),
    ),
)  # fmt: skip


def deprecation_for(url_name: str, method: str, today: date) -> Deprecation | None:
    """The deprecation a successful answer of this operation carries today, if any (the earliest)."""
    found = [d for d in DEPRECATIONS if d.applies(url_name, method, today)]
    return min(found, key=lambda d: d.since) if found else None
