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

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._bridge import Bridge, ToolProblem

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "LOOPBACK",
    "Bridge",
    "ToolProblem",
    "build_server",
    "http_server",
    "http_serving",
    "serve_stdio",
    "stdio_serving",
]

#: The only address the HTTP transport binds: the server drives a phone, so only this machine may reach it.
LOOPBACK = "127.0.0.1"


def build_server(bridge: Bridge) -> MCPServer[Any]:
    """The MCP server of ``bridge``: its tools and resources."""
    from ._server import build_server as build

    return build(bridge)


def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve over stdin and stdout until the client closes them."""
    server.run("stdio")


async def stdio_serving(server: MCPServer[Any]) -> None:
    """Serve over stdin and stdout on the running event loop, until the client closes them.

    What ``mobster mcp`` runs under its signal rule: the caller owns SIGINT and SIGTERM, and its
    loop. Cancelled, it ends the calls in flight; the read of stdin in flight is a thread of the
    SDK's that no cancellation reaches, so the caller bounds the wait for it.
    """
    await server.run_stdio_async()


def http_server(server: MCPServer[Any], port: int) -> uvicorn.Server:
    """The streamable HTTP server of ``server`` on 127.0.0.1:``port`` (path ``/mcp``); ``await .serve()`` runs it.

    Set ``should_exit`` to stop it: the requests still in flight are cancelled (a device call
    whose reply never comes would otherwise hold the stop for ever), then the app's lifespan ends.
    """
    return _uvicorn_server(server, port, callers_signals=False)


async def http_serving(server: MCPServer[Any], port: int) -> None:
    """Serve streamable HTTP on 127.0.0.1:``port`` on the running event loop, leaving the signals to the caller.

    What ``mobster mcp --http`` runs under its signal rule (uvicorn's own handling of SIGINT and
    SIGTERM is off). Cancelled, it stops as ``should_exit`` stops it: the requests in flight are
    cancelled and the app's lifespan ends (the MCP sessions and their calls in flight with it);
    then the cancellation goes on.
    """
    import asyncio
    import logging

    served = _uvicorn_server(server, port, callers_signals=True)
    serving = asyncio.ensure_future(served.serve())
    try:
        await asyncio.shield(serving)
    except asyncio.CancelledError:
        # The stop is the caller's: the requests uvicorn cancels now are no error to log with a traceback.
        logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
        served.should_exit = True
        await serving  # uvicorn's own shutdown: it doesn't wait for the requests in flight
        raise


def _uvicorn_server(server: MCPServer[Any], port: int, *, callers_signals: bool) -> uvicorn.Server:
    import uvicorn

    app = server.streamable_http_app(host=LOOPBACK)
    # No graceful wait for requests in flight: one on a device that never answers would never end.
    config = uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=0)  # fmt: skip
    if not callers_signals:
        return uvicorn.Server(config)

    class CallersSignals(uvicorn.Server):
        """A uvicorn server that leaves SIGINT and SIGTERM to its caller."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return CallersSignals(config)
