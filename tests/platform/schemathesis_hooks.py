"""Schemathesis hooks for tests/platform/test_schemathesis.py (loaded through SCHEMATHESIS_HOOKS).

The service limits each key to 120 requests a minute and each keyless client address to 100 an
hour (contract part 8); a bounded run sends thousands of requests, so without help almost every
answer would be a 429 and the logic behind the operations would go untested. The harness therefore
acts as many callers, as production traffic does:

- keyed operations take their key round-robin from a pool of test and live keys of one account
  (SCHEMATHESIS_KEYS, comma-separated, interleaved), each of which stays under its own rate, so one
  pass exercises both environments; the live-only operations (LIVE_ONLY_PATHS) take the live keys
  of the pool only;
- every request carries an X-Forwarded-For address of its own, which the server under test reads
  because it runs with TRUSTED_PROXY_COUNT=1 (as behind one proxy), so the keyless lane's per-address
  allowance is not what every keyless case runs into;
- every request that carries a usable Idempotency-Key gets a fresh one (one account holds every key of
  the pool, and the generated keys repeat: without this, most keyed POSTs answered 409
  idempotency_conflict and ran nothing).

Keyless operations (those whose security lists no BearerKey) are sent without a key, as the contract
describes them.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import uuid
from typing import Any

import schemathesis

_KEYS = [key for key in os.environ.get("SCHEMATHESIS_KEYS", "").split(",") if key]
_LIVE_KEYS = [key for key in _KEYS if key.startswith("svc_live_")]
_any_key = itertools.cycle(_KEYS) if _KEYS else None
_live_key = itertools.cycle(_LIVE_KEYS) if _LIVE_KEYS else None
_addresses = itertools.count(1)
_lock = threading.Lock()


def _is_keyed(case: Any) -> bool:
    security = case.operation.definition.raw.get("security") or []
    return any("BearerKey" in requirement for requirement in security)


# Operations a test key may not call (403 environment_not_allowed; contract: corridor monitors are
# live-only): sent with the live keys of the pool, or half their cases would test only the refusal.
LIVE_ONLY_PATHS = ("/api/v1/corridor-monitors",)


def _is_live_only(case: Any) -> bool:
    return case.operation.path.startswith(LIVE_ONLY_PATHS)


def _next_address() -> str:
    with _lock:
        number = next(_addresses)
    # 10.0.0.0/8 holds 16 million distinct callers: more than any bounded run sends.
    return f"10.{(number >> 16) & 255}.{(number >> 8) & 255}.{number & 255}"


@schemathesis.auth(refresh_interval=None)
class RotatingBearerKey:
    """A different key of the pool on each keyed request (no caching: refresh_interval=None)."""

    def get(self, case: Any, context: Any) -> str | None:
        if not _is_keyed(case):
            return None
        cycle = _live_key if _is_live_only(case) else _any_key
        if cycle is None:
            return None
        with _lock:
            return next(cycle)

    def set(self, case: Any, data: str | None, context: Any) -> None:
        if data is not None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


IDEMPOTENCY_KEY = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY_LENGTH = 255  # core.api.idempotency_keys.MAX_KEY_LENGTH (not imported: no Django here)


def _usable_key(value: Any) -> bool:
    """A key the server would accept (1 to 255 characters, not all blank): one the case meant to be valid."""
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_IDEMPOTENCY_KEY_LENGTH


def _fresh_key() -> str:
    return f"schemathesis-{uuid.uuid4().hex}"


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    """Each request from an address of its own and, when it carries a usable Idempotency-Key, a key of its own.

    Generated keys are drawn from a small space ("0", "00", ...), and one account holds every key of the
    pool: the same key would come back with another body (409 idempotency_conflict) or the same body (a
    replay), and the operation's own logic would not run. A key the case made unusable on purpose (blank,
    too long: a negative case) is left as generated, and so is a missing one.
    """
    headers = dict(case.headers or {})
    headers["X-Forwarded-For"] = _next_address()
    for name in [name for name in headers if name.lower() == IDEMPOTENCY_KEY.lower()]:
        if _usable_key(headers[name]):
            headers[name] = _fresh_key()
    case.headers = headers


# Rejections a schema cannot foresee: the value has the published shape, but whether it is accepted
# depends on what the server holds (a cursor it issued, a port it carries, sea at a via point) or on
# a rule no JSON Schema keyword states (the IMO check digit). Each (operation, field) listed here is
# described as such in the operation's document. A 422 on schema-valid input naming any field NOT
# listed here fails the run: the document should have said so.
STATE_DEPENDENT_FIELDS: dict[str, tuple[str, ...]] = {
    "*": ("cursor",),
    # imo: the check digit.
    "POST /api/v1/voyage-assessments": ("route.origin", "route.destination", "route.via[", "imo"),
    "POST /api/v1/screenings": ("as_of",),  # a future instant: judged against the server's clock
    "POST /api/v1/screening-batches": ("items[",),  # each hull is judged on its own (422 when none is valid)
    "POST /api/v1/voyage-assessment-batches": ("routes[",),  # each route is judged on its own (422 when none is)
    "POST /api/v1/corridor-monitors": ("route.origin", "route.destination", "route.via[", "imo"),
    # The IMO check digit; the window's rules (from before to, at most 366 days) relate two parameters.
    "GET /api/v1/vessels/{imo}/behaviour": ("imo", "from", "to"),
    # parties[i].name: a name with a letter that folds to nothing to screen (a hull prefix such as M/V alone).
    "POST /api/v1/cargo-screenings": ("load_port", "discharge_port", "parties["),
    "POST /api/v1/vessel-monitors": ("imo",),
    "POST /api/v1/fleets": ("imos[",),
    # The record must be listed in the serving edition and match the hull; the expiry must be in the future.
    "POST /api/v1/match-decisions": ("imo", "source_record_id", "expires_at"),
    "PATCH /api/v1/fleets/{fleet_id}": ("imos[", "add_imos[", "remove_imos["),
    # The webhook URL's host must resolve to public addresses, judged when the request arrives.
    "POST /api/v1/webhook-endpoints": ("url",),
    "PATCH /api/v1/webhook-endpoints/{endpoint_id}": ("url",),
}


@schemathesis.check
def rejects_schema_valid_input_only_for_state_dependent_fields(ctx: Any, response: Any, case: Any) -> bool | None:
    """Positive cases may meet 422 (allowed by the configuration) only on the fields listed above."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    label = f"{case.method.upper()} {case.operation.path}"
    allowed = STATE_DEPENDENT_FIELDS["*"] + STATE_DEPENDENT_FIELDS.get(label, ())
    try:
        violations = response.json().get("field_violations") or []
    except ValueError:
        violations = []
    fields = [violation.get("field", "") for violation in violations]
    unexpected = [name for name in fields if not name.startswith(allowed)]
    if not fields or unexpected:
        raise AssertionError(
            f"schema-valid input refused on {unexpected or 'no named field'}: the document should state the rule"
        )
    return None


# SCHEMATHESIS_RESPONSE_LOG (a path, set by the test): one JSON line per answer, so the run can say how
# many of its calls reached the operation's logic and how many an idempotency refusal or replay took.
_RESPONSE_LOG = os.environ.get("SCHEMATHESIS_RESPONSE_LOG")


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if not _RESPONSE_LOG:
        return
    try:
        code = response.json().get("code") if response.status_code >= 400 else None
    except (ValueError, AttributeError):
        code = None
    line = {
        "operation": f"{case.method.upper()} {case.operation.path}",
        "status": response.status_code,
        "code": code,
        "replay": "x-service-idempotent-replay" in response.headers,
        "idempotency_key": (case.headers or {}).get("Idempotency-Key"),
    }
    with _lock, open(_RESPONSE_LOG, "a") as log:
        log.write(json.dumps(line) + "\n")
