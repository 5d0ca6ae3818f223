"""WDA's source tree (JSON or XML) to a :class:`~mobster_core.Screen` (the actions' geometry: ``gestures``).

Pure: no I/O. One parser serves WebDriverAgent's two source shapes, for the WDA driver and for
the Appium driver (the XCUITest driver's ``mobile: source`` hands over WDA's own tree).

Rule 1 (shapes): a source is WDA's JSON (``GET /source?format=json``: one dict per element with
        ``type``, ``rawIdentifier``, ``name``, ``label``, ``value``, ``rect`` in points, string
        booleans ``isEnabled``/``isVisible`` as ``"1"``/``"0"`` (real booleans are accepted too),
        ``traits``, ``placeholderValue`` and ``children``) or WDA's XML (``format=xml``:
        ``XCUIElementType*`` tags with ``type``, ``name``, ``label``, ``value``, ``enabled``,
        ``visible``, ``x``/``y``/``width``/``height``, ``traits`` and ``placeholderValue``; the
        root also carries ``bundleId``). The XML becomes the JSON's nodes, and one walk makes the
        screen. The root is the application; its children are the screen's elements, paths
        ``/0/0``, ``/0/1``, … (``mobster_core``'s path rule).
Rule 2 (text): ``role`` is ``type`` without the ``XCUIElementType`` prefix. ``identifier`` is
        ``rawIdentifier`` when the node has that key; without it (the XML, an older WDA), ``name``
        when it differs from the label (WDA's name is the identifier, else the label). Text is
        cut at :data:`MAX_TEXT_CHARS`. A text input whose ``value`` is its ``placeholderValue``
        reads as value "" with that ``placeholder``: WDA reports an empty field's placeholder as
        its value.
Rule 3 (traits): ``traits`` are accessibility trait names, comma separated, in any order
        (``"Selected, Button"``); an element is selected when it has the ``Selected`` trait (or an
        ``isSelected`` flag).
Rule 4 (frames): frames are normalized by the screen size (the root's rect, else the size given)
        and clipped to 0..1.
Rule 5 (the evidence read): when the source carries WDA's own visibility, an element is visible
        when WDA marks the element itself visible and its frame overlaps the app's frame with
        positive area. Nothing is inherited: SwiftUI reports a Form's collection view as not
        visible while its rows show.
Rule 6 (the fast read): without WDA's visibility (the read that leaves it out, about 4 ms an
        element cheaper), it is rebuilt from what the tree does say, and what it can't decide is
        listed for WDA:
        a. clipped: the frame, cut to the app's frame and to the frame of every ancestor that has
           an area, keeps some area (a row scrolled out of its list is not visible);
        b. scroll indicators (an ``Other`` with the ``Adjustable`` trait whose value is a
           percentage) and what is inside them are not visible: they fade in and out;
        c. chrome: an element that lies entirely under a navigation bar, tab bar, toolbar or
           keyboard it is not part of is not visible;
        d. a front modal: with an Alert or a Sheet on screen, what came before it and is not part
           of it is not visible;
        e. ambiguous: a labelled element is *ambiguous* when an unrelated labelled element of the
           same role overlaps half of the smaller of the two (SwiftUI pages stacked in one place,
           all but one hidden by opacity, with full frames), or when the labelled content of a
           later sibling pane of it or of an ancestor covers half of it (a full-screen cover over
           the page it hides). Ambiguous elements count as visible here and are listed in
           :attr:`SourceRead.ambiguous`; the device asks WDA about them (:func:`visible_query`)
           and applies the answer (:func:`resolve`).
        What a fast read still can't see: an element hidden on its own (faded out with nothing
        stacked on it) reads as visible; the device's check before each tap catches it.
Rule 7 (bounds): a read walks at most :data:`MAX_NODES` nodes, none deeper than
        :data:`MAX_TREE_DEPTH`; the rest is left out. An XML source is at most
        :data:`MAX_XML_BYTES`, and one with a DOCTYPE or an entity declaration is refused: no entity
        is ever expanded.
"""

from __future__ import annotations

import json
import math
import re
import xml.parsers.expat
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from mobster_core import Element, Screen
from mobster_core.protocols import Frame

__all__ = [
    "MAX_NODES",
    "MAX_TEXT_CHARS",
    "MAX_XML_BYTES",
    "SourceRead",
    "keep_visible",
    "parse_xml_source",
    "read_source",
    "resolve",
    "screen_from_source",
    "source_bundle",
    "target_query",
    "visible_query",
]

#: The most nodes one read walks (Rule 7).
MAX_NODES = 12_000
#: How deep a read is walked; deeper nodes are left out, as WDA leaves them out past its depth.
MAX_TREE_DEPTH = 100
#: The longest label, value or identifier kept, in characters (Rule 2).
MAX_TEXT_CHARS = 4_000
#: The largest XML source read, in bytes (Rule 7).
MAX_XML_BYTES = 8 * 1024 * 1024
#: The most distinct labels one visibility query asks about; ambiguous elements beyond them count
#: as hidden (a screen that overlaps this much is not one a person reads either).
MAX_QUERY_LABELS = 100

_PREFIX = "XCUIElementType"
_FRAME_STRING = re.compile(r"\{\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\},\s*\{\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\}\}")
_PERCENT = re.compile(r"\d{1,3}%")
_CHROME = frozenset({"NavigationBar", "TabBar", "Toolbar", "Keyboard"})
_MODALS = frozenset({"Alert", "Sheet"})
_TEXT_INPUTS = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
_HALF = 0.5
# Bounds on Rule 6e's work: comparisons per read, and later panes kept per node.
_PAIR_BUDGET = 200_000
_PANE_BUDGET = 200_000
_PANES_PER_NODE = 64
# XML attribute -> the JSON source's key (Rule 1).
_XML_FLAGS = {"enabled": "isEnabled", "visible": "isVisible", "accessible": "isAccessible", "focused": "isFocused"}
_XML_TEXT = ("name", "label", "value", "traits", "placeholderValue", "bundleId", "processId")

_Rect = tuple[float, float, float, float]


@attrs.frozen
class SourceRead:
    """A source tree read into a screen (module rules).

    ``evidence`` says the source carried WDA's own visibility (Rule 5). ``ambiguous`` are the
    elements of a fast read that the tree can't decide (Rule 6e): they count as visible in
    ``screen`` until :func:`resolve` applies WDA's answer. ``rects`` holds their frames in points.
    """

    screen: Screen
    evidence: bool
    ambiguous: tuple[Element, ...] = ()
    rects: Mapping[str, _Rect] = attrs.field(factory=dict)


# -- reading a source ------------------------------------------------------------------------


def screen_from_source(source: Any, app: str, *, size: tuple[float, float] | None = None) -> Screen:
    """The screen of a JSON or XML source whose app in front is ``app`` (module rules).

    Ambiguous elements of a fast read (Rule 6e) count as visible: use :func:`read_source` and
    :func:`resolve` to ask WDA about them. Raises ``ValueError`` saying what is wrong.
    """
    return read_source(source, app, size=size).screen


def source_bundle(source: Any) -> str | None:
    """The bundle id a source's root names (the XML's ``bundleId``), or None."""
    tree = parse_xml_source(source) if isinstance(source, str | bytes) else source
    bundle = tree.get("bundleId") if isinstance(tree, Mapping) else None
    return bundle if isinstance(bundle, str) and bundle else None


def read_source(source: Any, app: str, *, size: tuple[float, float] | None = None) -> SourceRead:
    """Read a JSON tree (a mapping) or an XML source (text) into a screen (module rules).

    ``size`` is the screen size in points, used when the root has no usable rect. Raises
    ``ValueError`` saying what is wrong with a source that is not WDA's shape.
    """
    tree = parse_xml_source(source) if isinstance(source, str | bytes) else source
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
    nodes = _flatten(tree)
    evidence = any(n.flag is not None for n in nodes)
    if evidence:
        # A node without the flag in a read that has it (a hand-made tree) is judged on its frame.
        visible = [n.flag is not False and _area(_cut(n.rect, app_frame)) > 0 for n in nodes]
        ambiguous: list[int] = []
    else:
        visible, ambiguous = _rebuild(nodes, app_frame)
    elements = tuple(_element(n, visible[i], (width, height)) for i, n in enumerate(nodes))
    screen = Screen(app=app, elements=elements, size=(max(1, round(width)), max(1, round(height))))
    return SourceRead(
        screen=screen,
        evidence=evidence,
        ambiguous=tuple(elements[i] for i in ambiguous),
        rects={nodes[i].path: nodes[i].rect for i in ambiguous},
    )


def visible_query(ambiguous: Sequence[Element]) -> str | None:
    """WDA's predicate for the ambiguous elements that are visible, or None when there are none.

    ``label IN {…} AND visible == 1``: the label test comes first, so WDA asks the phone about
    the visibility of those elements only (about 4 ms each). At most ``MAX_QUERY_LABELS`` labels.
    """
    labels = sorted({e.label for e in ambiguous if e.label})[:MAX_QUERY_LABELS]
    if not labels:
        return None
    return "label IN {" + ", ".join(_quote(label) for label in labels) + "} AND visible == 1"


def target_query(element: Element) -> str:
    """WDA's predicate for this element's role and label (else identifier) when visible."""
    parts = [f"type == {_quote(_PREFIX + element.role)}"]
    if element.label:
        parts.append(f"label == {_quote(element.label)}")
    elif element.identifier:
        parts.append(f"name == {_quote(element.identifier)}")
    return " AND ".join([*parts, "visible == 1"])


def resolve(read: SourceRead, found: Iterable[Any] | None) -> Screen:
    """Apply WDA's answer to a fast read's ambiguous elements (Rule 6e).

    ``found`` is the value of ``POST /elements`` for :func:`visible_query`: the visible elements,
    each with ``type``, ``label`` and ``rect``. An ambiguous element among them stays visible;
    every other one is hidden. None (WDA couldn't answer) hides them all: a hidden label in a
    signature or a tap on it is worse than a missing one.
    """
    return keep_visible(read, visible_paths(read, found) if found is not None else frozenset())


def keep_visible(read: SourceRead, keep: frozenset[str]) -> Screen:
    """The read's screen with every ambiguous element hidden but those at the paths in ``keep``."""
    if not read.ambiguous:
        return read.screen
    asked = {e.path for e in read.ambiguous}
    elements = tuple(
        attrs.evolve(e, visible=False) if e.path in asked and e.path not in keep else e for e in read.screen.elements
    )
    return attrs.evolve(read.screen, elements=elements)


def visible_paths(read: SourceRead, found: Iterable[Any]) -> frozenset[str]:
    """The paths of the ambiguous elements WDA's answer says are visible."""
    seen: list[tuple[str, str, _Rect]] = []
    for item in found:
        if not isinstance(item, Mapping):
            continue
        kind, label, rect = item.get("type"), item.get("label"), _rect(item)
        if isinstance(kind, str) and rect is not None:
            seen.append((kind.removeprefix(_PREFIX), _text(label), rect))
    keep: set[str] = set()
    for e in read.ambiguous:
        rect = read.rects.get(e.path)
        if rect is None:
            continue
        if any(role == e.role and label == e.label and same_rect(rect, other) for role, label, other in seen):
            keep.add(e.path)
    return frozenset(keep)


def same_rect(a: _Rect, b: _Rect) -> bool:
    """Two rects in points are the same element's (WDA's rects are whole points; 1 pt of slack)."""
    return all(abs(p - q) <= 1.0 for p, q in zip(a, b, strict=True))


def _quote(text: str) -> str:
    # An NSPredicate string constant: JSON's escapes (\\ \" \n \t \uXXXX) are NSPredicate's.
    return json.dumps(text, ensure_ascii=False)


# -- the XML source ---------------------------------------------------------------------------


def parse_xml_source(source: str | bytes) -> dict[str, Any]:
    """WDA's XML source as the JSON source's nodes (Rules 1 and 7); ``ValueError`` when refused."""
    data = source.encode("utf-8") if isinstance(source, str) else source
    if len(data) > MAX_XML_BYTES:
        raise ValueError(f"the XML source is {len(data):,} bytes; the limit is {MAX_XML_BYTES:,}")
    parser = xml.parsers.expat.ParserCreate()
    # No DTD is read and no entity is declared or expanded (a "billion laughs" needs one).
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[dict[str, Any]] = []
    roots: list[dict[str, Any]] = []
    skipped = [0]  # depth inside a left-out subtree (Rule 7)
    count = [0]

    def refuse(*_args: Any) -> None:
        raise ValueError("the XML source has a DOCTYPE or an entity declaration; WDA's source has neither")

    def start(tag: str, attributes: dict[str, str]) -> None:
        if skipped[0] or len(stack) > MAX_TREE_DEPTH or count[0] >= MAX_NODES:
            skipped[0] += 1
            return
        count[0] += 1
        node = _xml_node(tag, attributes)
        if stack:
            stack[-1].setdefault("children", []).append(node)
        else:
            roots.append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        if skipped[0]:
            skipped[0] -= 1
            return
        stack.pop()

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)  # noqa: FBT003 - expat's own signature (isfinal)
    except xml.parsers.expat.ExpatError as exc:
        raise ValueError(f"the XML source is not well-formed XML ({exc})") from exc
    if len(roots) != 1:
        raise ValueError("the XML source has no root element")
    return roots[0]


def _xml_node(tag: str, attributes: Mapping[str, str]) -> dict[str, Any]:
    node: dict[str, Any] = {"type": attributes.get("type") or tag}
    for key in _XML_TEXT:
        if key in attributes:
            node[key] = attributes[key]
    for key, flag in _XML_FLAGS.items():
        if key in attributes:
            node[flag] = attributes[key]
    if all(k in attributes for k in ("x", "y", "width", "height")):
        node["rect"] = {k: attributes[k] for k in ("x", "y", "width", "height")}
    return node


# -- nodes ------------------------------------------------------------------------------------


@attrs.frozen
class _Node:
    """One element of the source, flattened in tree order; ``end`` is past its last descendant."""

    role: str
    label: str
    identifier: str
    value: str
    placeholder: str
    rect: _Rect
    enabled: bool
    flag: bool | None  # WDA's own visibility, None when the read left it out
    selected: bool
    traits: frozenset[str]
    path: str
    parent: int | None
    end: int


def _flatten(tree: Mapping[str, Any]) -> list[_Node]:
    """The root's descendants in tree order (Rule 7's bounds), without recursion."""
    raw: list[tuple[Mapping[str, Any], str, int | None]] = []
    ends: list[int] = []
    # (children, next index, parent's path, parent's index among the flattened nodes)
    stack: list[tuple[Sequence[Any], int, str, int | None]] = [(_children(tree, "/0"), 0, "/0", None)]
    while stack:
        children, index, parent, parent_at = stack[-1]
        if index >= len(children) or len(raw) >= MAX_NODES:
            stack.pop()
            if parent_at is not None:
                ends[parent_at] = len(raw)
            continue
        stack[-1] = (children, index + 1, parent, parent_at)
        node = children[index]
        path = f"{parent}/{index}"
        if not isinstance(node, Mapping):
            raise ValueError(f"the source node under {parent} at {index} is not an element")
        at = len(raw)
        raw.append((node, path, parent_at))
        ends.append(at + 1)
        if path.count("/") <= MAX_TREE_DEPTH:  # deeper than any real screen: not walked
            stack.append((_children(node, path), 0, path, at))
    return [_node(node, path, parent_at, ends[i]) for i, (node, path, parent_at) in enumerate(raw)]


def _node(node: Mapping[str, Any], path: str, parent: int | None, end: int) -> _Node:
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
    value = _text(node.get("value"))
    placeholder = _text(node.get("placeholderValue"))
    if placeholder and value == placeholder and role in _TEXT_INPUTS:
        value = ""  # an empty field: WDA reports its placeholder as its value (Rule 2)
    elif role not in _TEXT_INPUTS:
        placeholder = ""
    traits = _traits(node.get("traits"))
    flag = node.get("isVisible")
    return _Node(
        role=role,
        label=label,
        identifier=identifier,
        value=value,
        placeholder=placeholder,
        rect=_rect(node) or (0.0, 0.0, 0.0, 0.0),
        enabled=_flag(node.get("isEnabled"), default=True),
        flag=None if flag is None else _flag(flag, default=False),
        selected=_flag(node.get("isSelected"), default=False) or "Selected" in traits,
        traits=traits,
        path=path,
        parent=parent,
        end=end,
    )


def _element(node: _Node, visible: bool, size: tuple[float, float]) -> Element:
    return Element(
        role=node.role,
        label=node.label,
        identifier=node.identifier,
        value=node.value,
        frame=_normalized(node.rect, size),
        enabled=node.enabled,
        visible=visible,
        selected=node.selected,
        path=node.path,
        placeholder=node.placeholder,
    )


def _children(node: Mapping[str, Any], path: str) -> Sequence[Any]:
    children = node.get("children")
    if children is None:
        return ()
    if not isinstance(children, Sequence) or isinstance(children, str | bytes):
        raise ValueError(f"the source node at {path}: its children is not a list")
    return children


def _traits(value: Any) -> frozenset[str]:
    if not isinstance(value, str):
        return frozenset()
    return frozenset(t.strip() for t in value.split(",") if t.strip())


# -- Rule 6: visibility rebuilt from a fast read ------------------------------------------------


def _rebuild(nodes: Sequence[_Node], app: _Rect) -> tuple[list[bool], list[int]]:
    """Each node's visibility on a fast read, and the ambiguous ones (Rule 6)."""
    count = len(nodes)
    shown_rect: list[_Rect | None] = [None] * count
    # What each node lets its children show: its own cut rect, or, for a node without an area
    # (SwiftUI has some), what its parent lets through.
    passes: list[_Rect | None] = [None] * count
    for i, n in enumerate(nodes):  # a: clipped by the app and by every ancestor with an area
        clip = app if n.parent is None else passes[n.parent]
        rect = _cut(n.rect, clip) if clip is not None else None
        shown_rect[i] = rect
        passes[i] = rect if _area(n.rect) > 0 else clip
    hidden = [r is None for r in shown_rect]
    for i, n in enumerate(nodes):  # b: scroll indicators
        if not hidden[i] and n.role == "Other" and "Adjustable" in n.traits and _PERCENT.fullmatch(n.value):
            for k in range(i, n.end):
                hidden[k] = True
    for c, bar in enumerate(nodes):  # c: chrome on top
        bar_rect = shown_rect[c]
        if bar.role not in _CHROME or bar_rect is None or hidden[c]:
            continue
        for i in range(count):
            rect = shown_rect[i]
            if hidden[i] or rect is None or _related(nodes, i, c):
                continue
            if _inside(rect, bar_rect):
                hidden[i] = True
    modals = [m for m, n in enumerate(nodes) if n.role in _MODALS and not hidden[m]]
    if modals:  # d: the front modal
        front = modals[-1]
        for i in range(front):
            if not (i < front < nodes[i].end):
                hidden[i] = True
    ambiguous = _ambiguous(nodes, shown_rect, hidden)
    return [not h for h in hidden], ambiguous


def _related(nodes: Sequence[_Node], a: int, b: int) -> bool:
    """Is one of the two an ancestor of the other (or the same node)?"""
    return a == b or a < b < nodes[a].end or b < a < nodes[b].end


def _ambiguous(nodes: Sequence[_Node], shown_rect: Sequence[_Rect | None], hidden: Sequence[bool]) -> list[int]:
    """Rule 6e: the labelled visible nodes the tree can't decide, in tree order."""
    labelled = [i for i, n in enumerate(nodes) if n.label and not hidden[i] and shown_rect[i] is not None]
    found: set[int] = set()
    # Same-role pairs: sort by top edge and compare only with nodes that start above our bottom.
    # Bounded work: past the budget (a hostile tree of thousands of stacked nodes) every node not
    # yet compared counts as ambiguous, which is the careful side.
    by_role: dict[str, list[int]] = {}
    for i in labelled:
        by_role.setdefault(nodes[i].role, []).append(i)
    budget = _PAIR_BUDGET
    for group in by_role.values():
        group.sort(key=lambda i: _top(shown_rect[i]))
        for k, a in enumerate(group):
            if budget <= 0:
                found.update(group[k:])
                break
            ra = _must(shown_rect[a])
            for b in group[k + 1 :]:
                budget -= 1
                rb = _must(shown_rect[b])
                if rb[1] >= ra[1] + ra[3]:
                    break
                if _related(nodes, a, b) or (nodes[a].label == nodes[b].label and ra == rb):
                    continue  # a node in a node, or WDA listing one element twice
                overlap = _area(_cut(ra, rb))
                if overlap > 0 and overlap >= _HALF * min(_area(ra), _area(rb)):
                    found.update((a, b))
    # Panes: where a later sibling pane (of the node or of an ancestor) has labelled content, it
    # covers half of the node. Bounded work: a hostile tree of thousands of panes stops here.
    content = _content_boxes(nodes, shown_rect, hidden)
    panes = _later_panes(nodes, shown_rect, content)
    budget = _PANE_BUDGET
    for i in labelled:
        if i in found:
            continue
        rect = _must(shown_rect[i])
        index: int | None = i
        while index is not None and i not in found and budget > 0:
            for box in panes.get(index, ()):
                budget -= 1
                if _area(_cut(rect, box)) >= _HALF * _area(rect):
                    found.add(i)
                    break
            index = nodes[index].parent
    return sorted(found)


def _content_boxes(
    nodes: Sequence[_Node], shown_rect: Sequence[_Rect | None], hidden: Sequence[bool]
) -> list[_Rect | None]:
    """The box around each subtree's visible labelled nodes (None when it has none)."""
    boxes: list[_Rect | None] = [None] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        n = nodes[i]
        if n.label and not hidden[i]:
            boxes[i] = _union(boxes[i], shown_rect[i])
        if n.parent is not None and boxes[i] is not None:
            boxes[n.parent] = _union(boxes[n.parent], boxes[i])
    return boxes


def _later_panes(
    nodes: Sequence[_Node], shown_rect: Sequence[_Rect | None], content: Sequence[_Rect | None]
) -> dict[int, list[_Rect]]:
    """For each node, where each later sibling pane has labelled content (inside its own frame).

    A pane is a node with children; a leaf is compared pairwise. Only nodes with a later pane
    are keys.
    """
    siblings: dict[int | None, list[int]] = {}
    for i, n in enumerate(nodes):
        siblings.setdefault(n.parent, []).append(i)
    out: dict[int, list[_Rect]] = {}
    for group in siblings.values():
        boxes: list[_Rect] = []
        for i in reversed(group):
            if boxes:
                out[i] = list(boxes)
            frame, box = shown_rect[i], content[i]
            if nodes[i].end > i + 1 and frame is not None and box is not None:
                covered = _cut(frame, box)
                if covered is not None:
                    boxes.append(covered)
            if len(boxes) > _PANES_PER_NODE:
                break  # a bound: past 64 panes it is a long list, not a stack of pages
    return out


# -- geometry helpers -------------------------------------------------------------------------


def _must(rect: _Rect | None) -> _Rect:
    assert rect is not None  # callers filter on it
    return rect


def _top(rect: _Rect | None) -> float:
    return _must(rect)[1]


def _area(rect: _Rect | None) -> float:
    return 0.0 if rect is None else rect[2] * rect[3]


def _cut(a: _Rect, b: _Rect) -> _Rect | None:
    """The intersection of two rects, None when it has no area."""
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    if right <= left or bottom <= top:
        return None
    return (left, top, right - left, bottom - top)


def _inside(a: _Rect, b: _Rect) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[0] + a[2] <= b[0] + b[2] and a[1] + a[3] <= b[1] + b[3]


def _union(a: _Rect | None, b: _Rect | None) -> _Rect | None:
    if a is None:
        return b
    if b is None:
        return a
    left, top = min(a[0], b[0]), min(a[1], b[1])
    right, bottom = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (left, top, right - left, bottom - top)


def _number(value: Any) -> float | None:
    kind = value.__class__
    if kind is str or kind is float or kind is int:  # what a source holds: no isinstance chain
        try:
            number = float(value)
        except ValueError:
            return None
    elif isinstance(value, bool):
        return None
    elif isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _four(holder: Mapping[str, Any]) -> _Rect | None:
    """``x``, ``y``, ``width`` and ``height`` of ``holder`` as a rect in points, None unless all are numbers."""
    x, y = _number(holder.get("x")), _number(holder.get("y"))
    w, h = _number(holder.get("width")), _number(holder.get("height"))
    if x is None or y is None or w is None or h is None:
        return None
    return (x or 0.0, y or 0.0, max(0.0, w), max(0.0, h))  # -0.0 reads as 0.0


def _rect(node: Mapping[str, Any]) -> _Rect | None:
    rect = node.get("rect")
    if isinstance(rect, Mapping):
        four = _four(rect)
        if four is not None:
            return four
    frame = node.get("frame")
    if isinstance(frame, str):
        match = _FRAME_STRING.fullmatch(frame.strip())
        if match:
            x, y, w, h = (float(g) for g in match.groups())
            if all(math.isfinite(v) for v in (x, y, w, h)):
                return (x, y, max(0.0, w), max(0.0, h))
    if "x" in node and "y" in node and "width" in node and "height" in node:  # XML attributes given as keys
        return _four(node)
    return None


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _normalized(rect: _Rect, size: tuple[float, float]) -> Frame:
    width, height = size
    x, y, w, h = rect
    # _clip, written out: four calls a node.
    left, top = min(1.0, max(0.0, x / width)), min(1.0, max(0.0, y / height))
    right, bottom = min(1.0, max(0.0, (x + w) / width)), min(1.0, max(0.0, (y + h) / height))
    return (round(left, 6), round(top, 6), round(max(0.0, right - left), 6), round(max(0.0, bottom - top), 6))


def _text(value: Any) -> str:
    if value.__class__ is str:  # the common case first: no isinstance chain
        return value if len(value) <= MAX_TEXT_CHARS else value[:MAX_TEXT_CHARS]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS]


#: The spellings of a flag, as ``_flag`` reads a string (looked up before the general rule).
_FLAG_WORDS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _flag(value: Any, *, default: bool) -> bool:
    if value is None:
        return default
    if value.__class__ is str and value in _FLAG_WORDS:
        return _FLAG_WORDS[value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        return _FLAG_WORDS.get(value.strip().lower(), default)
    return default
