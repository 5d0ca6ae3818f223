"""The source WDA writes (JSON or XML) from the phone's screen, and a captured tree to serve.

Rule 4: the source is WDA's: JSON (``type`` without the prefix, ``rawIdentifier``, string booleans
        ``"1"``/``"0"``, ``rect`` in whole points, ``frame``, ``traits`` as trait names such as
        ``"Selected, Button"``, ``placeholderValue`` on text inputs) or XML (``XCUIElementType``
        tags, ``"true"``/``"false"``). ``excluded_attributes`` removes attributes and nothing
        else: a hidden view keeps its full frame, so a read without ``visible`` can't tell it
        from a shown one, as on WDA. An empty field with a placeholder reports the placeholder as
        its value, as on WDA.
Rule 12: a captured tree (``tree=``) is served as a static app: its bundle (the XML root's
         ``bundleId``, or ``bundle=``) is installed and in front after a launch, its tree never
         changes, taps on it change nothing. It is served in both formats and leaves out what
         real WDA leaves out; what the capture didn't record (``accessible`` when the capture
         excluded it) is left out of every reply.

Checked against ``FBAccessibilityTraits`` (trait names) and ``../shared/wda-trees`` (real iOS 26.4
captures: hidden views keep their frames, whole-point rects, trait names, ``placeholderValue``).
Not checked, so the fake errs on the harsh side: the JSON ``traits`` order (WDA's comes from a
dictionary; the fake uses the order seen in the captures).
"""

from __future__ import annotations

import json
import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mobster_core import Element, Screen
from mobster_drivers._xcuitest.tree import parse_xml_source
from mobster_drivers.devices.scripted import AppScript

__all__ = [
    "PREFIX",
    "TEXT_INPUTS",
    "accessibility_tree",
    "frame_string",
    "load_tree",
    "node_at",
    "node_flag",
    "node_traits",
    "node_visible",
    "screen_tree",
    "served",
    "static_script",
    "walk",
    "walk_paths",
]

PREFIX = "XCUIElementType"
#: ``excluded_attributes`` names -> the JSON source's keys (Rule 4).
_JSON_KEYS = {
    "visible": "isVisible",
    "accessible": "isAccessible",
    "enabled": "isEnabled",
    "focused": "isFocused",
    "frame": "frame",
    "traits": "traits",
    "placeholderValue": "placeholderValue",
    "nativeFrame": "nativeFrame",
    "minValue": "minValue",
    "maxValue": "maxValue",
}
#: ``excluded_attributes`` names -> the XML source's attributes (``index`` is XML only).
_XML_KEYS = {
    "visible": "visible",
    "accessible": "accessible",
    "enabled": "enabled",
    "focused": "focused",
    "index": "index",
    "traits": "traits",
    "placeholderValue": "placeholderValue",
}
#: Trait names in the order the iOS 26.4 captures list them (Rule 4).
_TRAIT_ORDER = (
    "ToggleButton",
    "Selected",
    "NotEnabled",
    "Header",
    "StaticText",
    "Button",
    "Image",
    "Link",
    "SearchField",
    "Adjustable",
)
#: The traits an element of a role has by itself (as the captures show them).
_ROLE_TRAITS: Mapping[str, tuple[str, ...]] = {
    "Button": ("Button",),
    "StaticText": ("StaticText",),
    "Image": ("Image",),
    "Icon": ("Image",),
    "Link": ("Link",),
    "SearchField": ("SearchField",),
    "Switch": ("ToggleButton", "Button"),
    "Toggle": ("ToggleButton", "Button"),
    "Slider": ("Adjustable",),
    "Tab": ("Button",),
}
TEXT_INPUTS = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})


def load_tree(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A captured source (WDA's XML or JSON) as the JSON source's nodes; ``ValueError`` says why not."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ValueError(f"{file}: can't read the tree ({exc.strerror or exc})") from exc
    text = data.lstrip()
    try:
        if text.startswith(b"{"):
            tree = json.loads(data)
            if isinstance(tree, Mapping) and "value" in tree and "type" not in tree:
                tree = tree["value"]  # a whole WDA reply saved as it came
        else:
            tree = parse_xml_source(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: not a WDA source (XML or JSON): {exc}") from exc
    if not isinstance(tree, Mapping) or not isinstance(tree.get("type"), str):
        raise ValueError(f"{file}: not a WDA source: the root is not an element with a type")
    return _canonical(tree)


def _canonical(node: Mapping[str, Any]) -> dict[str, Any]:
    """A source node as the JSON source writes it (Rule 4), from XML or JSON input."""
    out: dict[str, Any] = {"type": str(node.get("type", "Other")).removeprefix(PREFIX) or "Other"}
    label = _str_or_none(node.get("label"))
    name = _str_or_none(node.get("name"))
    if "rawIdentifier" in node:
        out["rawIdentifier"] = _str_or_none(node.get("rawIdentifier"))
    else:  # the XML has no identifier of its own: WDA's name is the identifier, else the label
        out["rawIdentifier"] = name if name is not None and name != label else None
    out["name"] = name
    out["label"] = label
    out["value"] = _str_or_none(node.get("value"))
    x, y, w, h = _whole_rect(node)
    out["rect"] = {"x": x, "y": y, "width": w, "height": h}
    out["frame"] = frame_string(x, y, w, h)
    for key in ("isEnabled", "isVisible", "isAccessible", "isFocused"):
        if key in node:
            out[key] = "1" if str(node[key]).strip().lower() in ("1", "true", "yes") else "0"
    for key in ("traits", "placeholderValue", "bundleId", "processId"):
        if node.get(key) is not None:
            out[key] = str(node[key])
    children = node.get("children")
    if isinstance(children, Sequence) and not isinstance(children, str) and children:
        out["children"] = [_canonical(c) for c in children if isinstance(c, Mapping)]
    return out


def _whole_rect(node: Mapping[str, Any]) -> tuple[int, int, int, int]:
    rect = node.get("rect")
    values: list[Any] = (
        [rect.get(k) for k in ("x", "y", "width", "height")]
        if isinstance(rect, Mapping)
        else [node.get(k) for k in ("x", "y", "width", "height")]
    )
    out: list[int] = []
    for v in values:
        try:
            number = float(v)
        except (TypeError, ValueError):
            number = 0.0
        out.append(round(number) if math.isfinite(number) else 0)
    return out[0], out[1], max(0, out[2]), max(0, out[3])


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text or None


def static_script(tree: Mapping[str, Any], bundle: str, ios: str) -> AppScript:
    """A one-app script standing in for a captured tree: it installs and launches the bundle (Rule 12)."""
    rect = tree.get("rect", {})
    width, height = rect.get("width", 0), rect.get("height", 0)
    if not (isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0):
        raise ValueError("the tree's root has no size: it needs a rect with a width and a height")
    name = tree.get("label") or tree.get("name") or bundle
    script = {
        "version": 1,
        "device": {"name": "Captured tree", "ios": ios, "kind": "simulator", "size": [width, height]},
        "latency": "zero",
        "apps": {
            bundle: {
                "name": str(name),
                "version": "1",
                "build": "1",
                "launch": "captured",
                "screens": {"captured": []},
            }
        },
    }
    return AppScript.from_dict(script, source="<captured tree>")


def screen_tree(screen: Screen, size: tuple[int, int], name: str, pid: int) -> dict[str, Any]:
    """The app in front as WDA's JSON source with every attribute (Rule 4).

    ``size`` is the screen's in points; ``name`` and ``pid`` are the app's.
    """
    width, height = size
    root: dict[str, Any] = {
        "type": "Application",
        "rawIdentifier": None,
        "name": name,
        "label": name,
        "value": None,
        "rect": {"x": 0, "y": 0, "width": width, "height": height},
        "frame": frame_string(0, 0, width, height),
        "isEnabled": "1",
        "isVisible": "1",
        "isAccessible": "0",
        "isFocused": "0",
        "traits": "",
        "bundleId": screen.app,
        "processId": str(pid),
    }
    nodes: dict[str, dict[str, Any]] = {"/0": root}
    for e in screen.elements:
        x, y, w, h = e.frame
        # Whole points, as WDA's rects are; a hidden view keeps its frame (Rule 4).
        px, py = round(x * width), round(y * height)
        pw, ph = round((x + w) * width) - px, round((y + h) * height) - py
        value: str | None = e.value or None
        node: dict[str, Any] = {
            "type": e.role,
            "rawIdentifier": e.identifier or None,
            "name": e.identifier or e.label or None,
            "label": e.label or None,
            "value": value,
            "rect": {"x": px, "y": py, "width": pw, "height": ph},
            "frame": frame_string(px, py, pw, ph),
            "isEnabled": "1" if e.enabled else "0",
            "isVisible": "1" if e.visible else "0",
            "isAccessible": "1" if e.label else "0",
            "isFocused": "0",
            "traits": _trait_names(e),
        }
        if e.role in TEXT_INPUTS and e.placeholder:
            node["placeholderValue"] = e.placeholder
            if not e.value:
                node["value"] = e.placeholder  # WDA reports an empty field's placeholder as its value
        nodes[e.path] = node
        parent = nodes.get(e.path.rsplit("/", 1)[0], root)
        parent.setdefault("children", []).append(node)
    return root


def served(tree: dict[str, Any], excluded: frozenset[str], fmt: str) -> Any:
    """The source as sent: JSON or XML, without the excluded attributes, and nothing else gone."""
    if fmt == "xml":
        return _xml(tree, excluded)
    gone = {_JSON_KEYS[a] for a in excluded if a in _JSON_KEYS} | {"bundleId", "processId"}
    for node in walk(tree):
        for key in gone:
            node.pop(key, None)
    return tree


def _xml(tree: Mapping[str, Any], excluded: frozenset[str]) -> str:
    """WDA's XML source: ``XCUIElementType`` tags, attributes in the captures' order (Rule 4)."""
    gone = {_XML_KEYS[a] for a in excluded if a in _XML_KEYS}

    def build(node: Mapping[str, Any], index: int, is_root: bool) -> ET.Element:
        tag = PREFIX + str(node["type"])
        rect = node.get("rect", {})
        attributes: dict[str, str] = {"type": tag}
        for key in ("value", "name", "label"):
            if node.get(key) is not None:
                attributes[key] = str(node[key])
        for key, name in (("isEnabled", "enabled"), ("isVisible", "visible"), ("isAccessible", "accessible")):
            if key in node:
                attributes[name] = "true" if node[key] == "1" else "false"
        for key in ("x", "y", "width", "height"):
            attributes[key] = str(rect.get(key, 0))
        attributes["index"] = str(index)
        if node.get("placeholderValue") is not None:
            attributes["placeholderValue"] = str(node["placeholderValue"])
        if "traits" in node:
            attributes["traits"] = str(node["traits"])
        if is_root:
            for key in ("processId", "bundleId"):
                if node.get(key) is not None:
                    attributes[key] = str(node[key])
        for name in gone:
            attributes.pop(name, None)
        element = ET.Element(tag, attributes)
        for i, child in enumerate(node.get("children", [])):
            element.append(build(child, i, is_root=False))
        return element

    root = build(tree, 0, is_root=True)
    return '<?xml version="1.0" encoding="UTF-8"?>' + ET.tostring(root, encoding="unicode")


def _trait_names(e: Element) -> str:
    names = set(_ROLE_TRAITS.get(e.role, ()))
    if e.selected:
        names.add("Selected")
    if not e.enabled:
        names.add("NotEnabled")
    return ", ".join(t for t in _TRAIT_ORDER if t in names)


def node_flag(node: Mapping[str, Any], key: str, *, default: bool) -> bool:
    value = node.get(key)
    return default if value is None else str(value) == "1"


def node_traits(node: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(t.strip() for t in str(node.get("traits") or "").split(",") if t.strip())


def node_visible(node: Mapping[str, Any]) -> bool:
    if "isVisible" in node:
        return str(node["isVisible"]) == "1"
    rect = node.get("rect", {})  # a capture without the flag: only what has an area can show
    return bool(rect.get("width", 0)) and bool(rect.get("height", 0))


def walk(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The root, then its descendants in tree order (no recursion)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("children", [])))


def walk_paths(tree: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The root (``/0``), then its descendants in tree order, each with its index path."""
    stack = [("/0", tree)]
    while stack:
        path, node = stack.pop()
        yield path, node
        children = node.get("children", [])
        stack.extend((f"{path}/{i}", child) for i, child in reversed(list(enumerate(children))))


def node_at(tree: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The node at an index path (``/0/2/1``), None when there is none."""
    node: dict[str, Any] | None = tree
    for index in path.split("/")[2:]:
        children = node.get("children", []) if node is not None else []
        position = int(index)
        node = children[position] if 0 <= position < len(children) else None
    return node


def accessibility_tree(node: Mapping[str, Any]) -> dict[str, Any]:
    """``fb_accessibilityTree``: the accessible elements only, each with the accessible ones under it."""
    out: dict[str, Any] = {k: node.get(k) for k in ("type", "label", "name", "value", "rawIdentifier")}
    out["rect"] = dict(node.get("rect", {}))
    children: list[dict[str, Any]] = []
    for child in node.get("children", []):
        sub = accessibility_tree(child)
        if node_flag(child, "isAccessible", default=False):
            children.append(sub)
        else:
            children.extend(sub.get("children", []))
    if children:
        out["children"] = children
    return out


def frame_string(x: float, y: float, w: float, h: float) -> str:
    return f"{{{{{x}, {y}}}, {{{w}, {h}}}}}"
