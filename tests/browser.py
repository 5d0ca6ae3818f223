"""Headless Chromium driven over the DevTools protocol on a pipe: load a page, see what it logged.

``--remote-debugging-pipe`` speaks the DevTools protocol as NUL-terminated JSON messages: the
browser reads commands from its file descriptor 3 and writes replies and events to 4. No port, no
websocket, nothing on the network; the browser exits when the pipe closes. One browser serves a
whole test module (start-up is the slow part, about a second).

What :meth:`Browser.load` reports of a page: console messages (``Runtime.consoleAPICalled``),
uncaught exceptions (``Runtime.exceptionThrown``), log entries (``Log.entryAdded``: Chromium logs a
Content-Security-Policy violation there, as an error of source ``security`` or ``other``), and
requests that failed or were blocked (``Network.loadingFailed``, with ``blockedReason: csp``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--remote-debugging-pipe",
)
TIMEOUT = 30.0


class BrowserError(Exception):
    """The browser didn't answer, or answered with an error."""


class Browser:
    """A headless Chromium with one page, driven over the DevTools pipe. Use as a context manager."""

    def __init__(self, executable: Path = CHROMIUM) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="mobster-chromium-"))
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser reads commands on fd 3 and writes to fd 4 (--remote-debugging-pipe); the
        # pipes are mapped there in the child only, so this process's own fds 3 and 4 are untouched.
        argv = [str(executable), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"]
        try:
            self.pid = os.posix_spawn(
                str(executable),
                argv,
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, to_browser_r, 3),
                    (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
                ],
            )
        finally:
            os.close(to_browser_r)
            os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the pipe (the browser exits), wait for it, remove its profile."""
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)  # a real process exiting: the test is waiting for it, not for a clock
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- the protocol ------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data) :]

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser didn't answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed the pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = False) -> dict[str, Any]:
        """Send a command and wait for its reply; events that come meanwhile are kept in :attr:`events`."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Wait for an event (one already received counts); return it."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method:
                    self.events.remove(event)
                    return event
            reply = self._receive(deadline)
            if "method" in reply:
                self.events.append(reply)

    # -- pages -------------------------------------------------------------------------------

    def load(self, path: Path, *, width: int = 1280, height: int = 900, dark: bool = False) -> list[str]:
        """Open a file; return what it logged or what failed to load, as lines (empty when clean)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        self.call(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
            session=True,
        )
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired")
        # A round trip after the load lets the events of the load arrive first.
        self.evaluate("document.readyState")
        return self.problems()

    def problems(self) -> list[str]:
        """The console messages, exceptions, log entries and failed requests seen since the last load."""
        lines = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                lines.append(f"console.{params.get('type')}: {args}")
            elif method == "Runtime.exceptionThrown":
                lines.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                lines.append(f"log {entry.get('level')} ({entry.get('source')}): {entry.get('text')}")
            elif method == "Network.loadingFailed":
                reason = params.get("blockedReason") or params.get("errorText")
                lines.append(f"request failed ({reason}): {params.get('requestId')}")
        return lines

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (DevTools runs it whatever the page's CSP says)."""
        reply = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=True
        )
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression[:60]}: {reply['exceptionDetails'].get('text')}")
        return reply.get("result", {}).get("value")

    def rects(self, selector: str) -> list[dict[str, float]]:
        """The bounding boxes of the elements a CSS selector finds, in CSS pixels of the page."""
        value = self.evaluate(
            f"Array.from(document.querySelectorAll({json.dumps(selector)})).map(e => {{"
            "const r = e.getBoundingClientRect();"
            "return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })"
        )
        return list(value)

    def screenshot(self, *, full_page: bool = True, clip: Sequence[float] | None = None) -> bytes:
        """A PNG of the page: all of it, or the box ``clip`` (x, y, width, height in CSS pixels)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if clip is not None:
            x, y, w, h = clip
            params["clip"] = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
        elif full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        return base64.b64decode(self.call("Page.captureScreenshot", params, session=True)["data"])
