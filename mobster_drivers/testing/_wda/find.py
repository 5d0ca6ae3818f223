"""The source and finding elements: ``GET /source``, ``POST /elements``, an element's attributes.

Rule 9: ``POST /elements`` and ``POST /element`` find elements in the app in front (the app itself
        first, then its descendants in tree order) with the ``predicate string`` locator (the
        subset of NSPredicate in ``_nspredicate``; ``AND`` stops at the first false, so
        ``visible`` is read only where the left side holds), ``class name``, or ``accessibility
        id``/``id``/``name``. A reply is ``{"ELEMENT", "element-6066-…"}`` per element, plus the
        ``elementResponseAttributes`` (``type,label`` by default) when the session's
        ``shouldUseCompactResponses`` is false. Every element handed out is kept in the element
        cache (Rule 13, ``state``).

Checked against ``FBResponsePayload`` (element replies, compact or not), ``FBElement`` and
``NSPredicate+FBFormat`` (the predicate keys). Not checked, so the fake errs on the harsh side:
the exact status of an unparseable predicate or an unknown predicate key (``invalid selector``
400 here); the ``xpath``/``class chain`` locators, which answer ``unknown error`` here; the
accessibility source's exact shape (the accessible elements as JSON source nodes).

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``):

    ``POST /element`` (FBFindElement:41); ``GET /element/:uuid/attribute/:name`` (FBElement:59);
    ``GET /element/:uuid/displayed`` (FBElement:61);
    ``POST /element/:uuid/element`` (FBFindElement:43);
    ``POST /element/:uuid/elements`` (FBFindElement:44);
    ``GET /element/:uuid/enabled`` (FBElement:57); ``GET /element/:uuid/name`` (FBElement:63);
    ``GET /element/:uuid/rect`` (FBElement:58); ``GET /element/:uuid/selected`` (FBElement:62);
    ``GET /element/:uuid/text`` (FBElement:60);
    ``GET /element/active`` (FBFindElement:47, FBFindElement:49);
    ``POST /elements`` (FBFindElement:42); ``GET /source`` (FBDebug:26, FBDebug:27);
    ``GET /wda/accessibleSource`` (FBDebug:28, FBDebug:29);
    ``GET /wda/element/:uuid/accessibilityContainer`` (FBElement:72);
    ``GET /wda/element/:uuid/accessible`` (FBElement:71);
    ``GET /wda/element/:uuid/getVisibleCells`` (FBFindElement:45).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mobster_core import DeviceError
from mobster_drivers.testing._nspredicate import Predicate, PredicateError, parse_predicate

from .costs import charge
from .state import Target, Wda
from .table import Routes
from .tree import PREFIX, accessibility_tree, node_at, node_flag, node_traits, node_visible, served, walk, walk_paths
from .wire import WdaFailure

__all__ = ["ROUTES"]

_W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
#: Predicate keys WDA knows (``FBElement``'s attributes and their ``wd`` names); the fake reads these.
_PREDICATE_KEYS = {
    "type": "type",
    "name": "name",
    "label": "label",
    "value": "value",
    "visible": "visible",
    "enabled": "enabled",
    "accessible": "accessible",
    "selected": "selected",
    "placeholderValue": "placeholderValue",
    "traits": "traits",
}
#: Keys WDA knows that the fake doesn't evaluate (Rule 9: an error, never a wrong answer).
_UNEVALUATED_KEYS = frozenset(
    {"rect", "frame", "UID", "hasKeyboardFocus", "accessibilityContainer", "nativeFrame", "minValue", "maxValue",
     "customActions", "focused", "hittable", "index"}
)  # fmt: skip
#: The element attributes WDA reads by name (``XCUIElement+FBWebDriverAttributes``), and the JSON key.
_ATTRIBUTES = {
    "label": "label",
    "value": "value",
    "name": "name",
    "type": "type",
    "enabled": "isEnabled",
    "visible": "isVisible",
    "displayed": "isVisible",
    "accessible": "isAccessible",
    "focused": "isFocused",
    "selected": "traits",
    "rect": "rect",
    "frame": "frame",
    "placeholderValue": "placeholderValue",
    "traits": "traits",
}

ROUTES = Routes()


@ROUTES.serves("GET", "/source")
async def _source(wda: Wda, _body: dict[str, Any], query: dict[str, str]) -> Any:
    given = query.get("format", "xml")
    fmt = given.lower()
    if fmt not in ("json", "xml", "description"):
        raise WdaFailure(
            400,
            "invalid argument",
            f"Unknown source format '{given}'. Only (\n    xml,\n    json,\n    description\n) source formats "
            "are supported.",
        )
    excluded = frozenset(a.strip() for a in query.get("excluded_attributes", "").split(",") if a.strip())
    try:
        screen = await wda.phone.read()
    except DeviceError as exc:
        raise WdaFailure(500, "unknown error", f"Cannot get the source: {exc}") from exc
    tree = wda.tree(screen)
    if wda.costs is not None:
        nodes = sum(1 for _ in walk(tree))
        charge(wda.costs.source(nodes, visible="visible" not in excluded, accessible="accessible" not in excluded))
    return served(tree, excluded, fmt)


@ROUTES.serves("GET", "/wda/accessibleSource")
async def _accessible_source(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    screen, _ = wda.now_screen()
    return accessibility_tree(wda.tree(screen))


@ROUTES.acts_on("POST", "/element", "/element/:uuid/element")
async def _element_under(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    found = await _find(wda, body, first=True, under=target)
    if not found:
        raise WdaFailure(
            404,
            "no such element",
            f"unable to find an element using '{body.get('using')}', value '{body.get('value')}'",
        )
    return found[0]


@ROUTES.acts_on("POST", "/elements", "/element/:uuid/elements")
async def _elements_under(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return await _find(wda, body, first=False, under=target)


@ROUTES.acts_on("GET", "/wda/element/:uuid/getVisibleCells")
async def _visible_cells(wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    found = {"using": "predicate string", "value": "type == 'XCUIElementTypeCell' AND visible == 1"}
    return await _find(wda, found, first=False, under=target)


@ROUTES.serves("GET", "/element/active")
async def _active_element(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    field = wda.focused_field()
    if field is None:  # FBFindElementCommands.m:27-31, 119-126: a GET has no 'using' nor 'value'
        raise WdaFailure(404, "no such element", "unable to find an element using '(null)', value '(null)'")
    screen, _ = wda.now_screen()
    node = node_at(wda.tree(screen), field.path)
    assert node is not None
    return _element_reply(wda, node, field.path, screen.app)


@ROUTES.acts_on("GET", "/element/:uuid/rect")
async def _element_rect(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return dict(target.node.get("rect", {}))


@ROUTES.acts_on("GET", "/element/:uuid/enabled")
async def _element_enabled(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return node_flag(target.node, "isEnabled", default=True)


@ROUTES.acts_on("GET", "/element/:uuid/displayed")
async def _element_displayed(wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    if wda.costs is not None:
        charge(wda.costs.visible)
    return node_visible(target.node)


@ROUTES.acts_on("GET", "/element/:uuid/selected")
async def _element_selected(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return "Selected" in node_traits(target.node)


@ROUTES.acts_on("GET", "/element/:uuid/name")
async def _element_type(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return PREFIX + str(target.node["type"])


@ROUTES.acts_on("GET", "/element/:uuid/text")
async def _element_text(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return target.node.get("value") or target.node.get("label") or ""


@ROUTES.acts_on("GET", "/element/:uuid/attribute/:name")
async def _element_attribute(_wda: Wda, target: Target, _body: dict[str, Any], query: dict[str, str]) -> Any:
    return _attribute(target.node, query[":name"])


@ROUTES.acts_on("GET", "/wda/element/:uuid/accessible")
async def _element_accessible(_wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return node_flag(target.node, "isAccessible", default=False)


@ROUTES.acts_on("GET", "/wda/element/:uuid/accessibilityContainer")
async def _element_container(_wda: Wda, _target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return False  # the scripted phone's elements are never accessibility containers


async def _find(wda: Wda, body: Mapping[str, Any], *, first: bool, under: Target | None = None) -> list[dict[str, Any]]:
    """Rule 9: what ``body``'s locator finds in the app (or under a cached element), each handed out."""
    using, value = body.get("using"), body.get("value")
    if not isinstance(using, str) or not isinstance(value, str):
        raise WdaFailure(400, "invalid argument", "'using' and 'value' must be strings")
    screen, _ = wda.now_screen()
    tree = wda.tree(screen)
    top = "/0" if under is None or under.uuid is None else wda.path_of(under.uuid)
    nodes = [(p, n) for p, n in walk_paths(tree) if p == top or p.startswith(top + "/")]
    if under is not None and under.uuid is not None:
        nodes = nodes[1:]  # under an element: its descendants, not itself
    reads = [0]  # how many elements had their costly visibility read (Rule 11)
    matches = _matcher(using, value, reads)
    found: list[tuple[str, dict[str, Any]]] = []
    for path, node in nodes:
        if matches(node):
            found.append((path, node))
            if first:
                break
    if wda.costs is not None:
        charge(wda.costs.query(len(nodes), reads[0]))
    return [_element_reply(wda, node, path, screen.app) for path, node in found]


def _element_reply(wda: Wda, node: Mapping[str, Any], path: str, app: str) -> dict[str, Any]:
    """``FBResponsePayload``'s element reply: the id, and attributes unless compact (Rule 9)."""
    element = wda.remember(node, path, app)
    out: dict[str, Any] = {"ELEMENT": element, _W3C_ELEMENT: element}
    if wda.settings.get("shouldUseCompactResponses", True):
        return out
    fields = str(wda.settings.get("elementResponseAttributes", "type,label")).split(",")
    for field in (f.strip() for f in fields):
        if field in ("name", "type"):
            out[field] = PREFIX + str(node["type"])
        elif field == "text":
            out[field] = node.get("value") or node.get("label")
        elif field == "rect":
            out[field] = dict(node.get("rect", {}))
        elif field == "enabled":
            out[field] = node_flag(node, "isEnabled", default=True)
        elif field == "displayed":
            if wda.costs is not None:
                charge(wda.costs.visible)
            out[field] = node_visible(node)
        elif field == "selected":
            out[field] = "Selected" in node_traits(node)
        elif field == "label":
            out[field] = node.get("label")
    return out


def _attribute(node: Mapping[str, Any], name: str) -> Any:
    """``GET /element/:uuid/attribute/:name`` (``fb_valueForWDAttributeName``); an unknown name is refused."""
    key = _ATTRIBUTES.get(name.removeprefix("wd").lower() if name.startswith("wd") else name)
    if key is None:
        valid = ", ".join(sorted(_ATTRIBUTES))
        raise WdaFailure(
            400, "invalid argument", f"The attribute '{name}' is unknown. Valid attribute names are: ({valid})"
        )
    if key == "type":
        return PREFIX + str(node["type"])
    if key == "traits" and name == "selected":
        return "Selected" in node_traits(node)
    if key.startswith("is"):
        return "true" if node_flag(node, key, default=key == "isEnabled") else "false"
    value = node.get(key)
    return dict(value) if isinstance(value, Mapping) else value


def _matcher(using: str, value: str, reads: list[int]) -> Callable[[Mapping[str, Any]], bool]:
    """Rule 9: a test for one locator strategy; ``reads`` counts visibility reads."""
    if using == "predicate string":
        predicate = _predicate(value)
        return lambda node: predicate.matches(_lookup(node, reads))
    if using == "class name":
        return lambda node: PREFIX + str(node["type"]) == value
    if using in ("accessibility id", "id", "name"):
        return lambda node: value in (node.get("rawIdentifier"), node.get("label"))
    if using in ("xpath", "class chain", "link text", "partial link text"):
        raise WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {using!r} locator")
    raise WdaFailure(400, "invalid selector", f"Invalid locator requested: {using}")


def _predicate(text: str) -> Predicate:
    try:
        predicate = parse_predicate(text)
    except PredicateError as exc:
        raise WdaFailure(400, "invalid selector", str(exc)) from exc
    for key in predicate.keys:
        bare = _bare_key(key)
        if bare in _UNEVALUATED_KEYS:
            raise WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {key!r} key")
        if bare not in _PREDICATE_KEYS:
            valid = sorted({*_PREDICATE_KEYS, *_UNEVALUATED_KEYS})
            raise WdaFailure(
                400,
                "invalid selector",
                f"The key '{key}' is unknown in '{text}' predicate expression. Valid keys are: {valid}",
            )
    return predicate


def _bare_key(key: str) -> str:
    """``wdLabel`` and ``isWDVisible`` are ``label`` and ``visible`` (WDA's shortcuts)."""
    for prefix in ("isWD", "wd"):
        if key.startswith(prefix) and len(key) > len(prefix):
            rest = key[len(prefix) :]
            return rest if rest.isupper() else rest[0].lower() + rest[1:]
    return key


def _lookup(node: Mapping[str, Any], reads: list[int]) -> Callable[[str], Any]:
    def get(key: str) -> Any:
        bare = _bare_key(key)
        if bare == "type":
            return PREFIX + str(node["type"])
        if bare in ("name", "label", "value", "placeholderValue", "traits"):
            return node.get(bare)
        if bare == "visible":
            reads[0] += 1
            return node_visible(node)
        if bare == "enabled":
            return node_flag(node, "isEnabled", default=True)
        if bare == "accessible":
            if "isAccessible" not in node:
                raise WdaFailure(500, "unknown error", "the served tree doesn't record 'accessible'")
            return node_flag(node, "isAccessible", default=False)
        if bare == "selected":
            return "Selected" in node_traits(node)
        raise WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {key!r} key")

    return get
