"""Running checks end to end on the scripted phone, the scripted model and the fake clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._rules.replay.settle import WATCH_SLOWEST
from mobster_core._store.healfile import accept_heals, heal_file_for, read_heal_file, reject_heals
from mobster_core.prompts import estimate_usage
from mobster_core.results import Fix, FixCode, StepSource
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.helpers import NOW
from tests.samples import APP_SCRIPT_HEAD, SIGNUP_WITH_PASSWORD

# Continue is not the last step here: Done comes after it.
FOUR_STEPS_APP = (
    APP_SCRIPT_HEAD
    + """\
    file: YourApp.app
    launch: welcome
    screens:
      welcome:
        - {role: StaticText, label: Welcome}
        - {role: Button, label: Sign up, tap: signup}
      signup:
        - {role: StaticText, label: Create your account}
        - {role: TextField, label: Email}
        - {role: Button, label: CONTINUE, tap: plan}
      plan:
        - {role: StaticText, label: Pick a plan}
        - {role: Button, label: FREE, tap: done}
      done:
        - {role: StaticText, label: Welcome aboard}
        - {role: Button, label: Finish}
"""
)
FOUR_STEPS_CHECK = """\
version: 1
name: Pick the free plan
app: {bundle: com.example.yourapp}
reset: data
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Tap "CONTINUE"
  - Tap "FREE"
expect:
  - text: Welcome aboard
"""


def project(tmp_path: Path, check: str = SIGNUP_WITH_PASSWORD, name: str = "signup.yaml") -> Path:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(check)
    return folder / name


def run(
    check_file: Path,
    app: str | Path,
    *,
    model: bool = True,
    delay: float = 0.0,
    **options: Any,
) -> tuple[mc.CheckResult, ScriptedPhone, ScriptedModel | None]:
    clock = FakeClock()
    text = app.read_text() if isinstance(app, Path) else app
    phone = ScriptedPhone.from_text(text, clock=clock)
    scripted = ScriptedModel(clock=clock, delay=delay) if model else None
    root = check_file.parent.parent.parent
    result = clock.run(
        run_check(load_check(check_file), phone, clock, model=scripted, options=RunOptions(root=root, **options))
    )
    return result, phone, scripted


def renamed(text: str, old: str, new: str) -> str:
    assert f"label: {old}," in text
    return text.replace(f"label: {old},", f"label: {new},")


def test_first_run_records_then_replays_with_zero_model_calls(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    first, _, _ = run(check, sample_path("yourapp"))
    assert (first.verdict, first.mode, first.path_used) == (mc.Verdict.PASSED, "smart", False)
    assert first.path_why == "no recorded path yet"
    assert first.model_calls == 4
    second, phone, _ = run(check, sample_path("yourapp"), model=False)
    assert second.outcome.failure_class is None
    assert (second.verdict, second.mode, second.path_used, second.model_calls) == (mc.Verdict.PASSED, "replay", True, 0)
    assert phone.screen_name("com.example.yourapp") == "done"


def test_replay_without_a_live_step_needs_no_model(tmp_path: Path) -> None:
    from mobster_report import HtmlReport

    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    run(check, sample_path("yourapp"))
    second, _, _ = run(check, sample_path("yourapp"), model=False, reporter=HtmlReport())
    assert (second.verdict, second.mode, second.model_calls, second.cost.usd) == (mc.Verdict.PASSED, "replay", 0, 0.0)
    assert [s.source for s in second.steps] == [StepSource.REPLAY] * 3
    data = json.loads((tmp_path / second.run_dir / "result.json").read_text())
    assert data["mode"] == "replay"
    assert data["path"]["used"] is True
    assert data["assertions"] == [
        {
            "text": 'text "Welcome aboard"',
            "ok": True,
            "observed": data["assertions"][0]["observed"],
            "matches": [{"label": "Welcome aboard", "role": "StaticText", "frame": [0.06, 0.1, 0.88, 0.06]}],
            "name": None,
            "error": None,
            "line": 9,  # the expect entry's line in the check file
        }
    ]
    # Each step names the element its action was sent to, with its frame then.
    assert [s["target"]["label"] for s in data["steps"]] == ["Sign up", "Email", "Continue"]
    # With a reporter, the run keeps a frame before each action, the final one, and its report.
    run_dir = tmp_path / second.run_dir
    assert sorted(
        p.name for p in (run_dir / "frames").glob("*.png") if ".thumb." not in p.name and ".view." not in p.name
    ) == ["final.png", "step-001-before.png", "step-002-before.png", "step-003-before.png"]
    assert (run_dir / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_a_live_step_without_a_model_cannot_run(tmp_path: Path) -> None:
    check = project(tmp_path)
    run(check, sample_path("yourapp"))
    second, _, _ = run(check, sample_path("yourapp"), model=False)
    assert (second.verdict, second.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL)
    assert "step 3" in second.outcome.message


def test_the_live_password_step_is_typed_by_the_model_each_run(tmp_path: Path) -> None:
    check = project(tmp_path)
    run(check, sample_path("yourapp"))
    second, _, _ = run(check, sample_path("yourapp"))
    assert second.verdict is mc.Verdict.PASSED
    assert second.model_calls == 1
    assert [s.source for s in second.steps] == [
        StepSource.REPLAY,
        StepSource.REPLAY,
        StepSource.LIVE,
        StepSource.REPLAY,
    ]
    for f in (tmp_path / ".mobster").rglob("*"):
        if f.is_file() and f.suffix != ".yaml":
            assert b"hunter22" not in f.read_bytes(), f


def test_no_path_and_no_model_cannot_run(tmp_path: Path) -> None:
    check = project(tmp_path)
    result, phone, _ = run(check, sample_path("yourapp"), model=False)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL)
    assert result.outcome.message.startswith("no recorded path yet, and there is no model")
    assert phone.actions == []


def test_launch_only_check_never_needs_a_model(tmp_path: Path) -> None:
    check = project(
        tmp_path, "version: 1\nname: Welcome shows\napp: {bundle: com.example.yourapp}\nexpect:\n  - text: Welcome\n"
    )
    result, _, _ = run(check, sample_path("yourapp"), model=False)
    assert (result.verdict, result.mode, result.model_calls) == (mc.Verdict.PASSED, "launch", 0)


def test_no_heal_fails_a_renamed_button_with_class_drift(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    run(check, sample_path("yourapp"))
    result, _, _ = run(check, sample_path("yourapp-renamed"), model=False, no_heal=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert '"Continue" isn\'t on the screen' in result.outcome.message
    assert result.steps[-1].reason == '"Continue" isn\'t on the screen'
    # Where it ended and what to do are fields; the message names no option.
    assert (result.outcome.step, result.outcome.fix) == (3, Fix(FixCode.RUN_WITHOUT_NO_HEAL))
    assert result.outcome.message.endswith("(healing is off)")
    assert not result.replayed_with_no_model  # it drifted: its steps didn't all run
    without_model, _, _ = run(check, sample_path("yourapp-renamed"), model=False)
    assert (without_model.outcome.step, without_model.outcome.fix) == (3, Fix(FixCode.GIVE_MODEL))
    assert without_model.outcome.message.endswith("(no model to heal it)")


def test_a_run_that_never_started_has_no_mode_and_replayed_nothing(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    result, phone, _ = run(check, sample_path("yourapp"), model=False)  # no path, no model
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL)
    assert result.outcome.message == "no recorded path yet, and there is no model to record one"
    assert (result.outcome.step, result.outcome.fix) == (None, Fix(FixCode.GIVE_MODEL))
    assert result.mode is None
    assert not result.replayed_with_no_model
    data = json.loads((tmp_path / result.run_dir / "result.json").read_text())
    assert (data["mode"], data["replayed_with_no_model"], data["step"]) == (None, False, None)
    assert data["fix"] == {"code": "give_model", "args": {}}
    assert data["message"] == (
        "no recorded path yet, and there is no model to record one; "
        "give the run a model (a model key, or the scripted model)"
    )
    assert phone.actions == []


def test_a_new_build_records_afresh_and_says_why(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    run(check, sample_path("yourapp"))
    newer = (
        sample_path("yourapp")
        .read_text()
        .replace('version: "1.0"', 'version: "1.1"')
        .replace('build: "1"', 'build: "2"')
    )
    result, _, _ = run(check, newer)
    assert (result.verdict, result.mode) == (mc.Verdict.PASSED, "smart")
    assert result.path_why == "the app changed (recorded on 1.0 (1), this is 1.1 (2))"


def test_a_failing_verdict_does_not_store_the_path(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace("text: Welcome aboard", "text: Something else"))
    first, _, _ = run(check, sample_path("yourapp"))
    assert (first.verdict, first.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.ASSERTION)
    second, _, _ = run(check, sample_path("yourapp"), model=False)
    assert second.outcome.failure_class is mc.FailureClass.MODEL


# -- the heal (§10) ------------------------------------------------------------------------------


def four_steps(tmp_path: Path) -> Path:
    check = project(tmp_path, FOUR_STEPS_CHECK)
    first, _, _ = run(check, FOUR_STEPS_APP)
    assert first.verdict is mc.Verdict.PASSED
    return check


def test_a_renamed_button_heals_in_one_call_and_the_next_run_replays_at_no_cost(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    before = check.read_bytes()
    changed = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT")
    healed, _, _ = run(check, changed)
    assert healed.verdict is mc.Verdict.PASSED
    assert healed.model_calls == 1
    assert [h.to_dict()["from"] for h in healed.heals] == ['Tap "CONTINUE"']
    assert [h.to_dict()["to"] for h in healed.heals] == ['Tap "NEXT"']
    assert [s.source for s in healed.steps] == [
        StepSource.REPLAY, StepSource.REPLAY, StepSource.HEALED, StepSource.REPLAY,
    ]  # fmt: skip
    assert check.read_bytes() == before  # the check file is never touched
    entries = read_heal_file(heal_file_for(check))
    assert [(e.step, e.from_, e.to, e.why) for e in entries] == [
        (3, 'Tap "CONTINUE"', 'Tap "NEXT"', '"CONTINUE" isn\'t on the screen')
    ]
    # The heal names the run that made it, in the result and in the heal file.
    assert [e.run_dir for e in entries] == [h.run_dir for h in healed.heals] == [healed.run_dir]
    assert healed.healed_steps == 1
    text = heal_file_for(check).read_text()
    assert f"  run_dir: {healed.run_dir}\n" in text
    assert text.startswith("# Mobster heal diff: steps of this check changed on screen and Smart healed them.")
    assert "mobster test heal --accept signup.yaml" in text

    again, _, _ = run(check, changed, model=False)
    assert (again.verdict, again.model_calls, again.cost.usd) == (mc.Verdict.PASSED, 0, 0.0)


def test_reject_brings_the_recorded_steps_back_and_they_fail_with_drift(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    changed = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT")
    run(check, changed)
    identity = run(check, changed, model=False)[0].identity
    assert identity is not None
    assert reject_heals(tmp_path, check, identity) == 1
    assert not heal_file_for(check).exists()
    result, _, model = run(check, changed)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert "keep this step failing" in result.outcome.message
    assert model is not None
    assert model.calls == 0


def test_accept_makes_the_healed_steps_the_recorded_path(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    changed = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT")
    healed, _, _ = run(check, changed)
    assert healed.identity is not None
    assert accept_heals(tmp_path, check, healed.identity, recorded_at=NOW) == 1
    assert not heal_file_for(check).exists()
    result, _, _ = run(check, changed, model=False, no_heal=True)
    assert (result.verdict, result.model_calls) == (mc.Verdict.PASSED, 0)
    # and the old screen now drifts: the healed path is the path
    old, _, _ = run(check, FOUR_STEPS_APP, model=False, no_heal=True)
    assert old.outcome.failure_class is mc.FailureClass.DRIFT


def test_the_breaker_stops_a_check_whose_steps_mostly_changed(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    changed = renamed(renamed(renamed(FOUR_STEPS_APP, "Sign up", "Join"), "CONTINUE", "NEXT"), "FREE", "BASIC")
    result, _, _ = run(check, changed)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.HEAL_LIMIT)
    assert "would make 3 of 4 recorded steps healed" in result.outcome.message
    assert (result.outcome.step, result.outcome.fix) == (3, Fix(FixCode.RECORD_AGAIN))  # its heal hit the limit
    assert result.outcome.message.endswith("the most a heal may change is half of a check")  # no --fresh
    healed = [s for s in result.steps if s.source is StepSource.HEALED]
    assert len(healed) == 2


def test_an_inserted_popup_heals_by_one_action_and_replay_takes_over_at_the_same_step(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    popup = FOUR_STEPS_APP.replace("launch: welcome", "launch: notice").replace(
        "      welcome:\n",
        "      notice:\n        - {role: StaticText, label: Turn on notifications in Settings}\n"
        "        - {role: Button, label: Not now, tap: welcome}\n      welcome:\n",
    )
    result, _, _ = run(check, popup)
    assert result.verdict is mc.Verdict.PASSED
    assert result.model_calls == 1
    (entry,) = result.heals
    assert (entry.step, entry.from_, entry.to) == (1, "nothing", 'Tap "Not now"')
    assert [s.source for s in result.steps] == [
        StepSource.HEALED, StepSource.REPLAY, StepSource.REPLAY, StepSource.REPLAY, StepSource.REPLAY,
    ]  # fmt: skip


def test_a_screen_that_comes_right_while_the_model_thinks_wins_at_once(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    # NEXT leads to a plan screen whose FREE button shows up 0.5 s after it appears: the heal's
    # second model turn (2.5 s) is in flight when the screen comes right, and is cancelled.
    slow = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT").replace(
        "{role: Button, label: FREE, tap: done}", "{role: Button, label: FREE, tap: done, after: 0.5}"
    )
    result, _, model = run(check, slow, delay=2.5)
    assert result.verdict is mc.Verdict.PASSED
    assert model is not None
    assert model.calls == 2  # the heal's action, and the turn that was cancelled
    healed_at = [s for s in result.steps if s.source is StepSource.HEALED]
    assert len(healed_at) == 1
    # The whole run: replay 2 steps, drift at ~1 s, 2.5 s model call, tap, ~0.5 s until FREE shows.
    assert result.seconds < 2.5 + 2.5, "the second model call was not cancelled"


def test_a_screen_that_comes_right_late_in_the_model_call_still_ends_the_heal_within_a_watch_gap(
    tmp_path: Path,
) -> None:
    # As above, but FREE shows 1.5 s after the plan screen: the watch has slowed down on a screen
    # that stayed the same (settle Rule 9), yet sees FREE at most WATCH_SLOWEST after it came, and
    # the model turn in flight is cancelled all the same.
    seconds = {}
    for after in (0.5, 1.5):
        check = four_steps(tmp_path / str(after))  # each its own project: a heal changes the path
        slow = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT").replace(
            "{role: Button, label: FREE, tap: done}", f"{{role: Button, label: FREE, tap: done, after: {after}}}"
        )
        result, _, model = run(check, slow, delay=2.5)
        assert result.verdict is mc.Verdict.PASSED
        assert model is not None
        assert model.calls == 2  # the heal's action, and the turn that was cancelled
        assert [s.source for s in result.steps].count(StepSource.HEALED) == 1
        seconds[after] = result.seconds
    assert 1.0 <= seconds[1.5] - seconds[0.5] <= 1.0 + WATCH_SLOWEST


def test_a_renamed_last_step_heals_in_one_model_call(tmp_path: Path) -> None:
    # The last step's button is renamed: after the model taps "Next" no recorded step is left to
    # match, so the check's expectations on a settled read end the heal; no call says "done".
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    run(check, sample_path("yourapp"))
    result, _, model = run(check, sample_path("yourapp-renamed"), delay=2.5)
    assert result.verdict is mc.Verdict.PASSED
    assert result.model_calls == 1
    assert model is not None
    assert model.calls == 1
    assert [h.to for h in result.heals] == ['Tap "Next"']
    assert [s.source for s in result.steps][-1] is StepSource.HEALED


def test_a_blocked_heal_fails_with_class_blocked_and_says_why(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    two_new = FOUR_STEPS_APP.replace(
        "        - {role: Button, label: CONTINUE, tap: plan}\n",
        "        - {role: Button, label: Go on, tap: plan}\n        - {role: Button, label: Skip, tap: plan}\n",
    )
    result, _, _ = run(check, two_new)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.BLOCKED)
    assert " drifted: " in result.outcome.message
    assert "; the model was blocked: " in result.outcome.message
    assert "no single new control" in result.outcome.message
    assert result.heals == ()


NOPE = """\
version: 1
name: Nope
app: {{bundle: com.example.yourapp}}
steps:
  - Tap "Sign up"
  - Tap "Nope"
expect:
  - text: {expect}
"""


def test_a_smart_run_the_model_says_is_blocked_fails_with_class_blocked(tmp_path: Path) -> None:
    check = project(tmp_path, NOPE.format(expect="Nope"))
    result, _, _ = run(check, sample_path("yourapp"))
    assert (result.verdict, result.outcome.failure_class, result.mode) == (
        mc.Verdict.FAILED, mc.FailureClass.BLOCKED, "smart",
    )  # fmt: skip
    assert result.outcome.message.startswith('the model was blocked: step 2: "Nope" isn\'t on the screen')
    assert '; text "Nope" failed: not on the screen' in result.outcome.message


def test_a_blocked_model_whose_expectations_hold_passes(tmp_path: Path) -> None:
    # What a model says is never the verdict: the tree decides (and the path it took is kept).
    check = project(tmp_path, NOPE.format(expect="Create your account"))
    result, _, _ = run(check, sample_path("yourapp"))
    assert (result.verdict, result.mode, result.model_calls) == (mc.Verdict.PASSED, "smart", 2)


class HeldPhone(ScriptedPhone):
    """A device another run holds: every call says so, and nothing is sent."""

    async def info(self) -> mc.DeviceInfo:
        raise mc.exceptions.DeviceBusy("sim ABC is in use by another mobster run (pid 42)")


def test_a_device_another_run_holds_is_class_busy(tmp_path: Path) -> None:
    check_file = project(tmp_path, SHORT_SIGNUP)
    clock = FakeClock()
    phone = HeldPhone.from_text(sample_path("yourapp").read_text(), clock=clock)
    result = clock.run(run_check(load_check(check_file), phone, clock, options=RunOptions(root=tmp_path)))
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.BUSY)
    assert "pid 42" in result.outcome.message
    assert phone.actions == []


class BrokenModel:
    """A model adapter with a bug: it raises something no adapter should."""

    name = "scripted"

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        raise ZeroDivisionError("a bug in the adapter")


def test_an_unexpected_error_is_class_internal_with_the_traceback_in_the_run_folder(tmp_path: Path) -> None:
    check_file = project(tmp_path, SHORT_SIGNUP)
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    result = clock.run(
        run_check(load_check(check_file), phone, clock, model=BrokenModel(), options=RunOptions(root=tmp_path))
    )
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.INTERNAL)
    assert result.outcome.message.startswith("an unexpected error (ZeroDivisionError: a bug in the adapter)")
    trace = (tmp_path / result.run_dir / "traceback.txt").read_text()
    assert "ZeroDivisionError" in trace
    assert "Traceback" not in result.outcome.message
    assert json.loads((tmp_path / result.run_dir / "result.json").read_text())["class"] == "internal"


def test_a_run_whose_files_cant_be_read_is_class_environment(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    heal_file_for(check).mkdir()  # the heal file's name is taken by a folder: it can't be read
    result, phone, _ = run(check, sample_path("yourapp"))
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.ENVIRONMENT)
    assert "signup.heal.yaml" in result.outcome.message
    assert phone.actions == []


def test_a_cached_path_that_is_refused_is_dropped_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    check = four_steps(tmp_path)
    for f in (tmp_path / ".mobster" / "cache" / "replay").iterdir():
        f.chmod(0o644)  # another tool widened it: the cache refuses it
    result, _, _ = run(check, FOUR_STEPS_APP)
    assert (result.verdict, result.mode) == (mc.Verdict.PASSED, "smart")
    assert "a cached path was dropped" in caplog.text


@pytest.mark.parametrize("kind", ["simulator", "iphone"])
def test_a_refused_purchase_in_a_smart_run_is_class_refused(tmp_path: Path, kind: str) -> None:
    check = project(
        tmp_path,
        "version: 1\nname: Buy\napp: {bundle: com.example.yourapp}\nsteps:\n"
        '  - Tap "Settings"\n  - Tap "Upgrade to Pro"\n  - Tap "Subscribe"\nexpect:\n  - text: Thank you\n',
    )
    app = sample_path("yourapp").read_text().replace("kind: simulator", f"kind: {kind}")
    result, phone, _ = run(check, app)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.REFUSED)
    assert 'Tap "Subscribe" was refused' in result.outcome.message
    assert all(a.element is None or a.element.label != "Subscribe" for a in phone.actions)


# -- a heal of the last step ends on the check's expectations (§10) -------------------------------


class TapModel:
    """A model that taps the rows labelled ``labels``, one a call, then says done; it counts calls."""

    name = "scripted"

    def __init__(self, clock: FakeClock, labels: list[str], delay: float = 2.5) -> None:
        self.clock = clock
        self.labels = list(labels)
        self.delay = delay
        self.calls = 0

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.calls += 1
        await self.clock.sleep(self.delay)
        usage = estimate_usage(prompt)
        if not self.labels:
            return mc.Decision(kind=mc.DecisionKind.DONE, reason="done", usage=usage)
        label = self.labels.pop(0)
        row = next(line.split()[0] for line in prompt.screen.splitlines() if f'"{label}"' in line)
        return mc.Decision(kind=mc.DecisionKind.ACT, actions=(mc.ModelAction(mc.Op.TAP, target=row),), usage=usage)


def run_with(check_file: Path, app: str, model: mc.Model, clock: FakeClock) -> mc.CheckResult:
    phone = ScriptedPhone.from_text(app, clock=clock)
    root = check_file.parent.parent.parent
    return clock.run(run_check(load_check(check_file), phone, clock, model=model, options=RunOptions(root=root)))


def test_a_last_step_that_needs_two_actions_takes_two_calls_and_no_done(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    confirm = renamed(FOUR_STEPS_APP, "FREE", "BASIC").replace(
        "label: BASIC, tap: done}",
        "label: BASIC, tap: sure}\n      sure:\n        - {role: Button, label: Yes, tap: done}",
    )
    clock = FakeClock()
    model = TapModel(clock, ["BASIC", "Yes", "never asked"])
    result = run_with(check, confirm, model, clock)
    assert result.verdict is mc.Verdict.PASSED
    assert (result.model_calls, model.calls) == (2, 2)
    (entry,) = result.heals
    assert (entry.step, entry.from_, entry.to) == (4, 'Tap "FREE"', 'Tap "BASIC", then Tap "Yes"')


def test_expectations_that_hold_while_the_model_thinks_cancel_the_call(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    late = renamed(FOUR_STEPS_APP, "FREE", "BASIC").replace(
        "- {role: StaticText, label: Welcome aboard}", "- {role: StaticText, label: Welcome aboard, after: 1.0}"
    )
    clock = FakeClock()
    model = TapModel(clock, ["BASIC", "never sent"])
    result = run_with(check, late, model, clock)
    assert result.verdict is mc.Verdict.PASSED
    assert model.calls == 2  # the healed action, and the call cancelled when "Welcome aboard" showed
    assert model.labels == ["never sent"]
    assert result.seconds < 2 * 2.5 + 2.5, "the second call was not cancelled"


def test_a_popup_before_the_last_step_lets_the_last_step_replay(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    popup = FOUR_STEPS_APP.replace("label: CONTINUE, tap: plan}", "label: CONTINUE, tap: notice}").replace(
        "      plan:\n",
        "      notice:\n        - {role: StaticText, label: Rate us}\n"
        "        - {role: Button, label: Not now, tap: plan}\n      plan:\n",
    )
    result, _, _ = run(check, popup)
    assert result.verdict is mc.Verdict.PASSED
    assert result.model_calls == 1
    assert [s.source for s in result.steps][-2:] == [StepSource.HEALED, StepSource.REPLAY]


# -- carrying a path to a new build (§6) ----------------------------------------------------------

SHORT_SIGNUP = SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', "")


def build(text: str, version: str = "1.1", number: str = "2") -> str:
    return text.replace('version: "1.0"', f'version: "{version}"').replace('build: "1"', f'build: "{number}"')


def cluttered(text: str, screen: str, n: int = 6) -> str:
    """``screen`` with ``n`` more texts: too unlike its recording for any matcher threshold."""
    extra = "".join(f"        - {{role: StaticText, label: Tip {i}}}\n" for i in range(n))
    return text.replace(f"      {screen}:\n", f"      {screen}:\n{extra}")


def test_carry_replays_the_previous_builds_path_with_no_model_and_keeps_it(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    run(check, sample_path("yourapp"))
    newer = build(sample_path("yourapp").read_text())
    result, _, _ = run(check, newer, model=False, carry=True)
    assert (result.verdict, result.mode, result.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert (result.path_used, result.carried_from) == (True, "1.0 (1)")
    assert result.path_why == "the app changed (recorded on 1.0 (1), this is 1.1 (2))"
    path = result.to_dict()["path"]
    assert path["carried_from"] == "1.0 (1)"
    # The path is this build's now: the next run replays it without carrying.
    again, _, _ = run(check, newer, model=False)
    assert (again.verdict, again.path_used, again.carried_from) == (mc.Verdict.PASSED, True, None)


def test_without_carry_nothing_is_carried(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    run(check, sample_path("yourapp"))
    result, _, _ = run(check, build(sample_path("yourapp").read_text()), model=False)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL)
    assert result.carried_from is None


def test_heals_made_while_carrying_wait_for_review(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    newer = build(renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT"))
    result, _, _ = run(check, newer, carry=True)
    assert (result.verdict, result.mode, result.model_calls) == (mc.Verdict.PASSED, "replay", 1)
    assert result.carried_from == "1.0 (1)"
    assert [e.to for e in read_heal_file(heal_file_for(check))] == ['Tap "NEXT"']
    # --reject brings the carried steps back under the new build, marked keep failing.
    assert result.identity is not None
    assert reject_heals(tmp_path, check, result.identity) == 1
    again, _, model = run(check, newer)
    assert (again.verdict, again.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert "keep this step failing" in again.outcome.message
    assert model is not None
    assert model.calls == 0


def test_a_verdict_that_fails_on_a_carried_path_fails_the_check(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    run(check, sample_path("yourapp"))
    newer = build(sample_path("yourapp").read_text().replace("label: Welcome aboard", "label: Hello"))
    result, _, model = run(check, newer, carry=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.ASSERTION)
    assert (result.mode, result.carried_from, result.model_calls) == ("replay", "1.0 (1)", 0)
    assert model is not None
    assert model.calls == 0
    # Nothing is stored for the new build.
    after, _, _ = run(check, newer, model=False)
    assert after.outcome.failure_class is mc.FailureClass.MODEL


def test_a_carried_path_past_the_breaker_records_afresh_in_the_same_run(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    run(check, sample_path("yourapp"))
    newer = build(cluttered(cluttered(sample_path("yourapp").read_text(), "welcome"), "signup"))
    result, _, model = run(check, newer, carry=True)
    assert (result.verdict, result.mode, result.path_used) == (mc.Verdict.PASSED, "smart", False)
    assert result.carried_from == "1.0 (1)"
    assert result.path_why is not None
    assert result.path_why == (
        "the app changed (recorded on 1.0 (1), this is 1.1 (2)); the path carried from 1.0 (1) stopped: healing "
        "step 1 would make 2 of 3 recorded steps healed; the most a heal may change is half of a check; "
        "recorded afresh"
    )
    assert result.heals == ()
    # The carried attempt's two calls (one heal action, then the breaker) and Smart's four are counted.
    assert model is not None
    assert result.model_calls == model.calls == 2 + 4
    sources = [s.source for s in result.steps]
    assert sources == [StepSource.HEALED, StepSource.SMART, StepSource.SMART, StepSource.SMART]
    journal = [json.loads(line) for line in (tmp_path / result.run_dir / "journal.jsonl").read_text().splitlines()]
    keys = [e["key"] for e in journal if e["event"] == "intent"]
    assert keys == ["launch", "smart-1", "relaunch", "fresh-1", "fresh-2", "fresh-3"]
    assert not heal_file_for(check).exists()
    # The recording is the new build's path.
    again, _, _ = run(check, newer, model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)


def test_a_carried_path_that_drifts_with_no_model_cant_record(tmp_path: Path) -> None:
    check = four_steps(tmp_path)
    newer = build(renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT"))
    result, _, _ = run(check, newer, model=False, carry=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL)
    assert result.outcome.message.startswith('the path carried from 1.0 (1) stopped: step 3 (Tap "CONTINUE") drifted')
    assert "there is no model to record a new path" in result.outcome.message


SHARE_APP = (
    APP_SCRIPT_HEAD
    + """\
    launch: photo
    screens:
      photo:
        - {role: StaticText, label: A photo}
        - {role: Button, label: Share, tap: shared}
      shared:
        - {role: StaticText, label: Shared with Ada}
        - {role: Button, label: Done, tap: photo2}
      photo2:
        - {role: StaticText, label: Sent}
"""
)
SHARE_CHECK = """\
version: 1
name: Share a photo
app: {bundle: com.example.yourapp}
steps:
  - Tap "Share"
  - Tap "Done"
expect:
  - text: Sent
"""


def test_a_carried_path_that_sent_something_is_not_recorded_again_in_the_run(tmp_path: Path) -> None:
    check = project(tmp_path, SHARE_CHECK)
    first, _, _ = run(check, SHARE_APP)
    assert first.verdict is mc.Verdict.PASSED
    newer = build(renamed(SHARE_APP, "Done", "Close"))
    result, phone, _ = run(check, newer, carry=True, no_heal=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert 'step 1 (Tap "Share") was sent and commits something a recording would do again' in result.outcome.message
    assert [a.element.label for a in phone.actions if a.element is not None] == ["Share"]  # once, never twice


def test_fresh_wins_over_carry(tmp_path: Path) -> None:
    check = project(tmp_path, SHORT_SIGNUP)
    run(check, sample_path("yourapp"))
    result, _, _ = run(check, build(sample_path("yourapp").read_text()), carry=True, fresh=True)
    assert (result.mode, result.carried_from, result.path_why) == ("smart", None, "asked to record again")


def test_a_one_step_check_can_never_be_healed(tmp_path: Path) -> None:
    # One healed step of one is more than half: the breaker stops it before the model is asked.
    check = project(tmp_path, 'version: 1\nname: One\napp: {bundle: com.example.yourapp}\nsteps:\n  - Tap "Sign up"\n'
                    "expect:\n  - text: Create your account\n")  # fmt: skip
    run(check, sample_path("yourapp"))
    renamed_app = sample_path("yourapp").read_text().replace("label: Sign up,", "label: Join,")
    result, _, model = run(check, renamed_app)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.HEAL_LIMIT)
    assert result.outcome.message.startswith("healing step 1 would make 1 of 1 recorded steps healed")
    assert model is not None
    assert model.calls == 0
