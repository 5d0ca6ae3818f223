"""`mobster test --wda URL`: record, replay and heal through the fake WebDriverAgent server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.wda import FakeWda
from mobster_harness._lock import address_key, device_lock
from tests.loopback import closed_port
from tests.real_clock import mobster
from tests.samples import SIGNUP


@pytest.fixture
def project(project: Path, private_locks: Path) -> Path:
    """The sign-up check, and locks of the test's own."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    return project


@pytest.fixture
def app() -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        yield fake


def test_record_replay_and_heal_over_wda(project: Path, app: FakeWda) -> None:
    first = mobster("test", "--wda", app.url, "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "✓ passed  A new user signs up  on Scripted iPhone, iOS 26.4" in first.output
    assert "recorded a new path" in first.output

    second = mobster("test", "--wda", app.url, "--model", "scripted", "--json")
    assert second.exit_code == 0, second.output
    doc = json.loads(second.stdout)
    check = doc["checks"][0]
    assert (check["mode"], check["path"]["used"], check["model_calls"]) == ("replay", True, 0)
    assert check["device"] == {"name": "Scripted iPhone", "kind": "simulator", "ios": "26.4"}
    assert check["app"] == {"bundle": "com.example.yourapp", "version": None, "build": None}
    assert [s["source"] for s in check["steps"]] == ["replay", "replay", "replay"]

    with FakeWda(sample_path("yourapp-renamed"), lifetime=120) as renamed:
        healed = mobster("test", "--wda", renamed.url, "--model", "scripted")
    assert healed.exit_code == 0, healed.output
    assert '    healed step 3: Tap "Continue" → Tap "Next"' in healed.output
    assert healed.output.strip().splitlines()[-1] == "1 healed step waits for review: mobster test heal"


def test_every_action_reached_the_phone_once(project: Path, app: FakeWda) -> None:
    mobster("test", "--wda", app.url, "--model", "scripted")
    result = mobster("test", "--wda", app.url)
    assert result.exit_code == 0, result.output
    ops = [a.op.value for a in app.phone.actions]
    # Tap "Sign up"; the field's focusing tap, then its keys; Tap "Continue": per run.
    assert ops == ["TAP", "TAP", "TYPE", "TAP"] * 2
    with device_lock(f"wda {address_key(app.url)}") as lock:  # released when the command ended
        assert lock.held


def test_the_kind_comes_from_wda(project: Path) -> None:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    with FakeWda(AppScript.from_text(text, "iphone.yaml"), lifetime=120) as phone:
        result = mobster("test", "--wda", phone.url, "--model", "scripted", "--json")
    assert result.exit_code == 0, result.output
    check = json.loads(result.stdout)["checks"][0]
    assert check["device"]["kind"] == "iphone"


def test_a_wda_that_is_not_there(project: Path) -> None:
    result = mobster("test", "--wda", f"http://127.0.0.1:{closed_port()}")
    assert result.exit_code == 3
    assert "isn't answering" in result.output
    assert "is WebDriverAgent running there?" in result.output


def test_a_device_in_use_by_another_run(project: Path, app: FakeWda) -> None:
    with device_lock(f"wda {address_key(app.url)}"):
        result = mobster("test", "--wda", app.url.replace("127.0.0.1", "localhost") + "/", "--json")
    assert result.exit_code == 3
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "busy")
    assert "is in use by another mobster run (pid" in check["message"]
    assert "is in use by another mobster run (pid" in result.stderr  # the check's line says it too
    assert app.requests == []  # nothing was sent to the device


def test_usage_problems(project: Path, app: FakeWda) -> None:
    bad = mobster("test", "--wda", "ftp://x")
    assert bad.exit_code == 3
    assert "--wda ftp://x: expected a WebDriverAgent URL" in bad.output
    parallel = mobster("test", "--wda", app.url, "--parallel", "2")
    assert parallel.exit_code == 3
    assert "--parallel 2 needs 2 devices" in parallel.output
    both = mobster("test", "--wda", app.url, "--sim", "iPhone 17")
    assert both.exit_code == 3
    assert "choose one device option" in both.output


# -- --sim and --device wiring -----------------------------------------------------------------


def test_sim_runs_on_the_fake_simctl_and_wda(project: Path, app: FakeWda, monkeypatch: pytest.MonkeyPatch) -> None:
    import mobster_drivers.devices.simulator._simctl as simctl_module
    from mobster_drivers.testing.xcrun import FakeSimctl

    fake = FakeSimctl(project / "sim", wda=app)
    monkeypatch.setattr(simctl_module, "XcrunSimctl", lambda: fake)
    monkeypatch.setenv("MOBSTER_WDA_PORT", str(app.port))
    result = mobster("test", "--sim", "iPhone 17 Pro", "--model", "scripted", "--json")
    assert result.exit_code == 0, result.output
    check = json.loads(result.stdout)["checks"][0]
    assert check["device"] == {"name": "iPhone 17 Pro", "kind": "simulator", "ios": "26.4"}
    assert check["app"] == {"bundle": "com.example.yourapp", "version": "1.0", "build": "1"}
    assert [c.command for c in fake.calls if c.command in ("uninstall", "install", "launch")] == [
        "uninstall",
        "install",
        "launch",
    ]  # the check's default reset is a reinstall


def test_sim_without_xcode_says_so(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project / "empty-path"))
    result = mobster("test", "--sim", "iPhone 17 Pro")
    assert result.exit_code == 3
    assert "needs macOS with Xcode" in result.output


def test_device_without_usbmuxd_says_so(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USBMUXD_SOCKET_ADDRESS", str(project / "no-usbmuxd"))
    result = mobster("test", "--device", "Lab iPhone")
    assert result.exit_code == 3
    assert "can't reach usbmuxd" in result.output
