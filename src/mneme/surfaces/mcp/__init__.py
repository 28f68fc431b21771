"""mneme over MCP: ``build_server`` (stdio, in process), ``streamable_http_app`` (HTTP)."""

from mneme.surfaces.mcp.server import build_server, run_stdio, streamable_http_app

__all__ = ["build_server", "run_stdio", "streamable_http_app"]
