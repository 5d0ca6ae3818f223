"""Ctrl+C and SIGTERM during a run: the action in flight is journaled as unknown, the check ends
`couldnt_run` class `stopped` (exit 130 / 143), reports are written, the cache isn't touched, and
the next run starts clean."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP_BY_BUNDLE


def start(project: Path, app: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    return subprocess.Popen(
        [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--scripted", app,
         "--model", "scripted", "--json"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def journal_lines(project: Path) -> list[dict[str, object]]:
    runs = project / ".mobster" / "runs"
    lines: list[dict[str, object]] = []
    for journal in runs.glob("*/journal.jsonl"):
        lines += [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    return lines


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_stopping_mid_action(tmp_path: Path, signum: int, code: int) -> None:
    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    # Taps take 3 s on this phone: the signal lands while the first tap is in flight.
    slow = sample_path("yourapp").read_text().replace("latency: zero", "latency: {tap: 3.0}")
    (tmp_path / "slow.yaml").write_text(slow)
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    proc = start(tmp_path, "slow.yaml")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if any(e.get("event") == "intent" and e.get("key") == "smart-1" for e in journal_lines(tmp_path)):
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("the run never started its first tap")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == code, err
    assert f"stopped by {signal.Signals(signum).name}" in err
    events = journal_lines(tmp_path)
    outcomes = [e for e in events if e.get("event") == "outcome" and e.get("key") == "smart-1"]
    assert [o["outcome"] for o in outcomes] == ["unknown"]
    assert not any(e.get("key") == "smart-2" for e in events)  # nothing was sent after it
    (result,) = (tmp_path / ".mobster" / "runs").glob("*/result.json")
    data = json.loads(result.read_text())
    assert (data["verdict"], data["class"]) == ("couldnt_run", "stopped")
    suites = list((tmp_path / ".mobster" / "test-results").glob("*/results.json"))
    assert len(suites) == 1
    assert json.loads(suites[0].read_text())["checks"][0]["class"] == "stopped"
    assert not list((tmp_path / ".mobster" / "cache").rglob("*.json"))  # nothing cached from a partial run
    assert not list((tmp_path / ".mobster").rglob(".tmp-*"))

    again = start(tmp_path, "app.yaml")
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert json.loads(out)["checks"][0]["mode"] == "smart"


def test_stopping_a_pool_ends_its_appium_sessions(tmp_path: Path) -> None:
    from mobster_drivers.testing.appium import FakeAppium

    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "welcome.yaml").write_text(
        "version: 1\nname: Welcome\napp: {bundle: com.example.yourapp}\nexpect:\n  - text: Sign up\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_APPIUM"))}
    with (
        FakeAppium(sample_path("yourapp"), lifetime=60, latency=0.5) as a,
        FakeAppium(sample_path("yourapp"), lifetime=60, latency=0.5) as b,
    ):
        proc = subprocess.Popen(
            [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--appium", a.url,
             "--appium", b.url, "--json"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (a.sessions or b.sessions):
            time.sleep(0.05)
        if not (a.sessions or b.sessions):
            proc.kill()
            pytest.fail("the run never made a session")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert a.sessions == {}, err  # ended at once, not left to the cloud's idle timeout
        assert b.sessions == {}, err
        assert [r.method for r in (*a.requests, *b.requests) if r.session].count("DELETE") >= 1


def test_ctrl_c_during_a_stalled_wda_tap_stops_at_once_and_writes_every_output(tmp_path: Path) -> None:
    """A tap whose reply never comes (held 60 s): Ctrl+C ends the command without waiting for it."""
    from mobster_drivers.testing.wda import FakeWda

    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        fake.fail_next_action(stall=60.0)  # the launch is no action of the phone's: the first tap is
        proc = subprocess.Popen(
            [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--wda", fake.url,
             "--model", "scripted", "--json", "--junit", "copy.xml"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not any(e.get("event") == "intent" and e.get("key") == "smart-1" for e in journal_lines(tmp_path)):
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("the run never sent its first tap")
            time.sleep(0.05)
        time.sleep(0.3)  # the tap is in flight, its reply held by the fake
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)  # the reply is held 60 s: no waiting for it
    assert proc.returncode == 130, err
    assert 'stopping (SIGINT): no longer waiting for the device\'s reply to step 1 (Tap "Sign up")' in err
    assert "Traceback" not in err
    assert json.loads(out)["checks"][0]["class"] == "stopped"  # --json is printed
    assert "stopped" in (tmp_path / "copy.xml").read_text()  # and --junit copied


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_hub_that_never_answers_a_new_session_stops_at_once(tmp_path: Path, signum: int, code: int) -> None:
    """A Grid hub whose only phone is taken queues the request (300 s by default): a signal ends it now."""
    import http.client

    from mobster_drivers.testing.appium import FakeAppium

    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    with FakeAppium(sample_path("yourapp"), lifetime=120, devices=1, session_request_timeout=600) as hub:
        holder = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=10)  # someone else has the phone
        caps = {"platformName": "iOS", "appium:automationName": "XCUITest"}
        holder.request("POST", "/session", json.dumps({"capabilities": {"alwaysMatch": caps}}))
        assert holder.getresponse().status == 200
        proc = subprocess.Popen(
            [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--appium", hub.url,
             "--json", "--junit", "copy.xml"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        seen: list[object] = []

        def queued(request: object) -> bool:  # the run's own request for a session, waiting in the queue
            if getattr(request, "command", None) == "POST /session" and not any(s is request for s in seen):
                seen.append(request)
            return len(seen) >= 2

        if not hub.wait_for(queued, 30):
            proc.kill()
            pytest.fail("the run never asked for a session")
        started = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - started
    assert proc.returncode == code, err
    assert took < 2, f"{took:.2f} s: {err}"
    assert json.loads(out)["checks"][0]["class"] == "stopped"  # --json is printed
    assert "stopped" in (tmp_path / "copy.xml").read_text()  # and --junit copied


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_devices_are_being_opened_stops_at_once(tmp_path: Path, signum: int, code: int) -> None:
    """A WDA whose first reply is held 60 s while the pool opens: the signal ends the command now."""
    from mobster_drivers.testing.wda import FakeWda

    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        fake.stall_next_reply(60.0)  # the pool's first question to the WDA: its status
        proc = subprocess.Popen(
            [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "--wda", fake.url,
             "--model", "scripted", "--json", "--junit", "copy.xml"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        if not fake.wait_for(lambda request: True, 30):
            proc.kill()
            pytest.fail("the run never asked the WDA anything")
        time.sleep(0.3)  # the reply is held by the fake
        started = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - started
    assert proc.returncode == code, err
    assert took < 2, f"{took:.2f} s: {err}"
    assert f"stopped by {signal.Signals(signum).name} while the devices were being opened: no check ran" in err
    assert "Traceback" not in err
    assert not (tmp_path / ".mobster" / "runs").exists() or not any((tmp_path / ".mobster" / "runs").iterdir())
    # Issue 37: a stopped run writes --json and --junit, as the same hang on --appium does.
    (check,) = json.loads(out)["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "stopped")
    assert "while the devices were being opened" in check["message"]
    assert 'message="stopped' in (tmp_path / "copy.xml").read_text()
    (suite,) = (tmp_path / ".mobster" / "test-results").glob("*/results.json")
    assert json.loads(suite.read_text())["checks"] == json.loads(out)["checks"]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_inspect_watch_during_a_stalled_read_and_releases_the_device(
    tmp_path: Path, signum: int, code: int
) -> None:
    """`inspect --watch` is a long-lived command too: the signal rule ends it, the device's lock released."""
    from mobster_drivers.testing.wda import FakeWda

    locks = tmp_path / "locks"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    env["MOBSTER_LOCK_DIR"] = str(locks)
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from mobster_cli.main import main; main()", "inspect", "--wda", fake.url,
             "--watch", "--every", "0.1"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while sum("/source" in r.route for r in fake.requests) < 3:  # the watch loop reads again: it printed
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("the watch never read the screen again")
            time.sleep(0.05)
        fake.stall_next_reply(60.0)  # the next read's reply is held: a device call in flight
        time.sleep(0.5)
        started = time.monotonic()
        proc.send_signal(signum)
        try:
            out, err = proc.communicate(timeout=10)
        finally:
            proc.kill()
        took = time.monotonic() - started
    assert proc.returncode == code, err
    assert took < 10
    assert f"stopped by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err
    assert " on " in out.splitlines()[0]  # the screen was printed before: "<app> on <device>"
    assert list(locks.glob("*.lock"))
    assert not list(locks.glob("*.owner")), "the device's lock was not released"
