r"""Android's accessibility tree (both dump formats) to a :class:`~mobster_core.Screen`.

Pure: no I/O. One reader serves the UiAutomator2 server's page source (``GET /session/:id/source``,
what Appium returns) and ``adb shell uiautomator dump``, for the Android driver, the fake server's
tests and ``mobster inspect`` of a capture. The facts are appium-uiautomator2-server 10.6.2's
(``core/AccessibilityNodeInfoDumper.java``, ``model/UiElementSnapshot.java``) and AOSP's
``cmds/uiautomator`` ``AccessibilityNodeInfoDumper.java``, checked against the twelve real dumps in
``../shared/android-trees`` (their tests read each in place).

Rule 1 (formats): the server writes ``<hierarchy index="0" class="hierarchy" rotation width
        height>`` and one element a node, its tag the class (``$`` written ``.``), attributes
        left out when null (``content-desc``, ``resource-id``, ``package``, ``hint``), with
        ``displayed``, ``showing-hint``, ``a11y-important``, ``heading``, ``pane-title`` and
        more. ``uiautomator dump`` writes ``<hierarchy rotation>`` and ``<node>`` elements whose
        attributes are always there (``""`` for null), ``NAF="true"`` on a node that is clickable
        with no text or description anywhere below it, and (newer devices) ``hint`` and
        ``drawing-order``. openatx's dumper adds ``visible-to-user``. An attribute that is absent
        reads as empty (false); unknown attributes are ignored.
Rule 2 (the tree): ``<hierarchy>`` is the app's root (``/0``); each of its children is a window's
        root (``/0/0``: the active window; the server appends a caught toast, ``android.widget.
        Toast``, as another); their nodes follow in document order (``/0/0/3/1``), counted as they
        are in the read (the ``index`` attribute counts the view's children before the hidden ones
        were dropped, so it has gaps: it is not the path).
Rule 3 (the app in front): the package of the first window root that is not a toast (a dialog's
        window holds only the dialog: ``android`` for a system dialog, the permission
        controller for a permission prompt), else the first package any node names.
Rule 4 (frames): ``bounds="[x1,y1][x2,y2]"`` in pixels, normalized by the screen's size: the size
        the caller gives (the device's), else the root's ``width``/``height`` (the server's, the
        app area), else the box of the window roots (a ``uiautomator dump``'s full-screen app);
        clipped to 0..1. ``Screen.size`` is that size in pixels.
Rule 5 (shown): a node is visible when neither ``displayed`` nor ``visible-to-user`` is
        ``"false"`` and its bounds have an area: both dumps leave hidden views out and keep a
        view scrolled or clipped off the screen as ``[0,0][0,0]``, which is not shown (an all-zero
        frame means "no geometry" to the core, so the reader marks such a node not visible). The
        core's one shown rule does the rest, as on iOS: nothing is inherited.
Rule 6 (roles): ``roles.role_of`` (the one mapping).
Rule 7 (labels, values, placeholders): the label is ``content-desc``, else ``text``. A text input's
        label is ``content-desc``, else its ``hint`` (the name TalkBack reads); its value is its
        ``text`` unless that is the hint it shows (``showing-hint="true"``, or ``text`` equal to a
        non-empty ``hint``: Android reports an empty field's hint as its text), and its
        ``placeholder`` is the hint. A control with a state (a switch, a check box, a radio button,
        a toggle) is labelled by ``content-desc``, else by its ``text`` unless that is only
        ``ON``/``OFF``; its value is ``1`` or ``0`` from ``checked`` (as XCUITest's). A slider's
        or progress bar's ``text`` is its value when it is a number (the server's RangeInfo,
        ``"0.5"``), else its label. Texts keep their line breaks (``Explorer\nTab 1 of
        3`` is one label) and are cut at :data:`MAX_TEXT_CHARS`.
Rule 8 (password): a ``password="true"`` node is a ``SecureTextField`` whose value is one bullet
        (U+2022) a character Android exposes (its own bullets, and the last character it shows in
        clear for 1.5 s), and "" while it shows its hint: the text itself never leaves the reader,
        so it is never stored, shown, journaled or replayed; the typing rule counts the bullets,
        as on iOS.
Rule 9 (ids): the identifier is ``resource-id`` with the node's own package's ``<package>:id/``
        taken off (``com.example.yourapp:id/email`` is ``email``, as the app names it, and as a
        Compose ``testTag`` mapped to the resource id already is); another package's id is kept
        whole (``android:id/button1``, ``com.android.permissioncontroller:id/permission_allow_button``
        on Google's controller, whose package differs).
Rule 10 (NAF): a ``NAF="true"`` node has no label by definition, and gets none (Rule 11 merges
        no text into it: it has none below it): it is never matched by a label.
Rule 11 (a row's label): a clickable node with no label of its own is labelled as TalkBack reads
        it: the labels of the shown, non-clickable nodes below it that no nearer clickable node
        holds, in tree order, joined with ", " (as XCUITest labels a cell). The nodes keep their
        own labels too, so a step may name either. [inferred from TalkBack's behaviour; no
        source read]
Rule 12 (dialogs): a window whose nodes hold an ``…:id/alertTitle`` or an ``…:id/permission_message``
        (the server's own test for an alert, ``AlertHelpers.java``), or the ``Open with`` chooser's
        ``…:id/resolver_list``, is read as an ``Alert``: its root's role, labelled by its title, so
        the core's alert rules find it.
Rule 13 (the keyboard): the software keyboard is a window of its own, in neither dump of the
        active window; the driver asks the server which windows are shown and gives the input
        method's bounds (``keyboard``), read as a ``Keyboard`` element after the windows, so the
        core's keyboard-covers rule applies as on iOS.
Rule 14 (bounds on the work): a source is at most :data:`MAX_XML_BYTES`, one with a DOCTYPE or an
        entity declaration is refused (no entity is ever expanded), at most :data:`MAX_NODES` nodes
        are read and none deeper than :data:`MAX_TREE_DEPTH` (the rest is left out).
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from mobster_core import Element, Screen

from .roles import TEXT_INPUTS, Facts, role_of

__all__ = [
    "KEYBOARD_PATH_ROLE",
    "MAX_NODES",
    "MAX_TEXT_CHARS",
    "MAX_TREE_DEPTH",
    "MAX_XML_BYTES",
    "AndroidRead",
    "Node",
    "parse_source",
    "read_source",
]

MAX_XML_BYTES = 8 * 1024 * 1024
MAX_NODES = 12_000
MAX_TREE_DEPTH = 100
MAX_TEXT_CHARS = 4_000
#: Rule 13: the role of the keyboard's element.
KEYBOARD_PATH_ROLE = "Keyboard"
BULLET = "\u2022"

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_STATEFUL = frozenset({"Switch", "CheckBox", "RadioButton", "Toggle"})
_VALUED = frozenset({"Slider", "ProgressIndicator"})
_ON_OFF = frozenset({"ON", "OFF", "On", "Off", "on", "off"})
_DIALOG_ID = re.compile(r".+:id/(alertTitle|permission_message|resolver_list)$")
_TITLE_ID = re.compile(r".+:id/(alertTitle|permission_message|title)$")
_TOAST = "android.widget.Toast"
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


@attrs.frozen
class Node:
    """One node of a dump, as written (Rule 1): its tag or class, its attributes, its children."""

    cls: str
    attributes: Mapping[str, str]
    children: tuple[Node, ...] = ()

    def get(self, name: str) -> str:
        """An attribute's value; absent reads as ""."""
        return self.attributes.get(name, "")

    def flag(self, name: str) -> bool:
        """A boolean attribute: ``"true"`` is true; absent, ``""`` or anything else false."""
        return self.attributes.get(name) == "true"


@attrs.frozen
class AndroidRead:
    """A dump read into a screen: the package in front (Rule 3) and whether a text input has the focus."""

    screen: Screen
    package: str
    focused_input: bool = False


def parse_source(source: str | bytes) -> tuple[Mapping[str, str], tuple[Node, ...]]:
    """The ``<hierarchy>``'s attributes and its window roots (Rules 1, 14); ``ValueError`` when refused."""
    data = source.encode("utf-8") if isinstance(source, str) else source
    if len(data) > MAX_XML_BYTES:
        raise ValueError(f"the source is {len(data):,} bytes; the limit is {MAX_XML_BYTES:,}")
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    built = _Builder()
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse  # type: ignore[assignment]
    parser.StartElementHandler = built.start
    parser.EndElementHandler = built.end
    try:
        parser.Parse(data, True)  # noqa: FBT003 - expat's own signature (isfinal)
    except xml.parsers.expat.ExpatError as exc:
        raise ValueError(f"the source is not well-formed XML ({exc})") from exc
    if built.hierarchy is None:
        raise ValueError("the source has no <hierarchy>")
    return built.hierarchy, tuple(built.roots)


def _refuse(*_args: Any) -> None:
    raise ValueError("the source has a DOCTYPE or an entity declaration; an Android dump has neither")


class _Builder:
    """Rule 14: the nodes as expat meets them, at most ``MAX_NODES``, none deeper than ``MAX_TREE_DEPTH``."""

    def __init__(self) -> None:
        self.hierarchy: dict[str, str] | None = None
        self.roots: list[Node] = []
        self._stack: list[tuple[str, dict[str, str], list[Node]]] = []
        self._skipped = 0
        self._count = 0

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if self.hierarchy is None:
            if tag != "hierarchy":
                raise ValueError(f"the source's root is <{tag[:40]}>, not <hierarchy> (a dump of Android's tree)")
            self.hierarchy = attributes
            self._stack.append((tag, attributes, self.roots))
            return
        if self._skipped or len(self._stack) > MAX_TREE_DEPTH or self._count >= MAX_NODES:
            self._skipped += 1
            return
        self._count += 1
        self._stack.append((tag, attributes, []))

    def end(self, _tag: str) -> None:
        if self._skipped:
            self._skipped -= 1
            return
        tag, attributes, children = self._stack.pop()
        if not self._stack:
            return
        cls = attributes.get("class") or ("android.view.View" if tag == "node" else tag)
        self._stack[-1][2].append(Node(cls, attributes, tuple(children)))


def _bounds(node: Node) -> tuple[int, int, int, int] | None:
    m = _BOUNDS.fullmatch(node.get("bounds").strip())
    if m is None:
        return None
    x1, y1, x2, y2 = (int(v) for v in m.groups())
    return (x1, y1, x2, y2)


def _size(hierarchy: Mapping[str, str], roots: Sequence[Node], given: tuple[int, int] | None) -> tuple[int, int]:
    """Rule 4: the screen's size in pixels."""
    if given is not None:
        return given
    width, height = hierarchy.get("width", ""), hierarchy.get("height", "")
    if width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0:
        return (int(width), int(height))
    boxes = [b for b in (_bounds(r) for r in roots) if b is not None]
    right = max((b[2] for b in boxes), default=0)
    bottom = max((b[3] for b in boxes), default=0)
    return (right, bottom) if right > 0 and bottom > 0 else (1080, 2400)


def _frame(box: tuple[int, int, int, int] | None, size: tuple[int, int]) -> tuple[float, float, float, float]:
    if box is None:
        return (0.0, 0.0, 0.0, 0.0)
    width, height = size
    x1, y1 = min(max(box[0] / width, 0.0), 1.0), min(max(box[1] / height, 0.0), 1.0)
    x2, y2 = min(max(box[2] / width, 0.0), 1.0), min(max(box[3] / height, 0.0), 1.0)
    return (x1, y1, max(0.0, x2 - x1), max(0.0, y2 - y1))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS]


def _identifier(node: Node) -> str:
    """Rule 9: the resource id, the node's own package's prefix taken off."""
    rid = node.get("resource-id")
    package = node.get("package")
    own = f"{package}:id/"
    return _cut(rid[len(own) :] if package and rid.startswith(own) else rid)


def _showing_hint(node: Node) -> bool:
    hint = node.get("hint")
    return node.flag("showing-hint") or (bool(hint) and node.get("text") == hint)


def _role(node: Node, parent: str | None) -> str:
    facts = Facts(
        node.cls,
        clickable=node.flag("clickable"),
        checkable=node.flag("checkable"),
        scrollable=node.flag("scrollable"),
        password=node.flag("password"),
        has_text=bool(node.get("text")),
        has_description=bool(node.get("content-desc")),
    )
    return role_of(facts, parent)


def _texts(node: Node, role: str) -> tuple[str, str, str]:
    """Rules 7, 8, 10: the node's own label, value and placeholder."""
    text, desc = node.get("text"), node.get("content-desc")
    if node.flag("NAF"):
        return "", "", ""
    if node.flag("password") or role in TEXT_INPUTS:
        return _input_texts(node)
    if role in _STATEFUL:
        label = desc or ("" if text in _ON_OFF else text)
        return _cut(label), "1" if node.flag("checked") else "0", ""
    if role in _VALUED and _NUMBER.fullmatch(text):  # the server writes a RangeInfo's value as text ("0.5")
        return _cut(desc), text, ""
    return _cut(desc or text), "", ""


def _input_texts(node: Node) -> tuple[str, str, str]:
    """Rules 7, 8: a text input's label (its description, else its hint), value and placeholder."""
    text, desc, hint = node.get("text"), node.get("content-desc"), node.get("hint")
    if _showing_hint(node):
        value = ""
    elif node.flag("password"):
        value = BULLET * len(text)  # Rule 8: a bullet a character, never the text
    else:
        value = _cut(text)
    return _cut(desc or hint), value, _cut(hint)


def _visible(node: Node, box: tuple[int, int, int, int] | None) -> bool:
    """Rule 5."""
    if node.get("displayed") == "false" or node.get("visible-to-user") == "false":
        return False
    return box is not None and box[2] > box[0] and box[3] > box[1]


@attrs.define
class _Walk:
    size: tuple[int, int]
    out: list[Element] = attrs.field(factory=list)
    clickable: list[bool] = attrs.field(factory=list)
    focused_input: bool = False

    def node(self, node: Node, path: str, parent: str | None) -> None:
        box = _bounds(node)
        role = _role(node, parent)
        label, value, placeholder = _texts(node, role)
        visible = _visible(node, box)
        self.out.append(
            Element(
                role=role,
                label=label,
                identifier=_identifier(node),
                value=value,
                frame=_frame(box, self.size) if visible else (0.0, 0.0, 0.0, 0.0),
                enabled=node.get("enabled") != "false",
                visible=visible,
                selected=node.flag("selected"),
                path=path,
                placeholder=placeholder,
            )
        )
        self.clickable.append(node.flag("clickable") and not node.flag("NAF"))
        if role in TEXT_INPUTS and node.flag("focused"):
            self.focused_input = True
        for index, child in enumerate(node.children):
            self.node(child, f"{path}/{index}", role)


def _merge_labels(elements: list[Element], clickable: list[bool]) -> list[Element]:
    """Rule 11: an unlabelled clickable node takes the labels of what it holds."""
    out = list(elements)
    for i, e in enumerate(elements):
        if not clickable[i] or e.label or e.role in TEXT_INPUTS:
            continue
        inside = e.path + "/"
        held: list[str] = []
        nearer: list[str] = []
        for j in range(i + 1, len(elements)):
            d = elements[j]
            if not d.path.startswith(inside):
                break
            if any(d.path.startswith(n) for n in nearer):
                continue
            if clickable[j]:
                nearer.append(d.path + "/")
                continue
            if d.label and d.visible:
                held.append(d.label)
        if held:
            out[i] = attrs.evolve(e, label=_cut(", ".join(held)))
    return out


def _dialog(node: Node) -> str | None:
    """Rule 12: the title of a dialog's window (its first title text), or None when it is no dialog."""
    dialog = False
    title: str | None = None
    stack = [node]
    while stack:
        n = stack.pop()
        rid = n.get("resource-id")
        if _DIALOG_ID.match(rid):
            dialog = True
        if title is None and _TITLE_ID.match(rid) and n.get("text"):
            title = n.get("text")
        stack.extend(reversed(n.children))
    return (title or "") if dialog else None


def _front(roots: Sequence[Node]) -> str:
    """Rule 3."""
    for root in roots:
        if root.cls != _TOAST and root.get("package"):
            return root.get("package")
    stack = list(roots)
    while stack:
        n = stack.pop(0)
        if n.get("package"):
            return n.get("package")
        stack.extend(n.children)
    return ""


def read_source(
    source: str | bytes,
    *,
    size: tuple[int, int] | None = None,
    keyboard: tuple[int, int, int, int] | None = None,
    package: str | None = None,
) -> AndroidRead:
    """Read a dump into a screen (the module rules); ``ValueError`` when the source is refused.

    ``size`` is the screen's size in pixels when the device says (Rule 4); ``keyboard`` the input
    method window's bounds ``(x1, y1, x2, y2)`` in pixels when it is shown (Rule 13); ``package``
    the package in front when the device knows it better than the dump (Rule 3).
    """
    hierarchy, roots = parse_source(source)
    screen_size = _size(hierarchy, roots, size)
    walk = _Walk(screen_size)
    for index, root in enumerate(roots):
        first = len(walk.out)
        walk.node(root, f"/0/{index}", None)
        title = _dialog(root)
        if title is not None:  # Rule 12
            walk.out[first] = attrs.evolve(walk.out[first], role="Alert", label=_cut(title))
    elements = _merge_labels(walk.out, walk.clickable)
    if keyboard is not None:  # Rule 13
        box = (keyboard[0], keyboard[1], keyboard[2], keyboard[3])
        frame = _frame(box, screen_size)
        if frame[2] > 0 and frame[3] > 0:
            elements.append(Element(role=KEYBOARD_PATH_ROLE, frame=frame, path=f"/0/{len(roots)}"))
    front = package or _front(roots)
    screen = Screen(app=front or "android", elements=tuple(elements), size=screen_size)
    return AndroidRead(screen, front, walk.focused_input)
