"""The running service and its OpenAPI document agree: schemathesis over every operation of
/api/v1/openapi.json, keyed (a pool mixing test and live keys) and keyless, with every check.

Bounded for CI on a 2-core machine (one pass of about two minutes on SQLite): a fixed seed, the
coverage phase on valid input only (its boundary cases of every field; the invalid variants are
what made it slow), few fuzzing examples per operation in both modes, no example database carried
between runs, and a hard time limit. The hooks (tests/platform/schemathesis_hooks.py) spread
requests over the pool of keys and client addresses so the rate limits do not turn every answer into
a 429, give each call an Idempotency-Key of its own so no answer is another call's 409
idempotency_conflict (the run checks none is), and name the rejections a schema cannot foresee.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from accounts.models import Account
from accounts.services import issue_key
from screening import datastate
from tests.support.server import running_service

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent.parent
SEED = 20261008
KEYS_PER_ENVIRONMENT = 12  # 24 keys x 120 requests a minute each: more than two workers send
FUZZING_EXAMPLES = 8  # per operation, positive and negative
RUN_BUDGET_SECONDS = 240  # a run that overstays is a failure, not a hang

# Every check runs on every operation (ignored_auth skips the keyless ones itself: they declare no
# security). The one widening, 422 on schema-valid input, is narrowed again by the hooks' check.
CONFIG = f"""
seed = {SEED}
max-failures = 50
workers = 2

[generation]
database = "none"
max-examples = {FUZZING_EXAMPLES}

[phases.coverage.generation]
mode = "positive"

[phases.stateful]
enabled = false

[checks.positive_data_acceptance]
# 422 on schema-valid input is allowed only where the hooks' check
# rejects_schema_valid_input_only_for_state_dependent_fields agrees (a cursor the API did not issue,
# a port it does not carry, ...); any other 422 on valid input still fails the run.
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
"""


def _warm_up(url: str, key: str) -> None:
    """First calls load the port network and the export-control tables; a cold load is not what the
    response-time check measures."""
    import json
    import urllib.request

    bodies = {
        "/api/v1/voyage-assessments": {"route": {"origin": "NLRTM", "destination": "SGSIN"}},
        "/api/v1/cargo-screenings": {
            "origin_country": "NL",
            "destination_country": "SG",
            "load_port": "NLRTM",
            "discharge_port": "SGSIN",
            "commodity": {"description": "pumps", "hs_code": "8413"},
            "parties": [{"role": "consignee", "name": "Warm Up Trading"}],
        },
    }
    for path, body in bodies.items():
        request = urllib.request.Request(
            f"{url}{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "Authorization": f"Bearer {key}",
                "Idempotency-Key": f"warm-up{path}",
                "Content-Type": "application/json",
                "X-Forwarded-For": "10.255.255.254",
            },
        )
        try:
            urllib.request.urlopen(request, timeout=120).read()
        except OSError:
            pass  # a refusal still loaded what the operation reads


def _keys() -> list[str]:
    """Test and live keys, interleaved, of one paid account opened before 2026-10 (a monthly allowance,
    no free-account pause); the hooks take live ones for live-only operations."""
    raws = [
        issue_key(email="schemathesis@example.com", environment=environment, plan="paid", opened_on=date(2026, 9, 1))[2]
        for _ in range(KEYS_PER_ENVIRONMENT)
        for environment in ("test", "live")
    ]
    Account.objects.filter(email="schemathesis@example.com").update(pilot_screening_total=1_000_000)
    return raws


def _schemathesis(url: str, keys: list[str], config: Path, report: Path, responses: Path) -> tuple[int, str]:
    config.write_text(CONFIG)
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.platform.schemathesis_hooks",
        "SCHEMATHESIS_KEYS": ",".join(keys),
        "SCHEMATHESIS_RESPONSE_LOG": str(responses),
        "PYTHONPATH": str(ROOT),
    }
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color", "run",
        f"{url}/api/v1/openapi.json", "--checks", "all", "--phases", "examples,coverage,fuzzing",
        "--request-timeout", "30", "--max-response-time", "15", "--output-truncate", "false",
        "--report", "junit", "--report-junit-path", str(report),
    ]  # fmt: skip
    try:
        finished = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_BUDGET_SECONDS
        )
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout.decode(errors="replace") if isinstance(expired.stdout, bytes) else expired.stdout
        pytest.fail(f"schemathesis ran past {RUN_BUDGET_SECONDS} s:\n{(output or '')[-4000:]}")
    return finished.returncode, finished.stdout + finished.stderr


def test_every_operation_answers_as_its_openapi_document_says(tmp_path, django_db_blocker):
    call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    datastate.invalidate()
    keys = _keys()
    server_env = {
        # As behind one proxy: the harness gives each keyless request an address of its own.
        "TRUSTED_PROXY_COUNT": "1",
        # A folder of this run's own for the broker (nothing here runs a worker) and export files;
        # the same secret as this process, so the keys issued above verify on the server.
        "SERVICE_VAR_DIR": str(tmp_path / "var"),
        "SECRET_KEY": settings.SECRET_KEY,
    }
    responses = tmp_path / "responses.jsonl"
    with django_db_blocker.unblock(), running_service(server_env) as url:
        _warm_up(url, keys[0])
        code, output = _schemathesis(
            url, keys, tmp_path / "schemathesis.toml", tmp_path / "schemathesis.xml", responses
        )
    assert code == 0, output[-12000:]
    conflicts = _idempotency_conflicts(responses)
    # Each call carries a key of its own (the hooks' before_call): a conflict means a generated key was
    # reused with another body, and the operation behind it was not tested.
    assert not conflicts, f"{sum(conflicts.values())} answers were 409 idempotency_conflict: {conflicts}"


def _idempotency_conflicts(responses: Path) -> Counter:
    """409 idempotency_conflict answers per operation, from the hooks' response log."""
    rows = [json.loads(line) for line in responses.read_text().splitlines()] if responses.exists() else []
    assert rows, "the hooks logged no answer"
    return Counter(row["operation"] for row in rows if row["code"] == "idempotency_conflict")
