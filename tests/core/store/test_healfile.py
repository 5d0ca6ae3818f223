"""The heal state's format and the heal file's actions (count and nth)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import attrs
import pytest

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._store.healfile import (
    STATE_FORMAT,
    HealState,
    compact,
    load_heal_state,
    save_heal_state,
    state_name,
    write_heal_file,
)
from mobster_core.exceptions import HealFileError
from mobster_core.heals import HealEntry, read_heal_file
from tests.core.helpers import SIGNUP_ELEMENTS, screen, step_on

ID = "b4f5b1de9d5b86e2"
SIM = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
TWO = screen([*SIGNUP_ELEMENTS, {"role": "Button", "label": "Continue", "frame": [0.1, 0.9, 0.8, 0.06]}])


KEY = "0123456789ab"
NAME = state_name(ID, SIM, KEY)
ENTRY = HealEntry(1, "Tap 'A'", "Tap 'B'", "gone", ({"op": "tap", "label": "A"},), ({"op": "tap", "label": "B"},))


def state_file(root: Path) -> Path:
    return root / ".mobster" / "cache" / "heals" / f"{ID}-{SIM.digest}-{KEY}.json"


def test_the_heal_state_round_trips_in_format_4(tmp_path: Path) -> None:
    steps = (step_on(TWO),)
    save_heal_state(tmp_path, NAME, HealState(steps, (ENTRY,), frozenset({2}), (ENTRY,)))
    data = json.loads(state_file(tmp_path).read_text())
    assert data["format"] == STATE_FORMAT == 4
    assert data["healed"][0]["target"]["count"] == 2
    assert load_heal_state(tmp_path, NAME, provenance=None) == HealState(steps, (ENTRY,), frozenset({2}), (ENTRY,))


def test_a_heal_state_in_format_3_is_read_as_it_is(tmp_path: Path) -> None:
    steps = (step_on(TWO),)
    save_heal_state(tmp_path, NAME, HealState(steps, (ENTRY,), frozenset({2})))
    file = state_file(tmp_path)
    data = json.loads(file.read_text())
    del data["rejected"]
    file.write_text(json.dumps({**data, "format": 3}))
    assert load_heal_state(tmp_path, NAME, provenance=None) == HealState(steps, (ENTRY,), frozenset({2}))
    file.write_text(json.dumps({**data, "format": 3, "rejected": []}))
    with pytest.raises(HealFileError, match="keys are format, healed, adopts, keep_failing, rejected"):
        load_heal_state(tmp_path, NAME, provenance=None)  # format 3 never had rejected heals: a forged file


def test_a_heal_state_in_an_older_format_is_set_aside_and_read_as_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mobster")
    file = state_file(tmp_path)
    file.parent.mkdir(parents=True)
    old_step = step_on(TWO).to_dict()
    del old_step["target"]["count"], old_step["target"]["nth"]
    file.write_text(json.dumps({"format": 1, "original": [old_step], "keep_failing": [1]}))
    file.chmod(0o600)
    assert load_heal_state(tmp_path, NAME, provenance=None) == HealState()
    assert not file.exists()
    assert file.with_name(file.name + ".format1").exists()
    [record] = [r for r in caplog.records if r.getMessage() == "heal state of another format set aside"]
    assert "format 1 of an older Mobster" in record.__dict__["reason"]


def test_a_heal_state_without_a_format_number_is_an_error_naming_the_file(tmp_path: Path) -> None:
    file = state_file(tmp_path)
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps({"format": "2", "original": None, "keep_failing": []}))
    file.chmod(0o600)
    with pytest.raises(HealFileError, match=str(file)):
        load_heal_state(tmp_path, NAME, provenance=None)


def test_the_heal_file_shows_count_and_nth_only_for_a_label_seen_more_than_once(tmp_path: Path) -> None:
    once = step_on(screen(SIGNUP_ELEMENTS))
    twice = step_on(TWO)
    assert "count" not in compact(once)
    assert (compact(twice)["count"], compact(twice)["nth"]) == (2, 0)
    check = tmp_path / "signup.yaml"
    write_heal_file(check, [HealEntry.of(3, "why", [once], [twice])])
    text = (tmp_path / "signup.heal.yaml").read_text()
    assert "count: 2, nth: 0}" in text
    [entry] = read_heal_file(tmp_path / "signup.heal.yaml")
    assert entry.new[0]["count"] == 2
    assert "count" not in entry.old[0]


RUN = ".mobster/runs/20261130T120000Z-abc123"


def test_a_heal_names_the_run_that_made_it_in_the_heal_file_and_the_state(tmp_path: Path) -> None:
    made = HealEntry.of(3, "why", [step_on(screen(SIGNUP_ELEMENTS))], [step_on(TWO)], run_dir=RUN)
    check = tmp_path / "signup.yaml"
    write_heal_file(check, [made])
    assert f"  run_dir: {RUN}\n" in (tmp_path / "signup.heal.yaml").read_text()
    assert read_heal_file(tmp_path / "signup.heal.yaml") == [made]
    save_heal_state(tmp_path, NAME, HealState((step_on(TWO),), (made,)))
    assert load_heal_state(tmp_path, NAME, provenance=None).adopts == (made,)


def test_a_heal_file_written_before_heals_named_their_run_is_read_as_it_is(tmp_path: Path) -> None:
    check = tmp_path / "signup.yaml"
    write_heal_file(check, [ENTRY])  # no run: the file has no run_dir, as an older one
    text = (tmp_path / "signup.heal.yaml").read_text()
    assert "run_dir" not in text
    assert read_heal_file(tmp_path / "signup.heal.yaml") == [ENTRY]
    assert ENTRY.run_dir is None


def test_a_run_dir_that_isnt_text_is_refused_naming_its_line(tmp_path: Path) -> None:
    check = tmp_path / "signup.yaml"
    write_heal_file(check, [attrs.evolve(ENTRY, run_dir=RUN)])
    heal = tmp_path / "signup.heal.yaml"
    heal.write_text(heal.read_text().replace(f"run_dir: {RUN}", "run_dir: [1, 2]"))
    with pytest.raises(HealFileError, match=r"signup\.heal\.yaml:\d+: .*run_dir is the run folder's path, as text"):
        read_heal_file(heal)
