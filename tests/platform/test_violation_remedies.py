"""Contract part 7: every field violation names the call that resolves it (urgent issue 25, item 7).

Walks the published OpenAPI document and sends each POST and PATCH operation that takes a body
bodies with bad values: an IMO field holding an eight-digit value, every field missing, and every
field of the wrong type. Each violation message that names a call (`<METHOD> /api/v1/...`) must name
the operation it answers: the remedy of a monitor's bad IMO is to resend POST /api/v1/vessel-monitors,
never POST /api/v1/screenings.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from django.core.management import call_command

from screening import datastate, demo

pytestmark = pytest.mark.django_db

BAD_IMO = "93003361"  # eight digits: no 7-digit core to screen (contract 4.3 rule 1)
NAMED_CALL = re.compile(r"\b(GET|POST|PATCH|PUT|DELETE) (/api/v1/[^\s,;:.()]*(?:\.[^\s,;:.()]+)*)")
_keys = itertools.count()


@pytest.fixture(scope="module")
def document(django_db_blocker):  # type: ignore[no-untyped-def]
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _resolve(node: Any, components: dict[str, Any], depth: int = 0) -> Any:
    if depth > 30:
        return {}
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            return _resolve(components[ref.rsplit("/", 1)[1]], components, depth + 1)
        return {key: _resolve(value, components, depth + 1) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve(value, components, depth + 1) for value in node]
    return node


def _body_operations(document: dict) -> list[tuple[str, str, dict]]:
    """(METHOD, path template, request schema) of every POST and PATCH that takes a JSON body."""
    components = document.get("components", {}).get("schemas", {})
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in {"post", "patch"}:
                continue
            schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if schema is not None:
                found.append((method.upper(), path, _resolve(schema, components)))
    return found


def _type(schema: dict) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):  # OpenAPI 3.1: ["string", "null"]
        kind = next((k for k in kind if k != "null"), None)
    return kind


def _variants(schema: dict) -> list[dict]:
    """A schema's alternatives (oneOf/anyOf/allOf), or itself."""
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return [v for v in schema[key] if _type(v) is not None] or [schema]
    if "allOf" in schema:
        merged: dict = {}
        for part in schema["allOf"]:
            merged.update(part)
        return [merged]
    return [schema]


IMO_NAMES = {"imo", "imos", "add_imos", "remove_imos", "vessel_imo"}


def _example(name: str, schema: dict) -> Any:
    """A value of the right type for a required field, so a bad value beside it reaches its own rules."""
    schema = _variants(schema)[0]
    if "const" in schema:
        return schema["const"]
    for key in ("examples", "enum"):
        if schema.get(key):
            return next(value for value in schema[key] if value is not None)
    kind = _type(schema)
    if kind == "object":
        required = schema.get("required", [])
        return {key: _example(key, sub) for key, sub in schema.get("properties", {}).items() if key in required}
    if kind == "array":
        return [_example(name, schema.get("items", {}))]
    if kind == "boolean":
        return True
    if kind in {"integer", "number"}:
        return schema.get("minimum", 1)
    if name in IMO_NAMES or name.endswith("imo"):
        return demo.GREEN_CLEAN
    if name == "url":
        return "https://receiver.invalid/hooks"
    return {"origin": "NLRTM", "destination": "SGSIN"}.get(name, "x")


def _imo_paths(schema: dict, prefix: tuple = (), depth: int = 0) -> list[tuple]:
    """Where a body carries an IMO: ("imo",), ("imos", 0), ("vessel", "imo"), ("items", 0, "imo"), …"""
    if depth > 6:
        return []
    schema = _variants(schema)[0]
    if _type(schema) == "array":
        item = schema.get("items", {})
        if not _variants(item)[0].get("properties") and "{imo" in item.get("description", ""):
            return [(*prefix, 0, "imo")]  # a hull object documented in words (screening batch items)
        return _imo_paths(item, (*prefix, 0), depth + 1)
    paths = []
    for key, sub in schema.get("properties", {}).items():
        if key in IMO_NAMES or key.endswith("_imo"):
            kind = _type(_variants(sub)[0])
            paths.append((*prefix, key, 0) if kind == "array" else (*prefix, key))
        else:
            paths.extend(_imo_paths(sub, (*prefix, key), depth + 1))
    return paths


def _with(body: Any, path: tuple, value: Any) -> Any:
    """`body` with `value` at `path`, making the objects and lists on the way."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(body) if isinstance(body, list) and body else [{}]
        items[0] = _with(items[0] if isinstance(items[0], (dict, list)) else {}, rest, value)
        return items
    merged = dict(body) if isinstance(body, dict) else {}
    merged[head] = _with(merged.get(head, [] if rest and isinstance(rest[0], int) else {}), rest, value)
    return merged


def _field_name(path: tuple) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def _wrong_type(schema: dict) -> Any:
    kind = _type(_variants(schema)[0])
    return {"string": ["not", "a", "string"], "array": "not an array", "object": "not an object"}.get(kind, {"x": 1})


def _probes(schema: dict) -> dict[str, tuple[Any, str | None]]:
    """label: (body, the IMO field the body breaks, if any), for each alternative body (oneOf)."""
    probes: dict[str, tuple[Any, str | None]] = {"no fields": ({}, None)}
    for index, variant in enumerate(_variants(schema)):
        properties = variant.get("properties", {})
        wrong = {key: _wrong_type(sub) for key, sub in properties.items()}
        probes[f"wrong types #{index}"] = (wrong, None)
        base = _example("body", variant)
        for path in _imo_paths(variant):
            field = _field_name(path)
            probes[f"bad IMO in {field} #{index}"] = (_with(base, path, BAD_IMO), field)
    return probes


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


def _send(client, method: str, key: str, path: str, body: Any):  # type: ignore[no-untyped-def]
    call = getattr(client, method.lower())
    return call(
        path,
        data=body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
        HTTP_IDEMPOTENCY_KEY=f"remedy-{next(_keys)}",
    )


@pytest.fixture
def owned(client, issue_key, world):  # type: ignore[no-untyped-def]
    """A live key (every scope) and one resource of each kind an operation's path names."""
    key = issue_key("live", email="remedies@example.com")

    def made(path: str, body: dict) -> str:
        response = _send(client, "POST", key, path, body)
        assert response.status_code in {201, 202}, (path, response.content)
        return response.json()["id"]

    ids = {
        "/api/v1/fleets/{fleet_id}": made("/api/v1/fleets", {"name": "remedies", "imos": [demo.GREEN_CLEAN]}),
        "/api/v1/vessel-monitors/{monitor_id}": made(
            "/api/v1/vessel-monitors", {"imo": demo.GREEN_CLEAN, "mode": "simulation"}
        ),
        "/api/v1/webhook-endpoints/{endpoint_id}": made(
            "/api/v1/webhook-endpoints", {"url": "https://receiver.invalid/hooks"}
        ),
        "/api/v1/match-decisions/{decision_id}": made(
            "/api/v1/match-decisions",
            {
                "imo": demo.AMBER_NAME_ONLY,
                "source": "ofac_sdn",
                "source_record_id": "990002",
                "outcome": "cleared",
                "reason": "remedies",
                "reviewer": "remedies",
            },
        ),  # fmt: skip
    }
    return key, ids


def _concrete(template: str, ids: dict[str, str]) -> str | None:
    for prefix, value in ids.items():
        name = prefix.rsplit("/", 1)[1]
        if template.startswith(prefix):
            return template.replace(name, value)
    return None if "{" in template else template


def _matches(named: str, template: str) -> bool:
    pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template)) + "$"
    return re.match(pattern, named) is not None or named == template


def test_every_violation_names_the_operation_it_answers(client, document, owned):
    key, ids = owned
    operations = _body_operations(document)
    assert ("POST", "/api/v1/vessel-monitors") in {(m, p) for m, p, _ in operations}
    wrong: list[str] = []
    unreached: list[str] = []
    probed_imos = 0
    for method, template, schema in operations:
        path = _concrete(template, ids)
        assert path is not None, f"{method} {template}: no resource to call it on (add one to `owned`)"
        for label, (body, imo_field) in _probes(schema).items():
            response = _send(client, method, key, path, body)
            violations = response.json().get("field_violations", []) if response.status_code == 422 else []
            if imo_field is not None:
                probed_imos += 1
                if not any(v["field"] == imo_field for v in violations):
                    unreached.append(f"{method} {template} ({label}): {response.status_code} {response.content!r}")
            for violation in violations:
                for named_method, named_path in NAMED_CALL.findall(violation["message"]):
                    if named_method != method or not _matches(named_path, template):
                        wrong.append(f"{method} {template} ({label}) {violation['field']}: {violation['message']}")
    assert probed_imos >= 6, f"only {probed_imos} IMO fields found in the published request bodies"
    assert not unreached, "a bad IMO did not reach the IMO rules:\n" + "\n".join(unreached)
    assert not wrong, "violations naming another operation than their own:\n" + "\n".join(wrong)
