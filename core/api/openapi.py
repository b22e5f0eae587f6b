"""OpenAPI pieces shared by every operation: the error envelope and the errors any
operation can return, added in one post-processing hook instead of per view; and the tags and
x-tagGroups that order the reference page's sidebar (group_operations)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typeshed describes re's private parser modules only under their deprecated aliases
    import sre_constants as _sre
    import sre_parse as _sre_parser
else:
    from re import _constants as _sre
    from re import _parser as _sre_parser

from drf_spectacular.drainage import warn
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.api.fields import StrictStringField
from core.api.idempotency_keys import MAX_KEY_LENGTH

ERROR_REF = {"$ref": "#/components/schemas/ErrorEnvelope"}

ERROR_DESCRIPTIONS = {
    400: "invalid_json (body not valid JSON), missing_idempotency_key, bad_request",
    401: "No key, malformed key, wrong prefix for environment, revoked, expired or inactive entitlement.",
    402: "quota_exhausted: nothing ran, nothing charged.",
    403: "insufficient_scope, ip_not_allowed, environment_not_allowed.",
    404: "not_found: unknown endpoint or resource id (including another environment's).",
    405: "method_not_allowed.",
    409: "idempotency_conflict or idempotency_in_progress.",
    413: "request_too_large.",
    415: "unsupported_media_type: send application/json.",
    422: "validation_failed with field_violations.",
    429: "rate_limit_exceeded, concurrency_limit or service_concurrency_limit.",
    500: "internal_error: temporary failure; retry only replay-safe requests.",
    503: "api_paused or a temporary outage; honor Retry-After.",
}


_ERROR_ENVELOPE_REF = inline_serializer(
    name="ErrorEnvelopeRef",
    fields={
        "code": serializers.CharField(),
        "message": serializers.CharField(),
        "request_id": serializers.CharField(),
    },
)


def error_response(status: int, description: str | None = None) -> OpenApiResponse:
    """For @extend_schema(responses=...): an error answered in the envelope."""
    return OpenApiResponse(
        response=_ERROR_ENVELOPE_REF, description=description or ERROR_DESCRIPTIONS.get(status, "Error")
    )


class DeletedSchema(serializers.Serializer):
    """What a DELETE answers: the id and deleted true."""

    id = serializers.CharField()
    deleted = serializers.BooleanField()


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description=f"Any string of 1 to {MAX_KEY_LENGTH} characters, not all blank, unique per distinct request; "
    "a retry under it replays.",
)

# What metering.idempotency accepts as a key: 1 to 255 characters, at least one not blank (a blank or
# over-long key is 400 invalid_idempotency_key). Set on every Idempotency-Key parameter by the hook.
IDEMPOTENCY_KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": r"\S"}

# The keyless lane's error body: the envelope plus how to use the lane and an example. usage and
# example are absent when the request is refused before the keyless lane reads it (a body or query
# the shared middleware refuses answers in the plain envelope).
KEYLESS_ERROR = inline_serializer(
    name="KeylessError",
    fields={
        "code": serializers.CharField(),
        "message": serializers.CharField(),
        "request_id": serializers.CharField(),
        "field_violations": serializers.ListField(child=serializers.DictField(), required=False),
        "usage": serializers.DictField(required=False),
        "example": serializers.DictField(required=False),
    },
)


def creating_operation(
    *,
    operation_id: str,
    summary: str,
    request: Any,
    responses: dict[int, Any],
    metered: bool = False,
    error_notes: dict[int, str] | None = None,
) -> Any:
    """@extend_schema for a creating POST: the Idempotency-Key header, and the errors every
    creating (and, when `metered`, every charging) operation can return, added by the hook."""
    documented = dict(responses)
    for status, note in (error_notes or {}).items():
        documented[status] = error_response(status, note)
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        request=request,
        parameters=[IDEMPOTENCY_KEY],
        responses=documented,
        extensions={"x-metered": True} if metered else None,
    )


def _envelope_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["code", "message", "request_id"],
        "properties": {
            "code": {"type": "string", "description": "Stable machine-readable error code."},
            "message": {"type": "string", "description": "Human-readable explanation."},
            "request_id": {"type": "string", "description": "Echoes X-Request-Id."},
            "field_violations": {
                "type": "array",
                "description": "Present on validation_failed; each names the field and the call that resolves it.",
                "items": {
                    "type": "object",
                    "required": ["field", "message"],
                    "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
    }


def _error_content() -> dict[str, Any]:
    return {"application/json": {"schema": ERROR_REF}}


# Fields kept for compatibility during their deprecation window (contract part 9.2).
DEPRECATED_PROPERTIES = frozenset({"source_status"})


# Stored records answered on retrieval (contract 2.3 and 9.4): a record replays as it was issued,
# so a record stored before a field existed lacks it. Nothing these schemas reach is required.
STORED_RECORD_SCHEMAS = ("ScreeningRecordSchema", "AssessmentSchema")
OPTIONAL_ON_RETRIEVAL = (
    " Every field is optional on retrieval: a stored record replays as it was issued, so records "
    "stored before a field existed lack it (contract 2.3, 9.4)."
)


def _component_refs(node: Any) -> set[str]:
    """Names of the components `node` refers to, at any depth."""
    if isinstance(node, dict):
        found = set()
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[-1])
        for value in node.values():
            found |= _component_refs(value)
        return found
    if isinstance(node, list):
        return set().union(*(_component_refs(value) for value in node)) if node else set()
    return set()


def _drop_required(node: Any) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("required"), list):
            del node["required"]
        for value in node.values():
            _drop_required(value)
    elif isinstance(node, list):
        for value in node:
            _drop_required(value)


def make_records_optional_on_retrieval(schemas: dict[str, Any]) -> None:
    """No field of a stored record, nor of anything nested in it (matches, vetting, ...), is required."""
    pending = [name for name in STORED_RECORD_SCHEMAS if name in schemas]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        _drop_required(schemas[name])
        pending.extend(_component_refs(schemas[name]) - seen)
    for name in STORED_RECORD_SCHEMAS:
        if name in schemas:
            schemas[name]["description"] = (schemas[name].get("description", "") + OPTIONAL_ON_RETRIEVAL).strip()


# Bodies drf-spectacular publishes as optional that the server requires: a PATCH (an absent body reads
# as {}, which names nothing to change: 422 on body) and the export's request, one body per resource.
BODY_REQUIRED = (("/api/v1/fleets/{fleet_id}", "patch"), ("/api/v1/exports", "post"))


def add_shared_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular post-processing hook."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["ErrorEnvelope"] = _envelope_schema()
    schemas[STORABLE_JSON] = _storable_json_schema()
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                for media in operation["requestBody"].get("content", {}).values():
                    refuse_unstorable_text(media.get("schema", {}), schemas, set())
    for path, method in BODY_REQUIRED:
        body = result.get("paths", {}).get(path, {}).get(method, {}).get("requestBody")
        if body is not None:
            body["required"] = True
    schemas.pop("ErrorEnvelopeRef", None)
    make_records_optional_on_retrieval(schemas)
    for schema in schemas.values():
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        for name in DEPRECATED_PROPERTIES & set(properties):
            properties[name]["deprecated"] = True
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            keyed = bool(operation.get("security")) and any("BearerKey" in s for s in operation["security"])
            common = [404, 500] + ([401, 403, 429, 503] if keyed else [])
            if method in {"post", "put", "patch"}:
                common += [400, 413, 415, 422]
            if any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", [])):
                common += [400, 409]  # a missing or empty key is 400, on a DELETE too
            if operation.pop("x-metered", False):
                common += [402]
            if any(p.get("in") == "query" for p in operation.get("parameters", [])):
                common += [422]
            for parameter in operation.get("parameters", []):
                describe_parameter(path, parameter)
            for status in common:
                responses.setdefault(str(status), {"description": ERROR_DESCRIPTIONS[status]})
            for status, response in responses.items():
                if status.isdigit() and int(status) >= 400:
                    if "content" not in response or _is_envelope_ref(response):
                        response["content"] = _error_content()
                    response.setdefault("description", ERROR_DESCRIPTIONS.get(int(status), "Error"))
    return result


# Operations whose query parameters are not read by core.api.filters.read_filters (which treats
# `?name=` with an empty value as absent): each reads its own and refuses an empty value.
OWN_QUERY_READERS = frozenset({"/api/v1/ports"})


def describe_parameter(path: str, parameter: dict[str, Any]) -> None:
    """What the server accepts for a parameter that drf-spectacular cannot tell from the view."""
    if parameter.get("in") == "header" and parameter.get("name") == "Idempotency-Key":
        parameter["schema"] = dict(IDEMPOTENCY_KEY_SCHEMA)
    elif parameter.get("in") == "query" and not parameter.get("required") and path not in OWN_QUERY_READERS:
        # read_filters ignores an empty value, so `?status=` lists as if no status were sent.
        parameter["allowEmptyValue"] = True


def _is_envelope_ref(response: dict[str, Any]) -> bool:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    return schema.get("$ref", "").endswith("/ErrorEnvelopeRef")


class ClosedSerializer(serializers.Serializer):
    """A payload whose fields are exactly those listed (published with additionalProperties: false)."""


class _ClosedSerializerExtension(OpenApiSerializerExtension):
    target_class = ClosedSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> dict:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema


class _StrictStringFieldExtension(OpenApiSerializerFieldExtension):
    """StrictStringField refuses control characters: the published string says so in its pattern."""

    target_class = StrictStringField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        _STRICT_SUBCLASS_PATTERNS.add(self.target.published_pattern)
        _add_pattern(schema, self.target.published_pattern)
        if direction == "request" and not self.target.allow_blank and self.target.trim_whitespace:
            # DRF trims the value and refuses what is left blank: at least one character not whitespace.
            _add_pattern(schema, NOT_BLANK)
        return schema


NOT_BLANK = "\\S"


# Unicode category Cc (what StrictStringField refuses): C0 controls, DEL and C1 controls.
NO_CONTROL_CHARACTERS = StrictStringField.published_pattern
# core.api.parsers refuses U+0000 anywhere in a body, in any string and any member name, known
# field or not (PostgreSQL text and jsonb cannot hold it): 422 validation_failed naming the field.
NO_NUL = "^[^\\x00]*$"
STORABLE_JSON = "StorableJson"
_STORABLE_REF = {"$ref": f"#/components/schemas/{STORABLE_JSON}"}


def _storable_json_schema() -> dict[str, Any]:
    return {
        "description": "Any JSON value without U+0000 in its strings or member names.",
        "anyOf": [
            {"type": "string", "pattern": NO_NUL},
            {"type": ["number", "boolean", "null"]},
            {"type": "array", "items": dict(_STORABLE_REF)},
            {"type": "object", "propertyNames": {"pattern": NO_NUL}, "additionalProperties": dict(_STORABLE_REF)},
        ],
    }


def _add_pattern(schema: dict[str, Any], pattern: str) -> None:
    if "pattern" not in schema:
        schema["pattern"] = pattern
    elif (
        schema["pattern"] != pattern
        and not _excludes_control_characters(schema["pattern"])
        and not (pattern == NO_NUL and any(_refuses_nul(known) for known in _patterns(schema)))
        and {"pattern": pattern} not in schema.get("allOf", [])  # a schema shared by several fields: once
    ):
        schema.setdefault("allOf", []).append({"pattern": pattern})


def _patterns(schema: dict[str, Any]) -> list[str]:
    """The patterns a string must match: its own and those of its allOf."""
    found = [schema["pattern"]] if "pattern" in schema else []
    return found + [part["pattern"] for part in schema.get("allOf", []) if isinstance(part, dict) and "pattern" in part]


def _refuses_nul(pattern: str) -> bool:
    """True when no string holding U+0000 matches `pattern`: anchored at both ends (^...$) and built only
    of pieces that cannot match U+0000 (such as ^[A-Z]{2}[A-Z2-9]{3}$). A second pattern saying so again
    would only make generators filter (an allOf of patterns inside a oneOf is not merged)."""
    try:
        # A SubPattern iterates through __getitem__ (no __iter__), which the checker does not count as iterable.
        parsed = list(_sre_parser.parse(pattern))  # type: ignore[call-overload]
    except re.error:
        return False
    anchored = (
        len(parsed) >= 2
        and parsed[0] == (_sre.AT, _sre.AT_BEGINNING)
        and parsed[-1] in ((_sre.AT, _sre.AT_END), (_sre.AT, _sre.AT_END_STRING))
    )
    return anchored and not _may_match_nul(parsed)


def _may_match_nul(items: Any) -> bool:
    for op, argument in items:
        if op == _sre.AT:
            continue
        if op == _sre.LITERAL:
            if argument == 0:
                return True
        elif op == _sre.NOT_LITERAL:
            if argument != 0:
                return True
        elif op == _sre.IN:
            if _set_may_match_nul(argument):
                return True
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            if _may_match_nul(argument[2]):
                return True
        elif op == _sre.SUBPATTERN:
            if _may_match_nul(argument[-1]):
                return True
        elif op == _sre.BRANCH:
            if any(_may_match_nul(branch) for branch in argument[1]):
                return True
        else:
            return True  # ANY, and whatever is not analysed here: assume it may
    return False


_NUL_FREE_CATEGORIES = frozenset({_sre.CATEGORY_DIGIT, _sre.CATEGORY_SPACE, _sre.CATEGORY_WORD})
_NUL_HOLDING_CATEGORIES = frozenset({_sre.CATEGORY_NOT_DIGIT, _sre.CATEGORY_NOT_SPACE, _sre.CATEGORY_NOT_WORD})


def _set_may_match_nul(members: Any) -> bool:
    negated = bool(members) and members[0][0] == _sre.NEGATE
    holds_nul = False
    for op, argument in members[1:] if negated else members:
        if op == _sre.LITERAL:
            holds_nul = holds_nul or argument == 0
        elif op == _sre.RANGE:
            holds_nul = holds_nul or argument[0] == 0
        elif op == _sre.CATEGORY and argument in _NUL_FREE_CATEGORIES | _NUL_HOLDING_CATEGORIES:
            holds_nul = holds_nul or argument in _NUL_HOLDING_CATEGORIES
        else:
            return True  # not analysed here: assume it may
    return holds_nul != negated


def _excludes_control_characters(pattern: str) -> bool:
    """Patterns published for StrictStringField and its subclasses refuse U+0000 already."""
    return pattern == NO_CONTROL_CHARACTERS or pattern in _STRICT_SUBCLASS_PATTERNS


_STRICT_SUBCLASS_PATTERNS: set[str] = set()


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    return set(declared) if isinstance(declared, list) else {declared} if declared else set()


_COMBINATORS = ("oneOf", "anyOf", "allOf", "prefixItems")


def refuse_unstorable_text(schema: Any, schemas: dict[str, Any], seen: set[str]) -> None:
    """Publish the parser's rule on a request body schema: no U+0000 in any string or member name.

    Declared strings get a pattern, objects a propertyNames pattern and, where they take members
    they do not list, members of StorableJson (core.api.strict_input then closes every object that lists its
    properties: unknown fields are refused); a schema that
    allows any value becomes StorableJson. Request components are separate from response ones
    (COMPONENT_SPLIT_REQUEST), so responses are untouched.
    """
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[-1]
        if name not in seen and name != STORABLE_JSON:
            seen.add(name)
            refuse_unstorable_text(schemas.get(name), schemas, seen)
        return
    types = _types(schema)
    shaped = types or any(
        key in schema for key in (*_COMBINATORS, "enum", "const", "properties", "items", "pattern", "not", "required")
    )
    if not shaped:
        schema["allOf"] = [*schema.get("allOf", []), dict(_STORABLE_REF)]
        return
    if "string" in types and "enum" not in schema and "const" not in schema:
        _add_pattern(schema, NO_NUL)
    if "object" in types or "properties" in schema:
        schema["propertyNames"] = {"pattern": NO_NUL}
        extra = schema.get("additionalProperties", True)
        if extra is True:
            schema["additionalProperties"] = dict(_STORABLE_REF)
        else:
            refuse_unstorable_text(extra, schemas, seen)
        for member in schema.get("properties", {}).values():
            refuse_unstorable_text(member, schemas, seen)
    if "items" in schema:
        refuse_unstorable_text(schema["items"], schemas, seen)
    for combinator in _COMBINATORS:
        for option in schema.get(combinator, []):
            refuse_unstorable_text(option, schemas, seen)


# -- the reference page's sidebar: tags and x-tagGroups -------------------------------------------

# Operation groups in sidebar order: (group, ((first path segment after /api/v1/, tag, description), ...)).
# Every operation is tagged by its path, so a view needs no tags of its own.
OPERATION_GROUPS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "Screening",
        (
            (
                "vessels",
                "Vessels",
                "Check one hull by IMO number without a key (100 an hour per address); with a key, what the "
                "hull's AIS shows (dark periods, ship-to-ship meetings, identity changes, spoofing, port calls).",
            ),
            ("screenings", "Screenings", "Screen a hull by IMO number against the sanctions lists; read records back."),
            ("screening-batches", "Screening batches", "Screen up to 50 hulls asynchronously and poll the batch."),
            (
                "cargo-screenings",
                "Cargo screenings",
                "Screen a cargo: parties, countries, ports, commodity and vessel.",
            ),
            ("match-decisions", "Match decisions", "Record, list and revoke a reviewer's decision on a match."),
        ),
    ),
    (
        "Voyages",
        (
            ("voyage-assessments", "Voyage assessments", "Assess the risk of a voyage between two ports."),
            (
                "voyage-assessment-batches",
                "Voyage batches",
                "Assess up to 10 routes asynchronously; poll the batch.",
            ),
            ("ports", "Ports", "Resolve a port name or UN/LOCODE to routable ports (keyless)."),
        ),
    ),
    (
        "Monitoring",
        (
            ("vessel-monitors", "Vessel monitors", "Watch a hull: re-screened every 24 hours, events when it changes."),
            (
                "corridor-monitors",
                "Corridor monitors",
                "Watch a route: recomputed every 6 hours, events on a change.",
            ),
            ("fleets", "Fleets", "Group hulls into fleets; read their exposure and a feed of verdict moves."),
        ),
    ),
    (
        "Events",
        (
            (
                "webhook-endpoints",
                "Webhook endpoints",
                "Register where events are sent; rotate secrets; test.",
            ),
            ("webhook-deliveries", "Webhook deliveries", "Every delivery of an event, its attempts, and redelivery."),
        ),
    ),
    (
        "Account",
        (
            ("usage", "Usage", "The key's entitlement limits and current consumption."),
            ("access-log", "Access log", "Every call made with the account's keys in the key's environment."),
            ("exports", "Exports", "Export screenings, cargo screenings or the access log as a file."),
        ),
    ),
)

# The webhooks section after the operations: (event type prefix, tag, description), the first that matches.
WEBHOOK_GROUP = "Webhooks"
EVENT_TAGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("screening.", "screening_batch."), "Screening events", "A screening answered, left unresolved, a batch ended."),
    (
        ("vessel_monitor.", "vessel_risk.", "vessel_data.", "vessel_behaviour.", "corridor_", "sanctions_list."),
        "Monitoring events",
        "What vessel and corridor monitors notice, and new editions of the sanctions lists.",
    ),
    (("voyage_batch.",), "Voyage events", "A voyage assessment batch ended."),
    (("usage.", "export."), "Account events", "The allowance nearly used; an export's file written."),
    (("webhook.",), "Test event", "The signed test delivery an endpoint can ask for."),
)
UNGROUPED = "Other"


def _operation_tag(path: str) -> tuple[str, str, str] | None:
    segment = path.removeprefix("/api/v1/").split("/", 1)[0]
    for group, tags in OPERATION_GROUPS:
        for prefix, name, description in tags:
            if prefix == segment:
                return group, name, description
    return None


def _event_tag(event_type: str) -> tuple[str, str] | None:
    for prefixes, name, description in EVENT_TAGS:
        if event_type.startswith(prefixes):
            return name, description
    return None


def group_operations(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular post-processing hook: every operation and webhook gets a described tag, and
    x-tagGroups orders the sidebar: the operation groups first, the webhooks after. A path or event type
    with no entry above is published under "Other" with a warning (the warnings test then fails)."""
    described: dict[str, dict[str, Any]] = {tag["name"]: tag for tag in result.get("tags", [])}
    grouped: dict[str, list[str]] = {group: [] for group, _ in OPERATION_GROUPS}

    def use(group: str, name: str, description: str) -> str:
        described.setdefault(name, {"name": name, "description": description})
        members = grouped.setdefault(group, [])
        if name not in members:
            members.append(name)
        return name

    for path, operations in result.get("paths", {}).items():
        found = _operation_tag(path)
        if found is None:
            warn(f"{path} is in no group of the reference page: add it to core.api.openapi.OPERATION_GROUPS")
            found = (UNGROUPED, UNGROUPED, "Operations not yet grouped.")
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["tags"] = [use(*found)]
    for event_type, operations in result.get("webhooks", {}).items():
        event = _event_tag(event_type)
        if event is None:
            warn(f"webhook {event_type} is in no group of the reference page: add it to core.api.openapi.EVENT_TAGS")
            event = (f"{UNGROUPED} events", "Events not yet grouped.")
        for operation in operations.values():
            if isinstance(operation, dict):
                operation["tags"] = [use(WEBHOOK_GROUP, *event)]
    declared = [name for _, tags in OPERATION_GROUPS for _, name, _ in tags] + [name for _, name, _ in EVENT_TAGS]
    rank = {name: index for index, name in enumerate(declared)}
    order = [group for group, _ in OPERATION_GROUPS] + [UNGROUPED, WEBHOOK_GROUP]
    groups = [
        {"name": group, "tags": sorted(grouped[group], key=lambda name: rank.get(name, len(rank)))}
        for group in order
        if grouped.get(group)
    ]
    listed = [name for group in groups for name in group["tags"]]
    result["tags"] = [described[name] for name in listed] + [t for n, t in described.items() if n not in listed]
    result["x-tagGroups"] = groups
    return result
