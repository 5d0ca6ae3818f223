"""Untrusted text at every edge (issue 15): escape sequences, newlines and bidi controls in labels
and check names are shown visibly in the terminal; junit.xml stays well-formed XML; a lone
surrogate (from a device, a check file, a model, a file name) never crashes hashing, JSON or a
file write, and reads as U+FFFD everywhere."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import mobster_core as mc
from mobster_cli._render import check_lines, heal_listing, json_text, visible
from mobster_cli._shared import said
from mobster_cli.main import Runtime, cli
from mobster_core._rules.formats.canon import digest
from mobster_core._rules.formats.text import REPLACEMENT, valid_data
from mobster_core._rules.replay.identity import Env
from mobster_core._store.cache import ReplayCache
from mobster_core._store.healfile import write_heal_file
from mobster_core._store.journal import Effect, Journal
from mobster_core.checks import load_check_text
from mobster_core.heals import HealEntry, read_heal_file
from mobster_core.prompts import parse_decision
from mobster_core.testing import FakeClock
from mobster_core.text import escape_controls, utf8, valid_text, xml_text
from tests.core.helpers import NOW

ESC = "\x1b"
APP_SCRIPT = r"""
version: 1
device: {name: "Evil\e[31m iPhone", ios: "26.4", kind: simulator}
latency: zero
apps:
  com.example.evil:
    name: Evil
    version: "1.0"
    build: "1"
    launch: start
    screens:
      start:
        - {role: StaticText, label: "Hello\e[2J\e[31m red \u202e txet \ud83d"}
        - {role: StaticText, label: "bell\a and\x00 nul and \x0b tab"}
        - {role: Button, label: "Go \e]0;pwned\a", tap: start}
"""
CHECK = r"""
version: 1
name: "Evil \e[31mname\n✓ passed  forged line \ud800 \u202eright-to-left"
app: {bundle: com.example.evil}
expect:
  - text: Hello red
  - text: "nowhere \e[5m"
"""


@pytest.fixture
def project(project: Path) -> Path:
    """The hostile app script; each test writes its check."""
    (project / "app.yaml").write_text(APP_SCRIPT)
    return project


def run(project: Path, *extra: str) -> Any:
    clock = FakeClock()  # the scripted phone on virtual time: a failing verdict's waits take no real time
    args = ["test", "--scripted", "app.yaml", "--junit", "out.xml", *extra]
    return CliRunner().invoke(cli, args, obj=Runtime(clock, clock.run))


def test_hostile_labels_and_names_end_visible_in_the_terminal_and_valid_in_every_file(project: Path) -> None:
    # One failing run (its settled read waits the 5 s assert timeout) checks every edge.
    (project / ".mobster" / "checks" / "evil.yaml").write_text(CHECK)
    result = run(project, "--json")
    assert result.exit_code == 1, result.output  # the second assertion fails: a verdict, not a crash
    out = result.output
    for raw in (ESC, "\x07", "\x00", "\x0b", "\u202e", "\ud800"):
        assert raw not in out, repr(raw)
    assert "\\x1b[31mname\\n✓ passed  forged line \ufffd \\u202eright-to-left" in out  # on its own line
    assert not any(line.startswith("✓ passed") for line in out.splitlines())
    assert "Evil\\x1b[31m iPhone" in out  # the device's name
    assert "\\u001b[2J\\u001b[31m red txet \ufffd" in out  # a label (normalized), in the near misses

    printed = json.loads(result.stdout)  # --json: the same document as results.json
    folder = next((project / ".mobster" / "test-results").iterdir())
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert printed == results
    (check,) = results["checks"]
    assert check["name"] == "Evil \x1b[31mname\n✓ passed  forged line \ufffd \u202eright-to-left"
    assert "[2J" in check["message"]

    for junit in (folder / "junit.xml", project / "out.xml"):
        written = junit.read_bytes()
        tree = ET.fromstring(written)  # well-formed
        for forbidden in (b"\x1b", b"\x07", b"\x00", b"\x0b"):
            assert forbidden not in written
        (case,) = tree.iter("testcase")
        assert "forged line \ufffd" in case.get("name", "")
        failure = case.find("failure")
        assert failure is not None
        assert "[2J" in (failure.get("message") or "")

    journals = list((project / ".mobster" / "runs").rglob("journal.jsonl"))
    for journal in journals:
        for line in journal.read_text(encoding="utf-8").splitlines():
            json.loads(line)


def test_a_check_file_named_with_bytes_that_are_not_utf8(project: Path) -> None:
    if os.uname().sysname == "Darwin":  # pragma: no cover - APFS refuses such names
        pytest.skip("the file system refuses names that are not UTF-8")
    bad = os.fsencode(project / ".mobster" / "checks") + b"/caf\xe9.yaml"
    with open(bad, "wb") as f:  # noqa: PTH123 - a bytes path
        f.write(b"version: 1\napp: {bundle: com.example.evil}\nexpect:\n  - text: Hello\n")
    result = run(project)
    assert result.exit_code == 0, result.output
    assert "\udce9" not in result.output
    folder = next((project / ".mobster" / "test-results").iterdir())
    names = [c["file"] for c in json.loads((folder / "results.json").read_text(encoding="utf-8"))["checks"]]
    assert any("caf\ufffd" in n for n in names)
    ET.fromstring((folder / "junit.xml").read_bytes())


# -- the one rule, edge by edge -------------------------------------------------------------


def test_screens_make_their_text_valid() -> None:
    s = mc.Screen.from_dict(
        {
            "app": "a.b\ud800",
            "elements": [{"role": "Button", "label": "Buy \ud83d", "id": "x\udfff", "value": "\ud800"}],
        }
    )
    (e,) = s.elements
    assert (s.app, e.label, e.identifier, e.value) == ("a.b\ufffd", "Buy \ufffd", "x\ufffd", "\ufffd")
    assert s.hash == mc.Screen.from_dict({"app": "a.b", "elements": [{"role": "Button", "label": "Buy \ufffd"}]}).hash
    assert s.fingerprint
    direct = mc.Screen(app="a.b", elements=(mc.Element(role="Button", label="x\ud800"),))
    assert direct.elements[0].label == "x\ufffd"


def test_check_files_make_their_text_valid() -> None:
    check = load_check_text(
        'version: 1\nname: "n\\ud800"\napp: {bundle: a.b}\nsteps: ["Tap \\udc00"]\nexpect: [{text: "t\\ud800"}]\n', "c"
    )
    assert check.name == "n\ufffd"
    assert check.steps == ("Tap \ufffd",)
    assert check.expect[0].show() == 'text "t\ufffd"'


def test_model_replies_make_their_text_valid() -> None:
    reply = '{"status": "act", "actions": [{"op": "TYPE", "target": "e1", "text": "hi \\ud800"}], "reason": "\\udc00"}'
    decision = parse_decision(reply, mc.Usage())
    assert decision.actions[0].text == "hi \ufffd"
    assert decision.reason == "\ufffd"


def test_hashes_json_and_files_never_fail_on_a_surrogate_that_got_in(tmp_path: Path) -> None:
    assert digest(["\ud800"], 16) == digest(["\ufffd"], 16)
    assert utf8("a\ud800b") == "a\ufffdb".encode()
    with Journal(tmp_path / "run") as journal:
        journal.intent("k1", {"op": "TAP", "label": "x\ud800"}, masked=False)
        journal.outcome("k1", Effect.OK, "detail \udc80")
    lines = (tmp_path / "run" / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["label"] == "x\ufffd"
    check_file = tmp_path / "c.yaml"
    entry = HealEntry(step=1, from_="Tap \ud800", to="Tap \ufffd", why="w\udc00", old=(), new=())
    heal = write_heal_file(check_file, [entry])
    (read,) = read_heal_file(heal)
    assert (read.from_, read.why) == ("Tap \ufffd", "w\ufffd")


def test_valid_text_keeps_valid_text_as_it_is() -> None:
    text = "Caf\u00e9 \U0001f600 \u202e"
    assert valid_text(text) is text
    data = {"a": [text, 1, None], "b": {"c": True}}
    assert valid_data(data) is data
    assert valid_data({"k\ud800": ["\udfff"]}) == {"k\ufffd": [REPLACEMENT]}


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("line\nnext\r\tx", "line\\nnext\\r\\tx"),
        ("\x07\x00\x7f\x9b", "\\x07\\x00\\x7f\\x9b"),
        ("abc\u202edef\u2066", "abc\\u202edef\\u2066"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("caf\u00e9 \U0001f468\u200d\U0001f469 ok", "caf\u00e9 \U0001f468\u200d\U0001f469 ok"),
        ("half \ud83d", "half \ufffd"),
    ],
)
def test_terminal_text_shows_every_control_visibly(raw: str, shown: str) -> None:
    assert escape_controls(raw) == shown
    assert visible(raw) == shown


def test_the_boundary_line_shows_newlines_as_escapes_too() -> None:
    assert said("a\x1b\nb\r\u202e") == "mobster: a\\x1b\\nb\\r\\u202e"


def test_xml_text_removes_what_xml_forbids() -> None:
    assert xml_text("a\x00b\x1bc\x7f\x85d\ufffe\uffff\ud800\te\nf\r") == "abc\x85d\ufffd\te\nf\r"
    ET.fromstring(f"<a>{xml_text(''.join(map(chr, range(0x20))))}</a>")


def test_render_lines_escape_every_untrusted_field() -> None:
    lines = heal_listing("n\x1b", [(1, "Tap \x1b[1m", "Tap \n✓", "why\x07", ["+ Button '\x1b'"])])
    assert all(ESC not in line and "\n" not in line and "\x07" not in line for line in lines)
    assert callable(check_lines)


def test_json_for_the_terminal_is_the_same_json() -> None:
    value = {"a": "x\x1b\x7f\x9b\u202e\u2028 caf\u00e9", "b": ["\u2066"]}
    text = json_text(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert all(c not in text for c in "\x1b\x7f\x9b\u202e\u2028\u2066")
    assert "caf\u00e9" in text


CATASTROPHE = """
import sys
import mobster_core as mc
from mobster_core._rules.assertions import evaluate, parse_assertion

(a,) = parse_assertion({"text": "/(a|a)+$/"})
row = {"role": "StaticText", "label": "a" * 40 + "!", "frame": [0, 0, 1, 1]}
s = mc.Screen.from_dict({"app": "a.b", "elements": [row] * 200})
print("ready", flush=True)
while True:  # a settled read that never settles, evaluating every time
    evaluate([a], s)
"""


def test_ctrl_c_stops_a_catastrophic_regex() -> None:
    import signal
    import subprocess
    import sys

    # Without the time limit one search here takes hours inside C code, where Python can't see
    # Ctrl+C; with it, every search returns within 0.1 s and the interrupt lands.
    proc = subprocess.Popen([sys.executable, "-c", CATASTROPHE], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert b"KeyboardInterrupt" in err


def test_a_cached_path_with_a_surrogate_that_got_in_is_stored_and_read_back(tmp_path: Path) -> None:
    step = {
        "op": "TAP",
        "app": "com.example.yourapp",
        "target": {
            "label": "Buy \ud83d",
            "role": "Button",
            "id": "/0/1",
            "frame": [0.1, 0.8, 0.8, 0.06],
            "count": 1,
            "nth": 0,
        },
        "screen": {"hash": "9f2c1e04a7b35d68", "signature": [["Button", "Buy \ud83d"]]},
        "text": None,
        "commit": None,
        "live": False,
    }
    env = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
    cache = ReplayCache(tmp_path)
    file = cache.store("0123456789abcdef", env, mc.load_path([step]), recorded_at=NOW)
    json.loads(file.read_text(encoding="utf-8"))
    steps = cache.lookup("0123456789abcdef", env).steps
    assert steps is not None
    assert steps[0].target is not None
    assert steps[0].target.label == "Buy \ufffd"
