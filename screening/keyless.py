"""The keyless vessel check (contract 2.1, 4.1, 8): limits, shared cache, slots, feed sampling.

Per client address: 100 checks per hour plus a burst window (BURST_SPEC) so a tight loop is
refused before the hundred are spent. A hull checked by anyone in the last hour answers from
a shared cache (never an INCOMPLETE) while the sanctions sources stand as they did when it was
screened: cache keys carry a fingerprint of the sources' state (coverage_fingerprint), so a list
that drops out, fails a refresh or loads a new copy, in any process, leaves earlier answers
unreachable (they expire on their own). Otherwise the screen takes one of 4 shared slots,
waiting up to 10 seconds (503 keyless_busy, not counted); more than 2 of the caller's own
checks waiting is 429 concurrency_limit.

Automated feeds: an address that checks more than FEED_DISTINCT_HULLS_PER_DAY distinct hulls
in a day without a key is treated as a feed for the rest of the calendar month and held to
MONTHLY_SAMPLE checks that month (429 rate_limit_exceeded until the next month, naming the
free key). Everything shared lives in Redis when REDIS_URL is set.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from core.api.timefmt import parse_rfc3339, rfc3339
from metering import concurrency, ratelimit, shared_state
from metering.auth import signup_url
from metering.quota import next_month_start
from metering.switches import current_switches
from screening import datastate, engine, freshness
from screening.identity import STORES
from screening.imo import imo_check_digit_valid
from screening.verdict import SANCTIONS_SOURCES, Verdict

HOURLY_SPEC = "100/hour"
BURST_SPEC = "20/minute"
CACHE_SECONDS = 3600
SHARED_SLOTS = 4
SLOT_WAIT_SECONDS = 10.0
OWN_WAITING_LIMIT = 2
FEED_DISTINCT_HULLS_PER_DAY = 60
MONTHLY_SAMPLE = 300
FRESH_CONTEXT_DAYS = 7


@dataclass
class KeylessOutcome:
    """A keyless check answered (200)."""

    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False
    report: dict | None = None  # the full record behind the check, for the report page


class KeylessRefused(Exception):
    """A keyless call refused: what to answer (status, the keyless error body, headers). Raised by the
    gate and the check; each door (the JSON views, the report page, the MCP tools) renders it its way."""

    def __init__(self, status: int, body: dict, headers: dict[str, str]) -> None:
        super().__init__(f"{body['code']}: {body['message']}")
        self.status = status
        self.body = body
        self.headers = headers

    @property
    def code(self) -> str:
        return self.body["code"]

    @property
    def message(self) -> str:
        return self.body["message"]


def usage_block(rate: ratelimit.RateState | None) -> dict:
    if rate is None:
        return {"limit_per_hour": 100}
    return {
        "limit_per_hour": rate.limit,
        "remaining": rate.remaining,
        "resets_at": rfc3339(datetime.fromtimestamp(rate.reset_epoch, tz=timezone.get_current_timezone())),
    }


def _free_key_url() -> str:
    return signup_url()


def example_block() -> dict:
    return {
        "request": f"GET {settings.PUBLIC_BASE_URL}/api/v1/vessels/9074729/check",
        "keyed_alternative": f"POST {settings.PUBLIC_BASE_URL}/api/v1/screenings with a free key from "
        f"{_free_key_url()}",
    }


def error(
    status: int,
    code: str,
    message: str,
    request_id: str,
    rate: ratelimit.RateState | None,
    headers: dict[str, str] | None = None,
) -> KeylessRefused:
    """The refusal to raise: the envelope plus the keyless usage and a keyed example."""
    body = {
        "code": code,
        "message": message,
        "request_id": request_id,
        "usage": usage_block(rate),
        "example": example_block(),
    }
    return KeylessRefused(status, body, dict(headers or {}))


def coverage_fingerprint(state: datastate.DataState) -> str:
    """The sanctions sources' state a cached answer depends on: which copy of each list serves
    (none when it is unavailable) and its last failed refresh. Read from the data state every
    process already holds (re-checked against the database at most every CHECK_SECONDS), so a
    change made by another web process, a worker or refresh_sources is seen everywhere. The
    sources that read stale (screening/freshness.py) are part of it too: an answer cached while a
    list was current is not served once that list turns stale, nor the other way round."""
    parts: list = []
    for name in SANCTIONS_SOURCES:  # the core lists and the supplementary ones (coverageComplete covers all)
        info = state.source(name)
        editions = sorted((e.edition, e.retrieved_at.isoformat(), e.row_count) for e in info.editions.values())
        attempted = info.last_attempt_at.isoformat() if info.last_attempt_at else None
        parts.append([name, editions, info.last_failure, attempted])
    parts.append(["stale", freshness.stale_sources(state, timezone.now())])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def _cache_key(imo: str, fingerprint: str) -> str:
    return f"keyless:check:{fingerprint}:{imo}"


def _report_key(imo: str, fingerprint: str) -> str:
    return f"keyless:report:{fingerprint}:{imo}"


def context_coverage(state: datastate.DataState, now: datetime) -> str:
    """Freshness of the incident context (register stores and inspections), not of sanctions lists."""
    infos = [state.source(store) for store in STORES]
    loaded = [info for info in infos if info.available]
    if not loaded:
        return "unavailable"
    newest = max(edition.retrieved_at for info in loaded for edition in info.editions.values())
    if any(info.last_failure for info in infos):
        return "refreshing" if (now - newest).days < FRESH_CONTEXT_DAYS else "stale"
    return "fresh" if (now - newest).days < FRESH_CONTEXT_DAYS else "stale"


def editions_sentence(state: datastate.DataState, now: datetime) -> str:
    """The lists' editions in words for the check's prose detail: each dated real file's publication
    and age, and any list whose copy may be out of date. Empty when no real file states a date and
    none is stale (demo data is neither dated here nor ever stale)."""
    dated, stale = [], []
    for editions in freshness.state_freshness(state, now, SANCTIONS_SOURCES).values():
        for edition in editions:
            if edition.published_at is not None and edition.age is not None and not edition.is_demo:
                dated.append(
                    f"{edition.display_name} published {edition.published_at:%Y-%m-%d} "
                    f"({freshness.describe_age(edition.age)})"
                )
            if edition.stale:
                stale.append(edition)
    parts = [f"List editions: {'; '.join(dated)}."] if dated else []
    parts.extend(edition.stale_sentence(name_edition=True) for edition in stale)
    return " ".join(parts)


def _with_edition_ages(report: dict, now: datetime) -> dict:
    """The report page's copy: each match's list_edition also says how old its edition is."""
    sanctions = report.get("sanctions") or {}
    matches = []
    for match in sanctions.get("matches") or []:
        edition = match.get("list_edition")
        published = edition.get("published") if edition else None
        if published:
            age = freshness.edition_age(parse_rfc3339(published), now)
            aged = freshness.describe_age(age) if age is not None else None
            match = {**match, "list_edition": {**edition, "age": aged}}
        matches.append(match)
    return {**report, "sanctions": {**sanctions, "matches": matches}} if sanctions else report


def check_document(result: engine.ScreenResult, now: datetime) -> dict:
    """Shape 2.1 (camelCase) from an engine result."""
    identity = result.identity
    vetting = result.vetting
    owner = result.ownership
    assessed = bool(vetting.get("assessed"))
    state = datastate.current()
    editions = editions_sentence(state, now)
    chosen = identity.chosen_name or ""
    also = [name for name in identity.names if name != chosen]
    factors = None
    if owner is not None and owner.assessed and owner.factors is not None:
        if sum(f["points"] for f in owner.factors) == owner.score:
            factors = owner.factors
    return {
        "imo": result.imo,
        "vesselName": chosen,
        "alsoRecordedAs": also,
        "identityBasis": identity.basis,
        "checkDigitValid": result.check_digit_valid,
        "sanctions": {
            "status": result.status,
            "detail": f"{result.sanctions.detail} {editions}" if editions else result.sanctions.detail,
            "coverageComplete": result.sanctions.coverage_complete,
            "coverageGaps": list(result.sanctions.coverage_gaps),
        },
        "ownership": {
            "opacity": owner.opacity if owner is not None and owner.assessed else None,
            "score": owner.score if owner is not None and owner.assessed else None,
        },
        "ownershipFactors": factors,
        "vetting": {
            "grade": vetting.get("grade") if assessed else None,
            "score": vetting.get("score") if assessed else None,
            "status": vetting.get("status"),
        },
        "assessed": assessed,
        "currentContext": {"coverage": context_coverage(state, now)},
        "checkedAt": rfc3339(now),
        "fullReport": f"{settings.PUBLIC_BASE_URL}/vessels/{result.imo}/report",
    }


def cached_check(imo: str, fingerprint: str | None = None) -> dict | None:
    """The cached check of `imo` screened under the sources' current state, or None."""
    fingerprint = fingerprint or coverage_fingerprint(datastate.current())
    raw = cache.get(_cache_key(imo, fingerprint))
    return json.loads(raw) if raw else None


def cached_report(imo: str, fingerprint: str | None = None) -> dict | None:
    fingerprint = fingerprint or coverage_fingerprint(datastate.current())
    raw = cache.get(_report_key(imo, fingerprint))
    return json.loads(raw) if raw else None


def _feed_state(ip: str, imo: str, now: datetime) -> tuple[bool, int]:
    """(held to the monthly sample?, checks used this month by a flagged address)."""
    month = now.strftime("%Y-%m")
    day = now.strftime("%Y-%m-%d")
    month_ttl = int((next_month_start(now) - now).total_seconds()) + 60
    distinct = shared_state.set_add_and_count(f"keyless:feed:{ip}:{day}", imo, 2 * 86400)
    flag_key = f"keyless:feed-flagged:{ip}:{month}"
    if distinct > FEED_DISTINCT_HULLS_PER_DAY:
        shared_state.incr(flag_key, month_ttl)
    flagged = shared_state.read_int(flag_key) > 0
    used = shared_state.incr(f"keyless:feed-sample:{ip}:{month}", month_ttl) if flagged else 0
    return flagged, used


def refuse_if_paused(request_id: str, hourly: ratelimit.RateState) -> None:
    """503 keyless_paused while the operator has paused the keyless lane."""
    switches = current_switches()
    if not switches.keyless_paused:
        return
    raise error(
        503,
        "keyless_paused",
        f"Keyless calls are paused under unusual load; retry after Retry-After, or use a free key ({_free_key_url()}).",
        request_id,
        hourly,
        {"Retry-After": str(switches.keyless_paused_retry_after)},
    )


def burst_sentence(burst: ratelimit.RateState, hourly: ratelimit.RateState) -> str:
    """Why a call within the hourly allowance was refused: the burst rule, by name, and when the next call
    is accepted (the `usage` block and the X-RateLimit headers describe the hourly allowance only)."""
    amount, _, unit = BURST_SPEC.partition("/")
    wait = burst.retry_after
    at = datetime.fromtimestamp(time.time() + wait, tz=UTC).strftime("%H:%M:%S UTC")
    return (
        f"Refused by the burst rule: at most {amount} keyless calls per {unit} from one address, on top of "
        f"the {hourly.limit} per hour (of which {hourly.remaining} remain). The next call is accepted in "
        f"{wait} s (at {at}); Retry-After says the same."
    )


def refuse_over_rate(ip: str, request_id: str, hourly: ratelimit.RateState) -> None:
    """The burst window, then the hourly allowance: 429 past either."""
    burst = ratelimit.hit(BURST_SPEC, "keyless-burst", ip)
    if not burst.allowed:
        raise error(
            429,
            "rate_limit_exceeded",
            f"{burst_sentence(burst, hourly)} A free key lifts this: {_free_key_url()}",
            request_id,
            hourly,
            {"Retry-After": str(burst.retry_after), **hourly.headers()},
        )
    if not hourly.allowed:
        raise error(
            429,
            "rate_limit_exceeded",
            f"100 keyless calls per hour from this address are used. A free key lifts this: {_free_key_url()}",
            request_id,
            hourly,
            {"Retry-After": str(hourly.retry_after), **hourly.headers()},
        )


def peek_hourly(ip: str) -> ratelimit.RateState:
    return ratelimit.peek(HOURLY_SPEC, "keyless", ip)


def count_call(ip: str) -> ratelimit.RateState:
    """Count one answered keyless call against the address's hourly allowance."""
    return ratelimit.hit(HOURLY_SPEC, "keyless", ip)


def admit(ip: str, request_id: str) -> ratelimit.RateState:
    """The keyless gate shared by the check, the port lookup and keyless MCP tools (limits part 8):
    the address's hourly state, or KeylessRefused."""
    hourly = peek_hourly(ip)
    refuse_if_paused(request_id, hourly)
    refuse_over_rate(ip, request_id, hourly)
    return hourly


def run_check(imo: str, ip: str, request_id: str, now: datetime | None = None) -> KeylessOutcome:
    """The keyless check of a parsed IMO: the answer, or KeylessRefused (paused, feed, rate, busy)."""
    now = now or timezone.now()
    hourly = peek_hourly(ip)
    refuse_if_paused(request_id, hourly)
    flagged, sample_used = _feed_state(ip, imo, now)
    if flagged and sample_used > MONTHLY_SAMPLE:
        reset = next_month_start(now)
        seconds = max(1, int((reset - now).total_seconds()))
        raise error(
            429,
            "rate_limit_exceeded",
            f"This address uses the keyless check as a feed and has used its monthly sample of {MONTHLY_SAMPLE} "
            f"checks. Get a free key at {_free_key_url()} and screen with POST /api/v1/screenings.",
            request_id,
            hourly,
            {
                "Retry-After": str(seconds),
                "X-RateLimit-Limit": str(MONTHLY_SAMPLE),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": str(int(reset.timestamp())),
            },
        )
    refuse_over_rate(ip, request_id, hourly)
    # Taken before the screen: an answer is stored under the state it was screened from or an
    # older one, never under a newer state it did not see.
    fingerprint = coverage_fingerprint(datastate.current())
    cached = cached_check(imo, fingerprint)
    # The check and its report are cached apart; a check whose report is gone (evicted) is a miss.
    report = cached_report(imo, fingerprint) if cached is not None else None
    if cached is not None and report is not None:
        counted = count_call(ip)
        return KeylessOutcome(200, cached, counted.headers(), from_cache=True, report=report)
    waiting_key = f"keyless:waiting:{ip}"
    waiting = shared_state.incr(waiting_key, 60)
    try:
        if waiting > OWN_WAITING_LIMIT:
            raise error(
                429,
                "concurrency_limit",
                f"More than {OWN_WAITING_LIMIT} of your checks are waiting; stop parallelising and retry shortly.",
                request_id,
                hourly,
                {"Retry-After": "2", **hourly.headers()},
            )
        slot = _wait_for_slot()
    finally:
        shared_state.incr(waiting_key, 60, -1)
    if slot is None:
        raise error(
            503,
            "keyless_busy",
            "All keyless screening slots are busy; this check was not counted. Retry after Retry-After.",
            request_id,
            hourly,
            {"Retry-After": "5", **hourly.headers()},
        )
    try:
        result = engine.screen_hull(imo, check_digit_valid=imo_check_digit_valid(imo), include_vetting=True, now=now)
    finally:
        concurrency.release(slot)
    document = check_document(result, now)
    report = {
        **_with_edition_ages(result.document(), now),
        "checked_at": rfc3339(now),
        "context_coverage": document["currentContext"]["coverage"],
        "list_editions": [
            edition.as_dict()
            for editions in freshness.state_freshness(datastate.current(), now, SANCTIONS_SOURCES).values()
            for edition in editions
        ],
    }
    if result.status != Verdict.INCOMPLETE:
        cache.set(_cache_key(imo, fingerprint), json.dumps(document), CACHE_SECONDS)
        cache.set(_report_key(imo, fingerprint), json.dumps(report), CACHE_SECONDS)
    counted = count_call(ip)
    return KeylessOutcome(200, document, counted.headers(), report=report)


def _wait_for_slot() -> concurrency.Slot | None:
    deadline = time.monotonic() + settings.KEYLESS_SLOT_WAIT_SECONDS
    while True:
        slot = concurrency.try_claim("keyless", SHARED_SLOTS, ttl=30)
        if slot is not None or time.monotonic() >= deadline:
            return slot
        time.sleep(0.05)
