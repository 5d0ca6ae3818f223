"""The real WDA trees in ``../shared/wda-trees`` (read where they are, never copied), and the truth
about each, computed from the XML itself with the standard library only, independently of the
product's parser: which elements are shown by Mobster's rule, which are hidden.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import attrs
import pytest

#: Where the trees are, relative to the project root; tests skip when the folder is absent.
TREES = Path(__file__).resolve().parents[1].parent / "shared" / "wda-trees"
NAMES = (
    "daybreak-paywall.xml",
    "daybreak-settings.xml",
    "daybreak-today.xml",
    "hidden-pages.xml",
    "settings-about.xml",
    "settings-general.xml",
    "settings-root.xml",
    "tab-view.xml",
)
#: Why every test of the trees skips when the shared folder isn't there: one reason, so one line.
MISSING = (
    f"the shared WDA trees aren't at {TREES} (the shared WDA trees are read in place, never copied): "
    "the tests of real device trees need the project's shared/ folder beside its checkout"
)


def tree_path(name: str) -> Path:
    """The path of one tree; skips the test when the shared folder isn't there.

    A missing folder skips every test with the same reason, from this one line, so pytest's
    summary (``-ra``) says it once, with how many (``SKIPPED [57] tests/wda_trees.py:…``), not once a
    tree; a folder that is there without one of the trees names that tree.
    """
    if not TREES.is_dir():
        pytest.skip(MISSING)
    path = TREES / name
    if not path.is_file():
        pytest.skip(f"{path} is not here (the shared WDA trees are read in place, never copied)")
    return path


@attrs.frozen
class Truth:
    """One element of a tree as WDA reported it: its path (``/0/…``), role, label, id, and shown."""

    path: str
    role: str
    label: str
    identifier: str
    shown: bool
    visible: bool
    traits: frozenset[str]
    value: str


def truth(name: str) -> list[Truth]:
    """Every element under the application, with Mobster's "shown" rule applied to WDA's flags."""
    root = ET.parse(tree_path(name)).getroot()
    app = tuple(float(root.get(k, "0")) for k in ("x", "y", "width", "height"))
    out: list[Truth] = []

    def walk(node: ET.Element, path: str, in_switch: bool) -> None:
        role = node.tag.removeprefix("XCUIElementType")
        label = node.get("label") or ""
        name = node.get("name") or ""
        x, y, w, h = (float(node.get(k, "0")) for k in ("x", "y", "width", "height"))
        overlaps = min(x + w, app[0] + app[2]) - max(x, app[0]) > 0 and min(y + h, app[1] + app[3]) - max(y, app[1]) > 0
        identifier = name if name != label else ""
        inner_toggle = role == "Switch" and not label and not identifier and in_switch
        visible = node.get("visible") == "true"
        shown = visible and overlaps and role not in ("Application", "Window") and not inner_toggle
        traits = frozenset(t.strip() for t in (node.get("traits") or "").split(",") if t.strip())
        out.append(Truth(path, role, label, identifier, shown, visible, traits, node.get("value") or ""))
        for i, child in enumerate(node):
            walk(child, f"{path}/{i}", in_switch or role == "Switch")

    for i, child in enumerate(root):
        walk(child, f"/0/{i}", False)
    return out


def is_scroll_indicator(t: Truth, by_path: dict[str, Truth]) -> bool:
    """A scroll bar (an Other with the Adjustable trait and a percentage), or inside one."""
    path = t.path
    while path.count("/") >= 2:
        node = by_path.get(path)
        if node is not None and node.role == "Other" and "Adjustable" in node.traits and node.value.endswith("%"):
            return True
        path = path.rsplit("/", 1)[0]
    return False


def fast_source(name: str) -> str:
    """The tree as a fast read would bring it: without ``visible`` (every other attribute kept)."""
    text = tree_path(name).read_text("utf-8")
    return text.replace(' visible="true"', "").replace(' visible="false"', "")
