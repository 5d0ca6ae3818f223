"""One check, a path per platform: two plain checks on the scripted iPhone and the scripted Android phone.

Written once, each check records and replays at $0 on both; each platform keeps its own path; a
heal on Android heals the Android path only; BACK is recorded and replayed on Android and never
sent to an iPhone.
"""

from __future__ import annotations

import json
from pathlib import Path

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.samples import PAYWALL, SIGNUP

IOS = sample_path("yourapp")
ANDROID = sample_path("yourapp-android")
ANDROID_RENAMED = sample_path("yourapp-android-renamed")


def project(tmp_path: Path) -> dict[str, Path]:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    files = {"signup": checks / "signup.yaml", "paywall": checks / "paywall.yaml"}
    files["signup"].write_text(SIGNUP)
    files["paywall"].write_text(PAYWALL)
    return files


def run(root: Path, check: Path, app: Path, *, model: bool = True) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(app, clock=clock)
    scripted = ScriptedModel(clock=clock) if model else None
    result = clock.run(run_check(load_check(check), phone, clock, model=scripted, options=RunOptions(root=root)))
    return result, phone


def stored(root: Path) -> list[dict[str, object]]:
    folder = root / ".mobster" / "cache" / "replay"
    return [json.loads(p.read_text())["env"] for p in sorted(folder.glob("*.json"))]


def test_two_checks_record_and_replay_at_no_cost_on_both_platforms(tmp_path: Path) -> None:
    files = project(tmp_path)
    for name, check in files.items():
        ios, _ = run(tmp_path, check, IOS)
        assert (ios.verdict, ios.mode) == (mc.Verdict.PASSED, "smart"), name
        android, _ = run(tmp_path, check, ANDROID)
        assert (android.verdict, android.mode, android.path_why) == (
            mc.Verdict.PASSED,
            "smart",
            "recorded on iOS, this is Android",
        )
        for app in (IOS, ANDROID):
            again, _ = run(tmp_path, check, app, model=False)
            assert (again.verdict, again.mode, again.model_calls, again.cost.usd) == (
                mc.Verdict.PASSED,
                "replay",
                0,
                0.0,
            )
            assert again.replayed_with_no_model
    envs = stored(tmp_path)
    assert len(envs) == 4  # two checks, each with one path per platform
    assert sorted(str(e.get("platform", "ios")) for e in envs) == ["android", "android", "ios", "ios"]
    assert {e["kind"] for e in envs} == {"simulator", "emulator"}


def test_a_heal_on_android_heals_the_android_path_only(tmp_path: Path) -> None:
    signup = project(tmp_path)["signup"]
    run(tmp_path, signup, IOS)
    run(tmp_path, signup, ANDROID)
    healed, _ = run(tmp_path, signup, ANDROID_RENAMED)
    assert healed.verdict is mc.Verdict.PASSED
    assert [(h.step, h.from_, h.to) for h in healed.heals] == [(3, 'Tap "Continue"', 'Tap "Next"')]
    # The iPhone still replays its own recorded path, untouched, at no cost.
    ios, phone = run(tmp_path, signup, IOS, model=False)
    assert (ios.verdict, ios.mode, ios.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert [a.element.label for a in phone.actions if a.element is not None][-1] == "Continue"
    # The Android rebuild replays its healed path while the heal waits for review.
    again, phone = run(tmp_path, signup, ANDROID_RENAMED, model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert [a.element.label for a in phone.actions if a.element is not None][-1] == "Next"


BACK_CHECK = """\
version: 1
name: Settings and back
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
  - Go back
expect:
  - text: Upgrade to Pro
  - no_text: Go Pro
"""


def test_back_is_recorded_and_replayed_on_android(tmp_path: Path) -> None:
    check = tmp_path / ".mobster" / "checks" / "back.yaml"
    check.parent.mkdir(parents=True)
    check.write_text(BACK_CHECK)
    first, phone = run(tmp_path, check, ANDROID)
    assert (first.verdict, [s.op for s in first.steps]) == (mc.Verdict.PASSED, [mc.Op.TAP, mc.Op.TAP, mc.Op.BACK])
    again, phone = run(tmp_path, check, ANDROID, model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert [a.op for a in phone.actions] == [mc.Op.TAP, mc.Op.TAP, mc.Op.BACK]


def test_back_is_never_sent_to_an_iphone(tmp_path: Path) -> None:
    check = tmp_path / ".mobster" / "checks" / "back.yaml"
    check.parent.mkdir(parents=True)
    check.write_text(BACK_CHECK)
    result, phone = run(tmp_path, check, IOS)
    assert mc.Op.BACK not in [a.op for a in phone.actions]
    assert result.verdict is not mc.Verdict.PASSED  # the paywall stays: its Go Pro is there
