"""MCP tools over the same services as the REST API."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer


def build_server() -> MCPServer:
    server = MCPServer(
        name="vessel-screening",
        instructions=(
            "Screen ships by IMO number and look up ports. Output is decision support, not legal, "
            "insurance or sanctions-compliance advice."
        ),
        version="2026-10-08",
    )
    return server
