"""Heal states as documents of a path store (issue 35 items 2 and 3): names, folders, keys and what they hold.

Each file store keeps a kind of document in its own folder (``heals/`` under ``.mobster/cache``
for the local store, under ``.mobster/paths`` for the committed one), read as its paths are. A
heal state is written deterministically in a shared store and read as another clone's word:
strict JSON, every key, and text the typing rules would replay. The check key is the same on
every clone. A heal waiting for review is found, so no heal takes its place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._store.healfile import (
    HealEntry,
    HealState,
    check_key,
    load_heal_state,
    moved,
    parse_state_name,
    replaced,
    save_heal_state,
    state_name,
    waiting,
)
from mobster_core._store.pathstores import CommittedPaths, LocalPaths, check_document_name
from mobster_core.exceptions import HealFileError, PathError, UnsafeFile
from tests.core.helpers import SIGNUP_ELEMENTS, screen, step_on

ID = "b4f5b1de9d5b86e2"
SIM = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
OTHER = Env("1.1", "2", 26, mc.DeviceKind.SIMULATOR)
KEY = "0123456789ab"
NAME = state_name(ID, SIM, KEY)
SIGNUP = screen(SIGNUP_ELEMENTS)
RENAMED = screen([*SIGNUP_ELEMENTS[:2], {"role": "Button", "label": "Next", "frame": [0.1, 0.8, 0.8, 0.06]}])
WORDS = Provenance(('Type "ada@example.com" into "Email"',))


def typed(text: str) -> mc.Step:
    return step_on(SIGNUP, op="TYPE", label="Email", role="TextField", text=text)


def healed_state(text: str = "ada@example.com") -> HealState:
    entry = HealEntry.of(2, "gone", [step_on(SIGNUP)], [step_on(RENAMED, label="Next")], run_dir=".mobster/runs/r1")
    return HealState((typed(text), step_on(RENAMED, label="Next")), (entry,))


def test_document_names_are_a_known_kind_and_a_plain_key() -> None:
    assert check_document_name(NAME) == ("heals", f"{ID}-{SIM.digest}-{KEY}.json")
    for bad in ("heals/../x", "heals/.", "heals/..", "heals/a/b", "locks/x", "../heals/x", "heals/", "heals/.tmp-x",
                "heals/X.json", "/etc/passwd", "heals"):  # fmt: skip
        with pytest.raises(ValueError, match="a store's document is named <kind>/<key>"):
            check_document_name(bad)
    with pytest.raises(ValueError, match="a heal state is named"):
        state_name(ID, "../../etc", KEY)
    assert parse_state_name(NAME) == (ID, SIM.digest, KEY)
    assert parse_state_name(NAME + ".format3") is None


@pytest.mark.parametrize(
    ("store", "folder"), [(LocalPaths, ".mobster/cache/heals"), (CommittedPaths, ".mobster/paths/heals")]
)
def test_each_file_store_keeps_its_heal_states_in_its_own_folder(tmp_path: Path, store: type, folder: str) -> None:
    paths = store(tmp_path)
    assert paths.documents("heals/") == []
    paths.write_document(NAME, b"{}")
    file = tmp_path / folder / NAME.removeprefix("heals/")
    assert file.read_bytes() == b"{}"
    assert (file.stat().st_mode & 0o777, file.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    (file.parent / ".tmp-half-written").write_bytes(b"x")
    (file.parent / "README").write_bytes(b"x")
    assert paths.documents("heals/") == [NAME]
    assert paths.documents(f"heals/{ID}-") == [NAME]
    assert paths.documents("heals/ffff") == []
    assert paths.read_document(NAME, max_bytes=10).data == b"{}"
    assert paths.where_document(NAME) == str(file)
    assert paths.names() == []  # a heal state is never a path
    paths.remove_document(NAME)
    paths.remove_document(NAME)  # gone already: nothing to do
    with pytest.raises(FileNotFoundError):
        paths.read_document(NAME, max_bytes=10)


def test_the_committed_store_reads_a_checkout_s_file_but_never_through_a_symlink(tmp_path: Path) -> None:
    paths = CommittedPaths(tmp_path)
    paths.write_document(NAME, b"{}")
    file = Path(paths.where_document(NAME))
    file.chmod(0o644)  # as a checkout gives it
    assert paths.read_document(NAME, max_bytes=10).data == b"{}"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(b"{}")
    file.unlink()
    file.symlink_to(target)
    with pytest.raises(UnsafeFile, match="it is a symlink"):
        paths.read_document(NAME, max_bytes=10)
    file.unlink()
    folder = file.parent
    folder.rmdir()
    (tmp_path / "planted").mkdir()
    folder.symlink_to(tmp_path / "planted")
    for act in (lambda: paths.read_document(NAME, max_bytes=10), lambda: paths.documents("heals/"),
                lambda: paths.write_document(NAME, b"x"), lambda: paths.remove_document(NAME)):  # fmt: skip
        with pytest.raises(UnsafeFile, match=r"heals: it is a symlink"):
            act()
    assert list((tmp_path / "planted").iterdir()) == []  # nothing written through the link


def test_the_local_store_reads_only_private_heal_states(tmp_path: Path) -> None:
    paths = LocalPaths(tmp_path)
    paths.write_document(NAME, b"{}")
    Path(paths.where_document(NAME)).chmod(0o644)
    with pytest.raises(UnsafeFile, match="its mode is 0644"):
        paths.read_document(NAME, max_bytes=10)


def test_a_shared_store_gets_a_deterministic_heal_state_of_the_check_s_own_words(tmp_path: Path) -> None:
    store = CommittedPaths(tmp_path)
    save_heal_state(store, NAME, healed_state(), provenance=WORDS)
    text = Path(store.where_document(NAME)).read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert str(tmp_path) not in text
    assert load_heal_state(store, NAME, provenance=WORDS) == healed_state()
    again = CommittedPaths(tmp_path / "clone")
    save_heal_state(again, NAME, healed_state(), provenance=WORDS)
    assert Path(again.where_document(NAME)).read_text() == text  # byte for byte, whatever machine wrote it


def test_a_shared_store_never_gets_nor_reads_text_the_check_never_gives(tmp_path: Path) -> None:
    store = CommittedPaths(tmp_path)
    with pytest.raises(
        PathError,
        match=r"its healed path.s step 1: a committed path never holds text the replay wouldn.t .*; it is not written",
    ):
        save_heal_state(store, NAME, healed_state("mallory@example.com"), provenance=WORDS)
    assert store.documents("heals/") == []
    # Forged by another clone: written past the rule, refused when it is read, naming the file.
    store.write_document(NAME, json.dumps({
        "format": 4, "healed": [s.to_dict() for s in healed_state("mallory@example.com").healed or ()],
        "adopts": [], "keep_failing": [], "rejected": [],
    }).encode())  # fmt: skip
    with pytest.raises(HealFileError, match=rf"{NAME.removeprefix('heals/')}: its healed path's step 1: .*delete it"):
        load_heal_state(store, NAME, provenance=WORDS)
    assert load_heal_state(store, NAME, provenance=None).healed is not None  # an export checks the shape only
    # A local store is this machine's: its own states are read as they were.
    local = LocalPaths(tmp_path)
    save_heal_state(local, NAME, healed_state("mallory@example.com"), provenance=WORDS)
    assert load_heal_state(local, NAME, provenance=WORDS).healed is not None


def test_an_entry_that_shows_typed_text_the_check_never_gives_is_refused_in_a_shared_store(tmp_path: Path) -> None:
    store = CommittedPaths(tmp_path)
    entry = HealEntry.of(1, "gone", [typed("ada@example.com")], [typed("mallory@example.com")])
    with pytest.raises(PathError, match="its heal of step 1 shows typed text the check never gives"):
        save_heal_state(store, NAME, HealState((typed("ada@example.com"),), (entry,)), provenance=WORDS)


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"format": 4, "format": 4}', "the key 'format' appears twice"),
        (b'{"format": 4, "healed": null, "adopts": [], "keep_failing": [NaN], "rejected": []}', "NaN is not"),
        (b'{"format": 4, "healed": null, "adopts": [], "keep_failing": [0], "rejected": []}', "keep_failing is"),
        (b'{"format": 4, "healed": null, "adopts": [], "keep_failing": [true], "rejected": []}', "keep_failing is"),
        (b'{"format": 4, "healed": null, "adopts": [], "keep_failing": [10000000], "rejected": []}', "keep_failing"),
        (b'{"format": 4, "healed": null, "adopts": [], "keep_failing": [], "rejected": [], "x": 1}', "keys are"),
        (b'{"format": true, "healed": null, "adopts": [], "keep_failing": [], "rejected": []}', "format is 4"),
        (b'{"format": 4, "healed": [{"op": "RM"}], "adopts": [], "keep_failing": [], "rejected": []}', "step 1"),
        (b"\xff", "it is not UTF-8 text (byte 0)"),
    ],
)
def test_a_committed_heal_state_is_read_strictly_naming_the_file(tmp_path: Path, raw: bytes, said: str) -> None:
    store = CommittedPaths(tmp_path)
    store.write_document(NAME, raw)
    with pytest.raises(HealFileError) as caught:
        load_heal_state(store, NAME, provenance=WORDS)
    assert said in str(caught.value)
    assert str(caught.value).startswith(store.where_document(NAME))
    assert "delete it" in str(caught.value)


def test_the_check_key_is_the_check_s_path_in_the_project_on_every_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = set()
    for clone in ("a", "b/deeper/c"):
        root = tmp_path / clone
        (root / ".mobster" / "checks").mkdir(parents=True)
        check = root / ".mobster" / "checks" / "signup.yaml"
        check.write_text("")
        keys.add(check_key(root, check))
        monkeypatch.chdir(root / ".mobster")
        keys.add(check_key(Path(".."), Path("checks/signup.yaml")))  # relative spellings resolve the same
    # Golden: sha256(".mobster/checks/signup.yaml")[:12], so a committed heal state is found on any clone.
    assert keys == {"969fce8d3847"}


def test_an_entry_reads_what_changed_when_its_lines_read_the_same() -> None:
    two = screen([*SIGNUP_ELEMENTS, {"role": "Button", "label": "Continue", "frame": [0.1, 0.9, 0.8, 0.06]}])
    first, second = step_on(two), step_on(two)
    second = mc.Step.from_dict({**second.to_dict(), "target": {**second.to_dict()["target"], "id": "/0/3", "nth": 1}})
    entry = HealEntry.of(3, "twice", [first], [second])
    assert (entry.from_, entry.to) == ('Tap "Continue"', 'Tap "Continue" (the 2nd of 2 on the screen)')
    assert entry.changed
    elsewhere = HealEntry.of(3, "changed", [step_on(SIGNUP)], [step_on(two)])
    assert elsewhere.to == 'Tap "Continue" (the 1st of 2 on the screen)'
    banner = screen([{"role": "StaticText", "label": "Sale"}, *SIGNUP_ELEMENTS])
    moved_screen = HealEntry.of(3, "changed", [step_on(SIGNUP)], [step_on(banner)])
    assert moved_screen.to.startswith('Tap "Continue" (')
    assert moved_screen.changed
    same = HealEntry.of(3, "same", [step_on(SIGNUP)], [step_on(SIGNUP)])
    assert (same.from_, same.to, same.changed) == ('Tap "Continue"', 'Tap "Continue"', False)


def entry(step: int, new: int = 1, old: int = 1, label: str = "X") -> HealEntry:
    return HealEntry(step, f"Tap {step}", f"Tap {label}", "gone", ({"op": "TAP"},) * old, ({"op": "TAP"},) * new)


def test_a_heal_of_a_step_whose_heal_waits_is_found_in_any_env() -> None:
    mine, theirs = entry(3, new=2), entry(5, label="Y")
    states = [(SIM, HealState((step_on(SIGNUP),), (mine,))), (OTHER, HealState((step_on(SIGNUP),), (theirs,)))]
    shown = [mine, theirs]
    assert [e for _env, e in waiting(states, shown)] == [mine, theirs]
    assert waiting(states, [mine]) == [(SIM, mine)]  # a heal the heal file doesn't show waits for nothing
    # A heal of another step of this env's path, after its waiting heal: kept.
    assert replaced(states, shown, SIM, [mine], [entry(6)]) is None
    # Over the actions of this env's waiting heal (step 3 became steps 3 and 4): replaced.
    assert replaced(states, shown, SIM, [mine], [entry(4)]) == (entry(4), mine)
    assert replaced(states, shown, SIM, [mine], [entry(2, old=2)]) == (entry(2, old=2), mine)
    # Of the step another env's heal waits at: it would take its place in the heal file.
    assert replaced(states, shown, SIM, [mine], [entry(5)]) == (entry(5), theirs)
    # From another env, this env's waiting heal is replaced by a heal of its step only.
    assert replaced(states, shown, OTHER, [theirs], [entry(4)]) is None
    assert replaced(states, shown, OTHER, [theirs], [entry(3)]) == (entry(3), mine)


def test_a_run_s_earlier_heals_move_the_waiting_heals_after_them() -> None:
    waits = entry(5)
    assert moved([waits], [entry(2, new=3)]) == [(waits, 7)]
    assert moved([waits], [entry(2, new=0)]) == [(waits, 4)]
    assert moved([waits], [entry(6, new=3)]) == [(waits, 5)]
