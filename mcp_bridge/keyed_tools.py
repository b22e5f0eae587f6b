"""The keyed MCP tools: each is one REST operation, made in-process through mcp_bridge.rest.

A tool needs `Authorization: Bearer <key>` on the MCP request and the scope its REST operation
needs; it is metered, rate-limited, idempotent and access-logged as that operation is, and answers
its document (the tool's output schema is the operation's success schema in the OpenAPI document).
A refusal is a tool error whose text is `<code>: <message>`, with `Retry-After: <n> s` when the REST
answer carried one. Creating tools take an optional `idempotency_key` (contract 3.4 semantics; a
fresh key per call without one). To add a tool for a new REST capability: one entry in TOOLS and one
small function in `register`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from mcp_bridge import rest
from mcp_bridge.calls import Refusal, ctx_address, ctx_header, ctx_request_id, run_like_a_request

IdempotencyKey = Annotated[
    str | None,
    Field(
        description="Optional: 1 to 255 characters, not all blank, as the Idempotency-Key header (an empty key "
        "is refused with invalid_idempotency_key). Retrying with the same key and the same arguments within 24 "
        "hours returns the first answer without charging again; a different call under the same key is refused "
        "(idempotency_conflict). Without one, every call is new."
    ),
]
Limit = Annotated[int | None, Field(description="Page size, 1 to 200 (default 50)")]
Cursor = Annotated[str | None, Field(description="next_cursor of the previous page")]


@dataclass(frozen=True)
class KeyedTool:
    name: str
    method: str
    path: str  # the REST path template, as the OpenAPI document names it
    success: int
    description: str


TOOLS = {
    tool.name: tool
    for tool in (
        KeyedTool(
            "screen_vessel", "POST", "/api/v1/screenings", 201,
            "Screen a hull by IMO number (POST /api/v1/screenings, scope vessel:screen): the full screening "
            "record — sanctions status GREEN/AMBER/RED/INCOMPLETE with every match, ownership opacity, the "
            "A-E vetting grade and its factors, source freshness and notices. Costs one screening unit when a "
            "verdict is reached; an INCOMPLETE answer is free: if its identity is unresolved, call again with "
            "vessel_name (the hull's name) to resolve it.",
        ),
        KeyedTool(
            "get_screening", "GET", "/api/v1/screenings/{screening_id}", 200,
            "Read a stored screening record by id (scope vessel:screen), with superseded_by and the live "
            "resolution block of an INCOMPLETE. Free.",
        ),
        KeyedTool(
            "list_screenings", "GET", "/api/v1/screenings", 200,
            "List this environment's screening records, newest first (scope vessel:screen). Filters: status "
            "(GREEN, AMBER, RED, INCOMPLETE), superseded (true/false; status=INCOMPLETE with superseded=false "
            "lists the open questions), imo. Free.",
        ),
        KeyedTool(
            "submit_screening_batch", "POST", "/api/v1/screening-batches", 202,
            "Screen up to 50 hulls asynchronously (scope vessel:screen): items is a list of {imo, vessel_name, "
            "customer_reference}; invalid items are rejected one by one, the valid ones run. Each accepted hull "
            "reserves one screening unit; an INCOMPLETE answer is refunded. Poll with get_screening_batch.",
        ),
        KeyedTool(
            "get_screening_batch", "GET", "/api/v1/screening-batches/{batch_id}", 200,
            "Poll a screening batch until completed, partial or failed, with counts and progress (scope "
            "vessel:screen). Free.",
        ),
        KeyedTool(
            "list_screening_batch_items", "GET", "/api/v1/screening-batches/{batch_id}/items", 200,
            "A screening batch's items, each with its screening record or error (scope vessel:screen). Free.",
        ),
        KeyedTool(
            "create_fleet", "POST", "/api/v1/fleets", 201,
            "Create a fleet (scope vessel:screen): a name and up to 5,000 IMO numbers. Free; screening the "
            "hulls is a separate act (screen_vessel, submit_screening_batch or monitors).",
        ),
        KeyedTool(
            "get_fleet_exposure", "GET", "/api/v1/fleets/{fleet_id}/exposure", 200,
            "A fleet's exposure from the records the account already holds (scope vessel:screen): latest "
            "verdict per hull, worst first, distributions of sanctions status, vetting grade and ownership "
            "opacity, and coverage (hulls never screened or INCOMPLETE). Free; never re-screens.",
        ),
        KeyedTool(
            "get_fleet_changes", "GET", "/api/v1/fleets/{fleet_id}/changes", 200,
            "Verdict moves of a fleet's hulls since a cursor (scope vessel:screen), with timestamps and the "
            "records that moved them; pass next_cursor back to resume. Free.",
        ),
        KeyedTool(
            "record_match_decision", "POST", "/api/v1/match-decisions", 201,
            "Record a reviewer's decision on one match of a hull (scope vessel:screen): outcome cleared (a false "
            "positive) or confirmed, with reason and reviewer. It binds to the listing as it stands; later "
            "screenings of the hull show it beside the match and sum it up in sanctions.review, never changing "
            "the verdict; it stops applying when the listing changes or it expires (notice decision_lapsed). Free.",
        ),
        KeyedTool(
            "list_match_decisions", "GET", "/api/v1/match-decisions", 200,
            "The account's match decisions, newest first, each with its state (active, expired, lapsed, revoked) "
            "(scope vessel:screen). Filters: imo, source, outcome, active. Free.",
        ),
        KeyedTool(
            "assess_voyage", "POST", "/api/v1/voyage-assessments", 201,
            "Score the risk of a sea voyage (POST /api/v1/voyage-assessments, scope voyage:score): the sea "
            "route, war-risk listed areas, EEZs of sanctioned states, piracy, weather, country instability and, "
            "with vessel_type and dwt_tonnes, carbon intensity. route: {origin, destination} as UN/LOCODEs "
            '(e.g. "NLRTM"; use find_port to get them), optional via [[lon, lat], ...], vessel_type, '
            "load_condition, speed_knots, dwt_tonnes, closed_passages. Costs one voyage assessment unit.",
        ),
        KeyedTool(
            "get_assessment", "GET", "/api/v1/voyage-assessments/{assessment_id}", 200,
            "Read a stored voyage assessment by id (scope voyage:score). Free.",
        ),
        KeyedTool(
            "submit_voyage_batch", "POST", "/api/v1/voyage-assessment-batches", 202,
            "Assess up to 10 routes asynchronously (scope voyage:score): routes is a list of {route: {...}, "
            "customer_reference}; answers the batch at once (queued). Each accepted route reserves one voyage "
            "unit; routes that fail are refunded. Poll with get_voyage_batch.",
        ),
        KeyedTool(
            "get_voyage_batch", "GET", "/api/v1/voyage-assessment-batches/{batch_id}", 200,
            "Poll a voyage batch until its status is completed, partial or failed (scope voyage:score). Free.",
        ),
        KeyedTool(
            "list_voyage_batch_items", "GET", "/api/v1/voyage-assessment-batches/{batch_id}/items", 200,
            "A voyage batch's items with each route's assessment or error (scope voyage:score). Free.",
        ),
        KeyedTool(
            "create_corridor_monitor", "POST", "/api/v1/corridor-monitors", 201,
            "Watch a sea route (scope voyage:monitor, live keys only): recomputed every 6 hours, one live voyage "
            "assessment unit per run; emits corridor_risk.changed on a material change (risk level, a 10-point "
            "score move, a floor, a listed area entered or left) and corridor_data.degraded / .recovered. route "
            "as for assess_voyage. Free to create; at most 10 per live account.",
        ),
        KeyedTool(
            "list_corridor_monitors", "GET", "/api/v1/corridor-monitors", 200,
            "This account's live corridor monitors with their latest run (scope voyage:monitor). Free.",
        ),
        KeyedTool(
            "screen_cargo", "POST", "/api/v1/cargo-screenings", 201,
            "Screen a cargo (scope cargo:screen): parties against the sanctions lists, origin and destination "
            "countries and load/discharge ports against sanctions regimes, the HS code against export-control "
            "categories, and optionally the vessel by IMO; GREEN/AMBER/RED/INCOMPLETE with drivers naming the part "
            "that set it. One screening unit when a verdict is reached, the vessel screening included; INCOMPLETE "
            "is free (send vessel.vessel_name when the hull's identity is unresolved).",
        ),
        KeyedTool(
            "get_cargo_screening", "GET", "/api/v1/cargo-screenings/{cargo_screening_id}", 200,
            "Read a stored cargo screening by id (scope cargo:screen). Free.",
        ),
        KeyedTool(
            "list_cargo_screenings", "GET", "/api/v1/cargo-screenings", 200,
            "List cargo screenings, newest first (scope cargo:screen). Filters: status, created_after, "
            "created_before, hs_chapter, vessel_imo. Free.",
        ),
        KeyedTool(
            "get_usage", "GET", "/api/v1/usage", 200,
            "Allowances and consumption of the key's environment: screenings and voyage assessments, used, "
            "limit and reset, rate and batch limits (scope usage:read). Free.",
        ),
        KeyedTool(
            "list_webhook_deliveries", "GET", "/api/v1/webhook-deliveries", 200,
            "The webhook delivery log, newest first (scope webhooks:manage). Filters: endpoint_id, event_type, "
            "status (pending, sending, delivered, dead). Free.",
        ),
        KeyedTool(
            "redeliver_webhook", "POST", "/api/v1/webhook-deliveries/{delivery_id}/redeliver", 202,
            "Send a delivery's event again now, with the same event id (scope webhooks:manage); its retry "
            "schedule starts again. Free.",
        ),
        KeyedTool(
            "create_vessel_monitor", "POST", "/api/v1/vessel-monitors", 201,
            "Watch a hull (scope vessel:monitor): a live monitor (live keys) re-screens it every 24 hours for "
            "one screening unit per run and emits vessel_risk.changed when its sanctions status, ownership "
            'opacity or vetting grade moves; mode "simulation" (any key, the only mode on a test key) runs only '
            "when fed verdicts with simulate_vessel_monitor. Free to create.",
        ),
        KeyedTool(
            "list_vessel_monitors", "GET", "/api/v1/vessel-monitors", 200,
            "This environment's vessel monitors with their baseline and previous verdicts (scope "
            "vessel:monitor). Free.",
        ),
        KeyedTool(
            "simulate_vessel_monitor", "POST", "/api/v1/vessel-monitors/{monitor_id}/simulate", 201,
            "Feed a hypothetical next verdict into a simulation monitor's change detector (scope "
            "vessel:monitor); it emits the same events a live run would. Free.",
        ),
    )
}  # fmt: skip


def _own_call(tool: KeyedTool) -> re.Pattern[str]:
    """How a REST message names the tool's own operation as the call that resolves it: `resend
    <METHOD> <path>`, the path as called (ids filled in) or as templated ({id})."""
    segments = [
        r"(?:[^/\s]+|\{[^}/\s]+\})" if part.startswith("{") else re.escape(part) for part in tool.path.split("/")
    ]
    return re.compile(rf"\bresend {tool.method} {'/'.join(segments)}(?![\w/{{}}-])")


def _refusal_text(answer: rest.RestAnswer, tool: KeyedTool) -> tuple[str, str]:
    """`<code>`, `<message>`: the REST refusal in the tool's words. A field violation names the call that
    resolves it (contract part 7); where that is the tool's own REST operation, the tool is named."""
    body = answer.body if isinstance(answer.body, dict) else {}
    code = str(body.get("code") or "internal_error")
    message = str(body.get("message") or "The service refused the call.")
    details = "; ".join(f"{v['field']}: {v['message']}" for v in body.get("field_violations") or [])
    if details:
        message = f"{message} {details}"
    message = _own_call(tool).sub(f"call {tool.name} again", message)
    retry_after = answer.headers.get("Retry-After")
    if retry_after:
        message = f"{message} Retry-After: {retry_after} s."
    return code, message


def _call_sync(
    tool: KeyedTool,
    authorization: str | None,
    address: str,
    request_id: str,
    path_values: dict[str, str],
    query: dict[str, Any] | None,
    body: dict[str, Any] | None,
    idempotency_key: str | None,
) -> dict[str, Any]:
    path = tool.path.format(**{name: quote(str(value), safe="") for name, value in path_values.items()})
    answer = rest.call(
        tool.name, tool.method, path, authorization=authorization, address=address, request_id=request_id,
        query=query, body=body, idempotency_key=idempotency_key,
    )  # fmt: skip
    if not answer.ok:
        raise Refusal(*_refusal_text(answer, tool))
    return answer.body


async def _call(
    ctx: Context,
    name: str,
    *,
    path_values: dict[str, str] | None = None,
    query: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    return await run_like_a_request(
        _call_sync, TOOLS[name], ctx_header(ctx, "authorization"), ctx_address(ctx), ctx_request_id(ctx),
        path_values or {}, query, body, idempotency_key,
    )  # fmt: skip


def _present(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


# -- output schemas from the OpenAPI document --------------------------------------------------


def _inline(node: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """The schema with every $ref to a component replaced by the component itself."""
    if depth > 40:
        return {}
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            return _inline(components.get(ref.rsplit("/", 1)[1], {}), components, depth + 1)
        return {key: _inline(value, components, depth + 1) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, components, depth + 1) for value in node]
    return node


@lru_cache(maxsize=1)
def output_schemas() -> dict[str, dict[str, Any]]:
    """Each keyed tool's output schema: its REST operation's success schema, self-contained."""
    from drf_spectacular.generators import SchemaGenerator

    document = SchemaGenerator().get_schema(request=None, public=True)
    components = document.get("components", {}).get("schemas", {})
    schemas = {}
    for tool in TOOLS.values():
        operation = document["paths"].get(tool.path, {}).get(tool.method.lower(), {})
        content = operation.get("responses", {}).get(str(tool.success), {}).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        if schema is not None:
            schemas[tool.name] = _inline(schema, components)
    return schemas


# -- the tools ---------------------------------------------------------------------------------


def register(server: MCPServer) -> None:
    def keyed(name: str):
        return server.tool(name=name, description=TOOLS[name].description, structured_output=True)

    @keyed("screen_vessel")
    async def screen_vessel(
        imo: Annotated[str, Field(description='The hull\'s IMO number, e.g. "9074729" or "IMO 9074729"')],
        ctx: Context,
        vessel_name: Annotated[str | None, Field(description="The hull's name; resolves an unknown identity")] = None,
        include_vetting: Annotated[bool, Field(description="Grade the hull A-E (default true)")] = True,
        customer_reference: Annotated[str | None, Field(description="Your reference, echoed back")] = None,
        as_of: Annotated[
            str | None, Field(description="A past date or RFC 3339 timestamp: screen against the lists in force then")
        ] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(imo=imo, vessel_name=vessel_name, customer_reference=customer_reference, as_of=as_of)
        body["include_vetting"] = include_vetting
        return await _call(ctx, "screen_vessel", body=body, idempotency_key=idempotency_key)

    @keyed("get_screening")
    async def get_screening(
        screening_id: Annotated[str, Field(description="scr_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_screening", path_values={"screening_id": screening_id})

    @keyed("list_screenings")
    async def list_screenings(
        ctx: Context,
        status: Annotated[str | None, Field(description="GREEN, AMBER, RED or INCOMPLETE")] = None,
        superseded: Annotated[bool | None, Field(description="true: only superseded; false: only current")] = None,
        imo: Annotated[str | None, Field(description="7-digit IMO")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        flag = None if superseded is None else ("true" if superseded else "false")
        query = _present(status=status, superseded=flag, imo=imo, limit=limit, cursor=cursor)
        return await _call(ctx, "list_screenings", query=query)

    @keyed("submit_screening_batch")
    async def submit_screening_batch(
        items: Annotated[list[dict[str, Any]], Field(description='Up to 50 of {"imo": "9074729", "vessel_name": ...}')],
        ctx: Context,
        include_vetting: Annotated[bool, Field(description="Grade every hull A-E (default true)")] = True,
        customer_reference: Annotated[str | None, Field(description="Your reference for the batch")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(items=items, customer_reference=customer_reference)
        body["include_vetting"] = include_vetting
        return await _call(ctx, "submit_screening_batch", body=body, idempotency_key=idempotency_key)

    @keyed("get_screening_batch")
    async def get_screening_batch(
        batch_id: Annotated[str, Field(description="sbt_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_screening_batch", path_values={"batch_id": batch_id})

    @keyed("list_screening_batch_items")
    async def list_screening_batch_items(
        batch_id: Annotated[str, Field(description="sbt_… id")],
        ctx: Context,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(limit=limit, cursor=cursor)
        return await _call(ctx, "list_screening_batch_items", path_values={"batch_id": batch_id}, query=query)

    @keyed("create_fleet")
    async def create_fleet(
        name: Annotated[str, Field(description="The fleet's name")],
        imos: Annotated[list[str], Field(description="Up to 5,000 7-digit IMO numbers")],
        ctx: Context,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        return await _call(ctx, "create_fleet", body={"name": name, "imos": imos}, idempotency_key=idempotency_key)

    @keyed("get_fleet_exposure")
    async def get_fleet_exposure(
        fleet_id: Annotated[str, Field(description="flt_… id")], ctx: Context, limit: Limit = None
    ) -> dict[str, Any]:
        return await _call(ctx, "get_fleet_exposure", path_values={"fleet_id": fleet_id}, query=_present(limit=limit))

    @keyed("get_fleet_changes")
    async def get_fleet_changes(
        fleet_id: Annotated[str, Field(description="flt_… id")], ctx: Context, cursor: Cursor = None
    ) -> dict[str, Any]:
        query = _present(cursor=cursor)
        return await _call(ctx, "get_fleet_changes", path_values={"fleet_id": fleet_id}, query=query)

    @keyed("record_match_decision")
    async def record_match_decision(
        imo: Annotated[str, Field(description="The hull's 7-digit IMO")],
        source: Annotated[str, Field(description="The match's source, e.g. ofac_sdn")],
        source_record_id: Annotated[str, Field(description="The match's source_record_id")],
        outcome: Annotated[str, Field(description="cleared (not this hull) or confirmed (this hull is listed)")],
        reason: Annotated[str, Field(description="Why, as the case file should read it")],
        reviewer: Annotated[str, Field(description="Who decided")],
        ctx: Context,
        expires_at: Annotated[str | None, Field(description="RFC 3339; when it stops applying")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(
            imo=imo, source=source, source_record_id=source_record_id, outcome=outcome, reason=reason,
            reviewer=reviewer, expires_at=expires_at,
        )  # fmt: skip
        return await _call(ctx, "record_match_decision", body=body, idempotency_key=idempotency_key)

    @keyed("list_match_decisions")
    async def list_match_decisions(
        ctx: Context,
        imo: Annotated[str | None, Field(description="7-digit IMO")] = None,
        source: Annotated[str | None, Field(description="e.g. ofac_sdn")] = None,
        outcome: Annotated[str | None, Field(description="cleared or confirmed")] = None,
        active: Annotated[bool | None, Field(description="true: neither revoked nor expired")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        flag = None if active is None else ("true" if active else "false")
        query = _present(imo=imo, source=source, outcome=outcome, active=flag, limit=limit, cursor=cursor)
        return await _call(ctx, "list_match_decisions", query=query)

    @keyed("assess_voyage")
    async def assess_voyage(
        route: Annotated[dict[str, Any], Field(description='{"origin": "NLRTM", "destination": "SGSIN", ...}')],
        ctx: Context,
        customer_reference: Annotated[str | None, Field(description="Your reference, echoed back")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(route=route, customer_reference=customer_reference)
        return await _call(ctx, "assess_voyage", body=body, idempotency_key=idempotency_key)

    @keyed("get_assessment")
    async def get_assessment(
        assessment_id: Annotated[str, Field(description="vas_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_assessment", path_values={"assessment_id": assessment_id})

    @keyed("submit_voyage_batch")
    async def submit_voyage_batch(
        routes: Annotated[list[dict[str, Any]], Field(description='Up to 10 of {"route": {...}}')],
        ctx: Context,
        customer_reference: Annotated[str | None, Field(description="Your reference for the batch")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(routes=routes, customer_reference=customer_reference)
        return await _call(ctx, "submit_voyage_batch", body=body, idempotency_key=idempotency_key)

    @keyed("get_voyage_batch")
    async def get_voyage_batch(batch_id: Annotated[str, Field(description="vab_… id")], ctx: Context) -> dict[str, Any]:
        return await _call(ctx, "get_voyage_batch", path_values={"batch_id": batch_id})

    @keyed("list_voyage_batch_items")
    async def list_voyage_batch_items(
        batch_id: Annotated[str, Field(description="vab_… id")],
        ctx: Context,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(limit=limit, cursor=cursor)
        return await _call(ctx, "list_voyage_batch_items", path_values={"batch_id": batch_id}, query=query)

    @keyed("create_corridor_monitor")
    async def create_corridor_monitor(
        route: Annotated[dict[str, Any], Field(description='{"origin": "NLRTM", "destination": "SGSIN", ...}')],
        ctx: Context,
        customer_reference: Annotated[str | None, Field(description="Your reference, echoed back")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(route=route, customer_reference=customer_reference)
        return await _call(ctx, "create_corridor_monitor", body=body, idempotency_key=idempotency_key)

    @keyed("list_corridor_monitors")
    async def list_corridor_monitors(
        ctx: Context,
        degraded: Annotated[bool | None, Field(description="true: only monitors missing a source")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        flag = None if degraded is None else ("true" if degraded else "false")
        return await _call(ctx, "list_corridor_monitors", query=_present(degraded=flag, limit=limit, cursor=cursor))

    @keyed("screen_cargo")
    async def screen_cargo(
        commodity: Annotated[dict[str, Any], Field(description='{"hs_code": "8471", "description": "Laptops"}')],
        origin_country: Annotated[str, Field(description="ISO 3166-1 alpha-2, e.g. NL")],
        destination_country: Annotated[str, Field(description="ISO 3166-1 alpha-2, e.g. SG")],
        parties: Annotated[
            list[dict[str, Any]],
            Field(description='1-20 of {"name": "...", "role": "shipper|consignee|notify_party|charterer"}'),
        ],
        ctx: Context,
        load_port: Annotated[str | None, Field(description="UN/LOCODE of the load port")] = None,
        discharge_port: Annotated[str | None, Field(description="UN/LOCODE of the discharge port")] = None,
        vessel: Annotated[dict[str, Any] | None, Field(description='{"imo": "9074729", "vessel_name": "..."}')] = None,
        customer_reference: Annotated[str | None, Field(description="Your reference, echoed back")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(
            commodity=commodity, origin_country=origin_country, destination_country=destination_country,
            parties=parties, load_port=load_port, discharge_port=discharge_port, vessel=vessel,
            customer_reference=customer_reference,
        )  # fmt: skip
        return await _call(ctx, "screen_cargo", body=body, idempotency_key=idempotency_key)

    @keyed("get_cargo_screening")
    async def get_cargo_screening(
        cargo_screening_id: Annotated[str, Field(description="cgs_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_cargo_screening", path_values={"cargo_screening_id": cargo_screening_id})

    @keyed("list_cargo_screenings")
    async def list_cargo_screenings(
        ctx: Context,
        status: Annotated[str | None, Field(description="GREEN, AMBER, RED or INCOMPLETE")] = None,
        hs_chapter: Annotated[str | None, Field(description="2-digit HS chapter")] = None,
        vessel_imo: Annotated[str | None, Field(description="7-digit IMO")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(status=status, hs_chapter=hs_chapter, vessel_imo=vessel_imo, limit=limit, cursor=cursor)
        return await _call(ctx, "list_cargo_screenings", query=query)

    @keyed("get_usage")
    async def get_usage(ctx: Context) -> dict[str, Any]:
        return await _call(ctx, "get_usage")

    @keyed("list_webhook_deliveries")
    async def list_webhook_deliveries(
        ctx: Context,
        endpoint_id: Annotated[str | None, Field(description="whe_… id")] = None,
        event_type: Annotated[str | None, Field(description="e.g. screening.resolved")] = None,
        status: Annotated[str | None, Field(description="pending, sending, delivered or dead")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(endpoint_id=endpoint_id, event_type=event_type, status=status, limit=limit, cursor=cursor)
        return await _call(ctx, "list_webhook_deliveries", query=query)

    @keyed("redeliver_webhook")
    async def redeliver_webhook(
        delivery_id: Annotated[str, Field(description="whd_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(
            ctx, "redeliver_webhook", path_values={"delivery_id": delivery_id}, body={}, idempotency_key=idempotency_key
        )

    @keyed("create_vessel_monitor")
    async def create_vessel_monitor(
        imo: Annotated[str, Field(description="The hull's 7-digit IMO number")],
        ctx: Context,
        vessel_name: Annotated[str | None, Field(description="The hull's name")] = None,
        customer_reference: Annotated[str | None, Field(description="Your reference")] = None,
        mode: Annotated[str | None, Field(description='"live" (live keys, the default there) or "simulation"')] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(imo=imo, vessel_name=vessel_name, customer_reference=customer_reference, mode=mode)
        return await _call(ctx, "create_vessel_monitor", body=body, idempotency_key=idempotency_key)

    @keyed("list_vessel_monitors")
    async def list_vessel_monitors(
        ctx: Context,
        imo: Annotated[str | None, Field(description="7-digit IMO")] = None,
        mode: Annotated[str | None, Field(description="live or simulation")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        return await _call(ctx, "list_vessel_monitors", query=_present(imo=imo, mode=mode, limit=limit, cursor=cursor))

    @keyed("simulate_vessel_monitor")
    async def simulate_vessel_monitor(
        monitor_id: Annotated[str, Field(description="vmo_… id of a simulation monitor")],
        sanctions_status: Annotated[str, Field(description="GREEN, AMBER, RED or INCOMPLETE")],
        ctx: Context,
        ownership_opacity: Annotated[str | None, Field(description="LOW, MEDIUM or HIGH")] = None,
        vetting_grade: Annotated[str | None, Field(description="A to E")] = None,
        confirmed: Annotated[bool, Field(description="Whether the re-screen agrees (false: nothing emitted)")] = True,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(
            sanctions_status=sanctions_status, ownership_opacity=ownership_opacity, vetting_grade=vetting_grade
        )
        body["confirmed"] = confirmed
        return await _call(
            ctx, "simulate_vessel_monitor", path_values={"monitor_id": monitor_id}, body=body,
            idempotency_key=idempotency_key,
        )  # fmt: skip
