"""The fake UiAutomator2 server and the fake adb, held to what the real ones do.

The server's routes are AppiumServlet.java's at appium-uiautomator2-server v10.6.2 (5412fdb3,
``server/AppiumServlet.java:114-191``), copied here as they stand; the replies, the errors and adb's
outputs are those android-facts.md cites (§1-§4).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mobster_core import LaunchOptions
from mobster_drivers._uiautomator.tree import read_source
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing._uia2.routes import _ROUTES
from mobster_drivers.testing.adb import FakeAdb
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2

APP = "com.example.yourapp"
INSTRUMENT = "am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner"

SERVLET_ROUTES = (
    ("DELETE", "/session/:sessionId"),
    ("POST", "/session"),
    ("POST", "/session/:sessionId/element"),
    ("POST", "/session/:sessionId/elements"),
    ("POST", "/session/:sessionId/element/:id/click"),
    ("POST", "/session/:sessionId/element/:id/clear"),
    ("POST", "/session/:sessionId/orientation"),
    ("POST", "/session/:sessionId/rotation"),
    ("POST", "/session/:sessionId/back"),
    ("POST", "/session/:sessionId/element/:id/value"),
    ("POST", "/session/:sessionId/keys"),
    ("POST", "/session/:sessionId/appium/device/open_notifications"),
    ("POST", "/session/:sessionId/appium/device/press_keycode"),
    ("POST", "/session/:sessionId/appium/device/long_press_keycode"),
    ("POST", "/session/:sessionId/appium/settings"),
    ("POST", "/session/:sessionId/network_connection"),
    ("POST", "/session/:sessionId/appium/device/get_clipboard"),
    ("POST", "/session/:sessionId/appium/device/set_clipboard"),
    ("POST", "/session/:sessionId/alert/accept"),
    ("POST", "/session/:sessionId/alert/dismiss"),
    ("POST", "/session/:sessionId/actions"),
    ("POST", "/session/:sessionId/appium/reset_ax_cache"),
    ("POST", "/session/:sessionId/appium/list_windows"),
    ("POST", "/session/:sessionId/appium/list_displays"),
    ("POST", "/session/:sessionId/appium/gestures/drag"),
    ("POST", "/session/:sessionId/appium/gestures/fling"),
    ("POST", "/session/:sessionId/appium/gestures/click"),
    ("POST", "/session/:sessionId/appium/gestures/long_click"),
    ("POST", "/session/:sessionId/appium/gestures/double_click"),
    ("POST", "/session/:sessionId/appium/gestures/pinch_close"),
    ("POST", "/session/:sessionId/appium/gestures/pinch_open"),
    ("POST", "/session/:sessionId/appium/gestures/scroll"),
    ("POST", "/session/:sessionId/gestures/scroll_to"),
    ("POST", "/session/:sessionId/appium/element/:id/scroll_to/:id2"),
    ("POST", "/session/:sessionId/appium/gestures/swipe"),
    ("POST", "/session/:sessionId/appium/schedule_action"),
    ("POST", "/session/:sessionId/appium/action_history"),
    ("POST", "/session/:sessionId/appium/unschedule_action"),
    ("GET", "/status"),
    ("GET", "/appium/device/apps"),
    ("GET", "/sessions"),
    ("GET", "/session/:sessionId/appium/device/apps"),
    ("GET", "/session/:sessionId"),
    ("GET", "/session/:sessionId/screenshot"),
    ("GET", "/session/:sessionId/orientation"),
    ("GET", "/session/:sessionId/rotation"),
    ("GET", "/session/:sessionId/element/:id/text"),
    ("GET", "/session/:sessionId/element/:id/attribute/:name"),
    ("GET", "/session/:sessionId/element/:id/rect"),
    ("GET", "/session/:sessionId/element/:id/size"),
    ("GET", "/session/:sessionId/element/:id/name"),
    ("GET", "/session/:sessionId/element/active"),
    ("GET", "/session/:sessionId/element/:id/screenshot"),
    ("GET", "/session/:sessionId/screenshot/:id"),
    ("GET", "/session/:sessionId/element/:id/location"),
    ("GET", "/session/:sessionId/window/:windowHandle/size"),
    ("GET", "/session/:sessionId/source"),
    ("GET", "/session/:sessionId/appium/device/system_bars"),
    ("GET", "/session/:sessionId/appium/device/battery_info"),
    ("GET", "/session/:sessionId/appium/settings"),
    ("GET", "/session/:sessionId/appium/device/pixel_ratio"),
    ("GET", "/session/:sessionId/appium/element/:id/first_visible"),
    ("GET", "/session/:sessionId/alert/text"),
    ("GET", "/session/:sessionId/appium/device/info"),
    ("GET", "/session/:sessionId/appium/device/declared_orientation"),
    ("GET", "/session/:sessionId/appium/device/display_density"),
)


class Fake:
    """A started fake device, its adb, and a running server reached through a forward."""

    def __init__(self, server: FakeUiAutomator2, adb: FakeAdb) -> None:
        self.server, self.adb = server, adb
        self.env = {**os.environ, "ANDROID_HOME": str(adb.android_home)}
        self.instrument: subprocess.Popen[bytes] | None = None

    def adb_run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.adb.executable), *args], env=self.env, capture_output=True, text=True, check=False
        )

    def start_server(self) -> int:
        port = int(self.adb_run("forward", "tcp:0", "tcp:6790").stdout)
        self.instrument = subprocess.Popen(
            [str(self.adb.executable), "shell", INSTRUMENT], env=self.env, stdout=subprocess.PIPE
        )
        deadline = time.monotonic() + 10
        while not self.server.on_loop(lambda s: s.instrumented):
            assert time.monotonic() < deadline, "am instrument never started the server"
            time.sleep(0.01)
        return port

    def http(self, port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


@pytest.fixture
def fake() -> Iterator[Fake]:
    with FakeUiAutomator2(sample_path("yourapp-android"), lifetime=60) as server, FakeAdb([server], lifetime=60) as adb:
        made = Fake(server, adb)
        yield made
        if made.instrument is not None:
            made.instrument.terminate()
            made.instrument.wait(5)


# -- the server --------------------------------------------------------------------------------------


def test_the_fake_registers_every_route_the_servlet_does() -> None:
    mine = {(m, "/" + "/".join(p)) for m, p, _h in _ROUTES}
    assert mine == set(SERVLET_ROUTES)


def test_the_envelope_and_its_errors_are_the_servers(fake: Fake) -> None:
    port = fake.start_server()
    status, body = fake.http(port, "GET", "/status")
    assert (status, body["sessionId"], body["value"]["ready"]) == (200, "None", True)
    status, body = fake.http(port, "GET", "/wd/hub/nothing/here")
    assert (status, body["value"]["error"]) == (404, "unknown command")
    status, body = fake.http(port, "GET", "/session/nope/source")
    assert (status, body["value"]["error"], body["value"]["message"]) == (
        404,
        "invalid session id",
        "The session identified by nope is not known",
    )
    assert body["value"]["stacktrace"]
    status, body = fake.http(port, "POST", "/session", {})
    assert (status, body["value"]["error"]) == (400, "invalid argument")


def test_a_new_session_replaces_the_old_and_finds_answer_as_the_server_does(fake: Fake) -> None:
    port = fake.start_server()
    old = fake.http(port, "POST", "/session", {"capabilities": {}})[1]["sessionId"]
    sid = fake.http(port, "POST", "/session", {"capabilities": {"firstMatch": [{}], "alwaysMatch": {}}})[1]["sessionId"]
    assert sid != old
    assert fake.http(port, "GET", f"/session/{old}/source")[0] == 404
    fake.server.run(fake.server.phone.launch(APP, LaunchOptions()))
    status, body = fake.http(port, "POST", f"/session/{sid}/elements", {"strategy": "id", "selector": "nothing"})
    assert (status, body["value"]) == (200, [])  # elements: [] instead of 404
    status, body = fake.http(port, "POST", f"/session/{sid}/element", {"strategy": "name", "selector": "x"})
    assert (status, body["value"]["error"]) == (400, "invalid selector")
    assert "Only the following selector strategies are supported" in body["value"]["message"]
    query = {"strategy": "xpath", "selector": "//android.widget.Button[@text='Sign up']"}
    status, body = fake.http(port, "POST", f"/session/{sid}/element", query)
    element = body["value"]["element-6066-11e4-a52e-4f735466cecf"]
    assert body["value"]["ELEMENT"] == element
    again = fake.http(port, "POST", f"/session/{sid}/element", query)[1]["value"]["ELEMENT"]
    assert again == element  # the same node, the same id
    assert fake.http(port, "GET", f"/session/{sid}/element/{element}/attribute/clickable")[1]["value"] == "true"
    assert fake.http(port, "GET", f"/session/{sid}/element/{element}/text")[1]["value"] == "Sign up"


def test_the_page_source_reads_back_as_the_phone_shows_it(fake: Fake) -> None:
    port = fake.start_server()
    sid = fake.http(port, "POST", "/session", {"capabilities": {}})[1]["sessionId"]
    fake.server.run(fake.server.phone.launch(APP, LaunchOptions()))
    source = fake.http(port, "GET", f"/session/{sid}/source")[1]["value"]
    assert source.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy index=\"0\"")
    read = read_source(source)
    phone = fake.server.phone.peek()[0]
    assert read.package == APP
    assert read.screen.signature_pairs == phone.signature_pairs
    assert read.screen.size == (1080, 2400)


def test_delete_session_stops_the_server_and_am_instrument_returns(fake: Fake) -> None:
    port = fake.start_server()
    sid = fake.http(port, "POST", "/session", {"capabilities": {}})[1]["sessionId"]
    assert fake.http(port, "DELETE", f"/session/{sid}") == (200, {"sessionId": sid, "value": None})
    assert fake.instrument is not None
    assert fake.instrument.wait(10) == 0
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        fake.http(port, "GET", "/status")  # the forward stays, nothing answers behind it


def test_the_server_answers_two_connections_at_once() -> None:
    text = sample_path("yourapp-android").read_text().replace("latency: zero", "latency: {read: 1.5}")
    script = AppScript.from_text(text, "slow.yaml")
    with FakeUiAutomator2(script, lifetime=60) as server, FakeAdb([server], lifetime=60) as adb:
        fake = Fake(server, adb)
        port = fake.start_server()
        try:
            sid = fake.http(port, "POST", "/session", {"capabilities": {}})[1]["sessionId"]
            slow = threading.Thread(target=fake.http, args=(port, "GET", f"/session/{sid}/source"))
            slow.start()
            assert server.wait_for(lambda r: r.route == "/source", 5)
            assert fake.http(port, "GET", "/status")[0] == 200
            assert slow.is_alive()  # Netty's workers: /status was not held behind the 1.5 s source
            slow.join(10)
        finally:
            assert fake.instrument is not None
            fake.instrument.terminate()
            fake.instrument.wait(5)


# -- the adb ---------------------------------------------------------------------------------------


def test_devices_and_props_are_what_appium_adb_parses(fake: Fake) -> None:
    listed = fake.adb_run("-P", "5037", "devices")
    assert listed.stdout == "List of devices attached\nemulator-5554\tdevice\n\n"
    sdk = fake.adb_run("-P", "5037", "-s", "emulator-5554", "shell", "getprop", "ro.build.version.sdk")
    assert (sdk.returncode, sdk.stdout) == (0, "34\n")
    many = fake.adb_run("shell", "settings put global hidden_api_policy 1;settings get global hidden_api_policy")
    assert many.stdout == "1\n"
    missing = fake.adb_run("-s", "R58M", "shell", "getprop")
    assert (missing.returncode, missing.stderr) == (1, "adb: device 'R58M' not found\n")
    unknown = fake.adb_run("shell", "frobnicate")
    assert (unknown.returncode, unknown.stderr) == (127, "/system/bin/sh: frobnicate: inaccessible or not found\n")


def test_am_start_of_what_isnt_there_prints_an_error_with_status_0(fake: Fake) -> None:
    done = fake.adb_run("shell", "am start-activity -W -n com.example.nope/.MainActivity")
    assert done.returncode == 0
    assert "Error: Activity class {com.example.nope/.MainActivity} does not exist." in done.stdout
    link = fake.adb_run("shell", "am start -W -a android.intent.action.VIEW -d nope://x com.example.yourapp")
    assert "unable to resolve Intent" in link.stdout


def test_pm_grant_of_a_permission_the_app_doesnt_request_fails_as_pm_does(fake: Fake) -> None:
    done = fake.adb_run("shell", "pm grant com.example.yourapp android.permission.CAMERA")
    assert done.returncode == 255
    assert (
        "SecurityException: Package com.example.yourapp has not requested permission android.permission.CAMERA"
        in done.stderr
    )
    cleared = fake.adb_run("shell", "pm clear com.example.yourapp")
    assert cleared.stdout == "Success\n"


def test_a_forward_listens_at_once_and_closes_connections_while_no_server_runs(fake: Fake) -> None:
    port = int(fake.adb_run("forward", "tcp:0", "tcp:6790").stdout)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as early:
        early.sendall(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            got = early.recv(100)
        except ConnectionResetError:  # closed with the request unread: a reset, as from adb
            got = b""
        assert got == b""  # accepted, then closed: nothing listens on the device yet
    assert fake.adb_run("forward", "--list").stdout == f"emulator-5554 tcp:{port} tcp:6790\n"
    busy = fake.adb_run("forward", f"tcp:{port}", "tcp:6790")
    assert busy.returncode == 0  # the same local port again: re-pointed, as adb does
    assert fake.adb_run("forward", "--remove", f"tcp:{port}").returncode == 0
    assert fake.adb_run("forward", "--remove", f"tcp:{port}").returncode == 1


def test_concurrent_adb_processes_never_race(fake: Fake) -> None:
    procs = [
        subprocess.Popen([str(fake.adb.executable), "shell", f"am force-stop {p}"], env=fake.env)
        for p in ("io.appium.uiautomator2.server", "io.appium.uiautomator2.server.test") * 4
    ]
    assert [p.wait(10) for p in procs] == [0] * 8
    stops = [c for c in fake.adb.commands("emulator-5554") if c[:2] == ["am", "force-stop"]]
    assert len(stops) == 8


def test_ps_and_dumpsys_say_what_runs_and_what_is_in_front(fake: Fake) -> None:
    ps = fake.adb_run("shell", "ps -A").stdout
    assert ps.startswith("USER            PID   PPID")
    assert "-A  All" in fake.adb_run("shell", "ps --help").stdout
    fake.adb_run("shell", "am start-activity -W -n com.example.yourapp/.MainActivity")
    window = fake.adb_run("shell", "dumpsys window displays").stdout
    assert "mCurrentFocus=Window{3c9c1a4 u0 com.example.yourapp/com.example.yourapp.MainActivity}" in window
    assert "ProcessRecord{" in fake.adb_run("shell", "dumpsys activity processes").stdout
    assert "mInputShown=false" in fake.adb_run("shell", "dumpsys input_method").stdout


def test_a_removed_forward_stops_listening_at_once_and_its_port_can_be_forwarded_again(fake: Fake) -> None:
    # The accept loop waits on the listener in its own thread: closing the socket alone left the
    # port listening on Linux until a connection came, so the real UiAutomator2 driver's next
    # session on the same systemPort was told "the local port is busy".
    port = int(fake.adb_run("forward", "tcp:0", "tcp:6790").stdout)
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # a connection, closed: its port pair goes to TIME_WAIT
    assert fake.adb_run("forward", "--remove", f"tcp:{port}").returncode == 0
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    again = fake.adb_run("forward", f"tcp:{port}", "tcp:6790")
    assert (again.returncode, again.stderr) == (0, "")
    assert fake.adb_run("forward", "--list").stdout == f"emulator-5554 tcp:{port} tcp:6790\n"


def test_the_stop_after_a_delete_spares_a_server_started_since() -> None:
    from mobster_drivers.testing.uiautomator2 import _stop_if_still_stopping

    with FakeUiAutomator2(sample_path("yourapp-android"), lifetime=60) as server:

        def deleted_then_restarted(state: Any) -> bool:
            state.instrumented, state.stopping = True, True  # DELETE /session answered: stop in 15 ms
            state.stop_server()  # an am force-stop first (the driver's deleteSession) ...
            state.instrumented = True  # ... and the next session's am instrument
            _stop_if_still_stopping(state)  # the 15 ms timer fires
            return bool(state.instrumented)

        assert server.on_loop(deleted_then_restarted)

        def deleted(state: Any) -> bool:
            state.instrumented, state.stopping = True, True
            _stop_if_still_stopping(state)
            return bool(state.instrumented)

        assert not server.on_loop(deleted)  # nothing came between: the server stops itself
