"""A check's device steps as the loader reads them: the step forms, the payload file, every bad one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mobster_core import Op, load_path
from mobster_core._rules.device.controls import DeviceEvent, device_misfit
from mobster_core.checks import CheckError, load_check
from mobster_core.exceptions import PathError
from tests.samples import PUSH_PAYLOAD

HEAD = 'version: 1\napp: {bundle: com.example.app}\nsteps:\n  - Tap "Sign in"\n  - '


def _load(tmp_path: Path, step: str) -> object:
    file = tmp_path / "check.yaml"
    file.write_text(HEAD + step + "\n")
    return load_check(file)


def _error(tmp_path: Path, step: str) -> str:
    with pytest.raises(CheckError) as caught:
        _load(tmp_path, step)
    return str(caught.value)


def test_the_step_forms_read_as_device_steps_with_a_text_for_people(tmp_path: Path) -> None:
    (tmp_path / "payload.json").write_text(PUSH_PAYLOAD)
    file = tmp_path / "check.yaml"
    file.write_text(HEAD + "biometric: match\n  - biometric: {result: fail, sensor: touchId}\n  - push: payload.json\n")
    check = load_check(file)
    assert check.steps == (
        'Tap "Sign in"',
        "Match the Face ID prompt",
        "Fail the Touch ID prompt",
        "Send the push notification in payload.json",
    )
    assert [(n, e.op, e.sensor, e.file) for n, e in check.device_steps] == [
        (2, Op.BIOMETRIC_MATCH, "faceId", ""),
        (3, Op.BIOMETRIC_FAIL, "touchId", ""),
        (4, Op.PUSH, "faceId", "payload.json"),
    ]
    assert check.device_step(4) is not None
    assert check.device_step(4).payload == PUSH_PAYLOAD.encode()  # type: ignore[union-attr]
    assert check.device_step(1) is None
    assert check.steps_raw == (
        'Tap "Sign in"',
        {"biometric": "match"},
        {"biometric": {"result": "fail", "sensor": "touchId"}},
        {"push": "payload.json"},
    )
    assert "2. Match the Face ID prompt (a device step: the SDK does it itself, not you)" in check.request_text()


def test_the_payload_is_relative_to_the_check_file_s_folder(tmp_path: Path) -> None:
    (tmp_path / "pushes").mkdir()
    (tmp_path / "pushes" / "shipped.json").write_text(PUSH_PAYLOAD)
    check = _load(tmp_path, "push: pushes/shipped.json")
    assert check.payloads["pushes/shipped.json"].payload == PUSH_PAYLOAD.encode()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("step", "says"),
    [
        (
            "{biometric: match, push: p.json}",
            "steps[1]: a device step is a mapping of one key, biometric or push; got biometric, push",
        ),
        ("{}", "steps[1]: a device step is a mapping of one key, biometric or push; got none"),
        ("shake: true", "steps[1].shake: unknown key 'shake' (allowed: biometric, push)"),
        ("biometric: maybe", "steps[1].biometric: expected match or fail, got 'maybe'"),
        ("biometric: mach", "(did you mean 'match'?)"),
        ("biometric: true", "steps[1].biometric: expected match or fail, got true"),
        ("biometric: [match]", "steps[1].biometric: expected match or fail, got a list"),
        ("biometric: {result: {face: yes}}", "steps[1].biometric.result: expected match or fail, got a mapping"),
        ("biometric: {result: [match]}", "steps[1].biometric.result: expected match or fail, got a list"),
        ("biometric: {result: match, sensor: iris}", "steps[1].biometric.sensor: unknown sensor 'iris'"),
        ("biometric: {sensor: touchId}", "steps[1].biometric: names no result; write biometric: {result: match}"),
        ("biometric: {result: match, colour: red}", "steps[1].biometric.colour: unknown key 'colour'"),
        ("push: 3", 'steps[1].push: expected a string, got 3 (a number); quote it: push: "3"'),
        ("push: missing.json", "steps[1].push: can't read the push payload missing.json (No such file or directory)"),
        ('push: "a\\nb.json"', "steps[1].push: can't read the push payload 'a\\nb.json' (No such file or directory)"),
    ],
)
def test_a_bad_device_step_names_its_line_key_and_fix(tmp_path: Path, step: str, says: str) -> None:
    message = _error(tmp_path, step)
    assert message.startswith(f"{tmp_path / 'check.yaml'}:5: ")
    assert says in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "bad.json is no push payload: it isn't JSON"),
        ("[1, 2]", "bad.json is no push payload: it is a JSON array, not an object"),
        ('"aps"', "it is a JSON string, not an object"),
        ('{"alert": "no aps"}', 'bad.json is no push payload: it has no "aps" object'),
        ('{"aps": "Hi"}', 'it has no "aps" object'),
        ("\xff\xfe", "it is UTF-16 text (it starts with its byte order mark); save it as UTF-8 without one"),
        ('\xef\xbb\xbf{"aps": {}}', "it starts with a byte order mark (BOM); save it as UTF-8 without one"),
        ('{"aps": {"badge": NaN}}', "it isn't JSON (NaN is no JSON number)"),
        ('{"aps": {}, "x": -Infinity}', "it isn't JSON (-Infinity is no JSON number)"),
        ("[" * 5000 + "]" * 5000, "larger than the limit of 4096 bytes"),
        # Parsed at the loader's depth of stack, then again deeper in a run: no depth may pass one, crash the other.
        ('{"aps": {}, "x": ' + "[" * 950 + "]" * 950 + "}", "its arrays and objects nest more than 64 deep"),
        ('{"aps": {}, "x": ' + "[" * 64 + "]" * 64 + "}", "its arrays and objects nest more than 64 deep"),
    ],
)
def test_a_payload_that_is_no_push_is_refused_when_the_check_loads(tmp_path: Path, content: str, says: str) -> None:
    (tmp_path / "bad.json").write_bytes(content.encode("latin-1"))
    message = _error(tmp_path, "push: bad.json")
    assert "steps[1].push: " in message
    assert says in message
    assert 'give a JSON file of at most 4 KB beside the check, such as {"aps": {"alert": "Hi"}}' in message


def test_a_directory_a_fifo_and_a_10_mb_file_are_refused_without_reading_them(tmp_path: Path) -> None:
    (tmp_path / "folder.json").mkdir()
    os.mkfifo(tmp_path / "fifo.json")  # opened without blocking: a FIFO never waits for a writer
    (tmp_path / "huge.json").write_bytes(b" " * (10 * 1024 * 1024))
    assert "can't use folder.json as a push payload: it is not a regular file" in _error(tmp_path, "push: folder.json")
    assert "can't use fifo.json as a push payload: it is not a regular file" in _error(tmp_path, "push: fifo.json")
    assert "it is larger than the limit of 4096 bytes" in _error(tmp_path, "push: huge.json")


def test_a_payload_nested_64_deep_is_taken_with_brackets_in_its_strings_not_counted(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text('{"aps": {"alert": "[[{\\"[["}, "x": ' + "[" * 63 + "]" * 63 + "}")
    _load(tmp_path, "push: p.json")


def test_a_file_outside_the_project_is_read_as_any_payload_and_its_content_never_shown(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "secrets.env").write_text("API_TOKEN=hunter2-very-secret\n")
    file = tmp_path / "project" / "check.yaml"
    file.write_text(HEAD + "push: ../secrets.env\n")
    with pytest.raises(CheckError) as caught:
        load_check(file)
    assert "steps[1].push: ../secrets.env is no push payload: it isn't JSON (Expecting value" in str(caught.value)
    assert "hunter2" not in str(caught.value)
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    message = _error(tmp_path, "push: loop.json")
    assert "steps[1].push: can't read the push payload loop.json (Too many levels of symbolic links)" in message


def test_a_payload_of_exactly_4_kb_is_taken(tmp_path: Path) -> None:
    head = '{"aps": {"alert": "Hi"}, "pad": "'
    (tmp_path / "p.json").write_text(head + "x" * (4096 - len(head) - 2) + '"}')
    assert len((tmp_path / "p.json").read_bytes()) == 4096
    _load(tmp_path, "push: p.json")


TARGET = {"label": "Go", "role": "Button", "id": "/0/1", "frame": [0, 0, 1, 1], "count": 1, "nth": 0}
STEP = {
    "op": "BIOMETRIC_MATCH",
    "app": "com.example.app",
    "target": None,
    "screen": {"hash": "0123456789abcdef", "signature": [["StaticText", "Face ID"]]},
    "text": "faceId",
    "commit": None,
    "live": False,
}


def test_a_recorded_path_reads_the_device_ops_and_refuses_an_unknown_one() -> None:
    push = {**STEP, "op": "PUSH", "text": "pushes/payload.json sha256:00112233445566ff"}
    assert [s.op for s in load_path([STEP, {**STEP, "op": "BIOMETRIC_FAIL"}, push])] == [
        Op.BIOMETRIC_MATCH,
        Op.BIOMETRIC_FAIL,
        Op.PUSH,
    ]
    with pytest.raises(PathError, match=r"step 2: key 'op': unknown op 'FACE_ID' \(ops: TAP, .*BIOMETRIC_MATCH"):
        load_path([STEP, {**STEP, "op": "FACE_ID"}])


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"text": None}, "BIOMETRIC_MATCH names its sensor, faceId or touchId; got None"),
        ({"text": "iris"}, "names its sensor"),
        ({"op": "PUSH", "text": "payload.json"}, "PUSH names its payload file and digest"),
        ({"op": "PUSH", "text": "payload.json sha256:XYZ"}, "PUSH names its payload file and digest"),
        ({"target": TARGET}, "BIOMETRIC_MATCH takes no target; it must be null"),
    ],
)
def test_a_recorded_device_step_is_validated_whole(changes: dict[str, object], says: str) -> None:
    with pytest.raises(PathError, match="step 1: key") as caught:
        load_path([{**STEP, **changes}])
    assert says in str(caught.value)


def test_a_path_that_stops_before_a_device_step_still_fits_the_check() -> None:
    match, push = DeviceEvent(Op.BIOMETRIC_MATCH), DeviceEvent(Op.PUSH, file="p.json", payload=b'{"aps": {}}')
    steps = load_path([{**STEP, "text": "faceId"}])
    assert device_misfit(steps, [match, push]) is None
    assert device_misfit((), [match]) is None
    assert device_misfit(steps, [push]) == (
        "the recorded path's device steps (Match the Face ID prompt) aren't the check's "
        "(Send the push notification in p.json)"
    )
