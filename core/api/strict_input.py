"""Unknown input is refused, never dropped: a misspelt body field or query parameter is 422
validation_failed naming it (as Stripe answers "Received unknown parameter"), so a typo never
passes silently.

One mechanism for every way input reaches the API:

- `StrictInputSerializer`: the base of every input serializer. A member its fields do not name is
  a violation on that member (`vesel_name`, `commodity.colour`, `parties[1].alias`); nested input
  serializers are strict in turn.
- `refuse_unknown_fields(Serializer, body)`: for a view that hands the raw body to a service which
  validates it by hand (fleets, screening batches): the body is checked against the serializer the
  operation publishes, nested serializers included, before the service sees it.
- `unknown_member_violations(value, known, …)`: the check itself, for hand-written validators
  (a voyage's route, a batch's hull) that build their own violations.
- `refuse_unknown_parameters(query_params, known)`: query parameters. `metering.api.base.KeyedAPIView`
  calls it before every keyed GET runs, with the query parameters the operation publishes, so a read
  of one object refuses `?bogus=1` as a list does; `core.api.filters.read_filters` calls it with the
  list's filter fields (`unknown_parameters` for a view answering its own 422). `?format=` (DRF's
  URL_FORMAT_OVERRIDE, which picks the renderer) is always known.
- `close_request_bodies`: the drf-spectacular postprocessing hook publishing the rule: every object
  a request body declares the properties of is `additionalProperties: false`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.settings import api_settings


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def unknown_field_message(name: str, known: Iterable[str], *, what: str = "field") -> str:
    """`vesel_name` → "unknown field vesel_name: this request takes imo, vessel_name, …; did you mean vessel_name?"."""
    names = sorted(known)
    takes = ", ".join(names) if names else f"no {what}"
    shown = name or '""'  # an empty member name, shown as such
    return f"unknown {what} {shown}: this request takes {takes}{_did_you_mean(name, names)}"


def unknown_member_violations(
    value: Any, known: Iterable[str], *, prefix: str = "", resend: str = ""
) -> list[dict[str, str]]:
    """A violation for each member of the object `value` that `known` does not name (none when `value`
    is not an object: its type is the validator's to refuse). Fields are named `prefix.member`;
    `resend` ("correct it and resend POST /api/v1/…") closes each message."""
    if not isinstance(value, Mapping):
        return []
    names = set(known)
    violations = []
    for name in value:
        if name in names:
            continue
        message = unknown_field_message(str(name), names)
        violations.append(
            {
                "field": f"{prefix}.{name}" if prefix else str(name),
                "message": f"{message} — {resend}." if resend else f"{message}.",
            }
        )
    return violations


def _input_names(serializer: serializers.Serializer) -> list[str]:
    return [name for name, field in serializer.fields.items() if not field.read_only]


# No docstring: drf-spectacular would publish it as the description of every input serializer without one.
class StrictInputSerializer(serializers.Serializer):
    # An input serializer that refuses members it does not declare (422 naming each), alongside any
    # other violation of the same body.

    def to_internal_value(self, data: Any) -> Any:
        known = _input_names(self)
        unknown = {
            str(name): [unknown_field_message(str(name), known)]
            for name in (data if isinstance(data, Mapping) else ())
            if name not in known
        }
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


def _unknown_detail(serializer: serializers.Serializer, data: Any) -> dict[str, Any]:
    """DRF-shaped errors for every unknown member of `data`, following nested serializers."""
    if not isinstance(data, Mapping):
        return {}
    known = _input_names(serializer)
    detail: dict[str, Any] = {}
    for name, value in data.items():
        field = serializer.fields.get(name)
        if name not in known or field is None:
            detail[str(name)] = [unknown_field_message(str(name), known)]
            continue
        if isinstance(field, serializers.ListSerializer) and isinstance(field.child, serializers.Serializer):
            child: serializers.Field | None = field.child
        elif isinstance(field, serializers.ListField) and isinstance(field.child, serializers.Serializer):
            child = field.child
        else:
            child = None
        if child is not None and isinstance(value, list):
            items = [_unknown_detail(child, item) for item in value]  # type: ignore[arg-type]
            if any(items):
                detail[str(name)] = items
        elif isinstance(field, serializers.Serializer):
            nested = _unknown_detail(field, value)
            if nested:
                detail[str(name)] = nested
    return detail


def _flatten(detail: Any, prefix: str) -> list[tuple[str, str]]:
    if isinstance(detail, dict):
        return [pair for name, sub in detail.items() for pair in _flatten(sub, f"{prefix}.{name}" if prefix else name)]
    if detail and all(isinstance(item, str) for item in detail):
        return [(prefix, item) for item in detail]
    return [pair for index, sub in enumerate(detail) for pair in _flatten(sub, f"{prefix}[{index}]") if sub]


def unknown_field_violations(
    serializer_class: type[serializers.Serializer], data: Any, *, prefix: str = "", resend: str = ""
) -> list[dict[str, str]]:
    """As `refuse_unknown_fields`, as violations for a hand-written validator: fields named `prefix.…`,
    `resend` ("correct it and resend POST /api/v1/…") closing each message."""
    return [
        {"field": field, "message": f"{message} — {resend}." if resend else f"{message}."}
        for field, message in _flatten(_unknown_detail(serializer_class(), data), prefix)
    ]


def refuse_unknown_fields(serializer_class: type[serializers.Serializer], data: Any) -> None:
    """422 validation_failed naming every member of the body `data` that the operation's published
    input serializer does not declare, nested serializers included; nothing when all are known."""
    detail = _unknown_detail(serializer_class(), data)
    if detail:
        raise serializers.ValidationError(detail)


def unknown_parameters(query_params: Any, known: Iterable[str]) -> dict[str, str]:
    """Each query parameter not in `known`, with the message naming it (`?format=`, which picks the
    renderer, is always known)."""
    names = set(known)
    accepted = names | {api_settings.URL_FORMAT_OVERRIDE}
    return {
        name: unknown_field_message(name, names, what="query parameter")
        for name in query_params.keys()
        if name not in accepted
    }


def refuse_unknown_parameters(query_params: Any, known: Iterable[str]) -> None:
    """422 validation_failed naming every query parameter not in `known` (`?format=` aside)."""
    unknown = unknown_parameters(query_params, known)
    if unknown:
        raise serializers.ValidationError({name: [message] for name, message in unknown.items()})


# --- publishing the rule ----------------------------------------------------------------------


# What core.api.openapi.add_shared_components gives an object that does not say whether it takes other
# members (any storable JSON): this hook closes such an object whichever of the two runs first.
_STORABLE_MEMBERS = {"$ref": "#/components/schemas/StorableJson"}


def _close(schema: Any, components: Mapping[str, Any], seen: set[str]) -> None:
    """Close every object schema under `schema` that lists its properties (following $refs once)."""
    if isinstance(schema, list):
        for part in schema:
            _close(part, components, seen)
        return
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[-1]
        if name not in seen and name in components:
            seen.add(name)
            _close(components[name], components, seen)
    if "properties" in schema and schema.get("additionalProperties", True) in (True, _STORABLE_MEMBERS):
        schema["additionalProperties"] = False
    for key in ("properties", "patternProperties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            _close(sub, components, seen)
    for key in ("items", "prefixItems", "oneOf", "anyOf"):
        _close(schema.get(key), components, seen)
    parts = schema.get("allOf") or []
    if len(parts) == 1:
        _close(parts[0], components, seen)
    # Several allOf parts are one object between them: closing each would refuse the others' members.


def close_request_bodies(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry: every request body object that names its members is
    published `additionalProperties: false` (the server refuses any other member: 422 naming it)."""
    components = result.get("components", {}).get("schemas", {})
    seen: set[str] = set()
    for path_item in (result.get("paths") or {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict):
                continue
            for media in ((operation.get("requestBody") or {}).get("content") or {}).values():
                _close(media.get("schema"), components, seen)
    return result
