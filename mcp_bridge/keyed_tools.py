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

import functools
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
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
CreatedAfter = Annotated[str | None, Field(description="RFC 3339: only records created at or after this instant")]
CreatedBefore = Annotated[str | None, Field(description="RFC 3339: only records created before this instant")]
IncludeGeometry = Annotated[
    bool,
    Field(
        description="Include the route's GeoJSON geometry (route.geometry, tens of KB). Default false: the "
        "assessment without it; report_url opens the report page with the map."
    ),
]


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
            "load_condition, speed_knots, dwt_tonnes, closed_passages. The answer leaves out the route geometry "
            "unless include_geometry is true; report_url links the report page with the map. Costs one voyage "
            "assessment unit.",
        ),
        KeyedTool(
            "get_assessment", "GET", "/api/v1/voyage-assessments/{assessment_id}", 200,
            "Read a stored voyage assessment by id (scope voyage:score), without the route geometry unless "
            "include_geometry is true (report_url links the report page with the map). Free.",
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
            "A voyage batch's items with each route's assessment or error (scope voyage:score); the assessments "
            "leave out the route geometry unless include_geometry is true. Free.",
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
            "This account's live corridor monitors with their latest run (scope voyage:monitor). Filters: "
            "degraded, customer_reference. Free.",
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
            "created_before (RFC 3339), hs_chapter, vessel_imo. Free.",
        ),
        KeyedTool(
            "get_usage", "GET", "/api/v1/usage", 200,
            "Allowances and consumption of the key's environment: screenings and voyage assessments, used, "
            "limit and reset, rate and batch limits (scope usage:read). Free.",
        ),
        KeyedTool(
            "list_webhook_deliveries", "GET", "/api/v1/webhook-deliveries", 200,
            "The webhook delivery log, newest first (scope webhooks:manage). Filters: endpoint_id, event_type, "
            "status (pending, sending, delivered, dead), created_after, created_before (RFC 3339). Free.",
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
        KeyedTool(
            "list_vessel_monitor_runs", "GET", "/api/v1/vessel-monitors/{monitor_id}/runs", 200,
            "A vessel monitor's runs (its history), newest first, each with the verdict read and any change "
            "emitted (scope vessel:monitor). Free.",
        ),
        KeyedTool(
            "list_corridor_monitor_runs", "GET", "/api/v1/corridor-monitors/{monitor_id}/runs", 200,
            "A corridor monitor's runs, newest slot first (scope voyage:monitor). Filter: status (queued, "
            "running, deferred, completed, failed). Free.",
        ),
        KeyedTool(
            "list_fleets", "GET", "/api/v1/fleets", 200,
            "This environment's fleets, newest first (scope vessel:screen). Free.",
        ),
        KeyedTool(
            "get_fleet", "GET", "/api/v1/fleets/{fleet_id}", 200,
            "A fleet with its IMO numbers (scope vessel:screen). Free.",
        ),
        KeyedTool(
            "update_fleet", "PATCH", "/api/v1/fleets/{fleet_id}", 200,
            "Rename a fleet, replace its hulls (imos) or add and remove hulls (add_imos, remove_imos; not with "
            "imos) (scope vessel:screen). Send at least one. Free; screens nothing.",
        ),
        KeyedTool(
            "delete_fleet", "DELETE", "/api/v1/fleets/{fleet_id}", 200,
            "Delete a fleet (scope vessel:screen); the screening records of its hulls stay. Free.",
        ),
        KeyedTool(
            "list_webhook_endpoints", "GET", "/api/v1/webhook-endpoints", 200,
            "This environment's webhook endpoints, newest first (scope webhooks:manage). Free.",
        ),
        KeyedTool(
            "create_webhook_endpoint", "POST", "/api/v1/webhook-endpoints", 201,
            "Register a public https:// URL to receive signed events (scope webhooks:manage): event_types "
            "(empty: every type), enabled, description. The signing secret is in this answer only; keep it. Free.",
        ),
        KeyedTool(
            "delete_webhook_endpoint", "DELETE", "/api/v1/webhook-endpoints/{endpoint_id}", 200,
            "Delete a webhook endpoint (scope webhooks:manage); it receives nothing more. Free.",
        ),
        KeyedTool(
            "create_export", "POST", "/api/v1/exports", 202,
            "Export every record of a resource matching its list filters as a file, asynchronously (the "
            "resource's own scope: screenings and screening_evidence vessel:screen, cargo_screenings "
            "cargo:screen, access_log logs:read). format csv or jsonl (zip for screening_evidence); filters as "
            "that resource's list takes them, less limit and cursor. Poll with get_export; download_url is a "
            "REST URL for the file. Free.",
        ),
        KeyedTool(
            "get_export", "GET", "/api/v1/exports/{export_id}", 200,
            "An export's status and progress, and its download_url once completed (the resource's scope). Free.",
        ),
        KeyedTool(
            "list_exports", "GET", "/api/v1/exports", 200,
            "This environment's exports of resources the key may read, newest first, each with its status and "
            "download_url once completed (the resource's scope). Free.",
        ),
        KeyedTool(
            "delete_export", "DELETE", "/api/v1/exports/{export_id}", 200,
            "Delete an export and its file (the resource's scope); the records it exported stay. Free.",
        ),
        KeyedTool(
            "get_webhook_endpoint", "GET", "/api/v1/webhook-endpoints/{endpoint_id}", 200,
            "One webhook endpoint: URL, event types, enabled (and why the service disabled it), description, "
            "rotation overlap; never its secret (scope webhooks:manage). Free.",
        ),
        KeyedTool(
            "update_webhook_endpoint", "PATCH", "/api/v1/webhook-endpoints/{endpoint_id}", 200,
            "Change a webhook endpoint's url (public https://), event_types (empty: every type), enabled or "
            "description (scope webhooks:manage). Send at least one; the others stay. Free.",
        ),
        KeyedTool(
            "send_webhook_test_delivery", "POST", "/api/v1/webhook-endpoints/{endpoint_id}/test", 202,
            "Send a signed webhook.test event to the endpoint now, whatever event types it lists (scope "
            "webhooks:manage); answers the queued delivery: follow it with get_webhook_delivery. Free.",
        ),
        KeyedTool(
            "rotate_webhook_secret", "POST", "/api/v1/webhook-endpoints/{endpoint_id}/rotate-secret", 200,
            "Replace a webhook endpoint's signing secret (scope webhooks:manage): the new secret is in this answer "
            "only; the previous one keeps signing alongside it for overlap_hours (0 to 168; 0 ends it now). Free.",
        ),
        KeyedTool(
            "get_webhook_delivery", "GET", "/api/v1/webhook-deliveries/{delivery_id}", 200,
            "One webhook delivery with the signed envelope and every attempt (scope webhooks:manage). Free.",
        ),
        KeyedTool(
            "get_vessel_monitor", "GET", "/api/v1/vessel-monitors/{monitor_id}", 200,
            "One vessel monitor with its baseline and previous verdicts (scope vessel:monitor). Free.",
        ),
        KeyedTool(
            "delete_vessel_monitor", "DELETE", "/api/v1/vessel-monitors/{monitor_id}", 200,
            "Stop watching the hull (scope vessel:monitor); its run history goes with it, its screening records "
            "stay. Free.",
        ),
        KeyedTool(
            "get_corridor_monitor", "GET", "/api/v1/corridor-monitors/{monitor_id}", 200,
            "One corridor monitor with its baseline and latest run (scope voyage:monitor, live keys only). Free.",
        ),
        KeyedTool(
            "delete_corridor_monitor", "DELETE", "/api/v1/corridor-monitors/{monitor_id}", 200,
            "Stop watching a route (scope voyage:monitor, live keys only); its run history goes with it. Free.",
        ),
        KeyedTool(
            "get_match_decision", "GET", "/api/v1/match-decisions/{decision_id}", 200,
            "One match decision with its state (active, expired, lapsed, revoked) and the listing it binds to "
            "(scope vessel:screen). Free.",
        ),
        KeyedTool(
            "revoke_match_decision", "POST", "/api/v1/match-decisions/{decision_id}/revoke", 200,
            "Revoke a match decision (scope vessel:screen): reviewer (who) and an optional reason are kept beside "
            "it; the decision itself is never rewritten, and later screenings no longer show it. A decision "
            "revoked already is refused (decision_revoked). Free.",
        ),
        KeyedTool(
            "get_screening_evidence", "GET", "/api/v1/screenings/{screening_id}/evidence", 200,
            "A screening's evidence pack for a case file (scope vessel:screen): the record exactly as issued with "
            "the sha256 of its bytes, every list and register edition in force at screened_at, engine and "
            "methodology versions, the matching thresholds and the decisions the record shows; sha256 is taken "
            "over the pack's canonical JSON without that field. (The PDF layout is REST only: Accept: "
            "application/pdf.) Free.",
        ),
        KeyedTool(
            "get_vessel_behaviour", "GET", "/api/v1/vessels/{imo}/behaviour", 200,
            "What a hull's AIS shows over a window (scope vessel:screen; default the last 30 days): the MMSIs "
            "linked to it and on what basis, whether any AIS is held (observed false: no events is then no "
            "evidence), a summary by kind, and the events with the evidence a reviewer checks (dark periods, "
            "ship-to-ship meetings, identity changes, shared MMSIs, spoofed positions, port calls, draught "
            "changes at sea), each naming the deceptive practice of the May 2020 US advisory it answers. Free "
            "for windows of up to 30 days; a longer one (at most 366) costs one screening unit.",
        ),
        KeyedTool(
            "list_access_log", "GET", "/api/v1/access-log", 200,
            "The account's API access log for the key's environment, newest first (scope logs:read): REST "
            "calls and MCP tool calls, with status and units charged. Filters: path (prefix), status (HTTP "
            "status), since, until (RFC 3339). Free.",
        ),
    )
}  # fmt: skip


# Tool annotations: hints to the assistant's client, honest but not enforced (the key's scopes are what
# guards). readOnlyHint: the tool changes nothing the caller holds (every call, a read included, is still
# rate-limited and access-logged, as its REST call is). destructiveHint: it may delete or overwrite what
# the caller holds (delete tools; update_fleet, whose imos replaces the hull list). idempotentHint: the
# same call again has no further effect (reads, deletes, update_fleet); a creating tool makes a new record
# and may charge a unit each time (its idempotency_key is what makes a retry safe). openWorldHint: the
# call may reach beyond this service's own data: a screening asks the live public registers when no stored
# register names the hull (screening.sources.live_registers) — screen_vessel, submit_screening_batch,
# screen_cargo (its vessel), and vessel monitors on every run; a voyage assessment asks the weather
# forecast service (voyages.layers.weather) — assess_voyage, submit_voyage_batch, corridor monitors; the
# webhook tools reach the customer's own endpoint (its host is resolved on create; redeliver_webhook and
# simulate_vessel_monitor's events are posted to it). Every other tool reads or writes only this service's
# records (closed world).
def _hints(*, read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=open_world
    )


READ_OWN = _hints(read_only=True, destructive=False, idempotent=True, open_world=False)
READ_OUTSIDE = _hints(read_only=True, destructive=False, idempotent=True, open_world=True)
CREATE_OWN = _hints(read_only=False, destructive=False, idempotent=False, open_world=False)
CREATE_OUTSIDE = _hints(read_only=False, destructive=False, idempotent=False, open_world=True)
OVERWRITE_OWN = _hints(read_only=False, destructive=True, idempotent=True, open_world=False)
# update_webhook_endpoint: a new url is resolved when saved (as on create).
OVERWRITE_OUTSIDE = _hints(read_only=False, destructive=True, idempotent=True, open_world=True)
# rotate_webhook_secret: each call replaces the secret with a new one (the previous stops after the overlap).
REPLACE_OWN = _hints(read_only=False, destructive=True, idempotent=False, open_world=False)

HINTS: dict[str, ToolAnnotations] = {
    **dict.fromkeys(
        (
            "get_screening", "list_screenings", "get_screening_batch", "list_screening_batch_items",
            "get_fleet_exposure", "get_fleet_changes", "list_match_decisions", "get_assessment",
            "get_voyage_batch", "list_voyage_batch_items", "list_corridor_monitors", "get_cargo_screening",
            "list_cargo_screenings", "get_usage", "list_webhook_deliveries", "list_vessel_monitors",
            "list_vessel_monitor_runs", "list_corridor_monitor_runs", "list_fleets", "get_fleet",
            "list_webhook_endpoints", "get_export", "list_access_log", "list_exports", "get_webhook_endpoint",
            "get_webhook_delivery", "get_vessel_monitor", "get_corridor_monitor", "get_match_decision",
            "get_screening_evidence", "get_vessel_behaviour",
        ),
        READ_OWN,
    ),
    **dict.fromkeys(("create_fleet", "record_match_decision", "create_export"), CREATE_OWN),
    **dict.fromkeys(
        (
            "screen_vessel", "submit_screening_batch", "assess_voyage", "submit_voyage_batch",
            "create_corridor_monitor", "screen_cargo", "redeliver_webhook", "create_vessel_monitor",
            "simulate_vessel_monitor", "create_webhook_endpoint", "send_webhook_test_delivery",
        ),
        CREATE_OUTSIDE,
    ),
    # revoke_match_decision: the same revocation again changes nothing more (it is refused, decision_revoked).
    **dict.fromkeys(
        (
            "update_fleet", "delete_fleet", "delete_webhook_endpoint", "delete_export", "delete_vessel_monitor",
            "delete_corridor_monitor", "revoke_match_decision",
        ),
        OVERWRITE_OWN,
    ),
    "update_webhook_endpoint": OVERWRITE_OUTSIDE,
    "rotate_webhook_secret": REPLACE_OWN,
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
            schema = _inline(schema, components)
            schemas[tool.name] = _geometry_optional(schema) if tool.name in GEOMETRY_TOOLS else schema
    return schemas


# -- route geometry ----------------------------------------------------------------------------

# The tools whose answer holds voyage assessments: they leave route.geometry out unless include_geometry.
GEOMETRY_TOOLS = ("assess_voyage", "get_assessment", "list_voyage_batch_items")


def _geometry_optional(node: Any) -> Any:
    """The schema with `geometry` no longer required of any route (an object with origin_locode)."""
    if isinstance(node, list):
        return [_geometry_optional(value) for value in node]
    if not isinstance(node, dict):
        return node
    changed = {key: _geometry_optional(value) for key, value in node.items()}
    properties = node.get("properties")
    if isinstance(properties, dict) and "geometry" in properties and "origin_locode" in properties:
        changed["required"] = [name for name in node.get("required", []) if name != "geometry"]
        changed["properties"] = {
            **changed["properties"],
            "geometry": {
                **changed["properties"]["geometry"],
                "description": "GeoJSON Feature with a LineString; only with include_geometry true",
            },
        }
    return changed


def _without_geometry(assessment: Any) -> Any:
    """The assessment without route.geometry (the document is left as is when it has none)."""
    if not isinstance(assessment, dict) or not isinstance(assessment.get("route"), dict):
        return assessment
    route = {key: value for key, value in assessment["route"].items() if key != "geometry"}
    return {**assessment, "route": route}


def _taking_from(tool: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A tool whose argument is published as `from` (REST's name) but is `from_` in Python: the SDK passes
    arguments by their published names, and `from` cannot be a parameter's name."""

    @functools.wraps(tool)
    async def entry(*args: Any, **arguments: Any) -> dict[str, Any]:
        if "from" in arguments:
            arguments["from_"] = arguments.pop("from")
        return await tool(*args, **arguments)

    return entry


# -- the tools ---------------------------------------------------------------------------------


def register(server: MCPServer) -> None:
    def keyed(name: str):  # noqa: ANN202 (the SDK's decorator)
        return server.tool(
            name=name, description=TOOLS[name].description, annotations=HINTS[name], structured_output=True
        )

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
        include_behaviour: Annotated[
            bool, Field(description="Add what the hull's AIS showed over the last 90 days (default false)")
        ] = False,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(imo=imo, vessel_name=vessel_name, customer_reference=customer_reference, as_of=as_of)
        body["include_vetting"] = include_vetting
        body["include_behaviour"] = include_behaviour
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
        include_behaviour: Annotated[
            bool, Field(description="Every record carries the hull's last 90 days of AIS (default false)")
        ] = False,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(items=items, customer_reference=customer_reference)
        body["include_vetting"] = include_vetting
        body["include_behaviour"] = include_behaviour
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
        fleet_id: Annotated[str, Field(description="flt_… id")],
        ctx: Context,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(limit=limit, cursor=cursor)
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
        include_geometry: IncludeGeometry = False,
        imo: Annotated[
            str | None,
            Field(description="The hull sailing the route: adds the AIS anomalies driver (weight 0)"),
        ] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(route=route, customer_reference=customer_reference, imo=imo)
        assessment = await _call(ctx, "assess_voyage", body=body, idempotency_key=idempotency_key)
        return assessment if include_geometry else _without_geometry(assessment)

    @keyed("get_assessment")
    async def get_assessment(
        assessment_id: Annotated[str, Field(description="vas_… id")],
        ctx: Context,
        include_geometry: IncludeGeometry = False,
    ) -> dict[str, Any]:
        assessment = await _call(ctx, "get_assessment", path_values={"assessment_id": assessment_id})
        return assessment if include_geometry else _without_geometry(assessment)

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
        include_geometry: IncludeGeometry = False,
    ) -> dict[str, Any]:
        # The REST list answers every item at once (at most 10): it takes no limit or cursor.
        answer = await _call(ctx, "list_voyage_batch_items", path_values={"batch_id": batch_id})
        if include_geometry or not isinstance(answer.get("items"), list):
            return answer
        items = [
            {**item, "assessment": _without_geometry(item["assessment"])}
            if isinstance(item, dict) and "assessment" in item
            else item
            for item in answer["items"]
        ]
        return {**answer, "items": items}

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
        customer_reference: Annotated[str | None, Field(description="Only monitors with this reference")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        flag = None if degraded is None else ("true" if degraded else "false")
        query = _present(degraded=flag, customer_reference=customer_reference, limit=limit, cursor=cursor)
        return await _call(ctx, "list_corridor_monitors", query=query)

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
        created_after: CreatedAfter = None,
        created_before: CreatedBefore = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(
            status=status, hs_chapter=hs_chapter, vessel_imo=vessel_imo, created_after=created_after,
            created_before=created_before, limit=limit, cursor=cursor,
        )  # fmt: skip
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
        created_after: CreatedAfter = None,
        created_before: CreatedBefore = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(
            endpoint_id=endpoint_id, event_type=event_type, status=status, created_after=created_after,
            created_before=created_before, limit=limit, cursor=cursor,
        )  # fmt: skip
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
        coverage_complete: Annotated[
            bool | None, Field(description="Whether every source answered (default: true unless INCOMPLETE)")
        ] = None,
        coverage_gaps: Annotated[
            list[str] | None, Field(description="Up to 20 names of the sources that did not answer")
        ] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(
            sanctions_status=sanctions_status, ownership_opacity=ownership_opacity, vetting_grade=vetting_grade,
            coverage_complete=coverage_complete, coverage_gaps=coverage_gaps,
        )  # fmt: skip
        body["confirmed"] = confirmed
        return await _call(
            ctx, "simulate_vessel_monitor", path_values={"monitor_id": monitor_id}, body=body,
            idempotency_key=idempotency_key,
        )  # fmt: skip

    @keyed("list_vessel_monitor_runs")
    async def list_vessel_monitor_runs(
        monitor_id: Annotated[str, Field(description="vmo_… id")],
        ctx: Context,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(limit=limit, cursor=cursor)
        return await _call(ctx, "list_vessel_monitor_runs", path_values={"monitor_id": monitor_id}, query=query)

    @keyed("list_corridor_monitor_runs")
    async def list_corridor_monitor_runs(
        monitor_id: Annotated[str, Field(description="cmo_… id")],
        ctx: Context,
        status: Annotated[str | None, Field(description="queued, running, deferred, completed or failed")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(status=status, limit=limit, cursor=cursor)
        return await _call(ctx, "list_corridor_monitor_runs", path_values={"monitor_id": monitor_id}, query=query)

    @keyed("list_fleets")
    async def list_fleets(ctx: Context, limit: Limit = None, cursor: Cursor = None) -> dict[str, Any]:
        return await _call(ctx, "list_fleets", query=_present(limit=limit, cursor=cursor))

    @keyed("get_fleet")
    async def get_fleet(fleet_id: Annotated[str, Field(description="flt_… id")], ctx: Context) -> dict[str, Any]:
        return await _call(ctx, "get_fleet", path_values={"fleet_id": fleet_id})

    @keyed("update_fleet")
    async def update_fleet(
        fleet_id: Annotated[str, Field(description="flt_… id")],
        ctx: Context,
        name: Annotated[str | None, Field(description="The fleet's new name")] = None,
        imos: Annotated[
            list[str] | None, Field(description="Replaces the whole hull list (not with add_imos or remove_imos)")
        ] = None,
        add_imos: Annotated[list[str] | None, Field(description="Hulls to add (a member already: no change)")] = None,
        remove_imos: Annotated[list[str] | None, Field(description="Hulls to remove (not a member: no change)")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(name=name, imos=imos, add_imos=add_imos, remove_imos=remove_imos)
        return await _call(
            ctx, "update_fleet", path_values={"fleet_id": fleet_id}, body=body, idempotency_key=idempotency_key
        )

    @keyed("delete_fleet")
    async def delete_fleet(
        fleet_id: Annotated[str, Field(description="flt_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(ctx, "delete_fleet", path_values={"fleet_id": fleet_id}, idempotency_key=idempotency_key)

    @keyed("list_webhook_endpoints")
    async def list_webhook_endpoints(ctx: Context, limit: Limit = None, cursor: Cursor = None) -> dict[str, Any]:
        return await _call(ctx, "list_webhook_endpoints", query=_present(limit=limit, cursor=cursor))

    @keyed("create_webhook_endpoint")
    async def create_webhook_endpoint(
        url: Annotated[str, Field(description="Public https:// URL that receives the signed events")],
        ctx: Context,
        event_types: Annotated[
            list[str] | None, Field(description="Event types it receives, e.g. vessel_risk.changed; none: every type")
        ] = None,
        enabled: Annotated[bool | None, Field(description="Whether it receives events (default true)")] = None,
        description: Annotated[str | None, Field(description="Up to 200 characters, for your own records")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(url=url, event_types=event_types, enabled=enabled, description=description)
        return await _call(ctx, "create_webhook_endpoint", body=body, idempotency_key=idempotency_key)

    @keyed("delete_webhook_endpoint")
    async def delete_webhook_endpoint(
        endpoint_id: Annotated[str, Field(description="whe_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(
            ctx, "delete_webhook_endpoint", path_values={"endpoint_id": endpoint_id}, idempotency_key=idempotency_key
        )

    @keyed("create_export")
    async def create_export(
        resource: Annotated[str, Field(description="screenings, screening_evidence, cargo_screenings or access_log")],
        format: Annotated[str, Field(description="csv or jsonl; zip for screening_evidence")],  # noqa: A002
        ctx: Context,
        filters: Annotated[
            dict[str, Any] | None,
            Field(description='The resource\'s list filters less limit and cursor, e.g. {"status": "RED"}'),
        ] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(resource=resource, format=format, filters=filters)
        return await _call(ctx, "create_export", body=body, idempotency_key=idempotency_key)

    @keyed("get_export")
    async def get_export(export_id: Annotated[str, Field(description="exp_… id")], ctx: Context) -> dict[str, Any]:
        return await _call(ctx, "get_export", path_values={"export_id": export_id})

    @keyed("list_exports")
    async def list_exports(ctx: Context, limit: Limit = None, cursor: Cursor = None) -> dict[str, Any]:
        return await _call(ctx, "list_exports", query=_present(limit=limit, cursor=cursor))

    @keyed("delete_export")
    async def delete_export(
        export_id: Annotated[str, Field(description="exp_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(ctx, "delete_export", path_values={"export_id": export_id}, idempotency_key=idempotency_key)

    @keyed("get_webhook_endpoint")
    async def get_webhook_endpoint(
        endpoint_id: Annotated[str, Field(description="whe_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_webhook_endpoint", path_values={"endpoint_id": endpoint_id})

    @keyed("update_webhook_endpoint")
    async def update_webhook_endpoint(
        endpoint_id: Annotated[str, Field(description="whe_… id")],
        ctx: Context,
        url: Annotated[str | None, Field(description="New public https:// URL for the signed events")] = None,
        event_types: Annotated[
            list[str] | None, Field(description="Event types it receives, e.g. vessel_risk.changed; empty: every type")
        ] = None,
        enabled: Annotated[bool | None, Field(description="Whether it receives events")] = None,
        description: Annotated[str | None, Field(description="Up to 200 characters, for your own records")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        body = _present(url=url, event_types=event_types, enabled=enabled, description=description)
        return await _call(
            ctx, "update_webhook_endpoint", path_values={"endpoint_id": endpoint_id}, body=body,
            idempotency_key=idempotency_key,
        )  # fmt: skip

    @keyed("send_webhook_test_delivery")
    async def send_webhook_test_delivery(
        endpoint_id: Annotated[str, Field(description="whe_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(
            ctx, "send_webhook_test_delivery", path_values={"endpoint_id": endpoint_id}, body={},
            idempotency_key=idempotency_key,
        )  # fmt: skip

    @keyed("rotate_webhook_secret")
    async def rotate_webhook_secret(
        endpoint_id: Annotated[str, Field(description="whe_… id")],
        ctx: Context,
        overlap_hours: Annotated[
            int | None,
            Field(description="Hours (0 to 168) the previous secret keeps signing beside the new one; 0 ends it now"),
        ] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        return await _call(
            ctx, "rotate_webhook_secret", path_values={"endpoint_id": endpoint_id},
            body=_present(overlap_hours=overlap_hours), idempotency_key=idempotency_key,
        )  # fmt: skip

    @keyed("get_webhook_delivery")
    async def get_webhook_delivery(
        delivery_id: Annotated[str, Field(description="whd_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_webhook_delivery", path_values={"delivery_id": delivery_id})

    @keyed("get_vessel_monitor")
    async def get_vessel_monitor(
        monitor_id: Annotated[str, Field(description="vmo_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_vessel_monitor", path_values={"monitor_id": monitor_id})

    @keyed("delete_vessel_monitor")
    async def delete_vessel_monitor(
        monitor_id: Annotated[str, Field(description="vmo_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(
            ctx, "delete_vessel_monitor", path_values={"monitor_id": monitor_id}, idempotency_key=idempotency_key
        )

    @keyed("get_corridor_monitor")
    async def get_corridor_monitor(
        monitor_id: Annotated[str, Field(description="cmo_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_corridor_monitor", path_values={"monitor_id": monitor_id})

    @keyed("delete_corridor_monitor")
    async def delete_corridor_monitor(
        monitor_id: Annotated[str, Field(description="cmo_… id")], ctx: Context, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await _call(
            ctx, "delete_corridor_monitor", path_values={"monitor_id": monitor_id}, idempotency_key=idempotency_key
        )

    @keyed("get_match_decision")
    async def get_match_decision(
        decision_id: Annotated[str, Field(description="mdc_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_match_decision", path_values={"decision_id": decision_id})

    @keyed("revoke_match_decision")
    async def revoke_match_decision(
        decision_id: Annotated[str, Field(description="mdc_… id")],
        reviewer: Annotated[str, Field(description="Who revokes")],
        ctx: Context,
        reason: Annotated[str | None, Field(description="Why, as the case file should read it")] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        return await _call(
            ctx, "revoke_match_decision", path_values={"decision_id": decision_id},
            body=_present(reviewer=reviewer, reason=reason), idempotency_key=idempotency_key,
        )  # fmt: skip

    @keyed("get_screening_evidence")
    async def get_screening_evidence(
        screening_id: Annotated[str, Field(description="scr_… id")], ctx: Context
    ) -> dict[str, Any]:
        return await _call(ctx, "get_screening_evidence", path_values={"screening_id": screening_id})

    @keyed("get_vessel_behaviour")
    @_taking_from
    async def get_vessel_behaviour(
        imo: Annotated[str, Field(description='The hull\'s 7-digit IMO number, e.g. "9074729"')],
        ctx: Context,
        from_: Annotated[
            str | None, Field(alias="from", description="RFC 3339: start of the window (default 30 days before to)")
        ] = None,
        to: Annotated[str | None, Field(description="RFC 3339: end of the window (default now)")] = None,
        limit: Annotated[int | None, Field(description="Events per page, 1-500 (default 100)")] = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(to=to, limit=limit, cursor=cursor)
        if from_ is not None:
            query["from"] = from_
        return await _call(ctx, "get_vessel_behaviour", path_values={"imo": imo}, query=query)

    @keyed("list_access_log")
    async def list_access_log(
        ctx: Context,
        path: Annotated[str | None, Field(description="Path prefix, e.g. /api/v1/screenings")] = None,
        status: Annotated[int | None, Field(description="HTTP status to match, e.g. 429")] = None,
        since: Annotated[str | None, Field(description="RFC 3339: entries at or after")] = None,
        until: Annotated[str | None, Field(description="RFC 3339: entries before")] = None,
        limit: Limit = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        query = _present(path=path, status=status, since=since, until=until, limit=limit, cursor=cursor)
        return await _call(ctx, "list_access_log", query=query)
