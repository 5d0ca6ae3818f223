"""Ctrl+C and SIGTERM stop `mobster mcp` while a device call is in flight, over stdio and over HTTP.

The server runs in a subprocess against the fake WDA, whose reply to the tap is held 60 s: the
signal ends the call in flight (journaled as unknown, as a run's), releases the device (its lock's
owner record is gone) and exits 130 or 143. The product's goal is 2 s (docs/reliability.md); the
tests allow 10 s, as a machine shared by several test workers may be slow.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.wda import FakeWda
from tests.mcp.helpers import APP, path_of
from tests.real_clock import QUICK_OPTIONS

#: The longest the test waits for the command to end after the signal (the goal is 2 s).
BOUND_S = 10.0
CODES = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]


@pytest.fixture
def wda() -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        yield fake


def _command(project: Path, wda: FakeWda, *more: str) -> list[str]:
    return [sys.executable, "-c", "from mobster_cli.main import main; main()", "mcp", "--wda", wda.url,
            "--project", str(project), *QUICK_OPTIONS, *more]  # fmt: skip


def _env(locks: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    return {**env, "MOBSTER_LOCK_DIR": str(locks)}


def _journal(project: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for journal in (project / ".mobster" / "runs").glob("*/journal.jsonl"):
        lines += [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    return lines


def _wait_until_the_tap_is_in_flight(project: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while not any(e.get("event") == "intent" and e.get("key") == "live-1" for e in _journal(project)):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("the server never sent the tap")
        time.sleep(0.05)
    time.sleep(0.3)  # the tap is in flight, its reply held by the fake


def _stopped_within_the_bound(proc: subprocess.Popen[str], signum: int) -> tuple[int, float, str]:
    started = time.monotonic()
    proc.send_signal(signum)
    try:
        proc.wait(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"still serving {BOUND_S:g} s after {signal.Signals(signum).name}")
    took = time.monotonic() - started
    assert proc.stderr is not None
    return proc.returncode, took, proc.stderr.read()


def _device_released(project: Path, locks: Path) -> None:
    assert list(locks.glob("*.lock")), "the device was never locked"
    assert not list(locks.glob("*.owner")), "the device's lock was not released"
    outcomes = [e["outcome"] for e in _journal(project) if e.get("event") == "outcome" and e.get("key") == "live-1"]
    assert outcomes == ["unknown"]  # the call in flight was ended as a run ends it


class _Lines:
    """The server's stdout, a JSON-RPC message a line, read in a thread so a wait can be bounded."""

    def __init__(self, out: IO[str]) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(out,), daemon=True).start()

    def _read(self, out: IO[str]) -> None:
        for line in out:
            self._lines.put(line)

    def reply(self, ident: int, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._lines.get(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("id") == ident:
                return dict(message)


def _send(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    proc.stdin.flush()


@pytest.mark.parametrize(("signum", "code"), CODES)
def test_a_signal_stops_the_stdio_server_while_a_tap_is_in_flight(
    tmp_path: Path, wda: FakeWda, signum: int, code: int
) -> None:
    project, locks = tmp_path / "project", tmp_path / "locks"
    project.mkdir()
    proc = subprocess.Popen(_command(project, wda), cwd=project, env=_env(locks), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        lines = _Lines(proc.stdout)  # type: ignore[arg-type]
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        _send(proc, {"id": 1, "method": "initialize", "params": hello})
        assert "result" in lines.reply(1)
        _send(proc, {"method": "notifications/initialized"})
        _send(proc, {"id": 2, "method": "tools/call", "params": {"name": "start_recording", "arguments": {"app": APP}}})
        started = lines.reply(2)["result"]["structuredContent"]
        wda.fail_next_action(stall=60.0)
        tap = {"op": "tap", "target": path_of(started["screen"], "Sign up")}
        _send(proc, {"id": 3, "method": "tools/call", "params": {"name": "act", "arguments": tap}})
        _wait_until_the_tap_is_in_flight(project, proc)
        returncode, took, err = _stopped_within_the_bound(proc, signum)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert returncode == code, err
    assert took < BOUND_S
    assert f"stopped by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err
    _device_released(project, locks)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _agent_over_http(url: str, wda: FakeWda, said: list[str]) -> None:
    """The agent, in a thread of its own: start recording, then a tap whose reply never comes."""

    async def session() -> None:
        async with Client(streamable_http_client(url)) as client:
            started = await client.call_tool("start_recording", {"app": APP})
            assert isinstance(started.structured_content, dict)
            wda.fail_next_action(stall=60.0)
            target = path_of(started.structured_content["screen"], "Sign up")
            await client.call_tool("act", {"op": "tap", "target": target})

    try:
        asyncio.run(session())
    except BaseException as exc:  # the server went away under the call: what the test expects
        said.append(type(exc).__name__)


@pytest.mark.parametrize(("signum", "code"), CODES)
def test_a_signal_stops_the_http_server_while_a_tap_is_in_flight(
    tmp_path: Path, wda: FakeWda, signum: int, code: int
) -> None:
    project, locks = tmp_path / "project", tmp_path / "locks"
    project.mkdir()
    port = _free_port()
    proc = subprocess.Popen(_command(project, wda, "--http", str(port)), cwd=project, env=_env(locks), text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    said: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("the server never listened")
                time.sleep(0.05)
        agent = threading.Thread(target=_agent_over_http, args=(f"http://127.0.0.1:{port}/mcp", wda, said),
                                 daemon=True)  # fmt: skip
        agent.start()
        _wait_until_the_tap_is_in_flight(project, proc)
        returncode, took, err = _stopped_within_the_bound(proc, signum)
        agent.join(timeout=BOUND_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert returncode == code, err
    assert took < BOUND_S
    assert f"stopped by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err
    _device_released(project, locks)


def test_sigterm_ends_the_appium_session_of_a_call_in_flight(tmp_path: Path) -> None:
    """Releasing the device is ending its session too: a cloud bills a session until it is deleted."""
    from mobster_drivers.testing.appium import FakeAppium

    project, locks = tmp_path / "project", tmp_path / "locks"
    project.mkdir()
    with FakeAppium(sample_path("yourapp"), lifetime=120) as appium:
        command = [sys.executable, "-c", "from mobster_cli.main import main; main()", "mcp", "--appium", appium.url,
                   "--project", str(project), *QUICK_OPTIONS]  # fmt: skip
        proc = subprocess.Popen(command, cwd=project, env=_env(locks), text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        try:
            lines = _Lines(proc.stdout)  # type: ignore[arg-type]
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            _send(proc, {"id": 1, "method": "initialize", "params": hello})
            assert "result" in lines.reply(1)
            _send(proc, {"method": "notifications/initialized"})
            start = {"name": "start_recording", "arguments": {"app": APP}}
            _send(proc, {"id": 2, "method": "tools/call", "params": start})
            started = lines.reply(2)["result"]["structuredContent"]
            assert appium.sessions, "the server made no session"
            appium.stall_next_reply(60.0)  # the tap's reply is held by the server
            tap = {"op": "tap", "target": path_of(started["screen"], "Sign up")}
            _send(proc, {"id": 3, "method": "tools/call", "params": {"name": "act", "arguments": tap}})
            _wait_until_the_tap_is_in_flight(project, proc)
            returncode, took, err = _stopped_within_the_bound(proc, signal.SIGTERM)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert returncode == 143, err
        assert took < BOUND_S
        assert appium.sessions == {}, err  # deleted at once, not left to the server's idle timeout
        assert "DELETE" in [r.method for r in appium.requests if r.session]
    assert "Traceback" not in err
