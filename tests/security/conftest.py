"""Shared fixtures of the security tests: the published operations, and one of every resource.

`published_operations` reads the OpenAPI document the service serves, so a newly published operation
is in every walk over "every operation" without anyone adding it here. `owned_resources` creates one
of every id-bearing resource under one live key, through the API itself.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date

import pytest

from screening import demo

GREEN = "9300776"
NORTH_SEA = {"origin": "NLRTM", "destination": "DEHAM"}
RECEIVER_URL = "https://receiver.invalid/hooks"  # .invalid never resolves: saved with a url_warning
SECURITY_MIDDLEWARE = "core.security_headers.SecurityHeadersMiddleware"
UNKNOWN_ID = "xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ"  # an id no resource holds, for operations that need one

_idempotency = itertools.count()


def next_idempotency_key() -> str:
    return f"sec-{next(_idempotency)}"


@dataclass(frozen=True)
class Operation:
    method: str  # lower case, as the document has it
    template: str  # /api/v1/fleets/{fleet_id}
    operation_id: str
    keyed: bool
    path_parameters: tuple[str, ...] = field(default=())

    @property
    def collection(self) -> str:
        """The first segment after /api/v1/: the resource the operation belongs to."""
        return self.template.removeprefix("/api/v1/").split("/", 1)[0]

    def path(self, identifier: str) -> str:
        return re.sub(r"\{[^}]+\}", identifier, self.template)

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.template}"


def read_operations(document: dict) -> list[Operation]:
    found = []
    for template, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            parameters = tuple(p["name"] for p in operation.get("parameters", []) if p["in"] == "path")
            keyed = any("BearerKey" in requirement for requirement in operation.get("security", []))
            found.append(Operation(method, template, operation["operationId"], keyed, parameters))
    return found


@pytest.fixture
def openapi_document(client) -> dict:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def published_operations(openapi_document) -> list[Operation]:
    return read_operations(openapi_document)


@pytest.fixture
def security_headers(settings):
    """The security-headers middleware in place (where settings.MIDDLEWARE does not list it yet)."""
    if SECURITY_MIDDLEWARE not in settings.MIDDLEWARE:
        middleware = list(settings.MIDDLEWARE)
        middleware.insert(middleware.index("django.middleware.security.SecurityMiddleware") + 1, SECURITY_MIDDLEWARE)
        settings.MIDDLEWARE = middleware
    return settings


def send(client, method: str, raw_key: str | None, path: str, body: dict | None = None, **extra):  # type: ignore[no-untyped-def]
    """A keyed request as a client sends it: JSON body and a fresh Idempotency-Key on every write."""
    headers = dict(extra)
    if raw_key is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {raw_key}"
    if method != "get":
        headers.setdefault("HTTP_IDEMPOTENCY_KEY", next_idempotency_key())
        return getattr(client, method)(path, data=body or {}, content_type="application/json", **headers)
    return client.get(path, **headers)


@dataclass
class Tenants:
    owner: str  # live key of the owner's account: every resource below belongs to it
    other_environment: str  # the same account's test key
    other_account: str  # another account's live key
    ids: dict[str, str]  # collection (first path segment) -> the owner's resource id in it


def create_owned_resources(client, raw: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """One of every id-bearing resource under `raw` (a live key), created through the API."""

    def created(path: str, body: dict, status: int) -> str:
        response = send(client, "post", raw, path, body)
        assert response.status_code == status, (path, response.status_code, response.content[:500])
        return response.json()["id"]

    ids = {
        "screenings": created("/api/v1/screenings", {"imo": GREEN}, 201),
        "voyage-assessments": created("/api/v1/voyage-assessments", {"route": NORTH_SEA}, 201),
        "voyage-assessment-batches": created(
            "/api/v1/voyage-assessment-batches", {"routes": [{"route": NORTH_SEA}]}, 202
        ),
        "screening-batches": created("/api/v1/screening-batches", {"items": [{"imo": GREEN}]}, 202),
        "fleets": created("/api/v1/fleets", {"name": "Owner fleet", "imos": [GREEN]}, 201),
        "cargo-screenings": created(
            "/api/v1/cargo-screenings",
            {
                "commodity": {"hs_code": "8471", "description": "Laptop computers"},
                "origin_country": "NL",
                "destination_country": "SG",
                "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
            },
            201,
        ),
        "exports": created("/api/v1/exports", {"resource": "screenings", "format": "csv"}, 202),
        "webhook-endpoints": created("/api/v1/webhook-endpoints", {"url": RECEIVER_URL}, 201),
        "vessel-monitors": created("/api/v1/vessel-monitors", {"imo": GREEN, "mode": "simulation"}, 201),
        "corridor-monitors": created("/api/v1/corridor-monitors", {"route": NORTH_SEA}, 201),
        "match-decisions": created(
            "/api/v1/match-decisions",
            {
                "imo": demo.AMBER_NAME_ONLY,
                "source": "ofac_sdn",
                "source_record_id": "990002",
                "outcome": "cleared",
                "reason": "The owner's review",
                "reviewer": "owner",
            },
            201,
        ),  # fmt: skip
    }
    ids["webhook-deliveries"] = created(f"/api/v1/webhook-endpoints/{ids['webhook-endpoints']}/test", {}, 202)
    return ids


@pytest.fixture
def tenants(demo_world, client) -> Tenants:
    from accounts.services import issue_key

    _, _, owner = issue_key(email="owner@example.com", environment="live", plan="paid", opened_on=date(2026, 11, 1))
    _, _, other_environment = issue_key(email="owner@example.com", environment="test")
    _, _, other_account = issue_key(email="stranger@example.com", environment="live", plan="paid")
    return Tenants(owner, other_environment, other_account, create_owned_resources(client, owner))
