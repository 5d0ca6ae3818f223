"""`mobster mcp` over its two transports, and on a USB iPhone: the SDK's stdio and streamable HTTP clients.

These run on the real clock (a subprocess, real sockets), each bounded: the stdio session by a
deadline on the client, the HTTP server by its own stop at the end of the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from mobster_core import SystemClock
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.devices.usb import UsbIphone
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeUsbmuxd
from mobster_drivers.testing.wda import FakeWda
from mobster_harness.settings import Timing
from mobster_mcp import LOOPBACK, build_server, http_server
from tests.mcp.helpers import APP, bridge_on, call, error_of, path_of, sign_up
from tests.real_clock import QUICK_OPTIONS, QUICK_POLICY, mobster

#: The longest a whole MCP session over a real transport may take.
DEADLINE_S = 90.0
QUICK = Timing(QUICK_POLICY.interval, QUICK_POLICY.drift_after, QUICK_POLICY.give_up_after)


async def _record(client: Client) -> dict[str, Any]:
    await sign_up(client)
    said = await error_of(client, "act", {"op": "tap", "target": "/0/" + "9" * 150})
    assert "no element shown" in said  # a hostile call in the middle, and the session goes on
    return await call(client, "record_check", name="A new user signs up", expect=[{"text": "Welcome aboard"}])


def _replays_with_no_model(recorded: dict[str, Any]) -> None:
    result = mobster("test", "--no-heal", "--scripted", str(sample_path("yourapp")), "--json")
    assert result.exit_code == 0, result.output
    check = json.loads(result.stdout)["checks"][0]
    assert (check["verdict"], check["mode"], check["model_calls"]) == (recorded["verdict"], "replay", 0)


def test_a_session_over_stdio_records_a_check_that_replays(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mobster_cli.main",
            "mcp",
            "--scripted",
            str(sample_path("yourapp")),
            "--project",
            str(project),
            *QUICK_OPTIONS,
        ],
        cwd=project,
        env={"PYTHONPATH": os.pathsep.join(sys.path)},
    )

    async def session() -> dict[str, Any]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(stdio_client(params)) as client:
                recorded = await _record(client)
                await _errors_are_one_line_and_answers_fit_their_schemas(client)
                return recorded

    recorded = asyncio.run(session())
    assert recorded["file"] == ".mobster/checks/a-new-user-signs-up.yaml"
    _replays_with_no_model(recorded)


async def _errors_are_one_line_and_answers_fit_their_schemas(client: Client) -> None:
    """Issue 38's consumer, the official client over stdio: one-line errors, and answers held to their schemas."""
    schemas = {t.name: t.output_schema or {} for t in (await client.list_tools()).tools}
    assert all(schemas.values()), [name for name, schema in schemas.items() if not schema]
    for tool in ("list_devices", "read_screen", "list_checks", "list_heals"):
        result = await client.call_tool(tool, {})
        assert not result.is_error, result.content
        Draft202012Validator(schemas[tool]).validate(result.structured_content)
    for tool, arguments, said in (
        ("act", {"op": "tap", "taget": "/0/0"}, 'unknown argument "taget" (did you mean "target"?)'),
        ("act", {"op": "fly"}, 'op is "fly"; give the action, one of tap, long_press'),
        ("record_check", {"name": "x", "expect": "Welcome"}, "expect is text, not a list; give what the screen"),
    ):
        error = await error_of(client, tool, arguments)
        assert said in error, error
        assert error.splitlines() == [error], error
        assert "http" not in error, error


@pytest.fixture
def served(project: Path) -> Iterator[str]:
    """The server over streamable HTTP on 127.0.0.1 (a socket bound before it serves), stopped at the end."""
    bridge = bridge_on(project, SystemClock(), timing=QUICK)
    listener = socket.socket()
    listener.bind((LOOPBACK, 0))
    listener.listen()
    port = listener.getsockname()[1]
    server = http_server(build_server(bridge), port)
    assert server.config.host == LOOPBACK
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()
        bridge.close()
    assert not thread.is_alive()


def test_a_session_over_streamable_http_records_a_check_that_replays(served: str) -> None:
    async def session() -> dict[str, Any]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(streamable_http_client(served)) as client:
                said = await error_of(client, "no_such_tool", {})
                assert "Unknown tool" in said
                return await _record(client)

    recorded = asyncio.run(session())
    _replays_with_no_model(recorded)


UDID = "00008140-001A2B3C4D5E801E"


@pytest.fixture
def iphone() -> Iterator[UsbIphone]:
    """The USB iPhone through the fake usbmuxd, to the fake WDA of an app with a "Delete account" button."""
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    text = text.replace(
        "        - {role: Cell, label: Account}\n",
        "        - {role: Cell, label: Account}\n        - {role: Button, label: Delete account}\n",
    )
    with FakeWda(AppScript.from_text(text, "iphone.yaml"), lifetime=60) as wda:
        phone = FakeIphone(udid=UDID, name="Lab iPhone", ios="26.4", ports={8100: wda.port})
        with FakeUsbmuxd([phone]) as mux:
            device = UsbIphone.connect("Lab iPhone", usbmux_address=mux.address, lockdown=mux.lockdown())
            try:
                yield device
            finally:
                device.close()


def test_a_destructive_act_on_an_iphone_is_refused_as_in_a_run(project: Path, iphone: UsbIphone) -> None:
    bridge = bridge_on(project, SystemClock(), device=iphone, timing=QUICK)

    async def session() -> list[str]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(build_server(bridge)) as client:
                devices = await call(client, "list_devices")
                screen = (await call(client, "start_recording", app=APP))["screen"]
                screen = (await call(client, "act", op="tap", target=path_of(screen, "Settings")))["screen"]
                refused = await error_of(client, "act", {"op": "tap", "target": path_of(screen, "Delete account")})
                after = await call(client, "read_screen")
                return [devices["devices"][0]["device_kind"], refused, json.dumps(after["recording"])]

    try:
        kind, refused, recording = asyncio.run(session())
    finally:
        bridge.close()
    assert kind == "iphone"
    assert refused.endswith(
        'Tap "Delete account" was refused: a delete is refused on an iPhone (send, post, delete and purchase are); '
        "it was not sent"
    )
    assert recording == '{"on": true, "steps": ["Tap \\"Settings\\""]}'  # the refused tap is no step
    journal = max(((project / ".mobster" / "runs").glob("*/journal.jsonl")), key=lambda f: f.stat().st_size)
    outcomes = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(e["key"], e["outcome"]) for e in outcomes if e["event"] == "outcome"][-1] == ("live-2", "refused")
