"""MCP tools over the same services as the REST API (contract part 1.8).

`check_vessel` and `find_port` need no key and count against the caller's own keyless
allowance (100 per hour per address), exactly as the REST calls do. The other tools need
`Authorization: Bearer <key>` on the MCP request and pass the keyed lane's rules (rate,
pause, allowed IPs, scope), metering and the access log as the matching REST call would. A
refusal is a tool error whose text starts with the REST error code.

Every tool error starts with an API error code: refusals carry the REST call's code and message;
arguments that do not fit a tool's schema are `validation_failed` naming each argument in our
words; an unknown tool is `not_found`; anything unexpected is `internal_error`. The SDK's and
pydantic's own texts never reach the caller (`VesselToolServer.call_tool`).

Every tool's arguments are closed: an argument the tool does not take is refused with
`validation_failed` naming it and the arguments the tool takes, never ignored, and each input schema
says so (`additionalProperties: false`). Each tool carries honest annotations (readOnlyHint,
destructiveHint, idempotentHint, openWorldHint; keyed_tools.HINTS says how they are chosen).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools.base import Tool
from pydantic import BaseModel, ConfigDict, ValidationError

from core.api.errors import ApiError
from mcp_bridge import keyed_tools
from mcp_bridge.calls import Refusal, ctx_address, ctx_request_id, run_like_a_request
from screening import keyless
from screening.imo import InvalidImoPath, parse_keyless_imo

MCP_VERSION = "2026-10-08"


def _refusal(code: str, message: str) -> Refusal:
    return Refusal(code, message)


KEYLESS_TOOL_NAMES = ("check_vessel", "find_port")

# What each argument must be, in our words (a tool caller sees only this text).
ARGUMENT_RULES = {
    "imo": 'imo must be a string holding the hull\'s 7-digit IMO number, e.g. "9074729"',
    "query": "query must be a string: a port name or UN/LOCODE of 1 to 100 characters",
    "limit": "limit must be a whole number from 1 to {max_limit}",
    "vessel_name": "vessel_name must be a string (the hull's name) or null",
    "include_vetting": "include_vetting must be true or false",
    "customer_reference": "customer_reference must be a string or null",
    "idempotency_key": "idempotency_key must be a string of 1 to 255 characters or null",
    "screening_id": 'screening_id must be a string such as "scr_…"',
    "assessment_id": 'assessment_id must be a string such as "vas_…"',
    "batch_id": 'batch_id must be a string such as "vab_…"',
    "delivery_id": 'delivery_id must be a string such as "whd_…"',
    "monitor_id": 'monitor_id must be a string such as "vmo_…" (vessel) or "cmo_…" (corridor)',
    "decision_id": 'decision_id must be a string such as "mdc_…"',
    "overlap_hours": "overlap_hours must be a whole number from 0 to 168, or null",
    "endpoint_id": 'endpoint_id must be a string such as "whe_…" or null',
    "event_type": "event_type must be an event type such as screening.resolved, or null",
    "status": "status must be a string naming a status, or null",
    "superseded": "superseded must be true, false or null",
    "cursor": "cursor must be the next_cursor string of the previous page, or null",
    "route": 'route must be an object such as {"origin": "NLRTM", "destination": "SGSIN"}',
    "routes": 'routes must be a list of objects such as {"route": {"origin": "NLRTM", "destination": "SGSIN"}}',
    "mode": 'mode must be "live", "simulation" or null',
    "sanctions_status": "sanctions_status must be GREEN, AMBER, RED or INCOMPLETE",
    "ownership_opacity": "ownership_opacity must be LOW, MEDIUM, HIGH or null",
    "vetting_grade": "vetting_grade must be one of A to E, or null",
    "confirmed": "confirmed must be true or false",
    "commodity": 'commodity must be an object such as {"hs_code": "8471", "description": "Laptops"}',
    "origin_country": "origin_country must be an ISO 3166-1 alpha-2 code such as NL",
    "destination_country": "destination_country must be an ISO 3166-1 alpha-2 code such as SG",
    "parties": 'parties must be a list of objects such as {"name": "Acme", "role": "shipper"}',
    "load_port": "load_port must be a UN/LOCODE string or null",
    "discharge_port": "discharge_port must be a UN/LOCODE string or null",
    "vessel": 'vessel must be an object such as {"imo": "9074729"} or null',
    "cargo_screening_id": 'cargo_screening_id must be a string such as "cgs_…"',
    "hs_chapter": "hs_chapter must be a 2-digit HS chapter or null",
    "vessel_imo": "vessel_imo must be a 7-digit IMO or null",
    "degraded": "degraded must be true, false or null",
    "items": 'items must be a list of objects such as {"imo": "9074729"}',
    "name": "name must be a string",
    "imos": "imos must be a list of 7-digit IMO strings",
    "fleet_id": 'fleet_id must be a string such as "flt_…"',
    "as_of": "as_of must be a past date or RFC 3339 timestamp string, or null",
    "source": "source must be a source name such as ofac_sdn",
    "source_record_id": "source_record_id must be the match's source_record_id string",
    "outcome": "outcome must be cleared or confirmed",
    "reason": "reason must be a string",
    "reviewer": "reviewer must be a string naming who decided",
    "expires_at": "expires_at must be an RFC 3339 timestamp string or null",
    "active": "active must be true, false or null",
    "include_geometry": "include_geometry must be true or false",
    "include_behaviour": "include_behaviour must be true or false",
    "from": "from must be an RFC 3339 timestamp string (the window's start) or null",
    "to": "to must be an RFC 3339 timestamp string (the window's end) or null",
    "created_after": "created_after must be an RFC 3339 timestamp string or null",
    "created_before": "created_before must be an RFC 3339 timestamp string or null",
    "coverage_complete": "coverage_complete must be true, false or null",
    "coverage_gaps": "coverage_gaps must be a list of source names or null",
    "add_imos": "add_imos must be a list of 7-digit IMO strings or null",
    "remove_imos": "remove_imos must be a list of 7-digit IMO strings or null",
    "url": "url must be a public https:// URL string",
    "event_types": "event_types must be a list of event types such as vessel_risk.changed, or null",
    "enabled": "enabled must be true, false or null",
    "description": "description must be a string of up to 200 characters or null",
    "resource": "resource must be screenings, screening_evidence, cargo_screenings or access_log",
    "format": "format must be csv, jsonl or zip",
    "filters": 'filters must be an object of the resource\'s list filters such as {"status": "RED"}, or null',
    "export_id": 'export_id must be a string such as "exp_…"',
    "path": "path must be a path prefix string such as /api/v1/screenings, or null",
    "since": "since must be an RFC 3339 timestamp string or null",
    "until": "until must be an RFC 3339 timestamp string or null",
}


def tool_names() -> tuple[str, ...]:
    return (*KEYLESS_TOOL_NAMES, *keyed_tools.TOOLS)


def _unknown_arguments(names: list[str], tool: str, known: Sequence[str]) -> str:
    """The sentence refusing arguments the tool does not take, with the arguments it does take."""
    listed = ", ".join(names)
    subject = f"{listed} is not an argument" if len(names) == 1 else f"{listed} are not arguments"
    takes = f"it takes {', '.join(known)}" if known else "it takes no arguments"
    return f"{subject} of {tool or 'this tool'}: {takes}"


def argument_violations(error: ValidationError, tool: str = "", known: Sequence[str] = ()) -> str:
    """One sentence per argument that failed the tool's schema, naming the argument; one sentence naming
    every argument the tool does not take (`tool` and its `known` arguments name the remedy)."""
    parts: list[str] = []
    unknown: list[str] = []
    for item in error.errors():
        loc = item.get("loc") or ()
        name = str(loc[0]) if loc else ""
        if item.get("type") == "extra_forbidden" and name:
            if name not in unknown:
                unknown.append(name)
            continue
        rule = ARGUMENT_RULES.get(name, f"{name} must be as the tool's input schema describes it" if name else "")
        if "{max_limit}" in rule:
            # lazy: voyages.ports brings shapely, the land mask and pycountry (~30-45 ms); the MCP process
            # starts without them and loads them on the first port tool call
            from voyages.ports import MAX_LIMIT

            rule = rule.format(max_limit=MAX_LIMIT)
        if not rule:
            rule = "the arguments must be a JSON object of the tool's named arguments"
        missing = item.get("type") == "missing"
        text = f"{name} is missing: {rule}" if missing and name else rule
        if text not in parts:
            parts.append(text)
    if unknown:
        parts.insert(0, _unknown_arguments(unknown, tool, known))
    return "; ".join(parts) + "."


def _api_error_of(exc: BaseException) -> BaseException | None:
    """The first Refusal, ApiError or ValidationError in the cause chain, if any."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, (Refusal, ApiError, ValidationError)):
            return current
        current = current.__cause__
        seen += 1
    return None


def tool_error_text(exc: ToolError, request_id: str, tool: str = "", known: Sequence[str] = ()) -> str:
    """Turn what the SDK raised into our text: `<code>: <message>` (`tool` is the tool called and `known`
    the arguments it takes, named when an argument it does not take is refused)."""
    cause = _api_error_of(exc)
    if isinstance(cause, Refusal):
        return str(cause)
    if isinstance(cause, ApiError):
        return f"{cause.code}: {_message_of(cause)}"
    if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
        return f"validation_failed: {argument_violations(cause, tool, known)}"
    if exc.__cause__ is None and str(exc).startswith("Unknown tool:"):
        return f"not_found: No such tool; tools/list names them ({', '.join(tool_names())})."
    suffix = f" (request id {request_id})" if request_id else ""
    return f"internal_error: The tool failed to answer; retry{suffix}."


def _message_of(error: ApiError) -> str:
    """The message with each field violation spelled out (a tool caller sees only this text)."""
    violations = error.extra.get("field_violations") or []
    details = "; ".join(f"{v['field']}: {v['message']}" for v in violations)
    return f"{error.message} {details}".strip() if details else error.message


def check_vessel_sync(imo: str, address: str, request_id: str) -> dict[str, Any]:
    try:
        parsed = parse_keyless_imo(imo)
    except InvalidImoPath as exc:
        raise _refusal("invalid_imo", str(exc)) from None
    try:
        return keyless.run_check(parsed, address, request_id).body
    except keyless.KeylessRefused as refused:
        raise _refusal(refused.code, refused.message) from None


def find_port_sync(query: str, limit: int, address: str, request_id: str) -> dict[str, Any]:
    # lazy: see argument_violations (the MCP process starts without the port catalogue module)
    from voyages.ports import MAX_LIMIT, get_catalogue

    text = (query or "").strip()
    if not text or len(text) > 100:
        raise _refusal("validation_failed", "query must be a port name or UN/LOCODE of 1 to 100 characters")
    if not 1 <= limit <= MAX_LIMIT:
        raise _refusal("validation_failed", f"limit must be from 1 to {MAX_LIMIT}")
    try:
        keyless.admit(address, request_id)
    except keyless.KeylessRefused as refused:
        raise _refusal(refused.code, refused.message) from None
    matches = get_catalogue().search(text, limit)
    keyless.count_call(address)
    return {"ports": [{**m.port.as_dict(), "match_score": m.match_score, "match_type": m.match_type} for m in matches]}


def close_arguments(tool: Tool) -> None:
    """Make the tool refuse any argument it does not take (pydantic `extra="forbid"` on its argument
    model, so the refusal is a ValidationError reported as validation_failed) and publish that in its
    input schema (`additionalProperties: false`). The SDK's argument model ignores unknown arguments."""
    base = tool.fn_metadata.arg_model
    closed: type[BaseModel] = type(
        base.__name__, (base,), {"model_config": ConfigDict(extra="forbid"), "__module__": __name__}
    )
    tool.fn_metadata.arg_model = closed  # type: ignore[assignment]
    tool.parameters = closed.model_json_schema(by_alias=True)


class VesselToolServer(MCPServer):
    """MCPServer whose tool errors read like the REST API's (they start with the API error code), whose
    tools refuse arguments they do not take, and whose keyed tools publish their REST operation's success
    schema as their output schema."""

    def add_tool(self, fn: Any, name: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().add_tool(fn, name, *args, **kwargs)
        # The SDK keeps its tools in its tool manager (no public accessor); each is closed as it is added.
        tool = self._tool_manager.get_tool(name or fn.__name__)
        if tool is not None:
            close_arguments(tool)

    def _arguments_of(self, name: str) -> tuple[str, ...]:
        tool = self._tool_manager.get_tool(name)
        return tuple(tool.parameters.get("properties", {})) if tool is not None else ()

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        schemas = await run_like_a_request(keyed_tools.output_schemas)
        return [
            tool.model_copy(update={"output_schema": schemas[tool.name]}) if tool.name in schemas else tool
            for tool in tools
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            request_id = ""
            if context is not None:
                try:
                    request_id = ctx_request_id(context)
                except (AttributeError, LookupError, ValueError):
                    request_id = ""
            error_type = UnexpectedToolError if isinstance(exc, UnexpectedToolError) else ToolError
            raise error_type(tool_error_text(exc, request_id, name, self._arguments_of(name))) from exc


def build_server() -> MCPServer:
    server = VesselToolServer(
        name="vessel-screening",
        instructions=(
            "Screen ships by IMO number, score voyages and look up ports. check_vessel and find_port need no key "
            "(100 calls per hour per address); every other tool is a REST operation and needs an Authorization "
            "Bearer key with that operation's scope, metered as the direct call. Creating tools take an optional "
            "idempotency_key. An argument a tool does not take is refused (validation_failed), never ignored. "
            "Output is decision support, not legal, insurance or sanctions-compliance advice."
        ),
        version=MCP_VERSION,
    )

    # Annotations as keyed_tools.HINTS: check_vessel writes nothing the caller holds (it counts against the
    # keyless allowance) but may ask the live public registers for an unknown hull (open world); find_port
    # reads the service's own port catalogue.
    @server.tool(
        structured_output=True,
        description="Keyless vessel check by IMO number: sanctions verdict, ownership opacity, vetting grade.",
        annotations=keyed_tools.READ_OUTSIDE,
    )
    async def check_vessel(imo: str, ctx: Context) -> dict[str, Any]:
        return await run_like_a_request(check_vessel_sync, imo, ctx_address(ctx), ctx_request_id(ctx))

    @server.tool(
        structured_output=True,
        description="Resolve a port name or UN/LOCODE to routable ports, best match first (keyless).",
        annotations=keyed_tools.READ_OWN,
    )
    async def find_port(query: str, ctx: Context, limit: int = 10) -> dict[str, Any]:
        return await run_like_a_request(find_port_sync, query, limit, ctx_address(ctx), ctx_request_id(ctx))

    keyed_tools.register(server)

    return server
