"""The screen's rules as they were written are the oracle of the faster code (issue 27 item 5).

``OldScreen`` below is ``Screen`` with the implementation its rules had before they were made
faster, kept here verbatim and nowhere else: the checks of a new read (Rules 9 and 10), what is
shown and why not (Rules 7 and 11), the signature (Rule 3), the hash (Rule 4) and the read
fingerprint (Rule 5). Every value the product computes must equal the oracle's on every input:
random trees (hypothesis: nested and duplicate paths, Toggles' inner switches, containers, frames
off the screen, of zero size, of ints, NaN and infinities, text that needs escaping or isn't
valid Unicode, roles in a driver's spelling) and the eight real WDA trees, read in place through
the WDA driver's parser as both reads. The matcher, given the two screens, decides alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core._rules.formats.canon import canonical_json, digest, pairs_digest
from mobster_core._rules.formats.text import valid_text
from mobster_core._rules.replay.matcher import SIMILAR, SIMILAR_SETTLED, Match, MatchRule, pick, times
from mobster_core._rules.vocabulary.roles import ROLES, canonical_role
from mobster_core._rules.vocabulary.screen import DEFAULT_SCREEN_SIZE, Frame, Hidden
from mobster_core._rules.vocabulary.signature import fingerprint_json as _fingerprint_json
from mobster_core._rules.vocabulary.signature import signature_hash
from mobster_drivers._xcuitest.tree import read_source
from tests.wda_trees import NAMES, fast_source, tree_path

# -- the oracle: the code as it was (mobster_core/_rules/screen.py before issue 27 item 5) -------

_CONTAINER_ROLES = frozenset({"Application", "Window"})
_NO_FRAME = (0.0, 0.0, 0.0, 0.0)


def _old_parent_path(path: str) -> str | None:
    head, sep, _ = path.rpartition("/")
    return head if sep and head else None


def _old_overlaps_screen(frame: Frame) -> bool:
    x, y, w, h = frame
    return min(x + w, 1.0) - max(x, 0.0) > 0 and min(y + h, 1.0) - max(y, 0.0) > 0


def _old_why_hidden(e: mc.Element) -> Hidden:
    if not e.visible:
        return Hidden.NOT_VISIBLE
    if e.frame != _NO_FRAME and not _old_overlaps_screen(e.frame):
        return Hidden.ZERO_SIZE if e.frame[2] <= 0 or e.frame[3] <= 0 else Hidden.OFF_SCREEN
    if e.role in _CONTAINER_ROLES:
        return Hidden.CONTAINER
    return Hidden.INNER_SWITCH


def _old_shown_flags(elements: Sequence[mc.Element]) -> list[bool]:
    roles = {e.path: e.role for e in elements}
    under_switch: dict[str, bool] = {}

    def switch_above(path: str) -> bool:
        chain: list[str] = []
        parent = _old_parent_path(path)
        answer = False
        while parent is not None:
            if roles.get(parent) == "Switch":
                answer = True
                break
            if parent in under_switch:
                answer = under_switch[parent]
                break
            chain.append(parent)
            parent = _old_parent_path(parent)
        for seen in chain:
            under_switch[seen] = answer
        return answer

    flags: list[bool] = []
    for e in elements:
        if not e.visible or e.role in _CONTAINER_ROLES or (e.frame != _NO_FRAME and not _old_overlaps_screen(e.frame)):
            flags.append(False)
        elif e.role == "Switch" and not e.label and not e.identifier and switch_above(e.path):
            flags.append(False)  # the inner switch of a SwiftUI Toggle
        else:
            flags.append(True)
    return flags


def _old_valid_element(e: mc.Element) -> mc.Element:
    return attrs.evolve(
        e,
        role=valid_text(e.role),
        label=valid_text(e.label),
        identifier=valid_text(e.identifier),
        value=valid_text(e.value),
        placeholder=valid_text(e.placeholder),
        path=valid_text(e.path),
    )


def old_new_read(app: str, elements: tuple[mc.Element, ...]) -> tuple[str, tuple[mc.Element, ...]]:
    """What ``Screen.__attrs_post_init__`` made of a read (Rules 9 and 10), as it was."""
    texts = [app]
    for e in elements:
        texts += (e.role, e.label, e.identifier, e.value, e.placeholder, e.path)
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        app = valid_text(app)
        elements = tuple(_old_valid_element(e) for e in elements)
    if any(e.role not in ROLES for e in elements):
        elements = tuple(e if e.role in ROLES else attrs.evolve(e, role=canonical_role(e.role)) for e in elements)
    return app, elements


class OldScreen(mc.Screen):
    """``Screen`` whose rules run the code as it was (an instance carries its own ``__dict__``)."""

    @cached_property
    def shown(self) -> tuple[mc.Element, ...]:
        return tuple(e for e, ok in zip(self.elements, _old_shown_flags(self.elements), strict=True) if ok)

    @cached_property
    def hidden(self) -> tuple[Hidden | None, ...]:
        flags = _old_shown_flags(self.elements)
        return tuple(None if ok else _old_why_hidden(e) for e, ok in zip(self.elements, flags, strict=True))

    @cached_property
    def signature_pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted({e.pair for e in self.shown if e.label}))

    @cached_property
    def hash(self) -> str:
        return signature_hash(self.signature_pairs)

    @cached_property
    def fingerprint(self) -> str:
        width, height = self.size
        return digest([self.app, self.rows(self.elements, width, height)], 32)

    @staticmethod
    def rows(elements: Sequence[mc.Element], width: int, height: int) -> list[list[object]]:
        return [
            [
                e.path,
                e.role,
                e.label,
                e.identifier,
                e.value,
                e.enabled,
                e.visible,
                e.selected,
                round(e.frame[0] * width),
                round(e.frame[1] * height),
                round(e.frame[2] * width),
                round(e.frame[3] * height),
                *([e.placeholder] if e.placeholder else []),
            ]
            for e in elements
        ]


def old_signature_hash(pairs: Sequence[Sequence[str]]) -> str:
    return digest([list(p) for p in pairs], 16)


def old_match_step(step: mc.Step, screen: mc.Screen, *, settled: bool) -> Match:
    """``match_step`` as it was (mobster_core/_rules/matcher.py before issue 27 item 5)."""
    recorded = frozenset(step.screen.signature)
    now = screen.signature_set
    union = len(recorded | now)
    common = len(recorded & now)
    alike = 1.0 if union == 0 else common / union
    percent = 100 if union == 0 else common * 100 // union

    if step.op.is_global:
        return Match(ok=True, similarity=alike)

    def no(reason: str, rule: MatchRule, element: mc.Element | None = None) -> Match:
        return Match(ok=False, similarity=alike, reason=reason, element=element, rule=rule)

    if screen.app != step.app:
        return no(f"{screen.app} is in front, not {step.app}", MatchRule.APP)

    element: mc.Element | None = None
    exactly_once = False
    if step.target is not None:
        target = step.target
        found = screen.find(target.role, target.label)
        if not found:
            return no(f'"{target.label}" isn\'t on the screen', MatchRule.TARGET)
        element = pick(found, count=target.count, nth=target.nth, path=target.id)
        if element is None:
            if len(found) == target.count:
                return no(
                    f'"{target.label}" is on the screen {times(len(found))} as recorded, but another of them '
                    "took its place",
                    MatchRule.TARGET,
                )
            return no(
                f'"{target.label}" is on the screen {times(len(found))}, recorded {times(target.count)}',
                MatchRule.TARGET,
            )
        exactly_once = target.count == 1

    same_screen = screen.hash == step.screen.hash
    if same_screen or alike >= SIMILAR or (settled and exactly_once and alike >= SIMILAR_SETTLED):
        return Match(ok=True, similarity=alike, element=element)
    return no(f"the screen is different ({percent}% alike)", MatchRule.SCREEN, element)


# -- comparing ----------------------------------------------------------------------------------


def outcome(value: Callable[[], object]) -> object:
    """The value, or the type of the exception it raised (a NaN frame can't be rounded, either way)."""
    try:
        return value()
    except (ValueError, OverflowError, TypeError) as exc:
        return type(exc)


def positions(some: Sequence[mc.Element], elements: Sequence[mc.Element]) -> list[int]:
    """Where each of ``some`` is in ``elements``, by identity (equal elements may sit at two places)."""
    index = {id(e): i for i, e in enumerate(elements)}
    return [index[id(e)] for e in some]


def old_screen(app: str, elements: tuple[mc.Element, ...], size: tuple[int, int]) -> OldScreen:
    # The oracle's read skips Screen's own checks of a new read: old_new_read did them, as they were.
    screen = OldScreen.__new__(OldScreen)
    checked_app, checked = old_new_read(app, elements)
    object.__setattr__(screen, "app", checked_app)
    object.__setattr__(screen, "elements", checked)
    object.__setattr__(screen, "size", size)
    return screen


def assert_alike(new: mc.Screen, old: OldScreen) -> None:
    assert (new.app, new.elements, new.size) == (old.app, old.elements, old.size)
    assert new.shown == old.shown
    assert positions(new.shown, new.elements) == positions(old.shown, old.elements)  # the very elements
    assert new.shown_paths == old.shown_paths
    assert new.hidden == old.hidden
    assert new.signature_pairs == old.signature_pairs
    assert new.signature == old.signature
    assert new.signature_set == old.signature_set
    assert outcome(lambda: new.hash) == outcome(lambda: old.hash) == old_signature_hash(old.signature_pairs)
    assert outcome(lambda: new.fingerprint) == outcome(lambda: old.fingerprint)
    assert [new.is_shown(e) for e in new.elements] == [old.is_shown(e) for e in old.elements]
    for e in new.elements[:20]:
        assert new.find(e.role, e.label) == old.find(e.role, e.label)


def both(
    app: str, elements: Sequence[mc.Element], size: tuple[int, int] = DEFAULT_SCREEN_SIZE
) -> tuple[mc.Screen, OldScreen]:
    return mc.Screen(app, tuple(elements), size), old_screen(app, tuple(elements), size)


# -- random trees ---------------------------------------------------------------------------------

#: Roles as the rules see them, a driver's spellings of them, and one no rule knows.
ROLE_NAMES = (
    "Button", "StaticText", "Switch", "Switch", "Cell", "Other", "Application", "Window", "TextField",
    "XCUIElementTypeButton", "button", "switch", "Toggle", "MadeUp",
)  # fmt: skip
TEXT = st.one_of(
    st.just(""),
    st.sampled_from(("Go", "Wi-Fi", "On", "Continue", "Ünïcode", 'quote " back \\ slash', "tab\tnew\nline")),
    st.text(alphabet='aé Z"\\\n\x00\u2028😀', max_size=5),
    st.sampled_from(("\ud83d", "a\udc00b", "\ud83d\ude00")),  # lone and paired surrogates (Rule 9)
)
UNIT = st.floats(0.0, 1.0)
ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)
COORD = st.one_of(
    UNIT,
    UNIT,
    st.floats(-2.0, 3.0),
    st.sampled_from((0.0, -0.0, 1.0, 5e-324, 1 - 2**-53, 1e-20)),
    st.integers(-2, 2),
    ANY_FLOAT,
)
FRAME = st.one_of(
    st.just((0.0, 0.0, 0.0, 0.0)), st.tuples(UNIT, UNIT, UNIT, UNIT), st.tuples(COORD, COORD, COORD, COORD)
)
PATH = st.one_of(
    st.lists(st.integers(0, 2), max_size=4).map(lambda p: "/0" + "".join(f"/{n}" for n in p)),
    st.sampled_from(("", "/", "x", "/0/", "//0", "0/1")),
)


@st.composite
def element(draw: st.DrawFn) -> mc.Element:
    return mc.Element(
        role=draw(st.sampled_from(ROLE_NAMES)),
        label=draw(TEXT),
        identifier=draw(st.one_of(st.just(""), TEXT)),
        value=draw(st.one_of(st.just(""), TEXT)),
        frame=draw(FRAME),
        enabled=draw(st.booleans()),
        visible=draw(st.booleans() | st.just(True)),
        selected=draw(st.booleans()),
        path=draw(PATH),
        placeholder=draw(st.one_of(st.just(""), st.just(""), TEXT)),
    )


APP_NAMES = st.sampled_from(("com.example.yourapp", "com.apple.springboard", "bad\udcffapp"))
SIZES = st.one_of(st.just(DEFAULT_SCREEN_SIZE), st.tuples(st.integers(1, 3000), st.integers(1, 3000)))


@given(APP_NAMES, st.lists(element(), max_size=30), SIZES)
def test_random_reads_give_what_the_rules_gave(app: str, elements: list[mc.Element], size: tuple[int, int]) -> None:
    assert_alike(*both(app, elements, size))


@st.composite
def tree(draw: st.DrawFn, depth: int = 0) -> list[dict[str, object]]:
    """A nested ``Screen.from_dict`` tree: Toggles (a Switch in a Switch), containers, hidden parts."""
    out: list[dict[str, object]] = []
    for _ in range(draw(st.integers(0, 4 if depth < 3 else 0))):
        node: dict[str, object] = {
            "role": draw(st.sampled_from(("Switch", "Switch", "Other", "Cell", "Button", "StaticText", "Window"))),
            "label": draw(st.sampled_from(("", "", "Wi-Fi", "On", "Go", "Go"))),
            "id": draw(st.sampled_from(("", "", "toggle"))),
            "visible": draw(st.booleans() | st.just(True)),
            "frame": list(draw(st.tuples(UNIT, UNIT, UNIT, UNIT) | st.just((0.0, 0.0, 0.0, 0.0)))),
            "children": draw(tree(depth + 1)),
        }
        out.append(node)
    return out


@given(tree())
def test_random_trees_give_what_the_rules_gave(elements: list[dict[str, object]]) -> None:
    screen = mc.Screen.from_dict({"app": "com.example.yourapp", "elements": elements})
    assert_alike(screen, old_screen(screen.app, screen.elements, screen.size))


def test_a_toggle_and_a_frame_of_ints_give_what_the_rules_gave() -> None:
    # The fingerprint rounds a frame in ints the way it rounds floats (round() itself).
    toggle = [
        mc.Element("Switch", "Wi-Fi", frame=(0.1, 0.1, 0.8, 0.1), path="/0/0"),
        mc.Element("Switch", frame=(0.1, 0.1, 0.8, 0.1), path="/0/0/0"),
        mc.Element("Button", "Full", frame=(0, 0, 1, 1), path="/0/1"),
    ]
    new, old = both("com.example.yourapp", toggle)
    assert_alike(new, old)
    assert new.hidden == (None, Hidden.INNER_SWITCH, None)
    mixed = [attrs.evolve(toggle[2], frame=(0.5, 0, 0.25, 1)), toggle[0]]
    assert_alike(*both("com.example.yourapp", mixed))


#: The edges of the screen and of the numbers: every frame of four of them is judged as it was.
EDGES = (-1.0, -0.5, -0.0, 0.0, 5e-324, 0.5, 1 - 2**-53, 1.0, 1.5)
ODD = (-math.inf, math.nan, math.inf, 0.5, 1e308, -1e308)


@pytest.mark.parametrize("values", [EDGES, ODD], ids=["edges", "infinities"])
def test_every_frame_of_the_edges_is_judged_as_it_was(values: tuple[float, ...]) -> None:
    frames = [(x, y, w, h) for x in values for y in values for w in values for h in values]
    elements = [mc.Element("Button", f"b{i}", frame=f, path=f"/0/{i}") for i, f in enumerate(frames)]
    new, old = both("a.b", elements)
    assert_alike(new, old)
    assert 0 < len(new.shown) < len(frames)


def test_a_frame_that_cant_be_rounded_fails_the_fingerprint_as_it_did() -> None:
    new, old = both("a.b", [mc.Element("Button", "Go", frame=(math.nan, 0.1, 0.2, 0.2))])
    assert_alike(new, old)
    with pytest.raises(ValueError, match="NaN"):
        _ = new.fingerprint


@given(st.lists(st.tuples(st.sampled_from(ROLE_NAMES), TEXT), max_size=30))
def test_the_hash_of_any_pairs_is_the_canonical_jsons(pairs: list[tuple[str, str]]) -> None:
    # Screen.hash digests its pairs without the encoder (canon's Rule 5): the same text, byte for byte.
    elements = [mc.Element(role, label, path=f"/0/{i}") for i, (role, label) in enumerate(pairs)]
    new, old = both("a.b", elements)
    assert new.hash == old_signature_hash(new.signature_pairs) == signature_hash(old.signature_pairs)
    assert pairs_digest(new.signature_pairs, 16) == new.hash


def test_pairs_that_arent_strings_are_left_to_the_encoder() -> None:
    number: Any = 5
    assert pairs_digest([("Button", number)], 16) == digest([["Button", 5]], 16)
    assert pairs_digest([], 16) == digest([], 16) == signature_hash([])


PLAIN_FRAME = st.tuples(UNIT, UNIT, UNIT, UNIT) | st.tuples(
    st.floats(0.0, 4.0), st.floats(0.0, 4.0), st.floats(0.0, 4.0), st.floats(0.0, 4.0)
)


@given(APP_NAMES, st.lists(element(), max_size=20), PLAIN_FRAME, SIZES)
@example("a.b", [mc.Element("Button", frame=(0.0, 3.0, 0.0, 1e305))], (0.0, 0.0, 0.0, 0.0), (1, 1708))
def test_the_fingerprint_written_directly_is_the_canonical_json(
    app: str, elements: list[mc.Element], frame: Frame, size: tuple[int, int]
) -> None:
    # The writer's own text (canon's Rule 5), on frames of floats it writes itself and on points it
    # leaves to the encoder (past 4,096): the encoder's text, or the writer refuses.
    plain = [attrs.evolve(e, frame=frame if i % 2 else e.frame) for i, e in enumerate(elements)]
    width, height = size
    expected = outcome(lambda: canonical_json([app, OldScreen.rows(plain, width, height)]))
    try:
        written = _fingerprint_json(app, plain, width, height)
    except (TypeError, KeyError):
        assert not all(writable(e, width, height) for e in plain)  # it refused only what it leaves
    except (ValueError, OverflowError) as exc:
        assert expected is type(exc)  # a frame that can't be rounded, as round() raises
    else:
        assert written == expected


def writable(e: mc.Element, width: int, height: int) -> bool:
    """Would the writer write this element itself: a frame of floats, whole points 0 to 4,095?"""
    if not all(type(v) is float for v in e.frame):
        return False
    for v, s in zip(e.frame, (width, height, width, height), strict=True):  # in the writer's order
        try:
            point = round(v * s)
        except (ValueError, OverflowError):
            return True  # not a refusal: round() raises for it
        if not 0 <= point < 4096:
            return False
    return True


def test_the_fingerprint_writer_leaves_what_isnt_plain_to_the_encoder() -> None:
    go = mc.Element("Button", "Go", frame=(0.1, 0.1, 0.2, 0.2))
    assert _fingerprint_json("a.b", [go], 402, 874) == canonical_json(["a.b", OldScreen.rows([go], 402, 874)])
    careless: Any = 1  # what a careless caller may pass for a flag
    nothing: Any = None  # and for a label
    odd = [
        attrs.evolve(go, enabled=careless),
        attrs.evolve(go, frame=(0, 0, 1, 1)),
        attrs.evolve(go, frame=(-0.5, 0.1, 0.2, 0.2)),
        attrs.evolve(go, frame=(0.1, 0.1, 20.0, 0.2)),
    ]
    for e in odd:
        with pytest.raises((TypeError, KeyError)):
            _fingerprint_json("a.b", [e], 402, 874)
        new, old = both("a.b", [go, e])
        assert new.fingerprint == old.fingerprint
    no_label = attrs.evolve(go, label=nothing)
    with pytest.raises(TypeError):
        _fingerprint_json("a.b", [no_label], 402, 874)
    assert outcome(lambda: mc.Screen("a.b", (no_label,))) is TypeError  # no screen holds it, as before
    assert outcome(lambda: old_new_read("a.b", (no_label,))) is TypeError


# -- the matcher -----------------------------------------------------------------------------------


@given(
    st.lists(element(), max_size=25),
    st.lists(element(), max_size=25),
    st.sampled_from(("Go", "On", "Continue", "Z")),
    st.sampled_from(("Button", "Switch", "StaticText")),
    st.integers(1, 3).flatmap(lambda c: st.tuples(st.just(c), st.integers(0, c - 1))),
    st.booleans(),
)
def test_the_matcher_decides_alike_on_both_screens(
    recorded: list[mc.Element],
    now: list[mc.Element],
    label: str,
    role: str,
    count_nth: tuple[int, int],
    settled: bool,
) -> None:
    then = mc.Screen("com.example.yourapp", tuple(recorded))
    count, nth = count_nth
    target = {"label": label, "role": role, "id": "/0/1", "frame": [0.1, 0.1, 0.2, 0.1], "count": count, "nth": nth}
    screen_ref = {"hash": old_signature_hash(then.signature_pairs), "signature": then.signature}
    for op, tgt, current in (("TAP", target, now), ("TAP", target, recorded), ("HOME", None, now)):
        new, old = both("com.example.yourapp", current)  # another screen, and the recorded one again
        step = mc.Step.from_dict(
            {
                "op": op,
                "app": then.app,
                "target": tgt,
                "screen": screen_ref,
                "text": None,
                "commit": None,
                "live": False,
            }
        )
        assert mc.match_step(step, new, settled=settled) == old_match_step(step, old, settled=settled)


# -- the eight real WDA trees, read in place -------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read", ["evidence", "fast"])
def test_the_real_trees_give_what_the_rules_gave(name: str, read: str) -> None:
    source = tree_path(name).read_text("utf-8") if read == "evidence" else fast_source(name)
    screen = read_source(source, "com.example.tree").screen
    assert len(screen.elements) >= 10
    old = old_screen(screen.app, screen.elements, screen.size)
    assert_alike(screen, old)
    labelled = [e for e in screen.shown if e.label]
    assert labelled  # every tree shows labelled elements: the matcher has targets to find
    for e in labelled[:10]:
        found = screen.find(e.role, e.label)
        step = mc.Step.from_dict(
            {
                "op": "TAP",
                "app": screen.app,
                "target": {
                    "label": e.label,
                    "role": e.role,
                    "id": e.path,
                    "frame": list(e.frame),
                    "count": len(found),
                    "nth": [f.path for f in found].index(e.path),
                },
                "screen": {"hash": old.hash, "signature": old.signature},
                "text": None,
                "commit": None,
                "live": False,
            }
        )
        assert mc.match_step(step, screen, settled=True) == old_match_step(step, old, settled=True)
        assert mc.match_step(step, screen, settled=True).ok
