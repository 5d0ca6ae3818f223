"""A check's device steps (a Face ID match or failure, a push), end to end on the scripted phone and the fake clock."""

from __future__ import annotations

import json
from pathlib import Path

import mobster_core as mc
from tests.core.run.test_run import project, run
from tests.samples import APP, FACE_ID_APP, FACE_ID_CHECK, PUSH_PAYLOAD

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
