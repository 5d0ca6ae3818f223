from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.vocabulary.steps import dump_path
from mobster_core.exceptions import PathError
from tests.samples import TAP


def step(**changes: Any) -> dict[str, Any]:
    d = copy.deepcopy(TAP)
    d.update(changes)
    return d


def test_round_trip_keeps_the_dictionary_and_key_order() -> None:
    s = mc.Step.from_dict(TAP)
    assert s.to_dict() == TAP
    assert list(s.to_dict()) == ["op", "app", "target", "screen", "text", "commit", "live"]
    assert list(s.to_dict()["target"]) == ["label", "role", "id", "frame", "count", "nth"]
    assert s.op is mc.Op.TAP
    assert s.target is not None
    assert s.target.frame == (0.1, 0.8, 0.8, 0.06)
    assert s.screen.pairs == {("Button", "Continue"), ("StaticText", "Create your account")}


def test_every_op_round_trips() -> None:
    samples = [
        TAP,
        step(op="LONG_PRESS"),
        step(op="TYPE", text="ada@example.com"),
        step(op="TYPE", text=None, live=True),
        step(op="SUBMIT", target=None),
        step(op="SWIPE_UP", target=None),
        step(op="SWIPE_DOWN"),
        step(op="SWIPE_LEFT", target=None),
        step(op="SWIPE_RIGHT", target=None),
        step(op="LAUNCH_APP", target=None, text="com.example.yourapp"),
        step(op="HOME", target=None),
        step(op="OPEN_URL", target=None, text="yourapp://signup"),
        step(commit="purchase"),
    ]
    path = mc.load_path(samples)
    assert dump_path(path) == samples


def test_whole_numbers_are_numbers() -> None:
    s = mc.Step.from_dict(step(target={**TAP["target"], "frame": [0, 0, 1, 1]}))
    assert s.target is not None
    assert s.target.frame == (0.0, 0.0, 1.0, 1.0)


Mutation = Callable[[dict[str, Any]], None]

DROPS: list[tuple[str, Mutation, str, str]] = [
    ("unknown op", lambda d: d.update(op="PINCH"), "op", "unknown op 'PINCH'"),
    ("op not a string", lambda d: d.update(op=1), "op", "unknown op 1"),
    ("extra key", lambda d: d.update(force=True), "force", "unknown key 'force'"),
    ("extra target key", lambda d: d["target"].update(x=1), "target.x", "unknown key 'x'"),
    ("extra screen key", lambda d: d["screen"].update(x=1), "screen.x", "unknown key 'x'"),
    ("missing key", lambda d: d.pop("live"), "live", "key 'live' is missing"),
    ("missing target key", lambda d: d["target"].pop("role"), "target.role", "key 'role' is missing"),
    ("missing screen key", lambda d: d["screen"].pop("hash"), "screen.hash", "key 'hash' is missing"),
    (
        "frame number as a string",
        lambda d: d["target"]["frame"].__setitem__(0, "1.5"),
        "target.frame",
        "expected a number, got '1.5'",
    ),
    (
        "frame number as a bool",
        lambda d: d["target"]["frame"].__setitem__(0, True),
        "target.frame",
        "expected a number",
    ),
    ("frame not a list", lambda d: d["target"].update(frame="0 0 1 1"), "target.frame", "expected a list"),
    ("frame of three", lambda d: d["target"].update(frame=[0, 0, 1]), "target.frame", "four numbers; got 3"),
    (
        "frame outside 0..1",
        lambda d: d["target"]["frame"].__setitem__(1, 1.5),
        "target.frame",
        "each in 0..1; got 1.5",
    ),
    ("label as a number", lambda d: d["target"].update(label=1), "target.label", "expected a string, got 1"),
    ("empty label", lambda d: d["target"].update(label=""), "target.label", "must not be empty"),
    ("bad tree path", lambda d: d["target"].update(id="3/1"), "target.id", "tree path"),
    ("target not a mapping", lambda d: d.update(target=[1]), "target", ""),
    ("target on an op that takes none", lambda d: d.update(op="HOME"), "target", "HOME takes no target"),
    ("no target on a tap", lambda d: d.update(target=None), "target", "TAP needs a target"),
    ("text on a tap", lambda d: d.update(text="hi"), "text", "TAP takes no text"),
    ("type without text, not live", lambda d: d.update(op="TYPE"), "text", "is live with text null"),
    ("launch without a bundle", lambda d: d.update(op="LAUNCH_APP", target=None), "text", "needs text"),
    ("bad hash", lambda d: d["screen"].update(hash="XYZ"), "screen.hash", "16 lowercase hex digits"),
    (
        "signature pair of one",
        lambda d: d["screen"]["signature"].append(["Button"]),
        "screen.signature",
        "got 1 items",
    ),
    (
        "signature label as a number",
        lambda d: d["screen"]["signature"].append(["Button", 2]),
        "screen.signature",
        "expected a string",
    ),
    ("unknown commit", lambda d: d.update(commit="buy"), "commit", "unknown commit 'buy'"),
    ("live as a string", lambda d: d.update(live="no"), "live", "expected true or false"),
    ("empty app", lambda d: d.update(app=""), "app", "must not be empty"),
    ("app as a list", lambda d: d.update(app=["x"]), "app", "expected a string"),
]


@pytest.mark.parametrize(("why", "mutate", "key", "message"), DROPS, ids=[d[0] for d in DROPS])
def test_a_bad_step_drops_the_path_naming_step_and_key(why: str, mutate: Mutation, key: str, message: str) -> None:
    bad = copy.deepcopy(TAP)
    mutate(bad)
    with pytest.raises(PathError) as info:
        mc.load_path([TAP, TAP, bad])
    assert info.value.step == 3
    assert info.value.key == key
    assert str(info.value).startswith(f"step 3: key {key!r}")
    assert message in str(info.value)


def test_a_step_that_is_not_a_mapping() -> None:
    with pytest.raises(PathError, match="step 2: expected a mapping"):
        mc.load_path([TAP, "TAP"])


@pytest.mark.parametrize("data", [{"steps": []}, "TAP", b"x", 3])
def test_a_path_that_is_not_a_list(data: object) -> None:
    with pytest.raises(PathError, match="a path is a list of steps"):
        mc.load_path(data)


def test_from_dict_errors_say_step_without_a_number() -> None:
    with pytest.raises(PathError, match=r"^step: key 'op'"):
        mc.Step.from_dict(step(op="PINCH"))


def test_op_properties() -> None:
    assert mc.Op.TAP.needs_target
    assert mc.Op.SWIPE_UP.takes_target
    assert not mc.Op.SWIPE_UP.needs_target
    assert not mc.Op.SUBMIT.takes_target
    assert {op for op in mc.Op if op.is_global} == {mc.Op.LAUNCH_APP, mc.Op.HOME, mc.Op.OPEN_URL}


def test_steps_are_immutable() -> None:
    s = mc.Step.from_dict(TAP)
    with pytest.raises(AttributeError):
        s.live = True  # type: ignore[misc]
