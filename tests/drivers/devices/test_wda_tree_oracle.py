"""The WDA source parser's helpers made faster read every value as they did (issue 27 item 5).

The helpers as they were (``mobster_drivers/_xcuitest/tree.py`` before the change) are kept here
as the oracle: a number, a rect (JSON's ``rect``, the frame string, the XML's attributes), a
text, a flag and a normalized frame must come out the same for any value a source may hold. The
eight real WDA trees, read in place as both reads, must give what they gave before: the screen,
the evidence flag, the ambiguous elements and their rects, digested (``repr`` keeps every float).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mobster_drivers._xcuitest import tree
from mobster_drivers._xcuitest.tree import MAX_TEXT_CHARS, read_source
from tests.wda_trees import NAMES, fast_source, tree_path

# -- the oracle: the helpers as they were ---------------------------------------------------------

_FRAME_STRING = re.compile(r"\{\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\},\s*\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\}\}")


def old_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def old_rect(node: Any) -> tuple[float, float, float, float] | None:
    rect = node.get("rect")
    if isinstance(rect, Mapping):
        nums = [old_number(rect.get(k)) for k in ("x", "y", "width", "height")]
        if all(n is not None for n in nums):
            x, y, w, h = (float(n or 0.0) for n in nums)
            return (x, y, max(0.0, w), max(0.0, h))
    frame = node.get("frame")
    if isinstance(frame, str):
        match = _FRAME_STRING.fullmatch(frame.strip())
        if match:
            x, y, w, h = (float(g) for g in match.groups())
            if all(math.isfinite(v) for v in (x, y, w, h)):
                return (x, y, max(0.0, w), max(0.0, h))
    if all(k in node for k in ("x", "y", "width", "height")):
        nums = [old_number(node.get(k)) for k in ("x", "y", "width", "height")]
        if all(n is not None for n in nums):
            x, y, w, h = (float(n or 0.0) for n in nums)
            return (x, y, max(0.0, w), max(0.0, h))
    return None


def old_clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def old_normalized(rect: tuple[float, float, float, float], size: tuple[float, float]) -> tuple[float, ...]:
    width, height = size
    x, y, w, h = rect
    left, top = old_clip(x / width), old_clip(y / height)
    right, bottom = old_clip((x + w) / width), old_clip((y + h) / height)
    return (round(left, 6), round(top, 6), round(max(0.0, right - left), 6), round(max(0.0, bottom - top), 6))


def old_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS]


def old_flag(value: Any, *, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes"):
            return True
        if lowered in ("0", "false", "no"):
            return False
    return default


class Text(str):
    """A string subclass, as a JSON library may hand one over."""

    __slots__ = ()


def same(a: object, b: object) -> bool:
    """Equal, and the same float where a float is (-0.0 is not 0.0 here)."""
    return repr(a) == repr(b) and type(a) is type(b)


# -- any value a source may hold ----------------------------------------------------------------

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from((0.0, -0.0, 1.5, 402, 0, -3, 10**400)),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.sampled_from(("0", "-0", "-0.0", "10", "12.5", " 7 ", "1e3", "nan", "inf", "-inf", "x", "", "0x10", "1_000")),
    st.text(alphabet="0123456789.-e ", max_size=6),
    st.none(),
    st.just([1]),
    st.builds(Text, st.sampled_from(("3", "oops", "-0"))),
)
TEXTS = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
    st.text(max_size=8),
    st.just("x" * (MAX_TEXT_CHARS + 3)),
    st.builds(Text, st.text(max_size=4)),
    st.builds(Text, st.just("y" * (MAX_TEXT_CHARS + 1))),
)
FLAGS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(("1", "0", "true", "false", "yes", "no", " True ", "NO", "maybe", "", "2")),
    st.builds(Text, st.sampled_from(("1", "false", "x"))),
    st.floats(0, 1),
)


def outcome(fn: Any) -> object:
    try:
        return ("value", fn())
    except (ValueError, OverflowError, TypeError) as exc:
        return ("raises", type(exc))


@given(NUMBERS)
def test_a_number_reads_as_it_did(value: Any) -> None:
    assert same(outcome(lambda: tree._number(value)), outcome(lambda: old_number(value)))


@given(NUMBERS, NUMBERS, NUMBERS, NUMBERS, st.sampled_from(("rect", "keys", "frame", "rect+keys")))
@example(-0.0, "-0", 1, 1, "rect")  # a negative zero reads as 0.0
@example("-0.0", -0.0, "1", "2", "keys")
@example(1, 2, -0.0, "-0", "rect+keys")
def test_a_rect_reads_as_it_did(x: Any, y: Any, w: Any, h: Any, shape: str) -> None:
    four = {"x": x, "y": y, "width": w, "height": h}
    node: dict[str, Any] = {"type": "XCUIElementTypeButton"}
    if "rect" in shape:
        node["rect"] = four
    if "keys" in shape:
        node.update({k: str(v) for k, v in four.items()})
    if shape == "frame":
        node["frame"] = "{{%s, %s}, {%s, %s}}" % (x, y, w, h)  # noqa: UP031 - WDA's own format
    assert same(outcome(lambda: tree._rect(node)), outcome(lambda: old_rect(node)))


@given(
    st.tuples(st.floats(-500, 1500), st.floats(-500, 1500), st.floats(0, 2000), st.floats(0, 2000))
    | st.tuples(st.integers(-5, 500).map(float), st.integers(-5, 900).map(float), st.just(402.0), st.just(44.0)),
    st.tuples(st.floats(1, 3000), st.floats(1, 3000)) | st.just((402.0, 874.0)),
)
def test_a_frame_normalizes_as_it_did(rect: tuple[float, float, float, float], size: tuple[float, float]) -> None:
    assert same(tree._normalized(rect, size), old_normalized(rect, size))


@given(TEXTS)
def test_a_text_reads_as_it_did(value: Any) -> None:
    assert same(tree._text(value), old_text(value))


@given(FLAGS, st.booleans())
def test_a_flag_reads_as_it_did(value: Any, default: bool) -> None:
    assert same(tree._flag(value, default=default), old_flag(value, default=default))


# -- the eight real trees, read in place ------------------------------------------------------

#: What each tree gave before the helpers were made faster: sha256 of the repr of the screen, the
#: evidence flag, the ambiguous elements and their rects (every float as Python prints it).
BEFORE = {
    ("daybreak-paywall.xml", "evidence"): "03873973fb1fce34",
    ("daybreak-paywall.xml", "fast"): "e4b888040751e3b9",
    ("daybreak-settings.xml", "evidence"): "7c86602f3de19c95",
    ("daybreak-settings.xml", "fast"): "13bf119de4511d67",
    ("daybreak-today.xml", "evidence"): "b95b58d29390d03c",
    ("daybreak-today.xml", "fast"): "fd2e2c0b4802989b",
    ("hidden-pages.xml", "evidence"): "868f0e6fe0da85aa",
    ("hidden-pages.xml", "fast"): "1dfef828cf264c02",
    ("settings-about.xml", "evidence"): "5346a992078b56a8",
    ("settings-about.xml", "fast"): "96890ae3def5f0c0",
    ("settings-general.xml", "evidence"): "1a95f05a8af33329",
    ("settings-general.xml", "fast"): "abd654c9e39a4039",
    ("settings-root.xml", "evidence"): "34793f6f9e18ab6d",
    ("settings-root.xml", "fast"): "335b8c502c4842a2",
    ("tab-view.xml", "evidence"): "44558593240add61",
    ("tab-view.xml", "fast"): "8aa566b9c820f478",
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read", ["evidence", "fast"])
def test_the_real_trees_read_as_they_did(name: str, read: str) -> None:
    source = tree_path(name).read_text("utf-8") if read == "evidence" else fast_source(name)
    r = read_source(source, "com.example.tree")
    assert r.evidence == (read == "evidence")
    text = repr((r.screen, r.evidence, r.ambiguous, sorted(r.rects.items())))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == BEFORE[name, read]
