"""``mobster mcp``: an MCP server on one phone, whose recorded sessions become checks that replay with no model.

An agent (Claude, Cursor, VS Code's agent, ...) reads the screen, acts on the app and records a
check; ``mobster test`` then replays that check with zero model calls, and the verdict comes from
the accessibility tree. The tools and resources are in :mod:`mobster_mcp._server`, their work in
:mod:`mobster_mcp._bridge`, on the core's live sessions (``mobster_core.sessions``) and the
harness's devices. Needs the ``mcp`` extra (``mobster-replay[mcp]``). See ``docs/mcp.md``.

    from mobster_mcp import Bridge, build_server, serve_stdio

    bridge = Bridge(settings, project_root, SystemClock())
    serve_stdio(build_server(bridge))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._bridge import Bridge, ToolProblem

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

__all__ = ["LOOPBACK", "Bridge", "ToolProblem", "build_server", "http_server", "serve_stdio"]

#: The only address the HTTP transport binds: the server drives a phone, so only this machine may reach it.
LOOPBACK = "127.0.0.1"


def build_server(bridge: Bridge) -> MCPServer[Any]:
    """The MCP server of ``bridge``: its tools and resources."""
    from ._server import build_server as build

    return build(bridge)


def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve over stdin and stdout until the client closes them."""
    server.run("stdio")


def http_server(server: MCPServer[Any], port: int) -> uvicorn.Server:
    """The streamable HTTP server of ``server`` on 127.0.0.1:``port`` (path ``/mcp``); ``await .serve()`` runs it.

    Set ``should_exit`` to stop it.
    """
    import uvicorn

    app = server.streamable_http_app(host=LOOPBACK)
    return uvicorn.Server(uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning", lifespan="on"))
