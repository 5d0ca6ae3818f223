"""Device faults on the scripted phone: each ends with the right class, nothing is re-sent, and a
failed read is read again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.samples import SIGNUP_BY_BUNDLE


def project(tmp_path: Path) -> Path:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    return folder / "signup.yaml"


def run(check: Path, fault: Any = None, *, model: bool = False) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    class FaultyAfterLaunch:
        """The phone, with ``fault`` applied after the first action."""

        async def info(self) -> mc.DeviceInfo:
            return await phone.info()

        async def app_info(self, bundle: str) -> mc.AppInfo:
            return await phone.app_info(bundle)

        async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
            await phone.launch(bundle, options)

        async def read(self) -> mc.Screen:
            return await phone.read()

        async def act(self, action: mc.Action) -> None:
            await phone.act(action)
            if fault is not None and len(phone.actions) == 1:
                fault(phone)  # strikes right after the first action

    root = check.parent.parent.parent
    scripted = ScriptedModel(clock=clock) if model else None
    result = clock.run(
        mc.run_check(mc.load_check(check), FaultyAfterLaunch(), clock, model=scripted, options=mc.RunOptions(root=root))
    )
    return result, phone


def recorded(tmp_path: Path) -> Path:
    check = project(tmp_path)
    first, _ = run(check, model=True)
    assert first.verdict is mc.Verdict.PASSED
    return check


def test_the_app_crashing_to_the_home_screen_is_app_not_running(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    result, phone = run(check, lambda p: p.crash(), model=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.APP_NOT_RUNNING)
    assert "com.apple.springboard is in front" in result.outcome.message
    assert result.model_calls == 0  # a crash is never healed
    assert len(phone.actions) == 1  # the one before the crash; nothing after


def test_an_action_that_times_out_is_never_resent(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    result, phone = run(check, lambda p: p.fail_next_action(applied=True))
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.UNKNOWN_OUTCOME)
    assert len(phone.actions) == 2  # the fault struck the second action; no third, no retry


def test_a_read_that_fails_once_is_read_again(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    result, _ = run(check, lambda p: p.fail_next_read(1))
    assert result.verdict is mc.Verdict.PASSED


def test_reads_that_keep_failing_after_an_action_are_an_unknown_outcome(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    result, _ = run(check, lambda p: p.fail_next_read(5))
    assert result.outcome.failure_class is mc.FailureClass.UNKNOWN_OUTCOME
    assert "reading the screen" in result.outcome.message


def test_a_field_that_drops_typing_is_an_unknown_outcome(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    result, _ = run(check, lambda p: p.drop_typing())
    assert result.outcome.failure_class is mc.FailureClass.UNKNOWN_OUTCOME
    assert 'the field "Email" shows' in result.outcome.message
