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
  allowance is not what every keyless case runs into.

Keyless operations (those whose security lists no BearerKey) are sent without a key, as the contract
describes them.
"""

from __future__ import annotations

import itertools
import os
import threading
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


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    case.headers = {**(case.headers or {}), "X-Forwarded-For": _next_address()}


# Rejections a schema cannot foresee: the value has the published shape, but whether it is accepted
# depends on what the server holds (a cursor it issued, a port it carries, sea at a via point) or on
# a rule no JSON Schema keyword states (the IMO check digit). Each (operation, field) listed here is
# described as such in the operation's document. A 422 on schema-valid input naming any field NOT
# listed here fails the run: the document should have said so.
STATE_DEPENDENT_FIELDS: dict[str, tuple[str, ...]] = {
    "*": ("cursor",),
    "POST /api/v1/voyage-assessments": ("route.origin", "route.destination", "route.via["),
    "POST /api/v1/screening-batches": ("items[",),  # each hull is judged on its own (422 when none is valid)
    "POST /api/v1/corridor-monitors": ("route.origin", "route.destination", "route.via["),
    # parties[i].name: a name with a letter that folds to nothing to screen (a hull prefix such as M/V alone).
    "POST /api/v1/cargo-screenings": ("load_port", "discharge_port", "parties["),
    "POST /api/v1/vessel-monitors": ("imo",),
    "POST /api/v1/fleets": ("imos[",),
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
