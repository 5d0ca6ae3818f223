"""Our Appium driver through a real Appium 3.8 + XCUITest 12.13 server, and through our fake, alike.

Each test runs twice: against :class:`~mobster_drivers.testing.appium.FakeAppium`, and against the
real server (``tests/real_appium.py``, installed by ``scripts/install-appium.sh``; skipped with
the install's reason where npm can't be had) in front of a :class:`~mobster_drivers.testing.wda.FakeWda`
and a fake usbmuxd whose phone answers XCUITest's lockdown and installation_proxy calls. Both must
give the same answers: that is what holds the fake to the real server (issue 26's list).

One real server serves the module (it starts in 3-10 s here); each test gets its own fake WDA
(``appium:webDriverAgentUrl`` is a session's capability). The phone's UDID is the usbmuxd phone's,
as on a Linux Appium host with a phone on USB, and it runs iOS :data:`IOS` (three parts, so that
what the servers make of it shows).

The compared points (issue 26's list, then issue 37's): the driver end to end (``check_device``, a
check recorded, replayed and healed by ``mobster test --appium`` with caps that name no iOS
version, every action once); sessions (a Linux host without usbmuxd, the claim of a second session,
before the app is looked up too, a pool on one phone, a WDA restart, an idle session, a stalled
reply, a session that never comes); and Appium's own answers: refused sessions (names without a
vendor prefix, the drivers' types, a platformVersion that isn't a version, no usbmuxd to ask the
phone's), the capabilities answered and kept (their order, the platformVersion and udid the phone
fills in, versions as MAJOR.MINOR, numbers and booleans given as text), unknown methods and
routes, ``/timeouts``, the W3C routes passed to WDA, idempotency keys, ``launchApp`` on a running
app, ``mobile: deviceInfo`` (the phone's whole lockdown, and how it fails without usbmuxd by the
session's version), and Ctrl+C while a session never comes. What a real server on Linux can't show
(a simulator session: XCUITest serves none there) is held to the driver's source in
``tests/drivers/testing/test_appium_fake.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import attrs
import pytest

import mobster_core as mc
from mobster_core import Action, LaunchOptions, Op
from mobster_core.testing import SPRINGBOARD, check_device
from mobster_drivers.devices.appium import AppiumCaps, AppiumDevice, AppiumTimeouts
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing._lockdown import lockdown_values
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeUsbmuxd
from mobster_drivers.testing.wda import FakeWda
from tests.real_appium import RealAppium, installed, request
from tests.real_clock import ManualClock, mobster
from tests.samples import DEVICE_CHECKS, SIGNUP_BY_BUNDLE, XCUITEST_LEGACY_CAPS

YOURAPP = "com.example.yourapp"
#: XCUITest 12.13's settings of a new session (``driver.ts``' ``DEFAULT_SETTINGS``).
DEFAULT_SETTINGS = {
    "nativeWebTap": False,
    "nativeWebTapStrict": False,
    "useJSONSource": False,
    "webScreenshotMode": "native",
    "shouldUseCompactResponses": True,
    "elementResponseAttributes": "type,label",
    "mjpegServerScreenshotQuality": 25,
    "mjpegServerFramerate": 10,
    "screenshotQuality": 1,
    "mjpegScalingFactor": 100,
    "reduceMotion": None,
    "pageSourceExcludedAttributes": "",
}
#: The iOS version the phone's lockdown says (ProductVersion), both behind the real server and the fake.
IOS = "26.4.1"
#: The phone the real server's usbmuxd lists: a real device's 25-character UDID (XCUITest on Linux
#: wants one).
UDID = "00008110-001A2B3C4D5E801E"
CREATE = {
    "platformName": "iOS",
    "appium:automationName": "XCUITest",
    "appium:noReset": True,
    "appium:autoLaunch": False,
}
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def script(name: str = "yourapp") -> AppScript:
    text = sample_path(name).read_text("utf-8").replace("kind: simulator", "kind: iphone")
    return AppScript.from_text(text.replace('ios: "26.4"', f'ios: "{IOS}"'), f"{name}.yaml")


def apps_of(app: AppScript) -> dict[str, dict[str, str]]:
    """The installed apps as the phone's installation proxy reports them."""
    return {
        bundle: {"CFBundleShortVersionString": a.version, "CFBundleVersion": a.build, "CFBundleName": a.name}
        for bundle, a in app.apps.items()
    }


# -- the servers -------------------------------------------------------------------------------


@attrs.define
class Plug:
    """The real server's usbmuxd, at a path the server was started with: unplug it, plug it back."""

    path: Path
    mux: FakeUsbmuxd | None = None

    def plug(self) -> None:
        if self.mux is None:
            app = script()
            phone = FakeIphone(UDID, app.device.name, ios=IOS, apps=apps_of(app))
            self.mux = FakeUsbmuxd([phone], path=self.path, lifetime=1800).start()

    def unplug(self) -> None:
        mux, self.mux = self.mux, None
        if mux is not None:
            mux.stop()


@attrs.define
class Real:
    """The module's real Appium and its usbmuxd."""

    appium: RealAppium
    plug: Plug


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Real]:
    why = installed()
    if why is not None:
        pytest.skip(why)
    folder = tmp_path_factory.mktemp("appium")
    plug = Plug(folder / "usbmuxd")
    plug.plug()
    appium = RealAppium(folder / "appium.log", usbmuxd=str(plug.path), args=("--allow-insecure", "*:session_discovery"))
    try:
        appium.start()
        yield Real(appium, plug)
    finally:
        appium.stop()
        plug.unplug()


@attrs.define
class Rig:
    """One server under test, fake or real, with the phone behind it: what each test is given."""

    kind: str
    url: str
    wda: FakeWda
    udid: str
    close: Callable[[], None]
    idle: Callable[[str, float], None]  # let a session idle past its newCommandTimeout
    usbmuxd: Callable[[bool], None]  # plug or unplug the phone's usbmuxd
    before: frozenset[str] = frozenset()  # sessions the server listed before the test (a claimed one stays)

    def caps(self, **more: Any) -> dict[str, Any]:
        """What a Linux Appium host needs in a caps file: the phone, its iOS version, the WDA."""
        caps: dict[str, Any] = {"appium:udid": self.udid, "appium:platformVersion": "26.4"}
        caps["appium:webDriverAgentUrl"] = self.wda.url  # the fake, a Linux host too, wants it as well
        return {**caps, **more}

    def device(self, *, caps: dict[str, Any] | None = None, **options: Any) -> AppiumDevice:
        return AppiumDevice(self.url, AppiumCaps.from_mapping(caps or self.caps()), bundle=YOURAPP, **options)

    def listed(self) -> list[str]:
        """The session ids the server lists (``GET /appium/sessions``)."""
        status, body = request("GET", f"{self.url}/appium/sessions")
        assert status == 200, body
        return [s["id"] for s in body["value"] if s["id"] not in self.before]

    def create(self, caps: dict[str, Any], key: str | None = None, *, without: tuple[str, ...] = ()) -> tuple[int, Any]:
        """``POST /session`` with these capabilities (Mobster's and the rig's merged under them, less ``without``)."""
        always = {**CREATE, **{k: v for k, v in self.caps().items() if k not in without}, **caps}
        body = {"capabilities": {"alwaysMatch": always, "firstMatch": [{}]}}
        if key is None:
            return request("POST", f"{self.url}/session", body)
        return _keyed(f"{self.url}/session", body, key)

    def call(self, sid: str, method: str, route: str, body: Any = None) -> tuple[int, Any]:
        return request(method, f"{self.url}/session/{sid}{route}", body)

    def mobile(self, sid: str, name: str, args: dict[str, Any] | None = None) -> tuple[int, Any]:
        return self.call(sid, "POST", "/execute/sync", {"script": f"mobile: {name}", "args": [args or {}]})


def _keyed(url: str, body: Any, key: str) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(
        url,
        json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Idempotency-Key": key},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _fake_rig(app: AppScript) -> Rig:
    clock = ManualClock()
    fake = FakeAppium(app, lifetime=600, session_discovery=True, clock=clock, host="linux").start()
    state = {"fake": fake}

    def idle(_sid: str, seconds: float) -> None:
        clock.t += seconds + 1

    def usbmuxd(plugged: bool) -> None:
        old = state["fake"]
        old.stop()
        state["fake"] = FakeAppium(
            app, lifetime=600, session_discovery=True, clock=clock, usbmuxd=plugged, host="linux"
        ).start()
        made.url, made.wda, made.udid = state["fake"].url, state["fake"].wda, state["fake"].udids[0]

    def close() -> None:
        state["fake"].stop()  # the one serving now: unplugging usbmuxd made another

    made = Rig("fake", fake.url, fake.wda, fake.udids[0], close, idle, usbmuxd)
    return made


def _real_rig(server: Real, app: AppScript) -> Rig:
    wda = FakeWda(app, lifetime=600).start()

    def idle(sid: str, seconds: float) -> None:
        assert server.appium.wait_for(f"waited {seconds:g} seconds for a command", 30), "no idle timeout in the log"
        del sid

    def usbmuxd(plugged: bool) -> None:
        if plugged:
            server.plug.plug()
        else:
            server.plug.unplug()

    def close() -> None:
        for sid in made.listed():
            request("DELETE", f"{server.appium.url}/session/{sid}")
        wda.stop()
        server.plug.plug()

    made = Rig("real", server.appium.url, wda, UDID, close, idle, usbmuxd)
    made.before = frozenset(made.listed())
    return made


@pytest.fixture(params=["fake", "real"])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    made = _real_rig(request.getfixturevalue("real"), script()) if request.param == "real" else _fake_rig(script())
    try:
        yield made
    finally:
        made.close()


def error(reply: Any) -> tuple[str, str]:
    value = reply["value"]
    return value["error"], value["message"]


# -- the driver end to end -------------------------------------------------------------------------


def test_check_device_passes(rig: Rig) -> None:
    made: list[AppiumDevice] = []

    def factory() -> AppiumDevice:
        while made:
            made.pop().close()  # one phone: the previous check's session ends first
        made.append(rig.device())
        return made[-1]

    try:
        ran = run(
            check_device(
                factory, app=YOURAPP, tap=("Button", "Sign up"), field=("TextField", "Email"), link="yourapp://signup"
            )
        )
    finally:
        for device in made:
            device.close()
    assert ran == [*DEVICE_CHECKS, "evidence read", "target check", "check reports"]


def test_a_check_records_replays_at_no_cost_and_heals(rig: Rig, project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    caps = project / "caps.json"
    unsaid = rig.caps()
    del unsaid["appium:platformVersion"]  # the server asks the phone's lockdown, and says "26.4"
    caps.write_text(json.dumps(unsaid))
    first = mobster("test", "--appium", rig.url, "--caps", str(caps), "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "✓ passed  A new user signs up  on Scripted iPhone, iOS 26.4" in first.output
    second = mobster("test", "--appium", rig.url, "--caps", str(caps), "--json")
    assert second.exit_code == 0, second.output
    (check,) = json.loads(second.stdout)["checks"]
    assert (check["mode"], check["model_calls"], check["cost_usd"], check["path"]["used"]) == ("replay", 0, 0.0, True)
    assert check["device"]["ios"] == "26.4"  # the server's answer (lockdown's 26.4.1 as MAJOR.MINOR)
    taps = [r for r in rig.wda.requests if r.route == "/wda/tap"]
    assert len(taps) == 6  # 3 a run, each sent once: "Sign up", the field before typing, "Continue"
    # The rebuild renames "Continue" to "Next": the step heals with the model, for that step only.
    renamed = FakeWda(script("yourapp-renamed"), lifetime=600).start()
    try:
        if rig.kind == "real":
            caps.write_text(json.dumps({**unsaid, "appium:webDriverAgentUrl": renamed.url}))
            url = rig.url
        else:
            fake = FakeAppium(script("yourapp-renamed"), lifetime=600, host="linux").start()
            url = fake.url
        healed = mobster("test", "--appium", url, "--caps", str(caps), "--model", "scripted")
        assert healed.exit_code == 0, healed.output
        assert 'healed step 3: Tap "Continue" → Tap "Next"' in healed.output
        if rig.kind == "fake":
            fake.stop()
    finally:
        renamed.stop()
    assert rig.listed() == []  # every session the runs made was ended


def test_every_action_reaches_wda_once(rig: Rig) -> None:
    device = rig.device()
    try:
        screen = run(_every_action(device))
    finally:
        device.close()
    sent = [r.route for r in rig.wda.requests if r.method == "POST" and r.session]
    for route in ("/wda/tap", "/wda/touchAndHold", "/wda/dragfromtoforduration", "/wda/pressButton", "/url"):
        assert route in sent, route
    # Typing: the field is asked for (the keyboard's focus) and the text goes to it, through WDA.
    assert [r.route for r in rig.wda.requests if r.route == "/element/active"]
    values = [r.body for r in rig.wda.requests if r.route.endswith("/value")]
    assert values == [{"text": "ada@example.com", "value": list("ada@example.com")}, {"text": "\n", "value": ["\n"]}]
    assert screen.app == YOURAPP


async def _every_action(device: AppiumDevice) -> mc.Screen:
    await device.launch(YOURAPP, LaunchOptions())
    await device.act(Action(Op.TAP, element=(await device.read()).find("Button", "Sign up")[0]))
    email = await _until(device, lambda s: s.find("TextField", "Email"))
    await device.act(Action(Op.TYPE, element=email.find("TextField", "Email")[0], text="ada@example.com"))
    typed = await _until(device, lambda s: any(e.value == "ada@example.com" for e in s.find("TextField", "Email")))
    await device.act(Action(Op.SUBMIT))
    await device.act(Action(Op.LONG_PRESS, element=typed.find("TextField", "Email")[0]))
    await device.act(Action(Op.SWIPE_UP))
    await device.act(Action(Op.HOME))
    assert (await device.read()).app == SPRINGBOARD
    await device.act(Action(Op.LAUNCH_APP, text=YOURAPP))
    await device.act(Action(Op.OPEN_URL, text="yourapp://signup"))
    return await device.read()


async def _until(device: AppiumDevice, ok: Callable[[mc.Screen], Any]) -> mc.Screen:
    for _ in range(50):
        screen = await device.read()
        if ok(screen):
            return screen
        await asyncio.sleep(0.05)
    raise AssertionError("the screen never came")


# -- sessions: never lost, never leaked -------------------------------------------------------------


def test_no_bundle_id_at_session_start_so_a_linux_host_without_usbmuxd_gives_a_session(rig: Rig) -> None:
    rig.usbmuxd(False)  # a Linux Appium in front of a networked WDA: no usbmuxd at all
    # Caps that name no iOS version: XCUITest asks the phone's lockdown, and can't. The driver says
    # what to write.
    unsaid = rig.caps()
    del unsaid["appium:platformVersion"]
    status, reply = rig.create({}, without=("appium:platformVersion",))
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert re.fullmatch(r"The usbmuxd socket path '.+' does not exist or is not accessible", error(reply)[1])
    device = rig.device(caps=unsaid)
    try:
        with pytest.raises(mc.DeviceError, match=r"refused a new session: .*set appium:platformVersion in "):
            run(device.info())
    finally:
        device.close()
    device = rig.device()
    try:
        run(device.launch(YOURAPP, LaunchOptions()))  # isAppInstalled needs usbmuxd: queryAppState answers
        assert run(device.read()).find("Button", "Sign up")
        info = run(device.info())
        assert (info.ios, info.udid) == ("26.4", rig.udid)
    finally:
        device.close()
    # A caps file that asks for the bundle at session start gets XCUITest's refusal, worded as it is.
    status, reply = rig.create({"appium:bundleId": YOURAPP})
    assert (status, error(reply)[0]) == (500, "unknown error")
    # The path is the server's (/var/run/usbmuxd, or $USBMUXD_SOCKET_ADDRESS's as here).
    assert re.fullmatch(r"The usbmuxd socket path '.+' does not exist or is not accessible", error(reply)[1])


def test_a_second_session_on_one_phone_ends_the_first(rig: Rig) -> None:
    _, a = rig.create({})
    _, b = rig.create({})
    first, second = a["value"]["sessionId"], b["value"]["sessionId"]
    assert first != second
    status, reply = rig.mobile(first, "activeAppInfo")
    assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
    assert rig.mobile(second, "activeAppInfo")[0] == 200
    assert rig.call(first, "DELETE", "")[0] == 404
    assert set(rig.listed()) == {first, second}  # Appium keeps the claimed one in its list


def test_a_pool_of_two_sessions_on_one_phone_runs_every_check_once(rig: Rig, project: Path) -> None:
    for n in range(1, 4):
        (project / ".mobster" / "checks" / f"launch{n}.yaml").write_text(
            f"version: 1\nname: The welcome screen shows {n}\napp: {{bundle: {YOURAPP}}}\nexpect:\n  - text: Sign up\n"
        )
    caps = project / "caps.json"
    caps.write_text(json.dumps(rig.caps()))
    result = mobster("test", "--appium", rig.url, "--caps", str(caps), "--sessions", "2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [c["verdict"] for c in doc["checks"]] == ["passed"] * 3
    assert "is on the same phone as" in result.stderr
    creates = [r for r in rig.wda.requests if r.route == "/session" and r.method == "POST"]
    assert len(creates) <= 3  # the two sessions of the pool, and none made again mid-suite


def test_a_session_abandoned_after_a_wda_restart_is_deleted(rig: Rig) -> None:
    device = rig.device()
    try:
        run(device.launch(YOURAPP, LaunchOptions()))
        abandoned = device.session_id
        assert abandoned in rig.listed()
        rig.wda.restart()  # WDA's sessions go; Appium's session lives on, in front of a WDA that forgot it
        with pytest.raises(mc.DeviceError, match="no longer knows the session"):
            run(device.read())
        assert abandoned not in rig.listed()  # given up on, and deleted
        run(device.launch(YOURAPP, LaunchOptions()))  # the next check starts a new session
        assert device.session_id not in (None, abandoned)
    finally:
        device.close()
    assert rig.listed() == []


def test_an_idle_session_ends_as_appium_ends_it(rig: Rig) -> None:
    _, reply = rig.create({"appium:newCommandTimeout": 1})
    sid = reply["value"]["sessionId"]
    rig.idle(sid, 1)
    status, reply = rig.mobile(sid, "activeAppInfo")
    assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
    # Our device, whose session ended under it: a read in the middle of a check is refused.
    device = rig.device()
    try:
        run(device.launch(YOURAPP, LaunchOptions()))
        request("DELETE", f"{rig.url}/session/{device.session_id}")  # as an idle timeout would end it
        with pytest.raises(mc.DeviceError, match=r"no longer knows the session \(mobile: activeAppInfo"):
            run(device.read())
    finally:
        device.close()


def test_a_stalled_reply_is_an_unknown_outcome(rig: Rig) -> None:
    device = rig.device(timeouts=AppiumTimeouts(action=0.5))
    try:
        run(device.launch(YOURAPP, LaunchOptions()))
        screen = run(device.read())
        rig.wda.stall_next_reply(2.0)  # WDA holds the tap's reply; Appium waits for it (240 s)
        with pytest.raises(mc.UnknownOutcome, match=r"no complete reply to mobile: tap \(no reply within 0.5 s\)"):
            run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
        assert [r.route for r in rig.wda.requests].count("/wda/tap") == 1  # sent once, never again
    finally:
        device.close()


def test_a_wait_for_a_session_that_never_comes_is_cut_by_close(rig: Rig) -> None:
    device = rig.device(timeouts=AppiumTimeouts(session=120))
    rig.wda.stall_next_reply(60)  # WDA holds its first reply: the new session never comes
    outcome: list[BaseException] = []

    def create() -> None:
        try:
            run(device.info())
        except BaseException as exc:
            outcome.append(exc)

    import threading

    waiting = threading.Thread(target=create)
    waiting.start()
    assert rig.wda.wait_for(lambda r: r.route in ("/status", "/session"), 30)
    started = time.monotonic()
    device.close()
    waiting.join(10)
    assert not waiting.is_alive()
    assert time.monotonic() - started < 2
    assert isinstance(outcome[0], mc.DeviceError)


# -- what real Appium answers, and the fake too (issue 26's list) ----------------------------------


def test_refused_sessions(rig: Rig) -> None:
    status, reply = request(
        "POST", f"{rig.url}/session", {"capabilities": {"alwaysMatch": {"platformName": "iOS", **rig.caps()}}}
    )
    assert (status, error(reply)) == (400, ("invalid argument", "'automationName' is required to be present"))
    status, reply = request("POST", f"{rig.url}/session", {"desiredCapabilities": {**CREATE, **rig.caps()}})
    assert status == 500
    assert error(reply)[0] == "session not created"
    assert "Session capabilities format must comply to the W3C standard" in error(reply)[1]


def test_refused_capabilities(rig: Rig) -> None:
    # A name that needs a vendor prefix, first of all (base-driver's parseCaps).
    status, reply = rig.create({"deviceName": "x", "foo": 1})
    bare = "The following capabilities did not have one: deviceName,foo"
    assert (status, error(reply)) == (
        400,
        ("invalid argument", f"All non-standard capabilities should have a vendor prefix. {bare}"),
    )
    # The drivers' types, every problem in their table's order; a text a number can't be.
    status, reply = rig.create({"appium:udid": 7, "appium:platformVersion": 17, "appium:noReset": "maybe"})
    details = (
        "'platformVersion' must be of type string; 'udid' must be of type string; 'noReset' must be of type boolean"
    )
    assert (status, error(reply)) == (
        500,
        ("session not created", f"A new session could not be created. Details: {details}"),
    )
    status, reply = rig.create({"appium:newCommandTimeout": "x"})
    assert error(reply) == (
        "session not created",
        "A new session could not be created. Details: 'newCommandTimeout' must be of type number",
    )
    # A platformVersion that isn't a version (XCUITest's validateDesiredCaps).
    for version in ("abc", "  "):
        status, reply = rig.create({"appium:platformVersion": version})
        assert (status, error(reply)) == (
            500,
            ("unknown error", f"'platformVersion' must be a valid version number. '{version}' is given instead."),
        )


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("26.4", "26.4"),
        ("26", "26.0"),
        ("17.2.1.7", "17.2"),
        (" v26.4.1 beta", "26.4"),
        ("", "26.4"),  # as if absent: the phone's, from its lockdown (26.4.1)
        (None, "26.4"),
        ("unsaid", "26.4"),  # absent: the phone's, set last
    ],
)
def test_the_capabilities_answered_and_kept(rig: Rig, given: str | None, kept: str) -> None:
    asked: dict[str, Any] = {"appium:deviceName": "Ada's phone", "appium:newCommandTimeout": "90"}
    if given != "unsaid":
        asked["appium:platformVersion"] = given
    status, reply = rig.create(asked, without=("appium:platformVersion",))
    assert status == 200, reply
    mine = {k: v for k, v in rig.caps().items() if k != "appium:platformVersion"}
    session = {k.removeprefix("appium:"): v for k, v in {**CREATE, **mine, **asked}.items()}
    session["newCommandTimeout"] = 90  # a number given as text is a number (fixCaps)
    session["platformVersion"] = kept  # where it stood, else last; MAJOR.MINOR
    # The reply: XCUITest's legacy keys first, then the session's, then the udid it runs on (in place).
    assert list(reply["value"]) == ["capabilities", "sessionId"]
    assert list(reply["value"]["capabilities"].items()) == [*XCUITEST_LEGACY_CAPS.items(), *session.items()]
    sid = reply["value"]["sessionId"]
    assert list(rig.call(sid, "GET", "")[1]["value"].items()) == list(session.items())
    (listed,) = [s for s in request_sessions(rig) if s["id"] == sid]
    assert list(listed["capabilities"].items()) == list(session.items())


def test_a_linux_host_wants_an_explicit_udid_and_a_running_wda(rig: Rig) -> None:
    udid = "Running XCUITest from 'linux' without macOS/Xcode requires an explicit real-device 'appium:udid'."
    for caps, without in (({}, ("appium:udid",)), ({"appium:udid": "auto"}, ()), ({"appium:udid": ""}, ())):
        status, reply = rig.create(caps, without=without)
        assert (status, error(reply)[0]) == (500, "unknown error"), caps
        assert error(reply)[1] == f"{udid} Simulator discovery and automatic device selection require macOS."
    status, reply = rig.create({}, without=("appium:webDriverAgentUrl",))
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert error(reply)[1].startswith("The selected XCUITest session strategy requires macOS with Xcode. Use ")
    status, reply = rig.create({"appium:webDriverAgentUrl": "127.0.0.1:8100"})
    expected = "capability is expected to contain a valid WebDriverAgent server URL. '127.0.0.1:8100' is given instead"
    assert (status, error(reply)) == (500, ("unknown error", f"'webDriverAgentUrl' {expected}"))


def test_settings_are_the_drivers(rig: Rig) -> None:
    _, reply = rig.create({"appium:useJSONSource": True})
    sid = reply["value"]["sessionId"]
    status, reply = rig.call(sid, "GET", "/appium/settings")
    assert status == 200
    assert reply["value"] == {**DEFAULT_SETTINGS, "useJSONSource": True}  # the caps' applied at the start
    told = {
        "shouldUseCompactResponses": False,
        "reduceMotion": False,
        "safariTabBarPosition": "top",
        "snapshotMaxDepth": 40,
    }
    before = len([r for r in rig.wda.requests if r.route == "/appium/settings"])
    assert rig.call(sid, "POST", "/appium/settings", {"settings": told}) == (200, {"value": None})
    # Each change WDA knows is passed on by itself; a deprecated one is kept, never passed on.
    sent = [r.body for r in rig.wda.requests if r.route == "/appium/settings"][before:]
    assert sent == [{"settings": {k: v}} for k, v in told.items() if k != "safariTabBarPosition"]
    assert list(rig.call(sid, "GET", "/appium/settings")[1]["value"].items()) == list(
        {**DEFAULT_SETTINGS, "useJSONSource": True, **told}.items()
    )
    status, reply = rig.call(sid, "POST", "/appium/settings", {"settings": "nope"})
    assert (status, error(reply)) == (
        400,
        ("invalid argument", 'Settings update should be called with valid JSON. Got "nope" instead'),
    )
    status, reply = rig.call(sid, "POST", "/appium/settings", {"nope": 1})
    assert (status, error(reply)[0]) == (400, "invalid argument")
    assert error(reply)[1].startswith('The following required parameter is missing: ["settings"]')


def test_what_an_iphone_does_with_simulator_and_video_commands(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    for name, args, message in (
        ("enrollBiometric", {"isEnabled": True}, "Biometric enrollment can only be performed on Simulator"),
        ("sendBiometricMatch", {"type": "faceId"}, "Sending biometric match can only be performed on Simulator"),
        (
            "pushNotification",
            {"bundleId": YOURAPP, "payload": {}},
            "Push notification can only be performed on Simulator",
        ),
        ("setAppearance", {"style": "purple"}, "The 'style' value is expected to equal either 'light' or 'dark'"),
        ("stopXCTestScreenRecording", {}, "There is no active screen recording. Did you start one beforehand?"),
    ):
        status, reply = rig.mobile(sid, name, args)
        assert (status, error(reply)) == (500, ("unknown error", message)), name
    # On an iPhone the appearance goes to WDA's sessionless route.
    assert rig.mobile(sid, "setAppearance", {"style": "dark"}) == (200, {"value": None})
    assert [(r.session, r.body) for r in rig.wda.requests if r.route == "/wda/device/appearance"] == [
        (None, {"name": "dark"})
    ]
    status, reply = rig.mobile(sid, "getAppearance")
    assert (status, set(reply["value"])) == (200, {"style"})
    # XCTest's recorder on a real device needs the insecure feature (no RemoteXPC tunnel to clean up).
    status, reply = rig.mobile(sid, "startXCTestScreenRecording")
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert error(reply)[1].startswith("Potentially insecure feature 'xctest_screen_record' has not been enabled.")


def request_sessions(rig: Rig) -> list[dict[str, Any]]:
    status, body = request("GET", f"{rig.url}/appium/sessions")
    assert status == 200, body
    return list(body["value"])


def test_the_driver_takes_the_ios_version_the_server_answers(rig: Rig) -> None:
    device = rig.device(caps={**rig.caps(), "appium:platformVersion": "26"})
    try:
        assert run(device.info()).ios == "26.0"  # the server's answer, not the caps' "26"
    finally:
        device.close()


def test_a_session_refused_for_its_app_has_claimed_the_phone_first(rig: Rig) -> None:
    _, reply = rig.create({})
    older = reply["value"]["sessionId"]
    status, reply = rig.create({"appium:bundleId": "com.example.nope"})
    assert (status, error(reply)) == (500, ("unknown error", "App with bundle identifier 'com.example.nope' unknown"))
    status, reply = rig.mobile(older, "activeAppInfo")
    assert (status, error(reply)[0]) == (404, "invalid session id")


def test_unknown_methods_routes_and_sessions(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    status, reply = rig.mobile(sid, "fooBar")
    assert (status, error(reply)) == (405, ("unknown method", "Method is not implemented"))
    assert reply["value"]["stacktrace"].startswith("NotImplementedError: Method is not implemented\n    at ")
    status, reply = rig.call(sid, "POST", "/execute/sync", {"script": "return 1", "args": []})
    assert (status, error(reply)) == (405, ("unknown method", "Method is not implemented"))
    status, reply = rig.call(sid, "GET", "/no/such/route")
    assert (status, error(reply)[0]) == (404, "unknown command")
    assert error(reply)[1].startswith("The requested resource could not be found, or a request was received")
    status, reply = rig.call("nope", "GET", "/window/rect")
    assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
    status, reply = rig.mobile(sid, "tap", {"x": 1})
    assert (status, error(reply)[0]) == (400, "invalid argument")
    assert error(reply)[1] == (
        'The following required parameter is missing: ["y"]\nKnown required parameters are: ["x","y"]\n'
        'Known optional parameters are: ["elementId"]\nYou have provided: ["x"]'
    )


def test_timeouts(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    for body in ({"implicit": 0}, {"implicit": 1.5}, {"implicit": 1500}, {"type": "implicit", "ms": 500}):
        assert rig.call(sid, "POST", "/timeouts", body) == (200, {"value": None}), body
    assert rig.call(sid, "GET", "/timeouts") == (200, {"value": {"command": 60000, "implicit": 500}})
    status, reply = rig.call(sid, "POST", "/timeouts", {"implicit": -1})
    assert (status, error(reply)) == (400, ("invalid argument", "Invalid timeout value '-1'"))
    status, reply = rig.call(sid, "POST", "/timeouts", {})
    assert (status, error(reply)) == (
        400,
        ("invalid argument", "W3C protocol expects any of script, pageLoad or implicit to be set"),
    )


def test_w3c_source_keys_and_the_routes_xcuitest_passes_to_wda(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    status, reply = rig.call(sid, "GET", "/source")
    assert status == 200
    assert reply["value"].startswith('<?xml version="1.0" encoding="UTF-8"?>')
    assert "scope=AppiumAUT" in [r.path for r in rig.wda.requests if r.route == "/source"][-1]
    assert rig.call(sid, "POST", "/keys", {"value": ["a"]}) == (200, {"value": None})
    assert [r.body for r in rig.wda.requests if r.route == "/wda/keys"][-1] == {"value": ["a"]}
    status, reply = rig.call(sid, "GET", "/window/rect")
    assert (status, reply["value"]) == (200, {"x": 0, "y": 0, "width": 402, "height": 874})
    status, reply = rig.call(sid, "GET", "/element/active")
    assert (status, error(reply)) == (
        404,
        ("no such element", "unable to find an element using '(null)', value '(null)'"),
    )
    status, reply = rig.call(sid, "GET", "/element/NOPE/rect")
    assert (status, error(reply)[0]) == (404, "stale element reference")
    assert reply["value"]["stacktrace"].startswith("ProxyRequestError: Request failed with status code 404")
    status, reply = rig.call(sid, "POST", "/alert/accept", {})
    assert (status, error(reply)) == (404, ("no such alert", "No alert is open"))


def test_an_idempotency_key_makes_one_session(rig: Rig) -> None:
    import concurrent.futures

    key = "5f0c6a0e-1111-4a4a-9b9b-000000000001"
    with concurrent.futures.ThreadPoolExecutor(2) as threads:
        replies = list(threads.map(lambda _: rig.create({}, key=key), range(2)))
    ids = {reply["value"]["sessionId"] for status, reply in replies if status == 200}
    assert len(ids) == 1
    assert rig.create({}, key=key)[1]["value"]["sessionId"] in ids  # the same key later: the same session
    assert len(rig.listed()) == 1


def test_a_launch_of_a_running_app_only_activates_it_and_home_is_any_case(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    assert rig.mobile(sid, "launchApp", {"bundleId": YOURAPP, "arguments": ["-first"]})[0] == 200
    assert rig.mobile(sid, "launchApp", {"bundleId": YOURAPP, "arguments": ["-second"]})[0] == 200
    _, info = rig.mobile(sid, "activeAppInfo")
    assert info["value"]["processArguments"]["args"] == ["-first"]  # running: activated, "-second" dropped
    assert rig.mobile(sid, "pressButton", {"name": "HOME"})[0] == 200  # WDA lowercases the name
    assert rig.mobile(sid, "activeAppInfo")[1]["value"]["bundleId"] == SPRINGBOARD
    status, reply = rig.mobile(sid, "pressButton", {"name": "shake"})
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert "The button 'shake' is not supported." in error(reply)[1]


def test_device_info_carries_the_phones_lockdown_values(rig: Rig) -> None:
    _, reply = rig.create({})
    sid = reply["value"]["sessionId"]
    status, info = rig.mobile(sid, "deviceInfo")
    assert status == 200
    # GetValue with no key, whole: what the phone's lockdownd holds.
    assert info["value"]["lockdownInfo"] == lockdown_values(rig.udid, script().device.name, IOS)
    assert rig.mobile(sid, "isAppInstalled", {"bundleId": YOURAPP}) == (200, {"value": True})
    status, apps = rig.mobile(sid, "listApps", {"applicationType": "User"})
    assert apps["value"][YOURAPP]["CFBundleShortVersionString"] == "1.0"


def test_device_info_without_usbmuxd_fails_by_the_sessions_version(rig: Rig) -> None:
    rig.usbmuxd(False)
    # XCUITest picks its lockdown route by the session's platformVersion (18 and later: a RemoteXPC
    # tunnel), not by the phone's (26.4.1 here).
    _, reply = rig.create({"appium:platformVersion": "17.2"})
    status, reply = rig.mobile(reply["value"]["sessionId"], "deviceInfo")
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert re.fullmatch(r"The usbmuxd socket path '.+' does not exist or is not accessible", error(reply)[1])
    _, reply = rig.create({"appium:platformVersion": "26.4"})
    status, reply = rig.mobile(reply["value"]["sessionId"], "deviceInfo")
    guide = "https://appium.github.io/appium-xcuitest-driver/latest/guides/remotexpc-tunnels-real-devices/"
    tunnel = f"Tunnel registry port not found. Please run the tunnel creation script first See {guide}"
    assert (status, error(reply)) == (500, ("unknown error", f"Tunnel lockdown failed for '{rig.udid}' ({tunnel})"))


# -- stopping a run that waits on the server ---------------------------------------------------------


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_run_waiting_for_a_session_stops_at_once_with_its_json(
    rig: Rig, project: Path, signum: int, code: int
) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    caps = project / "caps.json"
    caps.write_text(json.dumps(rig.caps()))
    rig.wda.stall_next_reply(120)  # the server's first call to WDA never ends: no session comes
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    junit = project / "junit.xml"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--appium", rig.url,
         "--caps", str(caps), "--json", "--junit", str(junit)],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert rig.wda.wait_for(lambda r: r.route in ("/status", "/session"), 60)
        started = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert time.monotonic() - started < 2, err
    assert proc.returncode == code, err
    (check,) = json.loads(out)["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "stopped")
    assert junit.is_file()
