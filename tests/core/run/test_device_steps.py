"""A check's device steps (a Face ID match or failure, a push), end to end on the scripted phone and the fake clock."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._run.agent import make_action
from mobster_core.checks import load_check
from mobster_core.prompts import ACTION_TOOL, estimate_usage, parse_decision
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.run.test_run import TapModel, project, run, run_with
from tests.samples import APP, FACE_ID_APP, FACE_ID_CHECK, PUSH_PAYLOAD, SIGNUP_WITH_PASSWORD

FAIL_CHECK = FACE_ID_CHECK.replace("- biometric: match", "- biometric: fail").replace(
    "text: Welcome back", "text: Face ID didn't match"
)
PUSH_CHECK = FACE_ID_CHECK.replace(
    '  - Tap "Sign in"\n  - biometric: match\n', '  - Tap "Sign in"\n  - biometric: match\n  - push: payload.json\n'
).replace("text: Welcome back", "text: Your order shipped")


def _journal(tmp_path: Path, result: mc.CheckResult) -> list[dict[str, object]]:
    lines = (tmp_path / result.run_dir / "journal.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_face_id_match_passes_then_replays_at_no_cost_with_the_same_verdict(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK)
    first, phone, model = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]
    assert phone.events[0].sensor == "faceId"
    assert model is not None
    assert model.calls == 2  # "Tap Sign in", then done: the model never did the device step
    assert [(s.index, s.op, s.text) for s in first.steps] == [
        (1, mc.Op.TAP, 'Tap "Sign in"'),
        (2, mc.Op.BIOMETRIC_MATCH, "Match the Face ID prompt"),
    ]
    intents = [e for e in _journal(tmp_path, first) if e["event"] == "intent"]
    assert [e["op"] for e in intents] == ["LAUNCH", "TAP", "BIOMETRIC_MATCH"]
    second, phone, _ = run(check, FACE_ID_APP, model=False)
    assert (second.verdict, second.mode, second.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]
    assert [(s.index, s.op, s.source) for s in second.steps] == [
        (1, mc.Op.TAP, "replay"),
        (2, mc.Op.BIOMETRIC_MATCH, "replay"),
    ]


def test_a_failed_face_id_reaches_the_failure_screen_and_replays(tmp_path: Path) -> None:
    check = project(tmp_path, FAIL_CHECK)
    first, phone, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_FAIL]
    second, _, _ = run(check, FACE_ID_APP, model=False)
    assert (second.verdict, second.model_calls) == (mc.Verdict.PASSED, 0)


def test_the_wrong_answer_fails_the_check_on_the_tree(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK.replace("- biometric: match", "- biometric: fail"))
    result, _, _ = run(check, FACE_ID_APP)
    assert result.verdict is mc.Verdict.FAILED
    assert result.outcome.failure_class is mc.FailureClass.ASSERTION


def test_a_push_is_sent_with_the_check_s_payload_and_recorded_by_its_digest(tmp_path: Path) -> None:
    check = project(tmp_path, PUSH_CHECK)
    (check.parent / "payload.json").write_text(PUSH_PAYLOAD)
    first, phone, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    push = phone.events[-1]
    assert (push.op, push.bundle, json.loads(push.payload)) == (mc.Op.PUSH, APP, json.loads(PUSH_PAYLOAD))
    assert [s.text for s in first.steps][-1] == "Send the push notification in payload.json"
    written = [p.read_bytes() for p in (tmp_path / ".mobster").rglob("*") if p.is_file() and p.name != "payload.json"]
    assert not [w for w in written if b"parcel-token-42" in w]  # the payload is never kept, only its digest
    assert [w for w in written if f"payload.json sha256:{push.digest}".encode() in w]
    second, phone, _ = run(check, FACE_ID_APP, model=False)
    assert (second.verdict, second.model_calls) == (mc.Verdict.PASSED, 0)
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH, mc.Op.PUSH]


def test_a_changed_payload_is_sent_as_it_is_now_on_replay(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    check = project(tmp_path, PUSH_CHECK)
    payload = check.parent / "payload.json"
    payload.write_text(PUSH_PAYLOAD)
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    payload.write_text('{"aps": {"alert": "Parcel 43 is late"}}')
    caplog.set_level(logging.WARNING, logger="mobster")
    second, phone, _ = run(check, FACE_ID_APP, model=False)
    assert (second.verdict, second.mode, second.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert json.loads(phone.events[-1].payload) == {"aps": {"alert": "Parcel 43 is late"}}
    changed = [r for r in caplog.records if "push payload changed" in r.getMessage()]
    assert [getattr(r, "file", None) for r in changed] == ["payload.json"]


def test_a_drifted_step_before_a_device_step_is_healed_and_the_replay_sends_the_device_step(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK)
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    renamed = FACE_ID_APP.replace("label: Sign in, tap: unlock", "label: Log in, tap: unlock")
    second, phone, _ = run(check, renamed)
    assert second.verdict is mc.Verdict.PASSED, second.outcome.message
    [entry] = second.heals
    assert (entry.step, entry.from_, entry.to) == (1, 'Tap "Sign in"', 'Tap "Log in"')
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]
    assert [(s.op, s.source) for s in second.steps][-1] == (mc.Op.BIOMETRIC_MATCH, "replay")


def test_a_drifted_device_step_is_healed_up_to_its_screen_and_never_sent_by_the_model(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK)
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    interstitial = FACE_ID_APP.replace("label: Sign in, tap: unlock}", "label: Sign in, tap: notice}").replace(
        "      unlock:\n",
        "      notice:\n        - {role: StaticText, label: We use Face ID}\n"
        "        - {role: Button, label: Continue, tap: unlock}\n      unlock:\n",
    )
    second, phone, _ = run(check, interstitial)
    assert second.verdict is mc.Verdict.PASSED, second.outcome.message
    [entry] = second.heals
    assert (entry.step, entry.to) == (2, 'Tap "Continue"')  # the model's tap; the device step stays the check's
    assert [s["op"] for s in entry.new] == ["TAP"]
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]
    assert [a.op for a in phone.actions] == [mc.Op.TAP, mc.Op.TAP]


def test_a_check_of_device_steps_alone_asks_the_model_nothing(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK.replace('  - Tap "Sign in"\n', ""))
    result, phone, model = run(check, FACE_ID_APP.replace("launch: signin", "launch: unlock"))
    assert result.verdict is mc.Verdict.PASSED, result.outcome.message
    assert model is not None
    assert (model.calls, result.model_calls) == (0, 0)
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]


def test_a_device_step_on_an_iphone_can_t_run_and_nothing_is_sent(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK.replace("device: {biometrics: {enrolled: true}}\n", ""))
    result, phone, model = run(check, FACE_ID_APP.replace("kind: simulator", "kind: iphone"))
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.ENVIRONMENT)
    assert "step 2 (Match the Face ID prompt) needs a simulator" in result.outcome.message
    assert (
        "Scripted iPhone is an iPhone (its app script says kind: iphone); run the check on a scripted simulator "
        "(kind: simulator)"
    ) in result.outcome.message
    assert (phone.launches, phone.events, phone.actions) == ([], [], [])
    assert model is not None
    assert model.calls == 0


class _DeviceOpModel:
    """A model that tries to send a device step itself, then says done."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls = 0
        self.histories: list[tuple[str, ...]] = []

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.calls += 1
        self.histories.append(prompt.history)
        usage = estimate_usage(prompt)
        if self.calls == 1:
            return mc.Decision(kind=mc.DecisionKind.ACT, actions=(mc.ModelAction(mc.Op.PUSH, text="x"),), usage=usage)
        return mc.Decision(kind=mc.DecisionKind.DONE, reason="done", usage=usage)


def test_a_device_op_from_the_model_is_invalid_never_sent_and_never_in_the_tool(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK.replace('  - Tap "Sign in"\n', '  - Tap "Sign in"\n  - Tap "Sign in"\n'))
    clock = FakeClock()
    model = _DeviceOpModel()
    phone = ScriptedPhone.from_text(FACE_ID_APP, clock=clock)
    options = mc.RunOptions(root=tmp_path)
    clock.run(mc.run_check(load_check(check), phone, clock, model=model, options=options))
    assert phone.actions == []
    assert "PUSH is a step of the check that the SDK sends itself" in model.histories[1][-1]
    ops = ACTION_TOOL["input_schema"]["properties"]["actions"]["items"]["properties"]["op"]["enum"]
    assert not {"BIOMETRIC_MATCH", "BIOMETRIC_FAIL", "PUSH"} & set(ops)
    raw = {"status": "act", "actions": [{"op": "BIOMETRIC_MATCH"}], "reason": ""}
    with pytest.raises(mc.ModelError, match="action 1 has an unknown op 'BIOMETRIC_MATCH'"):
        parse_decision(raw, mc.Usage())
    # Nor from Python's live session, which builds its actions with the agent's make_action.
    with pytest.raises(ValueError, match="PUSH is a check's device step, sent by the runner"):
        make_action(mc.Op.PUSH, None, "payload.json")


def test_a_heal_never_skips_a_device_step_even_when_a_later_screen_matches(tmp_path: Path) -> None:
    check = project(
        tmp_path,
        FACE_ID_CHECK.replace("  - biometric: match\n", '  - biometric: match\n  - Tap "Sign out"\n').replace(
            "text: Welcome back", "text: You signed out"
        ),
    )
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    no_face_id = FACE_ID_APP.replace("label: Sign in, tap: unlock", "label: Log in, tap: account")
    second, phone, _ = run(check, no_face_id)
    # "Log in" leads straight to the screen of step 3: a heal resuming there would drop the Face ID step.
    assert second.verdict is not mc.Verdict.PASSED
    assert phone.events == []
    assert not [h for h in second.heals if h.step == 1 and [s["op"] for s in h.old] == ["TAP", "BIOMETRIC_MATCH"]]


def test_the_time_budget_is_the_whole_smart_run_s_across_device_steps(tmp_path: Path) -> None:
    three = FACE_ID_CHECK.replace("  - biometric: match\n", '  - biometric: match\n  - Tap "Sign out"\n').replace(
        "text: Welcome back", "text: You signed out"
    )
    # Each part (two model calls of 0.5 s, its tap and done, and the waits) fits in 2 s; both together don't.
    check = project(tmp_path, three + "budget: {max_seconds: 2}\n")
    result, phone, _ = run(check, FACE_ID_APP, delay=0.5)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.BUDGET)
    assert "the time budget of 2 s is spent" in result.outcome.message
    assert [e.op for e in phone.events] == [mc.Op.BIOMETRIC_MATCH]
    roomy = project(tmp_path, three + "budget: {max_seconds: 5}\n", name="roomy.yaml")
    passed, _, model = run(roomy, FACE_ID_APP, delay=0.5)
    assert passed.verdict is mc.Verdict.PASSED, passed.outcome.message
    assert model is not None
    assert model.calls == 4


def test_a_heal_s_done_never_drops_a_device_step(tmp_path: Path) -> None:
    check = project(tmp_path, FACE_ID_CHECK)
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    clock = FakeClock()
    model = TapModel(clock, ["Log in"])  # taps "Log in", then says done
    no_face_id = FACE_ID_APP.replace("label: Sign in, tap: unlock", "label: Log in, tap: account")
    result = run_with(check, no_face_id, model, clock)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert result.outcome.message.endswith(
        "the model said the check was done, but step 2 (Match the Face ID prompt) is the check's own and was not sent"
    )
    assert model.calls == 2


class _Told(ScriptedModel):
    """The scripted model, keeping the last paragraph of every request it was given."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock)
        self.told: list[str] = []

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.told.append(prompt.request.split("\n\n")[-1])
        return await super().decide(prompt)


def test_the_model_is_told_to_do_only_the_steps_before_a_device_step(tmp_path: Path) -> None:
    three = FACE_ID_CHECK.replace("  - biometric: match\n", '  - biometric: match\n  - Tap "Sign out"\n').replace(
        "text: Welcome back", "text: You signed out"
    )
    clock = FakeClock()
    model = _Told(clock)
    result = run_with(project(tmp_path, three), FACE_ID_APP, model, clock)
    assert result.verdict is mc.Verdict.PASSED, result.outcome.message
    assert list(dict.fromkeys(model.told)) == [
        "Do only step 1 now, then say done. Step 2, Match the Face ID prompt, comes next: the SDK does it itself.",
        "Do only step 3 now, then say done. The steps before are done. The check ends there.",
    ]
    assert model.calls == 4  # a tap and done, twice
    assert [s.index for s in result.steps] == [1, 2, 3]


def _edit_path(root: Path, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    """Edit the one recorded path under ``root`` as a person or an imported file might."""
    [file] = (root / ".mobster" / "cache").rglob("*.json")
    doc = json.loads(file.read_text())
    edit(doc["steps"])
    file.write_text(json.dumps(doc))


def _fail_by_touch_id(steps: list[dict[str, Any]]) -> None:
    steps[1].update(op="BIOMETRIC_FAIL", text="touchId")


def _twice(steps: list[dict[str, Any]]) -> None:
    steps.insert(1, dict(steps[1]))


def _face_id_first(steps: list[dict[str, Any]]) -> None:
    steps[0] = {**steps[1], "screen": steps[0]["screen"]}


@pytest.mark.parametrize(
    ("edit", "recorded"),
    [
        (_fail_by_touch_id, "Fail the Touch ID prompt"),
        (_twice, "Match the Face ID prompt; Match the Face ID prompt"),
        (_face_id_first, "Match the Face ID prompt; Match the Face ID prompt"),
    ],
)
def test_a_path_whose_device_steps_aren_t_the_check_s_sends_nothing(
    tmp_path: Path, edit: Callable[[list[dict[str, Any]]], None], recorded: str
) -> None:
    check = project(tmp_path, FACE_ID_CHECK)
    first, _, _ = run(check, FACE_ID_APP)
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    _edit_path(tmp_path, edit)
    second, phone, _ = run(check, FACE_ID_APP, model=False)
    assert (second.verdict, second.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.USAGE)
    assert second.outcome.message == (
        f"the recorded path's device steps ({recorded}) aren't the check's (Match the Face ID prompt): "
        "the path isn't this check's; record the check again"
    )
    assert second.outcome.fix == Fix(FixCode.RECORD_AGAIN)
    assert (phone.events, phone.actions) == ([], [])


def test_a_device_step_in_the_path_of_a_check_without_one_is_never_sent(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    first, _, _ = run(check, sample_path("yourapp"))
    assert first.verdict is mc.Verdict.PASSED, first.outcome.message
    bio = {"op": "BIOMETRIC_MATCH", "target": None, "text": "faceId", "commit": None, "live": False}
    _edit_path(tmp_path, lambda steps: steps.insert(1, {**steps[1], **bio}))
    second, phone, _ = run(check, sample_path("yourapp"), model=False)
    assert (second.verdict, second.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.USAGE)
    assert "device steps (Match the Face ID prompt) aren't the check's (none)" in second.outcome.message
    assert (phone.events, phone.actions) == ([], [])
