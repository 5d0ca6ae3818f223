"""Bad input, fuzzed: every loader answers garbage with its own clear error, never a traceback of
another kind, and never by losing what was already there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._store.cache import ReplayCache
from mobster_core.checks import load_check_text
from mobster_core.exceptions import HealFileError, PathError, ScriptError
from mobster_core.heals import read_heal_file
from mobster_core.prompts import parse_decision
from mobster_drivers.devices.scripted import AppScript, sample_path
from tests.core.helpers import NOW
from tests.strategies import examples

# JSON-like values, including the awkward ones: deep nesting, big numbers, odd strings.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)
CHECK_KEYS = ["version", "name", "app", "steps", "expect", "launch", "budget", "reset", "tags", "device", "runtime"]
FUZZ = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.dictionaries(st.sampled_from(CHECK_KEYS) | st.text(max_size=6), json_values, max_size=8))
def test_check_files_fail_only_with_check_errors(data: dict[str, Any]) -> None:
    try:
        load_check_text(json.dumps(data), "fuzz.yaml")
    except mc.MobsterError as exc:
        assert "fuzz.yaml" in str(exc)


@FUZZ
@given(raw=st.binary(max_size=300))
def test_check_bytes_fail_only_with_check_errors(raw: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "bytes.yaml"
    path.write_bytes(raw)
    try:
        mc.load_check(path)
    except mc.MobsterError as exc:
        assert "bytes.yaml" in str(exc)


@FUZZ
@given(st.dictionaries(st.sampled_from(["version", "device", "latency", "apps"]), json_values, max_size=4))
def test_app_scripts_fail_only_with_script_errors(data: dict[str, Any]) -> None:
    try:
        AppScript.from_text(json.dumps(data), "fuzz-app.yaml")
    except ScriptError as exc:
        assert "fuzz-app.yaml" in str(exc)


@FUZZ
@given(st.lists(json_values, max_size=4))
def test_paths_fail_only_with_path_errors(data: list[Any]) -> None:
    try:
        mc.load_path(data)
    except PathError as exc:
        assert str(exc)


@FUZZ
@given(json_values)
def test_model_replies_fail_only_with_model_errors(data: Any) -> None:
    try:
        parse_decision(data, mc.Usage())
    except mc.ModelError as exc:
        assert str(exc)


@FUZZ
@given(json_values)
def test_screens_fail_only_with_value_errors(data: Any) -> None:
    try:
        mc.Screen.from_dict({"app": "a.b", "elements": data if isinstance(data, list) else [data]})
    except ValueError as exc:
        assert str(exc).startswith("screen")


def test_a_model_asking_for_ten_thousand_actions() -> None:
    reply = {"status": "act", "actions": [{"op": "TAP", "target": "e1"}] * 10_000}
    with pytest.raises(mc.ModelError, match="10000 actions at once; the most is 3"):
        parse_decision(reply, mc.Usage())


def test_a_tree_five_thousand_deep_is_refused_clearly() -> None:
    node: dict[str, Any] = {"role": "Other"}
    for _ in range(5000):
        node = {"role": "Other", "children": [node]}
    with pytest.raises(ValueError, match="deeper than 100 levels"):
        mc.Screen.from_dict({"app": "a.b", "elements": [node]})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &a [1, 2]\nb: *a\n", "fuzz.yaml:1: a: anchors and aliases"),
        ("version: 1\nversion: 1\n", "fuzz.yaml:2: version: the key is written twice (lines 1 and 2)"),
        ("!!python/object/apply:os.system [echo hi]\n", "could not determine a constructor"),
        (
            "version: 1\nname: x\napp: {bundle: a.b}\nsteps: " + "[" * 5000 + "]" * 5000 + "\n",
            "fuzz.yaml:4: the YAML is nested",
        ),
        (
            "version: 1\napp: {bundle: a.b}\nexpect:\n- count: {role: cell}\n  equals: 1" + "0" * 5000,
            "fuzz.yaml:5: expect[0].equals: a number",
        ),
    ],
)
def test_yaml_tricks_in_check_files(text: str, message: str) -> None:
    with pytest.raises(mc.MobsterError) as info:
        load_check_text(text, "fuzz.yaml")
    assert message in str(info.value)


def test_a_corrupt_cache_file_is_set_aside_and_the_run_records_again(tmp_path: Path) -> None:
    env = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
    cache = ReplayCache(tmp_path)
    file = cache.store("0123456789abcdef", env, (), recorded_at=NOW)
    file.write_bytes(b'{"format": 1, "steps": [{"op": "PINCH"}')
    lookup = cache.lookup("0123456789abcdef", env)
    assert lookup.steps is None
    assert lookup.dropped
    assert "0123456789abcdef" in lookup.dropped[0]
    assert file.with_name(file.name + ".corrupt").exists()  # kept for inspection, nothing lost


@pytest.mark.parametrize(
    "text",
    [
        "version: 2\ncheck: a\nheals: []\n",
        "version: 1\ncheck: a\nheals: {}\n",
        "version: 1\ncheck: a\nheals:\n- step: 0\n",
    ],
)
def test_a_bad_heal_file_is_a_clear_error(tmp_path: Path, text: str) -> None:
    heal = tmp_path / "signup.heal.yaml"
    heal.write_text(text)
    with pytest.raises(HealFileError) as info:
        read_heal_file(heal)
    assert "signup.heal.yaml" in str(info.value)


def test_sample_scripts_still_load() -> None:
    assert AppScript.from_file(sample_path("yourapp")).apps


def test_a_wda_tree_five_thousand_deep_and_a_fifty_megabyte_source_read_within_bounds() -> None:
    import time

    from mobster_drivers.devices.wda import MAX_NODES, screen_from_source

    rect = {"x": 0, "y": 0, "width": 10, "height": 10}
    node: dict[str, Any] = {"type": "XCUIElementTypeOther", "rect": rect}
    for _ in range(5000):
        node = {"type": "XCUIElementTypeOther", "rect": rect, "children": [node]}
    root = {
        "type": "XCUIElementTypeApplication",
        "rect": {"x": 0, "y": 0, "width": 402, "height": 874},
        "children": [node],
    }
    deep = screen_from_source(root, "a.b")
    assert max(e.path.count("/") for e in deep.elements) <= 101

    row = {"type": "XCUIElementTypeStaticText", "label": "x" * 150, "value": "y" * 150, "rect": rect}
    wide = {**root, "children": [row] * 140_000}
    text = json.dumps(wide)
    assert len(text) > 50_000_000
    began = time.process_time()
    screen = screen_from_source(json.loads(text), "a.b")
    assert len(screen.elements) == MAX_NODES
    assert time.process_time() - began < 30  # bounded work, not a timing target
