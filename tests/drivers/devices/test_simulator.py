"""The simulator driver on the fake simctl runner (recorded outputs) and the fake WDA server."""

from __future__ import annotations

import asyncio
import os
import plistlib
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import DeviceKind, LaunchOptions, Reset
from mobster_core.testing import check_device
from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.devices.simulator import (
    Simctl,
    SimctlTimeout,
    SimulatorDevice,
    XcrunSimctl,
    parse_simulators,
    pick_simulator,
    runtime_version,
    wda_port,
)
from mobster_drivers.testing.wda import FakeWda
from mobster_drivers.testing.xcrun import RECORDED_DEVICES, FakeSimctl, recorded

YOURAPP = "com.example.yourapp"
PRO = "5A1F0C2E-9B7D-4E3A-A6F1-2D8C0B4E7F13"  # iPhone 17 Pro, iOS 26.4, booted
SEVENTEEN = "C3E8A5D1-6F2B-4A90-B7C4-8E1D3F5A2B60"  # iPhone 17, iOS 26.4, shut down


def connect(simctl: FakeSimctl, wda: FakeWda, name: str = "iPhone 17 Pro") -> SimulatorDevice:
    return SimulatorDevice.connect(name, runner=simctl, wda=wda.url)


# -- the list ----------------------------------------------------------------------------------


def test_the_recorded_list_parses_to_the_available_ios_simulators() -> None:
    simulators = parse_simulators(recorded(RECORDED_DEVICES))
    assert [(s.name, s.ios, s.state) for s in simulators] == [
        ("iPhone 16 Pro", "18.6", "Shutdown"),
        ("iPhone 16e", "18.6", "Shutdown"),
        ("iPhone 17 Pro", "26.4", "Booted"),
        ("iPhone 17", "26.4", "Shutdown"),
        ("iPhone 16e", "26.4", "Shutdown"),
        ("iPad Pro 13-inch (M5)", "26.4", "Shutdown"),
    ]
    assert simulators[2].booted
    assert simulators[2].device_type == "com.apple.CoreSimulator.SimDeviceType.iPhone-17-Pro"


@pytest.mark.parametrize(
    ("runtime", "version"),
    [
        ("com.apple.CoreSimulator.SimRuntime.iOS-26-4", "26.4"),
        ("com.apple.CoreSimulator.SimRuntime.iOS-18-6-1", "18.6.1"),
        ("com.apple.CoreSimulator.SimRuntime.iOS-17", "17"),
        ("com.apple.CoreSimulator.SimRuntime.watchOS-26-2", None),
        ("com.apple.CoreSimulator.SimRuntime.xrOS-26-0", None),
    ],
)
def test_the_ios_version_comes_from_the_runtime(runtime: str, version: str | None) -> None:
    assert runtime_version(runtime) == version


def test_a_simulator_is_picked_by_name_or_udid() -> None:
    simulators = parse_simulators(recorded(RECORDED_DEVICES))
    assert pick_simulator(simulators, "iPhone 17 Pro").udid == PRO
    assert pick_simulator(simulators, PRO.lower()).name == "iPhone 17 Pro"
    assert pick_simulator(simulators, "iphone 17").udid == SEVENTEEN


def test_several_with_one_name_is_an_error_listing_them() -> None:
    simulators = parse_simulators(recorded(RECORDED_DEVICES))
    with pytest.raises(mc.DeviceError, match=r"2 simulators are called 'iPhone 16e': .*iOS 18\.6.*iOS 26\.4.*UDID"):
        pick_simulator(simulators, "iPhone 16e")


def test_none_found_lists_what_there_is() -> None:
    simulators = parse_simulators(recorded(RECORDED_DEVICES))
    with pytest.raises(mc.DeviceError, match=r"no simulator 'iPhone 99'.*available: iPad Pro"):
        pick_simulator(simulators, "iPhone 99")
    with pytest.raises(mc.DeviceError, match="lists no available iOS simulators"):
        pick_simulator([], "iPhone 17")
    with pytest.raises(mc.DeviceError, match="no simulator 'iPhone 15 Pro'"):
        pick_simulator(simulators, "iPhone 15 Pro")  # listed, but unavailable


@pytest.mark.parametrize("text", ["not json", "[]", '{"devices": []}'])
def test_a_list_that_is_not_simctls_is_a_device_error(text: str) -> None:
    with pytest.raises(mc.DeviceError, match="list devices -j"):
        parse_simulators(text)


# -- conformance -------------------------------------------------------------------------------


def test_the_simulator_driver_passes_check_device(simctl: FakeSimctl, wda: FakeWda) -> None:
    ran = asyncio.run(
        check_device(
            lambda: connect(simctl, wda),
            app=YOURAPP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran[-3:] == ["screenshot", "evidence read", "target check"]
    assert len(ran) == 12


# -- connecting --------------------------------------------------------------------------------


def test_info_comes_from_simctl(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    info = asyncio.run(device.info())
    assert info == mc.DeviceInfo(
        name="iPhone 17 Pro", ios="26.4", kind=DeviceKind.SIMULATOR, udid=PRO, locale="en_US", appearance="light"
    )
    assert device.wda.url == wda.url


def test_a_shut_down_simulator_is_booted(tmp_path: Path, wda: FakeWda) -> None:
    simctl = FakeSimctl(tmp_path, wda=wda, install_on=SEVENTEEN)
    device = connect(simctl, wda, "iPhone 17")
    assert device.simulator.booted
    assert [c.args for c in simctl.calls if c.command in ("boot", "bootstatus")] == [
        ("boot", SEVENTEEN),
        ("bootstatus", SEVENTEEN, "-b"),
    ]
    assert simctl.state_of(SEVENTEEN) == "Booted"


def test_not_booting_when_told_not_to(simctl: FakeSimctl, wda: FakeWda) -> None:
    with pytest.raises(mc.DeviceError, match=r"is not booted: xcrun simctl boot C3E8A5D1"):
        SimulatorDevice.connect("iPhone 17", runner=simctl, wda=wda.url, boot=False)


def test_wda_not_answering_says_how_to_start_it(simctl: FakeSimctl) -> None:
    with pytest.raises(
        mc.DeviceError, match=r"WebDriverAgent isn't answering at http://127\.0\.0\.1:1 .*MOBSTER_WDA_PORT"
    ):
        SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, port=1)


def test_the_wda_port_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, wda: FakeWda) -> None:
    monkeypatch.setenv("MOBSTER_WDA_PORT", str(wda.port))
    assert wda_port() == wda.port
    assert wda_port(8200) == 8200
    monkeypatch.delenv("MOBSTER_WDA_PORT")
    assert wda_port() == 8100
    monkeypatch.setenv("MOBSTER_WDA_PORT", "http")
    with pytest.raises(mc.DeviceError, match="MOBSTER_WDA_PORT is a port number"):
        wda_port()


def test_connect_uses_the_wda_port_from_the_environment(
    simctl: FakeSimctl, wda: FakeWda, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOBSTER_WDA_PORT", str(wda.port))
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl)
    assert device.wda.url == wda.url


# -- apps --------------------------------------------------------------------------------------


def test_the_app_version_and_build_come_from_info_plist(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    assert asyncio.run(device.app_info(YOURAPP)) == mc.AppInfo(YOURAPP, "1.0", "1")
    simctl.install_app(PRO, "com.example.other", name="Other", version="2.3", build="45")
    assert asyncio.run(device.app_info("com.example.other")) == mc.AppInfo("com.example.other", "2.3", "45")
    plist = simctl.container(PRO, "com.example.other") / "Info.plist"
    assert plistlib.loads(plist.read_bytes())["CFBundleVersion"] == "45"


def test_an_app_that_is_not_installed(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    with pytest.raises(mc.DeviceError, match=r"com\.example\.nope is not installed on simulator iPhone 17 Pro"):
        asyncio.run(device.app_info("com.example.nope"))
    with pytest.raises(mc.DeviceError, match="No such file or directory"):
        asyncio.run(device.launch("com.example.nope", LaunchOptions()))
    assert not simctl.calls_of("launch")


def test_launch_passes_arguments_and_child_environment(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    options = LaunchOptions(args=["-UITests", "YES"], env={"API_URL": "http://127.0.0.1:9"}, url="yourapp://signup")
    asyncio.run(device.launch(YOURAPP, options))
    (launch,) = simctl.calls_of("launch")
    assert launch.args == ("launch", "--terminate-running-process", PRO, YOURAPP, "-UITests", "YES")
    assert launch.env == {"SIMCTL_CHILD_API_URL": "http://127.0.0.1:9"}
    assert wda.phone.launches[-1][1] == LaunchOptions(args=["-UITests", "YES"], env={"API_URL": "http://127.0.0.1:9"})
    assert [c.args for c in simctl.calls_of("openurl")] == [("openurl", PRO, "yourapp://signup")]
    assert wda.phone.screen_name(YOURAPP) == "signup"


def test_a_data_reset_empties_the_container_and_privacy(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    data = simctl.container(PRO, YOURAPP, "data")
    (data / "Documents" / "notes.txt").write_text("x")
    (data / "Library" / "Preferences" / "com.example.yourapp.plist").write_bytes(b"x")
    (data / "tmp" / "cache").mkdir()
    asyncio.run(device.launch(YOURAPP, LaunchOptions()))
    asyncio.run(device.launch(YOURAPP, LaunchOptions(reset=Reset.DATA)))
    assert list((data / "Documents").iterdir()) == []
    assert list((data / "Library").iterdir()) == []
    assert list((data / "tmp").iterdir()) == []
    assert [c.args for c in simctl.calls_of("privacy")] == [("privacy", PRO, "reset", "all", YOURAPP)]
    commands = [c.command for c in simctl.calls if c.command in ("terminate", "privacy", "launch")]
    assert commands == ["launch", "terminate", "privacy", "launch"]


def test_the_alert_policys_permissions_are_set_after_the_reset_and_before_the_launch(tmp_path: Path) -> None:
    with FakeWda(sample_path("yourapp-location"), lifetime=60) as located:
        simctl = FakeSimctl(tmp_path, wda=located)
        device = connect(simctl, located)
        permissions = {"location": True, "camera": False, "tracking": False}
        asyncio.run(device.launch(YOURAPP, LaunchOptions(reset=Reset.DATA, permissions=permissions)))
        privacy = [c.args for c in simctl.calls_of("privacy")]
        # camera and tracking are no simctl service: their prompts are answered when they show
        assert privacy == [("privacy", PRO, "reset", "all", YOURAPP), ("privacy", PRO, "grant", "location", YOURAPP)]
        commands = [c.command for c in simctl.calls if c.command in ("privacy", "launch")]
        assert commands == ["privacy", "privacy", "launch"]
        assert located.phone.alert() is None  # granted: the location prompt never shows
        asyncio.run(device.launch(YOURAPP, LaunchOptions(reset=Reset.DATA)))
        assert located.phone.alert() is not None  # the reset took the grant back


def test_a_reinstall_uninstalls_and_installs_the_same_bundle(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    before = simctl.container(PRO, YOURAPP)
    asyncio.run(device.launch(YOURAPP, LaunchOptions(reset=Reset.REINSTALL)))
    assert [c.command for c in simctl.calls if c.command in ("uninstall", "install")] == ["uninstall", "install"]
    after = simctl.container(PRO, YOURAPP)
    assert after != before
    assert after.name == "YourApp.app"
    assert asyncio.run(device.app_info(YOURAPP)) == mc.AppInfo(YOURAPP, "1.0", "1")


class _Elsewhere:
    """A runner whose data container lies outside the simulator's folder."""

    def __init__(self, inner: FakeSimctl, elsewhere: Path) -> None:
        self.inner = inner
        self.elsewhere = elsewhere

    def run(
        self, args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> tuple[int, str, str]:
        if args[0] == "get_app_container" and args[-1] == "data":
            return 0, f"{self.elsewhere}\n", ""
        return self.inner.run(args, env=env, timeout=timeout)


def test_a_reset_never_touches_a_folder_outside_the_simulator(simctl: FakeSimctl, wda: FakeWda, tmp_path: Path) -> None:
    precious = tmp_path / "home"
    (precious / "Documents").mkdir(parents=True)
    (precious / "Documents" / "thesis.tex").write_text("x")
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=_Elsewhere(simctl, precious), wda=wda.url)
    with pytest.raises(mc.DeviceError, match="refusing to touch"):
        asyncio.run(device.launch(YOURAPP, LaunchOptions(reset=Reset.DATA)))
    assert (precious / "Documents" / "thesis.tex").exists()


def test_a_launch_that_times_out_is_an_unknown_outcome(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    simctl.hang_next("launch")
    with pytest.raises(mc.UnknownOutcome, match=r"launching com\.example\.yourapp: simctl launch timed out"):
        asyncio.run(device.launch(YOURAPP, LaunchOptions()))


def test_simctl_failures_quote_simctl(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    simctl.fail_next(
        "launch", code=4, stderr="An error was encountered processing the command (x):\nThe request to open failed.\n"
    )
    with pytest.raises(mc.DeviceError, match=r"simctl launch failed \(exit 4\): The request to open failed\."):
        asyncio.run(device.launch(YOURAPP, LaunchOptions()))
    with pytest.raises(mc.DeviceError, match="Simulator device failed to open nowhere://x"):
        asyncio.run(device.launch(YOURAPP, LaunchOptions(url="nowhere://x")))


def test_terminate_and_install(simctl: FakeSimctl, wda: FakeWda, tmp_path: Path) -> None:
    device = connect(simctl, wda)
    asyncio.run(device.launch(YOURAPP, LaunchOptions()))
    assert asyncio.run(device.terminate(YOURAPP)) is True
    assert asyncio.run(device.terminate(YOURAPP)) is False
    app = tmp_path / "Built.app"
    app.mkdir()
    info = {"CFBundleIdentifier": "com.example.built", "CFBundleShortVersionString": "3.0", "CFBundleVersion": "9"}
    (app / "Info.plist").write_bytes(plistlib.dumps(info))
    asyncio.run(device.install(app))
    assert asyncio.run(device.app_info("com.example.built")) == mc.AppInfo("com.example.built", "3.0", "9")


def test_screenshots_come_from_simctl_io(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = connect(simctl, wda)
    png = asyncio.run(device.screenshot())
    assert png.startswith(b"\x89PNG")
    (shot,) = simctl.calls_of("io")
    assert shot.args[:4] == ("io", PRO, "screenshot", "--type=png")
    # a channel of their own, beside WDA's: the run takes one beside each read (dispatcher Rule 9)
    assert isinstance(device, mc.protocols.ScreenshotChannel)
    assert device.separate_screenshots is True


def test_commands_on_a_shut_down_simulator_replay_simctls_error(tmp_path: Path) -> None:
    simctl = FakeSimctl(tmp_path)
    code, out, err = simctl.run(["launch", SEVENTEEN, YOURAPP])
    assert (code, out) == (149, "")
    assert "Unable to lookup in current state: Shutdown" in err
    assert simctl.run(["boot", PRO])[2].strip().endswith("Unable to boot device in current state: Booted")
    assert simctl.run(["boot", "nope"]) == (148, "", "Invalid device: nope\n")
    assert simctl.run(["frobnicate"])[0] == 64
    Simctl(simctl).boot(PRO)  # already booted is fine


# -- the real runner, with a stand-in for xcrun ------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for xcrun")
def test_the_real_runner_passes_arguments_environment_and_a_timeout(tmp_path: Path) -> None:
    xcrun = tmp_path / "xcrun"
    xcrun.write_text(
        '#!/bin/sh\nif [ "$2" = "slow" ]; then sleep 5; fi\necho "$@"\necho "child=$SIMCTL_CHILD_K" >&2\nexit 3\n'
    )
    xcrun.chmod(xcrun.stat().st_mode | stat.S_IEXEC)
    runner = XcrunSimctl(str(xcrun))
    assert runner.run(["launch", "X"], env={"SIMCTL_CHILD_K": "v"}) == (3, "simctl launch X\n", "child=v\n")
    with pytest.raises(SimctlTimeout):
        runner.run(["slow"], timeout=0.2)


def test_no_xcrun_says_the_driver_needs_a_mac(tmp_path: Path) -> None:
    runner = XcrunSimctl(str(tmp_path / "no-such-xcrun"))
    with pytest.raises(mc.DeviceError, match="needs macOS with Xcode"):
        runner.run(["list"])
    assert os.environ.get("SIMCTL_CHILD_K") is None
