"""The MCP server: the tools (schemas in and out, a line for the model, annotations) and the resources.

Rule 1: every tool's arguments have a JSON schema with bounds (lengths, the ops by name), closed
        (``additionalProperties: false``), each argument described as what to give. Before a tool
        runs, an argument it doesn't take is refused by name with the nearest one it takes, and
        one that doesn't fit is refused naming it and what to give instead
        (:mod:`mobster_mcp._arguments`); nothing is dropped silently.
Rule 2: every tool declares its output schema (:mod:`mobster_mcp._outputs`, MCP's
        ``outputSchema``) and answers structured content that fits it (the same JSON is its text
        content; the SDK checks each answer against the schema); ``read_screen`` adds the
        screenshot as image content when asked.
Rule 3: a tool's failure is a tool error (``isError``) of one line: ``Error executing tool NAME:``
        and the bridge's line, or the argument's; the server keeps serving. An unknown tool is
        said with the nearest tool's name. An error nobody foresaw is said in one line too (the
        SDK's), never a traceback.
Rule 4: the annotations say what the MCP spec means by them: a read is ``readOnlyHint``; ``act``,
        ``start_recording`` (it relaunches the app and wipes its data), ``run_check`` and the heal
        decisions are ``destructiveHint``; writing a new check is not (it never overwrites one).
        Only what acts on the app (which may reach the network) is ``openWorldHint``.
Rule 5: each tool's description is one line that names its arguments; the resources are
        read-only: the checks, one check file's text, the last result.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from mobster_core import MobsterError

from . import _outputs as out
from ._arguments import nearest, one_line, problems, unknown
from ._bridge import OPS, Bridge, ToolProblem

if TYPE_CHECKING:
    from mcp_types import ContentBlock

__all__ = ["INSTRUCTIONS", "build_server"]

T = TypeVar("T")

INSTRUCTIONS = (
    "Mobster drives an iOS app on a phone or simulator and turns what you do into a check that replays "
    "with no model. To test a flow: start_recording (app: its bundle id; launches it fresh), read_screen, act "
    "on elements by their path (op, target), then record_check with a name and what the screen must show "
    "(expect); the check then runs in CI with `mobster test --no-heal`. The verdict comes from the "
    "accessibility tree, never from you. A check is named by its file (signup.yaml), its stem or its name; "
    "when two checks answer to a name, give the file."
)

Op = Literal[
    "tap", "long_press", "type", "submit", "swipe_up", "swipe_down", "swipe_left", "swipe_right",
    "launch", "home", "open_link",
]  # fmt: skip
_OPS = ", ".join(OPS)
CheckName = Annotated[str, Field(min_length=1, max_length=120,
                                 description="the check's file name (signup.yaml), its stem or its name, as "
                                             "list_checks lists them")]  # fmt: skip
TreePath = Annotated[str, Field(min_length=2, max_length=200, pattern=r"^/0(/[0-9]+)*$",
                                description="an element's path from read_screen, such as /0/0/2")]  # fmt: skip
_TEXT = "the text to type, an app's bundle id (launch) or a link (open_link), at most 400 characters"
Typed = Annotated[str, Field(max_length=400, description=_TEXT)]
#: What ``act``'s ``text`` is for each op that needs it (Rule 1: said before the bridge is asked).
_NEEDS_TEXT = {
    "type": "the text to type",
    "launch": "the bundle id of the app to launch, such as com.apple.Preferences",
    "open_link": "the link to open, such as myapp://signup",
}

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ACTS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)


class _Checked(Tool):
    """Rule 1: a tool whose arguments are checked first, each problem said in one line; its schema closed."""

    @classmethod
    def of(cls, fn: Callable[..., Any], annotations: ToolAnnotations) -> _Checked:
        tool = cls.from_function(fn, annotations=annotations)
        assert isinstance(tool, _Checked)
        tool.parameters["additionalProperties"] = False
        return tool

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        """The SDK's run, once the arguments are known to fit (Rule 1)."""
        refused = unknown(self.name, self.parameters, arguments)
        if refused is None:
            try:
                self.fn_metadata.validate_arguments(arguments)
            except ValidationError as exc:
                refused = problems(self.parameters, exc.errors(include_url=False))
            except Exception:  # noqa: BLE001, S110 - a crash of validation: the SDK's run says it (Rule 3)
                pass
        if refused is not None:
            raise ToolError(f"Error executing tool {self.name}: {refused}")
        return await super().run(arguments, context, convert_result=convert_result)


class _Server(MCPServer[Any]):
    """Rule 3: an unknown tool is said with the tools there are, and the nearest one."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's, once ``name`` is a tool of this server."""
        tools = [t.name for t in await self.list_tools()]
        if name not in tools:
            shown = json.dumps(name[:80], ensure_ascii=False)
            raise ToolError(f"Unknown tool: {shown}{nearest(name, tools)}; the tools are {', '.join(tools)}")
        return await super().call_tool(name, arguments, context)


def _act_arguments(op: str, target: str | None, text: str | None) -> None:
    """Rule 1: what ``act``'s op needs besides itself, named as the tool's arguments."""
    if target is None and OPS[op].needs_target:
        raise ToolError(f"op {op} needs target: give an element's path from read_screen, such as /0/0/2")
    if not text and op in _NEEDS_TEXT:
        raise ToolError(f"op {op} needs text: give {_NEEDS_TEXT[op]}")


def _answer(doc: dict[str, Any], picture: bytes | None = None) -> CallToolResult:
    """Rule 2: the tool's answer: structured content, the same as text, and a picture when there is one."""
    content: list[ContentBlock] = [TextContent(text=json.dumps(doc, ensure_ascii=False))]
    if picture is not None:
        content.append(ImageContent(data=base64.b64encode(picture).decode("ascii"), mime_type="image/png"))
    return CallToolResult(content=content, structured_content=doc)


async def _work(bridge: Bridge, work: Callable[[], Awaitable[Any]]) -> Any:
    """Rule 3: the bridge's work, one at a time; its problems are the tool's error, on one line."""
    try:
        return await bridge.one_at_a_time(work)
    except ToolProblem as exc:
        raise ToolError(one_line(str(exc))) from None
    except MobsterError as exc:
        raise ToolError(one_line(str(exc))) from None
    except OSError as exc:
        raise ToolError(one_line(f"{type(exc).__name__}: {exc}")) from None


async def _tool(bridge: Bridge, work: Callable[[], Awaitable[dict[str, Any]]]) -> CallToolResult:
    return _answer(await _work(bridge, work))


def build_server(bridge: Bridge) -> MCPServer[Any]:
    """The MCP server whose tools and resources work on ``bridge`` (see the module rules)."""
    tools = [*_device_tools(bridge), *_recording_tools(bridge), *_check_tools(bridge)]
    server = _Server("mobster", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING", tools=tools)
    _resources(server, bridge)
    return server


def _device_tools(bridge: Bridge) -> list[Tool]:
    """The device, its screen and one action."""

    async def list_devices() -> Annotated[CallToolResult, out.Devices]:
        """List the device this server drives: its label, kind, name and iOS version (no arguments)."""
        return await _tool(bridge, bridge.list_devices)

    async def read_screen(
        screenshot: Annotated[bool, Field(description="true to add a PNG of the screen as image content")] = False,
    ) -> Annotated[CallToolResult, out.ScreenRead]:
        """Read the settled screen: each shown element's path, role, label, value; screenshot: true adds a PNG."""

        async def work() -> tuple[dict[str, Any], bytes | None]:
            return await bridge.read_screen(screenshot=screenshot)

        doc, picture = await _work(bridge, work)
        return _answer(doc, picture)

    async def act(
        op: Annotated[Op, Field(description=f"the action, one of {_OPS}")],
        target: Annotated[
            TreePath | None, Field(description="an element's path from read_screen, such as /0/0/2")
        ] = None,
        text: Annotated[Typed | None, Field(description=_TEXT)] = None,
    ) -> Annotated[CallToolResult, out.Acted]:
        """Do one action: op (tap, type, swipe_up, launch, home, open_link, …), target (a path), text."""
        _act_arguments(op, target, text)
        return await _tool(bridge, lambda: bridge.act(op, target, text))

    return [_Checked.of(list_devices, _READ), _Checked.of(read_screen, _READ), _Checked.of(act, _ACTS)]


def _recording_tools(bridge: Bridge) -> list[Tool]:
    """Recording a session, and keeping it as a check."""

    async def start_recording(
        app: Annotated[
            str, Field(min_length=3, max_length=255, description="the app's bundle id, such as com.example.app")
        ],
        link: Annotated[
            str | None, Field(max_length=2000, description="a deep link to launch it with, such as myapp://signup")
        ] = None,
    ) -> Annotated[CallToolResult, out.RecordingStarted]:
        """Relaunch app (a bundle id; link, a deep link) fresh, its data reset, and record every action from now."""
        return await _tool(bridge, lambda: bridge.start_recording(app, link))

    async def stop_recording() -> Annotated[CallToolResult, out.RecordingStopped]:
        """Drop the recording without writing anything (no arguments)."""
        return await _tool(bridge, bridge.stop_recording)

    async def record_check(
        name: Annotated[
            str,
            Field(
                min_length=1,
                max_length=120,
                description='the check\'s name, what it checks, such as "A new user signs up"',
            ),
        ],
        expect: Annotated[
            list[Any],
            Field(
                min_length=1,
                max_length=50,
                description='what the screen must show now, as a check file\'s expect list: [{"text": "Welcome"}]',
            ),
        ],
        file: Annotated[
            str | None,
            Field(
                max_length=120,
                description="the check file's name in .mobster/checks, such as signup.yaml (default: from the name)",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, out.Recorded]:
        """Save the recorded actions as check name (file) if the screen shows what expect says; else write nothing."""
        return await _tool(bridge, lambda: bridge.record_check(name, expect, file))

    additive = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    stops = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    return [
        _Checked.of(start_recording, _ACTS),
        _Checked.of(stop_recording, stops),
        _Checked.of(record_check, additive),
    ]


def _check_tools(bridge: Bridge) -> list[Tool]:
    """The project's checks: run one, list them, review heals."""

    async def run_check(
        check: CheckName,
        no_heal: Annotated[
            bool, Field(description="true for strict CI: a changed step fails, no model is called")
        ] = False,
    ) -> Annotated[CallToolResult, out.CheckRun]:
        """Run check (its file, stem or name) as mobster test does; no_heal: true for strict. Its result and report."""
        return await _tool(bridge, lambda: bridge.run_check(check, no_heal=no_heal))

    async def list_checks() -> Annotated[CallToolResult, out.Checks]:
        """List the project's checks: name, file, steps, expectations, heals waiting (no arguments)."""
        return await _tool(bridge, _sync(bridge.list_checks))

    async def list_heals() -> Annotated[CallToolResult, out.Heals]:
        """List the heals waiting for review: the check, the step, what it was and became (no arguments)."""
        return await _tool(bridge, _sync(bridge.list_heals))

    async def accept_heal(check: CheckName) -> Annotated[CallToolResult, out.Decided]:
        """Keep check's healed steps (check: its file, stem or name) as its recorded path."""
        return await _tool(bridge, _sync(lambda: bridge.decide_heal(check, accept=True)))

    async def reject_heal(check: CheckName) -> Annotated[CallToolResult, out.Rejected]:
        """Reject check's heals (check: its file, stem or name): its recorded steps come back, and fail."""
        return await _tool(bridge, _sync(lambda: bridge.decide_heal(check, accept=False)))

    runs = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)
    decides = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
    return [
        _Checked.of(run_check, runs),
        _Checked.of(list_checks, _READ),
        _Checked.of(list_heals, _READ),
        _Checked.of(accept_heal, decides),
        _Checked.of(reject_heal, decides),
    ]


def _resources(server: MCPServer[Any], bridge: Bridge) -> None:
    """Rule 5: the checks, a check's text and the last result, read-only; a problem is one line."""

    @server.resource("mobster://checks", name="checks", mime_type="application/json")
    def checks() -> str:
        """The project's checks (read-only)."""
        return json.dumps(_read(bridge.list_checks), ensure_ascii=False)

    @server.resource("mobster://checks/{name}", name="check", mime_type="application/yaml")
    def check_file(name: str) -> str:
        """One check file's text (read-only)."""
        return _read(lambda: bridge.check_text(name))

    @server.resource("mobster://results/last", name="last results", mime_type="application/json")
    def last_results() -> str:
        """The last check run's result (read-only)."""
        return _read(bridge.last_results)


def _read(call: Callable[[], T]) -> T:
    """Rule 5: a resource's read; what it can't do is a resource error of one line."""
    try:
        return call()
    except (MobsterError, OSError) as exc:
        raise ResourceError(one_line(str(exc))) from None


def _sync(call: Callable[[], dict[str, Any]]) -> Callable[[], Awaitable[dict[str, Any]]]:
    async def work() -> dict[str, Any]:
        return call()

    return work


def _version() -> str:
    from mobster_core.distribution import version

    return version() or "0"
