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
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

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
    "monitor_id": 'monitor_id must be a string such as "vmo_…"',
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
}


def tool_names() -> tuple[str, ...]:
    return (*KEYLESS_TOOL_NAMES, *keyed_tools.TOOLS)


def argument_violations(error: ValidationError) -> str:
    """One sentence per argument that failed the tool's schema, naming the argument."""
    parts: list[str] = []
    for item in error.errors():
        loc = item.get("loc") or ()
        name = str(loc[0]) if loc else ""
        rule = ARGUMENT_RULES.get(name, f"{name} is not an argument this tool reads" if name else "")
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


def tool_error_text(exc: ToolError, request_id: str) -> str:
    """Turn what the SDK raised into our text: `<code>: <message>`."""
    cause = _api_error_of(exc)
    if isinstance(cause, Refusal):
        return str(cause)
    if isinstance(cause, ApiError):
        return f"{cause.code}: {_message_of(cause)}"
    if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
        return f"validation_failed: {argument_violations(cause)}"
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


class VesselToolServer(MCPServer):
    """MCPServer whose tool errors read like the REST API's (they start with the API error code) and
    whose keyed tools publish their REST operation's success schema as their output schema."""

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
            raise error_type(tool_error_text(exc, request_id)) from exc


def build_server() -> MCPServer:
    server = VesselToolServer(
        name="vessel-screening",
        instructions=(
            "Screen ships by IMO number, score voyages and look up ports. check_vessel and find_port need no key "
            "(100 calls per hour per address); every other tool is a REST operation and needs an Authorization "
            "Bearer key with that operation's scope, metered as the direct call. Creating tools take an optional "
            "idempotency_key. "
            "Output is decision support, not legal, insurance or sanctions-compliance advice."
        ),
        version=MCP_VERSION,
    )

    @server.tool(
        structured_output=True,
        description="Keyless vessel check by IMO number: sanctions verdict, ownership opacity, vetting grade.",
    )
    async def check_vessel(imo: str, ctx: Context) -> dict[str, Any]:
        return await run_like_a_request(check_vessel_sync, imo, ctx_address(ctx), ctx_request_id(ctx))

    @server.tool(
        structured_output=True,
        description="Resolve a port name or UN/LOCODE to routable ports, best match first (keyless).",
    )
    async def find_port(query: str, ctx: Context, limit: int = 10) -> dict[str, Any]:
        return await run_like_a_request(find_port_sync, query, limit, ctx_address(ctx), ctx_request_id(ctx))

    keyed_tools.register(server)

    return server
