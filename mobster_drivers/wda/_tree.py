"""WDA's source tree to a :class:`~mobster_core.Screen`, and screen geometry for actions. Pure: no I/O.

Rule 1: the tree is WDA's JSON source (``GET /source?format=json``): one node per element with
        ``type``, ``rawIdentifier``, ``name``, ``label``, ``value``, ``rect`` (points) and string
        booleans ``"1"``/``"0"`` (real booleans are accepted too). The root is the application;
        its children are the screen's elements, paths ``/0/0``, ``/0/1``, … (``mobster_core``'s
        path rule).
Rule 2: ``role`` is ``type`` without any ``XCUIElementType`` prefix. ``identifier`` is
        ``rawIdentifier`` when the node has that key (the accessibility identifier, null when
        empty); on an older WDA without it, ``name`` when it differs from the label (WDA's name is
        the identifier, else the label). ``label`` and ``value`` are strings, empty when null.
Rule 3: frames are normalized by the screen size (the root's rect, else the size given) and
        clipped to 0..1.
Rule 4: visibility is rebuilt from frames, because the fast read leaves out WDA's costly
        ``visible`` attribute: an element is visible when its rect overlaps the app's frame with
        some area. When the node still carries ``isVisible`` (a full read), that must hold too.
Rule 5: a read is bounded: at most :data:`MAX_NODES` nodes are walked, none deeper than
        :data:`MAX_TREE_DEPTH` (a runaway table view must not stall a run); the rest is left out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mobster_core import Element, Op, Screen
from mobster_core._screen import Frame

__all__ = [
    "LONG_PRESS_MS",
    "MAX_NODES",
    "W3C_TAP_HOLD_MS",
    "center_points",
    "pointer_actions",
    "screen_from_source",
    "swipe_points",
]

#: The most nodes one read walks (Rule 5).
MAX_NODES = 12_000
#: How deep a read is walked; deeper nodes are left out, as WDA leaves them out past its depth.
MAX_TREE_DEPTH = 100
#: How long a tap holds the finger down, in milliseconds (as Mobster's W3C tap).
W3C_TAP_HOLD_MS = 40
#: How long a long press holds, in milliseconds.
LONG_PRESS_MS = 1_000

_PREFIX = "XCUIElementType"
_FRAME_STRING = re.compile(r"\{\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\},\s*\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\}\}")


def screen_from_source(tree: Any, app: str, *, size: tuple[float, float] | None = None) -> Screen:
    """The screen of a JSON source tree whose app in front is ``app`` (module rules).

    ``size`` is the screen size in points, used when the root has no usable rect. Raises
    ``ValueError`` saying what is wrong with a tree that is not WDA's shape.
    """
    if not isinstance(tree, Mapping):
        raise ValueError(f"the source is not a tree of elements (got {type(tree).__name__})")
    root_rect = _rect(tree)
    if root_rect is not None and root_rect[2] > 0 and root_rect[3] > 0:
        width, height = root_rect[2], root_rect[3]
        app_frame = root_rect
    elif size is not None and size[0] > 0 and size[1] > 0:
        width, height = float(size[0]), float(size[1])
        app_frame = (0.0, 0.0, width, height)
    else:
        raise ValueError("the source's root has no rect and the screen size is unknown")
    out: list[Element] = []
    budget = [MAX_NODES]
    _walk(_children(tree), "/0", size=(width, height), app_frame=app_frame, out=out, budget=budget)
    return Screen(app=app, elements=tuple(out), size=(max(1, round(width)), max(1, round(height))))


def _walk(
    nodes: Sequence[Any],
    parent: str,
    *,
    size: tuple[float, float],
    app_frame: tuple[float, float, float, float],
    out: list[Element],
    budget: list[int],
) -> None:
    if parent.count("/") > MAX_TREE_DEPTH:
        return  # deeper than any real screen (WDA itself stops at snapshotMaxDepth 60): not walked
    for index, node in enumerate(nodes):
        if budget[0] <= 0:
            return
        budget[0] -= 1
        if not isinstance(node, Mapping):
            raise ValueError(f"the source node under {parent} at {index} is not an element")
        path = f"{parent}/{index}"
        out.append(_element(node, path, size, app_frame))
        _walk(_children(node), path, size=size, app_frame=app_frame, out=out, budget=budget)


def _element(
    node: Mapping[str, Any], path: str, size: tuple[float, float], app_frame: tuple[float, float, float, float]
) -> Element:
    kind = node.get("type")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"the source node at {path} has no type")
    role = kind.removeprefix(_PREFIX) or kind
    label = _text(node.get("label"))
    if "rawIdentifier" in node:
        identifier = _text(node.get("rawIdentifier"))
    else:
        name = _text(node.get("name"))
        identifier = name if name != label else ""
    rect = _rect(node) or (0.0, 0.0, 0.0, 0.0)
    visible = _overlaps(rect, app_frame) and _flag(node.get("isVisible"), default=True)
    traits = node.get("traits")
    selected = _flag(node.get("isSelected"), default=False) or (isinstance(traits, str) and "Selected" in traits)
    return Element(
        role=role,
        label=label,
        identifier=identifier,
        value=_text(node.get("value")),
        frame=_normalized(rect, size),
        enabled=_flag(node.get("isEnabled"), default=True),
        visible=visible,
        selected=selected,
        path=path,
    )


def _children(node: Mapping[str, Any]) -> Sequence[Any]:
    children = node.get("children")
    if children is None:
        return ()
    if not isinstance(children, Sequence) or isinstance(children, str):
        raise ValueError("a source node's children is not a list")
    return children


def _number(value: Any) -> float | None:
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


def _rect(node: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    rect = node.get("rect")
    if isinstance(rect, Mapping):
        nums = [_number(rect.get(k)) for k in ("x", "y", "width", "height")]
        if all(n is not None for n in nums):
            x, y, w, h = (float(n or 0.0) for n in nums)
            return (x, y, max(0.0, w), max(0.0, h))
    frame = node.get("frame")
    if isinstance(frame, str):
        match = _FRAME_STRING.fullmatch(frame.strip())
        if match:
            x, y, w, h = (float(g) for g in match.groups())
            return (x, y, max(0.0, w), max(0.0, h))
    if all(k in node for k in ("x", "y", "width", "height")):  # the XML source's attributes
        nums = [_number(node.get(k)) for k in ("x", "y", "width", "height")]
        if all(n is not None for n in nums):
            x, y, w, h = (float(n or 0.0) for n in nums)
            return (x, y, max(0.0, w), max(0.0, h))
    return None


def _overlaps(rect: tuple[float, float, float, float], app: tuple[float, float, float, float]) -> bool:
    x, y, w, h = rect
    ax, ay, aw, ah = app
    return min(x + w, ax + aw) - max(x, ax) > 0 and min(y + h, ay + ah) - max(y, ay) > 0


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _normalized(rect: tuple[float, float, float, float], size: tuple[float, float]) -> Frame:
    width, height = size
    x, y, w, h = rect
    left, top = _clip(x / width), _clip(y / height)
    right, bottom = _clip((x + w) / width), _clip((y + h) / height)
    return (round(left, 6), round(top, 6), round(max(0.0, right - left), 6), round(max(0.0, bottom - top), 6))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _flag(value: Any, *, default: bool) -> bool:
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


# -- geometry for actions ---------------------------------------------------------------------


def center_points(frame: Frame, size: tuple[int, int]) -> tuple[float, float]:
    """The centre of a normalized frame in points on a screen of ``size`` points (0.5 pt steps)."""
    x, y, w, h = frame
    width, height = size
    return (_half(min(width - 1.0, (x + w / 2) * width)), _half(min(height - 1.0, (y + h / 2) * height)))


def _half(value: float) -> float:
    return max(0.0, round(value * 2) / 2)


def pointer_actions(x: float, y: float, hold_ms: int) -> dict[str, Any]:
    """A W3C actions body: one finger moves to (x, y) points, goes down, holds, and lifts."""
    return {
        "actions": [
            {
                "type": "pointer",
                "id": "finger1",
                "parameters": {"pointerType": "touch"},
                "actions": [
                    {"type": "pointerMove", "duration": 0, "x": x, "y": y},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pause", "duration": hold_ms},
                    {"type": "pointerUp", "button": 0},
                ],
            }
        ]
    }


def swipe_points(op: Op, frame: Frame | None, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """Where a swipe starts and ends, in points: ``(from_x, from_y, to_x, to_y)``.

    A swipe runs from 75% to 25% of its region (the element's frame, else the whole screen) along
    its axis, through the region's centre: ``SWIPE_UP`` moves the finger up (the content scrolls
    down), as XCTest's ``swipeUp``.
    """
    x, y, w, h = frame if frame is not None else (0.0, 0.0, 1.0, 1.0)
    cx, cy = x + w / 2, y + h / 2
    near_x, far_x = x + 0.25 * w, x + 0.75 * w
    near_y, far_y = y + 0.25 * h, y + 0.75 * h
    ends = {
        Op.SWIPE_UP: (cx, far_y, cx, near_y),
        Op.SWIPE_DOWN: (cx, near_y, cx, far_y),
        Op.SWIPE_LEFT: (far_x, cy, near_x, cy),
        Op.SWIPE_RIGHT: (near_x, cy, far_x, cy),
    }
    if op not in ends:
        raise ValueError(f"{op} is not a swipe")
    fx, fy, tx, ty = ends[op]
    width, height = size
    return (_half(fx * width), _half(fy * height), _half(tx * width), _half(ty * height))
