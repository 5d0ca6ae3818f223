"""The MCP server: the tools (schemas, a line for the model, annotations) and the resources.

Rule 1: every tool's arguments have a JSON schema with bounds (lengths, the ops by name); the SDK
        refuses what doesn't fit it before the tool runs, as a tool error.
Rule 2: every tool answers structured content (the same JSON as its text content); ``read_screen``
        adds the screenshot as image content when asked.
Rule 3: a tool's failure is a tool error (``isError``) with the bridge's one line; the server
        keeps serving. An error nobody foresaw is said in one line too, never a traceback.
Rule 4: the annotations say what the MCP spec means by them: a read is ``readOnlyHint``; ``act``,
        ``start_recording`` (it relaunches the app and wipes its data), ``run_check`` and the heal
        decisions are ``destructiveHint``; writing a new check is not (it never overwrites one).
        Only what acts on the app (which may reach the network) is ``openWorldHint``.
Rule 5: the resources are read-only: the checks, one check file's text, the last result.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import Field

from mobster_core import MobsterError

from ._bridge import Bridge, ToolProblem

if TYPE_CHECKING:
    from mcp_types import ContentBlock

__all__ = ["INSTRUCTIONS", "build_server"]

INSTRUCTIONS = (
    "Mobster drives an iOS app on a phone or simulator and turns what you do into a check that replays "
    "with no model. To test a flow: start_recording (launches the app fresh), read_screen, act on elements "
    "by their path, then record_check with a name and what the screen must show; the check then runs in CI "
    "with `mobster test --no-heal`. The verdict comes from the accessibility tree, never from you."
)

Op = Literal[
    "tap", "long_press", "type", "submit", "swipe_up", "swipe_down", "swipe_left", "swipe_right",
    "launch", "home", "open_link",
]  # fmt: skip
Name = Annotated[str, Field(min_length=1, max_length=120, description="a check's name or its file's name")]
TreePath = Annotated[str, Field(min_length=2, max_length=200, pattern=r"^/0(/[0-9]+)*$",
                                description="an element's path from read_screen, such as /0/0/2")]  # fmt: skip
Typed = Annotated[str, Field(max_length=400, description="text to type, an app's bundle id, or a link")]

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ACTS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)


def _answer(doc: dict[str, Any], picture: bytes | None = None) -> CallToolResult:
    """Rule 2: the tool's answer: structured content, the same as text, and a picture when there is one."""
    content: list[ContentBlock] = [TextContent(text=json.dumps(doc, ensure_ascii=False))]
    if picture is not None:
        content.append(ImageContent(data=base64.b64encode(picture).decode("ascii"), mime_type="image/png"))
    return CallToolResult(content=content, structured_content=doc)


async def _tool(bridge: Bridge, work: Callable[[], Awaitable[dict[str, Any]]]) -> CallToolResult:
    """Rule 3: the bridge's work, one at a time; its problems are the tool's error."""
    try:
        return _answer(await bridge.one_at_a_time(work))
    except ToolProblem as exc:
        raise ToolError(str(exc)) from None
    except MobsterError as exc:
        raise ToolError(str(exc)) from None
    except OSError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from None


def build_server(bridge: Bridge) -> MCPServer[Any]:
    """The MCP server whose tools and resources work on ``bridge`` (see the module rules)."""
    server: MCPServer[Any] = MCPServer("mobster", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")
    _device_tools(server, bridge)
    _recording_tools(server, bridge)
    _check_tools(server, bridge)
    _resources(server, bridge)
    return server


def _device_tools(server: MCPServer[Any], bridge: Bridge) -> None:
    """The device, its screen and one action."""

    @server.tool(annotations=_READ)
    async def list_devices() -> CallToolResult:
        """List the device this server drives: its label, kind, name and iOS version."""
        return await _tool(bridge, bridge.list_devices)

    @server.tool(annotations=_READ)
    async def read_screen(screenshot: bool = False) -> CallToolResult:
        """Read the settled screen: each shown element's path, role, label and value; a screenshot if asked."""

        async def work() -> tuple[dict[str, Any], bytes | None]:
            return await bridge.read_screen(screenshot=screenshot)

        try:
            doc, picture = await bridge.one_at_a_time(work)
        except MobsterError as exc:
            raise ToolError(str(exc)) from None
        return _answer(doc, picture)

    @server.tool(annotations=_ACTS)
    async def act(op: Op, target: TreePath | None = None, text: Typed | None = None) -> CallToolResult:
        """Do one action on the app (tap, type, swipe, launch, home, open_link); target is an element's path."""
        return await _tool(bridge, lambda: bridge.act(op, target, text))


def _recording_tools(server: MCPServer[Any], bridge: Bridge) -> None:
    """Recording a session, and keeping it as a check."""

    @server.tool(annotations=_ACTS)
    async def start_recording(
        app: Annotated[str, Field(min_length=3, max_length=255, description="the app's bundle id")],
        link: Annotated[str | None, Field(max_length=2000, description="a deep link to launch with")] = None,
    ) -> CallToolResult:
        """Relaunch the app fresh (its data reset, as its check's runs will) and record every action from now."""
        return await _tool(bridge, lambda: bridge.start_recording(app, link))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                             open_world_hint=False))  # fmt: skip
    async def stop_recording() -> CallToolResult:
        """Drop the recording without writing anything."""
        return await _tool(bridge, bridge.stop_recording)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                                             open_world_hint=False))  # fmt: skip
    async def record_check(
        name: Annotated[str, Field(min_length=1, max_length=120, description="what the check checks")],
        expect: Annotated[
            list[Any],
            Field(min_length=1, max_length=50, description='what the screen must show now: [{"text": "Welcome"}]'),
        ],
        file: Annotated[str | None, Field(max_length=120, description="file name in .mobster/checks")] = None,
    ) -> CallToolResult:
        """Save the recorded actions as a check if the screen now shows what expect says; else write nothing."""
        return await _tool(bridge, lambda: bridge.record_check(name, expect, file))


def _check_tools(server: MCPServer[Any], bridge: Bridge) -> None:
    """The project's checks: run one, list them, review heals."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                             open_world_hint=True))  # fmt: skip
    async def run_check(check: Name, no_heal: bool = False) -> CallToolResult:
        """Run one check as mobster test does (replay, heal, verdict) and return its result and report path."""
        return await _tool(bridge, lambda: bridge.run_check(check, no_heal=no_heal))

    @server.tool(annotations=_READ)
    async def list_checks() -> CallToolResult:
        """List the project's checks: name, file, steps, expectations, heals waiting."""
        return await _tool(bridge, _sync(bridge.list_checks))

    @server.tool(annotations=_READ)
    async def list_heals() -> CallToolResult:
        """List the heals waiting for review: the check, the step, what it was and what it became."""
        return await _tool(bridge, _sync(bridge.list_heals))

    decides = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=decides)
    async def accept_heal(check: Name) -> CallToolResult:
        """Keep a check's healed steps as its recorded path."""
        return await _tool(bridge, _sync(lambda: bridge.decide_heal(check, accept=True)))

    @server.tool(annotations=decides)
    async def reject_heal(check: Name) -> CallToolResult:
        """Reject a check's heals: its recorded steps come back and fail when they change again."""
        return await _tool(bridge, _sync(lambda: bridge.decide_heal(check, accept=False)))


def _resources(server: MCPServer[Any], bridge: Bridge) -> None:
    """Rule 5: the checks, a check's text and the last result, read-only."""

    @server.resource("mobster://checks", name="checks", mime_type="application/json")
    def checks() -> str:
        """The project's checks (read-only)."""
        return json.dumps(bridge.list_checks(), ensure_ascii=False)

    @server.resource("mobster://checks/{name}", name="check", mime_type="application/yaml")
    def check_file(name: str) -> str:
        """One check file's text (read-only)."""
        return bridge.check_text(name)

    @server.resource("mobster://results/last", name="last results", mime_type="application/json")
    def last_results() -> str:
        """The last check run's result (read-only)."""
        return bridge.last_results()


def _sync(call: Callable[[], dict[str, Any]]) -> Callable[[], Awaitable[dict[str, Any]]]:
    async def work() -> dict[str, Any]:
        return call()

    return work


def _version() -> str:
    from mobster_core.distribution import version

    return version() or "0"
