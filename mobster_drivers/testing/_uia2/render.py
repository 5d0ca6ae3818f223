"""A scripted phone's screen as the UiAutomator2 server writes it: its page source and its element table.

Rule 1 (the document): ``<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`` then
        ``<hierarchy index="0" class="hierarchy" rotation="0" width height>`` (the display in
        pixels: the script's size in dp times the density) holding one window: a
        ``android.widget.FrameLayout`` root of the package in front, and the screen's elements
        below it as nodes, tag and ``class`` the class ``roles.class_of`` gives (``$`` written
        ``.`` in the tag), indented as the server indents (appium-uiautomator2-server 10.6.2,
        ``AccessibilityNodeInfoDumper.java:233-237``, ``UiElementSnapshot.java:68-256``).
Rule 2 (attributes): in the server's order, ``index package class text content-desc resource-id
        checkable checked clickable enabled focusable focused long-clickable password scrollable
        selected bounds displayed hint a11y-important``; ``content-desc``, ``resource-id`` and
        ``hint`` are left out when there is none, as the server leaves out a null. The texts are
        what Android would expose: a field's ``text`` is its value, or its hint while it is
        empty (``showing-hint="true"``); a password's text is its bullets; a switch's text is
        ``ON``/``OFF`` and its label the ``content-desc``; an identifier is
        ``<package>:id/<identifier>``.
Rule 3 (what is left out): an element the phone says isn't visible is left out with everything
        below it, as the server drops a node that isn't visible to the user (unless the setting
        ``allowInvisibleElements``); one off the screen keeps its place with ``[0,0][0,0]``.
Rule 4 (dialogs): a prompt's window is the PermissionController's (``permission_message``, the
        buttons' ``permission_*_button`` ids by their words, AOSP's ``grant_permissions.xml``),
        the chooser's is ``android``'s ResolverActivity (``android:id/title``,
        ``android:id/resolver_list``, ``button_once``, ``button_always``), so the server's own
        alert test and the Android reader both find them.
Rule 5 (element ids): an element's id is ``%08x-%04x-%04x-%04x-%012x`` of the window and the
        node, the same for the same node on every find (``AxNodeInfoHelper.java:65-79``): here
        from its path in the tree and its class.

Not checked against a capture (none was found): the permission dialog's and the chooser's trees
as a dump writes them (built from their AOSP layouts), ``a11y-important`` on every node.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

import attrs

from mobster_core import Element, Screen
from mobster_drivers._uiautomator.roles import class_of

__all__ = ["Rendered", "RenderedNode", "render"]

_PERMISSION_IDS = "com.android.permissioncontroller:id/"
_STATEFUL = frozenset({"Switch", "CheckBox", "RadioButton", "Toggle"})
_INPUTS = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
_PRESSED = frozenset({"Button", "Cell", "Link", "Switch", "CheckBox", "RadioButton", "Toggle", "PopUpButton"})


@attrs.frozen
class RenderedNode:
    """One node of the source: the phone's element, the attributes written, its id, bounds in pixels."""

    element: Element | None  # None for the window's root
    cls: str
    attributes: tuple[tuple[str, str], ...]
    element_id: str
    bounds: tuple[int, int, int, int]
    depth: int

    def get(self, name: str) -> str:
        """An attribute as written; absent is ""."""
        return next((v for k, v in self.attributes if k == name), "")


@attrs.frozen
class Rendered:
    """A source (Rule 1) and its nodes in document order."""

    xml: str
    nodes: tuple[RenderedNode, ...]
    width: int
    height: int


def _px(frame: tuple[float, float, float, float], width: int, height: int) -> tuple[int, int, int, int]:
    x, y, w, h = frame
    if w <= 0 or h <= 0:
        return (0, 0, 0, 0)
    return (round(x * width), round(y * height), round((x + w) * width), round((y + h) * height))


def _element_id(path: str, cls: str) -> str:
    digest = hashlib.sha256(f"{path}|{cls}".encode()).hexdigest()
    return f"00000000-{digest[:4]}-{digest[4:8]}-{digest[8:12]}-{digest[12:24]}"


def _permission_id(label: str) -> str:
    """Rule 4: a permission button's id by its words (AOSP's ``grant_permissions.xml``)."""
    words = label.casefold().replace("\u2019", "'")
    if "only this time" in words:
        return "permission_allow_one_time_button"
    if "while using" in words:
        return "permission_allow_foreground_only_button"
    if words.startswith(("don't", "deny")):
        return "permission_deny_button"
    if "all the time" in words:
        return "permission_allow_always_button"
    return "permission_allow_button"


def _texts(e: Element, role: str) -> dict[str, str]:
    """Rule 2: ``text``, ``content-desc`` and ``hint`` as Android would expose them."""
    if role in _INPUTS:
        if e.value:
            return {"text": e.value, "hint": e.label, "showing-hint": "false"}
        return {"text": e.label, "hint": e.label, "showing-hint": "true"}
    if role in _STATEFUL:
        return {"text": "ON" if e.value == "1" else "OFF", "content-desc": e.label}
    if role in ("Slider", "ProgressIndicator"):
        return {"text": e.value, "content-desc": e.label}
    if role in ("Image", "Icon", "Other", "CollectionView", "ScrollView", "Cell"):
        return {"text": "", "content-desc": e.label}
    return {"text": e.label}


@attrs.define
class _Writer:
    package: str
    width: int
    height: int
    dialog: str | None  # Rule 4: "permission", "chooser" or None
    listed: bool = False  # the chooser's list is written
    lines: list[str] = attrs.field(factory=list)
    nodes: list[RenderedNode] = attrs.field(factory=list)

    def attributes(self, e: Element, index: int, focused: str | None) -> tuple[str, list[tuple[str, str]]]:
        role = e.role
        cls = class_of(role)
        texts = _texts(e, role)
        rid = ""
        if e.identifier:
            rid = e.identifier if ":id/" in e.identifier else f"{self.package}:id/{e.identifier}"
        if self.dialog == "permission" and role == "StaticText":
            rid = f"{_PERMISSION_IDS}permission_message"
        elif self.dialog == "permission" and role == "Button":
            rid = _PERMISSION_IDS + _permission_id(e.label)
            cls = "android.widget.Button"
        elif self.dialog == "chooser" and role == "StaticText":
            rid = "android:id/title"
        elif self.dialog == "chooser" and role == "Button":
            rid = "android:id/button_once" if e.label == "Just once" else "android:id/button_always"
        box = _px(e.frame, self.width, self.height) if e.visible else (0, 0, 0, 0)
        attrs_: list[tuple[str, str]] = [("index", str(index)), ("package", self.package), ("class", cls)]
        attrs_.append(("text", texts.get("text", "")))
        if texts.get("content-desc"):
            attrs_.append(("content-desc", texts["content-desc"]))
        if rid:
            attrs_.append(("resource-id", rid))
        stateful = role in _STATEFUL
        flag = {True: "true", False: "false"}
        attrs_ += [
            ("checkable", flag[stateful]),
            ("checked", flag[stateful and e.value == "1"]),
            ("clickable", flag[role in _PRESSED or role in _INPUTS]),
            ("enabled", flag[e.enabled]),
            ("focusable", flag[role in _PRESSED or role in _INPUTS]),
            ("focused", flag[focused is not None and focused == e.path]),
            ("long-clickable", "false"),
            ("password", flag[role == "SecureTextField"]),
            ("scrollable", flag[role in ("ScrollView", "CollectionView")]),
            ("selected", flag[e.selected]),
            ("bounds", f"[{box[0]},{box[1]}][{box[2]},{box[3]}]"),
            ("displayed", "true"),
        ]
        if "hint" in texts:
            attrs_ += [("hint", texts["hint"]), ("showing-hint", texts["showing-hint"])]
        attrs_.append(("a11y-important", "true"))
        return cls, attrs_

    def open(self, cls: str, attrs_: Sequence[tuple[str, str]], depth: int, element: Element | None) -> None:
        tag = cls.replace("$", ".")
        written = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs_)
        self.lines.append(f"{'  ' * depth}<{tag} {written}>")
        bounds = next(v for k, v in attrs_ if k == "bounds")
        numbers = tuple(int(n) for n in bounds.replace("][", ",").strip("[]").split(","))
        box = (numbers[0], numbers[1], numbers[2], numbers[3])
        element_id = _element_id(element.path if element else "/0", cls)
        node = RenderedNode(element, cls, tuple(attrs_), element_id, box, depth)
        self.nodes.append(node)

    def close(self, cls: str, depth: int) -> None:
        self.lines.append(f"{'  ' * depth}</{cls.replace('$', '.')}>")


def render(screen: Screen, *, density: float, focused: str | None = None) -> Rendered:
    """Rules 1 to 5: ``screen`` (a scripted phone's read) as the server's page source, ``density`` pixels a dp.

    ``focused`` is the path of the element with the input focus, if any.
    """
    width, height = round(screen.size[0] * density), round(screen.size[1] * density)
    roles = {e.role for e in screen.elements}
    dialog = None
    if "Alert" in roles:
        dialog = "chooser" if screen.app == "android" else "permission"
    writer = _Writer(screen.app, width, height, dialog)
    root = [
        ("index", "0"),
        ("package", screen.app),
        ("class", "android.widget.FrameLayout"),
        ("text", ""),
        ("checkable", "false"),
        ("checked", "false"),
        ("clickable", "false"),
        ("enabled", "true"),
        ("focusable", "false"),
        ("focused", "false"),
        ("long-clickable", "false"),
        ("password", "false"),
        ("scrollable", "false"),
        ("selected", "false"),
        ("bounds", f"[0,0][{width},{height}]"),
        ("displayed", "true"),
        ("a11y-important", "false"),
    ]
    writer.open("android.widget.FrameLayout", root, 1, None)
    _children(writer, screen, "/0", 2, focused)
    writer.close("android.widget.FrameLayout", 1)
    head = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
        f'<hierarchy index="0" class="hierarchy" rotation="0" width="{width}" height="{height}">'
    )
    xml = "\n".join([head, *writer.lines, "</hierarchy>"])
    return Rendered(xml, tuple(writer.nodes), width, height)


def _children(writer: _Writer, screen: Screen, parent: str, depth: int, focused: str | None) -> None:
    """Rule 3: the shown children of ``parent``, and theirs; an invisible one is left out with its subtree."""
    kids = [e for e in screen.elements if e.path.rsplit("/", 1)[0] == parent and e.role != "Keyboard"]
    kept = 0
    for e in kids:
        if not e.visible:
            continue
        if e.role == "Alert":  # Rule 4: the dialog's window is the root; its texts and buttons below it
            _children(writer, screen, e.path, depth, focused)
            continue
        if writer.dialog == "chooser" and e.role == "Button" and not writer.listed:
            _resolver_list(writer, kept, depth)  # Rule 4: the chooser's list of apps, before its buttons
            writer.listed = True
            kept += 1
        cls, attributes = writer.attributes(e, kept, focused)
        kept += 1
        writer.open(cls, attributes, depth, e)
        _children(writer, screen, e.path, depth + 1, focused)
        writer.close(cls, depth)


def _resolver_list(writer: _Writer, index: int, depth: int) -> None:
    """Rule 4: ResolverActivity's ``android:id/resolver_list`` (its rows, the apps, aren't modelled)."""
    top, bottom = round(writer.height * 0.45), round(writer.height * 0.5)
    attributes = [
        ("index", str(index)), ("package", writer.package), ("class", "android.widget.ListView"), ("text", ""),
        ("resource-id", "android:id/resolver_list"), ("checkable", "false"), ("checked", "false"),
        ("clickable", "false"), ("enabled", "true"), ("focusable", "true"), ("focused", "false"),
        ("long-clickable", "false"), ("password", "false"), ("scrollable", "false"), ("selected", "false"),
        ("bounds", f"[0,{top}][{writer.width},{bottom}]"), ("displayed", "true"), ("a11y-important", "true"),
    ]  # fmt: skip
    writer.open("android.widget.ListView", attributes, depth, None)
    writer.close("android.widget.ListView", depth)
