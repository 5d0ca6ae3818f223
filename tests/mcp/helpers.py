"""What the MCP tests share: an agent script that drives the server through the SDK's own client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client import Client

from mobster_core import Device
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from mobster_harness.settings import Settings
from mobster_harness.spec import DeviceOptions
from mobster_mcp import Bridge, build_server

APP = "com.example.yourapp"


def bridge_on(root: Path, clock: Any, *, app: str = "yourapp", device: Device | None = None, **changes: Any) -> Bridge:
    """A bridge on the scripted phone running ``app`` (a sample's name), or on ``device``."""
    settings = Settings(devices=DeviceOptions(scripted=(str(sample_path(app)),)), **changes)
    return Bridge(settings, root, clock, device=device)


def path_of(screen: dict[str, Any], label: str) -> str:
    """The tree path of the one shown element called ``label`` in a tool's screen."""
    found = [e["path"] for e in screen["elements"] if e["label"] == label]
    assert len(found) == 1, (label, screen)
    return str(found[0])


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured content."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (tool, result.content)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def error_of(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """Call a tool that must fail; its error's text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, (tool, result.structured_content)
    return " ".join(getattr(c, "text", "") for c in result.content)


async def sign_up(client: Client) -> dict[str, Any]:
    """The agent script: start recording, read, act through the sign-up; the last answer of ``act``."""
    started = await call(client, "start_recording", app=APP)
    screen = await call(client, "read_screen")
    assert screen["elements"] == started["screen"]["elements"]
    done = await call(client, "act", op="tap", target=path_of(screen, "Sign up"))
    done = await call(client, "act", op="type", target=path_of(done["screen"], "Email"), text="ada@example.com")
    return await call(client, "act", op="tap", target=path_of(done["screen"], "Continue"))


def run_fake(clock: FakeClock, bridge: Bridge, script: Any) -> Any:
    """Run ``script(client)`` against the in-process server on the fake clock; the bridge is closed after."""

    async def main() -> Any:
        async with Client(build_server(bridge)) as client:
            return await script(client)

    try:
        return clock.run(main())
    finally:
        bridge.close()
