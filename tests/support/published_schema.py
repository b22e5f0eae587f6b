"""Responses checked against the served OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 is)."""

from __future__ import annotations

from dataclasses import dataclass, field

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DOCUMENT_URI = "urn:service:openapi"


def _pointer(*parts: str) -> str:
    return "/".join(part.replace("~", "~0").replace("/", "~1") for part in parts)


@dataclass
class Published:
    """The served document, and every response checked against it."""

    document: dict
    exercised: set[tuple[str, str]] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(DOCUMENT_URI, resource)

    def check(self, template: str, method: str, response) -> dict:  # type: ignore[no-untyped-def]
        """Validate `response` against the schema `template` `method` publishes for its status."""
        self.exercised.add((template, method))
        status = str(response.status_code)
        label = f"{method.upper()} {template} -> {status}"
        operation = self.document["paths"].get(template, {}).get(method)
        if operation is None:
            self.failures.append(f"{label}: operation not published")
            return {}
        if status not in operation["responses"]:
            self.failures.append(f"{label}: status not documented ({sorted(operation['responses'])})")
            return {}
        content = operation["responses"][status].get("content", {})
        if "application/json" not in content:
            self.failures.append(f"{label}: no application/json body documented")
            return {}
        body = response.json()
        pointer = _pointer("paths", template, method, "responses", status, "content", "application/json", "schema")
        validator = Draft202012Validator(
            {"$ref": f"{DOCUMENT_URI}#/{pointer}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        for error in validator.iter_errors(body):
            where = "/".join(str(p) for p in error.absolute_path) or "(body)"
            self.failures.append(f"{label}: {where}: {error.message[:300]}")
        return body

    @classmethod
    def served_by(cls, client) -> Published:  # type: ignore[no-untyped-def]
        response = client.get("/api/v1/openapi.json")
        assert response.status_code == 200
        return cls(response.json())
