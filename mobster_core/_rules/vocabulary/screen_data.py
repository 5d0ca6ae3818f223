"""A screen written as data (:meth:`Screen.from_dict <.screen.Screen.from_dict>`), read strictly.

Every key is known and every value of its type (a ``ValueError`` names the key); a tree is at most
``MAX_TREE_DEPTH`` levels deep and ``MAX_ELEMENTS`` elements large, and a frame is normalized
(the screen's Rule 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .elements import DEFAULT_SCREEN_SIZE, Element, Frame

__all__ = ["MAX_ELEMENTS", "MAX_TREE_DEPTH", "frame_from", "read_screen"]

_ELEMENT_KEYS = ("role", "label", "id", "value", "frame", "enabled", "visible", "selected", "placeholder", "children")


def read_screen(data: Mapping[str, Any]) -> tuple[str, tuple[Element, ...], tuple[int, int]]:
    """The app, the elements (depth first) and the size of a screen written as data."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a screen is a mapping with 'app' and 'elements', not {type(data).__name__}")
    extra = sorted(set(data) - {"app", "elements", "size"})
    if extra:
        raise ValueError(f"screen: unknown key {extra[0]!r} (keys: app, elements, size)")
    app = data.get("app")
    if not isinstance(app, str) or not app:
        raise ValueError("screen.app: expected the bundle id of the app in front, a non-empty string")
    raw = data.get("elements", [])
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise ValueError("screen.elements: expected a list of elements")
    size = _size(data.get("size", list(DEFAULT_SCREEN_SIZE)))
    out: list[Element] = []
    _flatten(raw, "/0", "elements", out)
    return app, tuple(out), size


def _size(value: Any) -> tuple[int, int]:
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        return (int(value[0]), int(value[1]))
    raise ValueError("screen.size: expected [width, height] in whole points, both above 0")


#: The deepest tree and the most elements a screen may have (WDA reads stop at depth 60).
MAX_TREE_DEPTH = 100
MAX_ELEMENTS = 20_000


def _flatten(raw: Sequence[Any], parent: str, where: str, out: list[Element]) -> None:
    if parent.count("/") > MAX_TREE_DEPTH:
        raise ValueError(f"screen.{where}: the tree is deeper than {MAX_TREE_DEPTH} levels")
    if len(out) + len(raw) > MAX_ELEMENTS:
        raise ValueError(f"screen.{where}: a screen has at most {MAX_ELEMENTS} elements")
    for index, item in enumerate(raw):
        key = f"{where}[{index}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"screen.{key}: expected a mapping with at least 'role'")
        extra = sorted(set(item) - set(_ELEMENT_KEYS))
        if extra:
            raise ValueError(f"screen.{key}: unknown key {extra[0]!r} (keys: {', '.join(_ELEMENT_KEYS)})")
        path = f"{parent}/{index}"
        out.append(
            Element(
                role=_text(item, "role", key, required=True),
                label=_text(item, "label", key),
                identifier=_text(item, "id", key),
                value=_text(item, "value", key),
                frame=frame_from(item.get("frame", (0.0, 0.0, 0.0, 0.0)), f"screen.{key}.frame"),
                enabled=_flag(item, "enabled", key, default=True),
                visible=_flag(item, "visible", key, default=True),
                selected=_flag(item, "selected", key, default=False),
                path=path,
                placeholder=_text(item, "placeholder", key),
            )
        )
        children = item.get("children", [])
        if not isinstance(children, Sequence) or isinstance(children, str):
            raise ValueError(f"screen.{key}.children: expected a list of elements")
        _flatten(children, path, f"{key}.children", out)


def _text(item: Mapping[str, Any], name: str, where: str, *, required: bool = False) -> str:
    value = item.get(name)
    if value is None:
        if required:
            raise ValueError(f"screen.{where}.{name}: required, a string")
        return ""
    if not isinstance(value, str):
        raise ValueError(f"screen.{where}.{name}: expected a string, got {value!r}")
    if required and not value:
        raise ValueError(f"screen.{where}.{name}: must not be empty")
    return value


def _flag(item: Mapping[str, Any], name: str, where: str, *, default: bool) -> bool:
    value = item.get(name, default)
    if not isinstance(value, bool):
        raise ValueError(f"screen.{where}.{name}: expected true or false, got {value!r}")
    return value


def frame_from(value: Any, where: str) -> Frame:
    """Validate a normalized frame ``[x, y, w, h]``: four numbers, each in 0..1."""
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 4:
        nums: list[float] = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                break
            if not 0.0 <= v <= 1.0:
                break
            nums.append(float(v))
        else:
            return (nums[0], nums[1], nums[2], nums[3])
    raise ValueError(f"{where}: expected [x, y, w, h], four numbers each in 0..1, got {value!r}")
