"""Evaluation: the assertions of a check against one read of the screen.

Rule 1: ``text`` holds when one *shown* element's label or value contains the text
        (case-insensitive), or the regex finds a match in it. Text is never joined across two
        elements. ``no_text`` holds when no shown element's label or value does.
Rule 2: an element matches a selector when every field given matches. ``id``, ``label`` and
        ``value`` are exact, case-sensitive comparisons of normalized text, or a regex search. An
        element without an identifier never matches ``id``. A ``role`` matches the element types
        it covers; ``tab`` also matches a Button inside a TabBar.
Rule 3: ``visible`` holds when at least one shown element matches; ``absent`` when none does;
        ``value`` when exactly one shown element matches and its value equals ``equals``;
        ``count`` when the number of shown matches meets its one bound.
Rule 4: ``equals`` on ``value`` compares by the type written: a boolean reads the value as on
        (1, true, on, yes) or off (0, false, off, no); a number takes the first number in the
        value (thousands groups of exactly three digits, separated by commas or spaces) at the
        expected number's own precision (against ``3`` the value 3.4 reads as 3; against ``39.99``
        the value 39 does not match); a string is normalized exact equality.
Rule 5: an assertion whose regex hit a time limit (``safe_regex``, Rule 3) couldn't be evaluated:
        it holds no verdict of its own (its result has ``error`` set and ``ok`` false);
        ``verdict.decide`` makes the check ``couldnt_run``, class ``usage``, unless another
        assertion failed for sure.
Rule 6: an element is *shown* by the screen's one rule (:meth:`Screen.is_shown`): visible itself
        (an ancestor's visibility is not inherited), its frame overlapping the screen with positive
        area, not the Application or a Window, and not the unlabelled inner Switch of a SwiftUI
        Toggle. The signature and the matcher use the same rule.
Rule 7: evaluation is pure: one screen in, one result per assertion out, all on the same read, the
        regexes of the read sharing one budget. A failing assertion gathers what was found
        instead, and ``explanation`` words it.
Rule 8: ``accessibility_audit`` is judged on the device's audit of the same screen (the runner asks
        for it once, on the verdict's settled read): it holds when at most ``max`` issues of its
        types were found, and names each issue with its element. Without an audit (the baseline,
        a poll of the settled read) it holds no verdict (``unavailable`` says why); on a device
        that can't audit, ``unavailable`` is the device's reason: never a pass.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import attrs

from mobster_core._rules.device.controls import AuditReport
from mobster_core._rules.vocabulary.screen import Element, Screen

from .explanation import Names, cut, hidden_note, near_note, quoted, role_mismatch, unevaluated
from .model import Assertion, AssertionResult, AuditSpec, Expected, Kind, Pattern, Selector, normalize
from .safe_regex import RegexTimeout, read_budget

__all__ = ["MAX_MATCHES", "NOT_AUDITED", "evaluate", "first_number", "shown_elements"]

#: The most matching elements kept in a result.
MAX_MATCHES = 10

_SELECTOR_FIELDS = ("id", "label", "value", "enabled", "selected")


@attrs.frozen
class _Node:
    """An element with its text normalized once, and what its ancestors say about it."""

    element: Element
    shown: bool
    ident: str
    label: str
    value: str
    in_tab_bar: bool


def _ancestor_paths(path: str) -> Iterable[str]:
    while "/" in path[1:]:
        path = path.rsplit("/", 1)[0]
        yield path


class _View:
    """One screen prepared for evaluation: every element as a node, and the shown ones (Rule 6)."""

    def __init__(self, screen: Screen) -> None:
        by_path = {e.path: e for e in screen.elements}
        shown = screen.shown_paths
        self.names = Names(screen)
        self.nodes: list[_Node] = []
        for e in screen.elements:
            in_tab_bar = any(p in by_path and by_path[p].role == "TabBar" for p in _ancestor_paths(e.path))
            self.nodes.append(
                _Node(e, e.path in shown, normalize(e.identifier), normalize(e.label), normalize(e.value), in_tab_bar)
            )
        self.shown = [n for n in self.nodes if n.shown]
        self.hidden = [n for n in self.nodes if not n.shown]

    def name(self, node: _Node) -> str:
        return self.names.name(node.element)

    def names_of(self, nodes: Sequence[_Node]) -> str:
        return self.names.names([n.element for n in nodes])

    def listing(self, nodes: Sequence[_Node]) -> str:
        return self.names.listing([n.element for n in nodes])


def shown_elements(screen: Screen) -> tuple[Element, ...]:
    """The elements of ``screen`` that count as shown (Rule 6), in tree order."""
    return screen.shown


def evaluate(
    assertions: Iterable[Assertion], screen: Screen, audit: AuditReport | None = None
) -> tuple[AssertionResult, ...]:
    """Evaluate every assertion on the same read (Rule 7); one result per assertion, in order.

    The regexes of the read share one CPU budget (``safe_regex``, Rule 3). ``audit`` is the
    device's audit of this screen, for ``accessibility_audit`` (Rule 8).
    """
    view = _View(screen)
    with read_budget():
        return tuple(_evaluate(a, view, audit) for a in assertions)


#: Rule 8: what an audit assertion says on a read no audit was taken of.
NOT_AUDITED = "not audited on this read (the audit runs once, on the verdict's settled screen)"


def _audited(assertion: Assertion, spec: AuditSpec, audit: AuditReport | None) -> AssertionResult:
    """Rule 8."""
    text = assertion.show()
    if audit is None or audit.unavailable is not None:
        why = NOT_AUDITED if audit is None else str(audit.unavailable)
        return AssertionResult(
            text=text, ok=False, observed=why, name=assertion.name, line=assertion.line, unavailable=why
        )
    issues = [i for i in audit.issues if not spec.types or i.type in spec.types]
    if not issues:
        observed = "no issue found"
    else:
        listed = "; ".join(cut(i.show()) for i in issues[:MAX_MATCHES])
        more = f" (and {len(issues) - MAX_MATCHES} more)" if len(issues) > MAX_MATCHES else ""
        observed = f"{len(issues)} issue{'s' if len(issues) != 1 else ''}: {listed}{more}"
    return AssertionResult(
        text=text, ok=len(issues) <= spec.max, observed=observed, name=assertion.name, line=assertion.line
    )


def _evaluate(assertion: Assertion, view: _View, audit: AuditReport | None = None) -> AssertionResult:
    subject = assertion.subject
    if isinstance(subject, AuditSpec):
        return _audited(assertion, subject, audit)
    try:
        if isinstance(subject, Pattern):
            ok, observed, matches = _text(assertion.kind, subject, view)
        else:
            ok, observed, matches = _selected(assertion, subject, view)
    except RegexTimeout as timeout:  # Rule 5
        observed, error = unevaluated(timeout, assertion.show(), assertion.where)
        return AssertionResult(
            text=assertion.show(), ok=False, observed=observed, name=assertion.name, error=error, line=assertion.line
        )
    return AssertionResult(
        text=assertion.show(),
        ok=ok,
        observed=observed,
        matches=tuple(n.element for n in matches[:MAX_MATCHES]),
        name=assertion.name,
        line=assertion.line,
    )


_Outcome: TypeAlias = tuple[bool, str, list[_Node]]


def _text(kind: Kind, pattern: Pattern, view: _View) -> _Outcome:
    """Rule 1."""
    hits: list[tuple[_Node, str]] = []
    for node in view.shown:
        if pattern.found_in(node.label):
            hits.append((node, "label"))
        elif pattern.found_in(node.value):
            hits.append((node, "value"))
    nodes = [n for n, _ in hits]
    if hits:
        node, field = hits[0]
        where = view.name(node) if field == "label" else f"the value of {view.name(node)}"
        more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
        if kind is Kind.TEXT:
            return True, f"found in {where}{more}", nodes
        return False, f"shown in {where}{more}", nodes
    hidden = sum(1 for n in view.hidden if pattern.found_in(n.label) or pattern.found_in(n.value))
    if kind is Kind.NO_TEXT:
        return True, "not on the screen" + hidden_note(hidden), nodes
    candidates = [t for n in view.shown for t in (n.label, n.value) if t]
    return False, "not on the screen" + near_note(pattern.word, candidates, "") + hidden_note(hidden), nodes


def _selects(selector: Selector, node: _Node) -> bool:
    """Rule 2: every field the selector gives matches the element (a tab bar's Button is a tab)."""
    e = node.element
    # ``and`` in this order: a field that fails spares the regexes of the next ones their time.
    return (
        (selector.id is None or bool(node.ident and selector.id.equals(node.ident)))
        and (selector.label is None or selector.label.equals(node.label))
        and (selector.value is None or selector.value.equals(node.value))
        and (
            selector.role is None
            or e.role in selector.types
            or (selector.role == "tab" and e.role == "Button" and node.in_tab_bar)
        )
        and (selector.enabled is None or e.enabled == selector.enabled)
        and (selector.selected is None or e.selected == selector.selected)
    )


def _selected(assertion: Assertion, selector: Selector, view: _View) -> _Outcome:
    """Rule 3."""
    matches = [n for n in view.shown if _selects(selector, n)]
    bound = assertion.bound
    if bound is None:  # visible or absent
        return _present(assertion.kind is Kind.ABSENT, matches, selector, view)
    op, expected = bound
    if assertion.kind is Kind.COUNT:
        limit, count = int(expected), len(matches)
        ok = {"equals": count == limit, "at_least": count >= limit, "at_most": count <= limit}[op]
        return ok, f"found {count}" if ok else _count_note(count, matches, selector, view), matches
    if not matches:
        return False, _not_found("not found", selector, view), matches
    if len(matches) > 1:
        return False, f"ambiguous: {len(matches)} match ({view.names_of(matches)})", matches
    node = matches[0]
    ok, note = _compare(expected, node.value)
    placeholder = node.element.placeholder
    if placeholder and not node.value:
        note += f" (it shows its placeholder {quoted(cut(placeholder))})"
    return ok, f"{view.name(node)} is {quoted(cut(node.value))}{note}", matches


def _present(absent: bool, matches: list[_Node], selector: Selector, view: _View) -> _Outcome:
    """``visible`` holds when something matches; ``absent`` when nothing does."""
    if matches:
        return not absent, f"found {view.names_of(matches)}", matches
    return absent, "not on the screen" if absent else _not_found("not on the screen", selector, view), matches


# -- what a failure found instead (worded by ``explanation``) ----------------------------------
# The facts are gathered in the order a person reads them, and only as far as the message needs:
# each selector test may run a regex on the read's budget.


def _count_note(count: int, matches: Sequence[_Node], selector: Selector, view: _View) -> str:
    """A failing count: what it counted, and what it left out as not shown."""
    text = f"found {count}" + (f": {view.listing(matches)}" if matches else "")
    left_out = _hidden(selector, view)
    if left_out:
        text += f"; left out {len(left_out)} not shown (hidden, covered or off screen): {view.listing(left_out)}"
    elif not matches and (role := _role_note(selector, view)):
        text += f"; {role}"
    return text


def _hidden(selector: Selector, view: _View) -> list[_Node]:
    """The elements that match but aren't shown, without containers and Toggles' inner switches."""
    return [n for n in view.hidden if _countable(n) and _selects(selector, n)]


def _countable(node: _Node) -> bool:
    # Hidden matches are reported to a person: leave out what is never shown whatever the screen
    # (the app's window, a Toggle's inner switch) so "left out" names only what could have been.
    e = node.element
    if e.role in ("Application", "Window"):
        return False
    return not (e.role == "Switch" and not e.label and not e.identifier)


def _role_note(selector: Selector, view: _View) -> str:
    """``"Share week" is on the screen as a Button, not a tab`` when only the role is wrong, else ""."""
    if selector.role is None or all(getattr(selector, k) is None for k in _SELECTOR_FIELDS):
        return ""
    loose = attrs.evolve(selector, role=None)
    others = [n for n in view.shown if _selects(loose, n)]
    if not others:
        return ""
    first = others[0].element
    what = quoted(cut(first.label)) if selector.label is not None and first.label else view.name(others[0])
    return role_mismatch(selector.role, what, [n.element for n in others])


def _not_found(text: str, selector: Selector, view: _View) -> str:
    """The role that didn't match, else near misses by id, label or value; and what isn't shown."""
    role = _role_note(selector, view)
    if role:
        return role + hidden_note(len(_hidden(selector, view)))
    for what, attr, field in (
        ("ids", "ident", selector.id),
        ("labels", "label", selector.label),
        ("values", "value", selector.value),
    ):
        if field is not None:
            candidates = [c for n in view.shown if (c := getattr(n, attr))]
            text += near_note(field.word, candidates, f" {what}")
            break
    return text + hidden_note(len(_hidden(selector, view)))


# -- Rule 4: equals on value --------------------------------------------------------------------

_ON = frozenset({"1", "true", "on", "yes"})
_OFF = frozenset({"0", "false", "off", "no"})
# The first number: an optional minus not glued to a word, thousands groups of exactly three digits
# separated by commas or spaces (or plain digits), and an optional decimal part.
_NUMBER = re.compile(r"(?:(?<!\w)(-))?(?<![\d.])(\d{1,3}(?:[, ]\d{3}(?!\d))+|\d+)(\.\d+)?")


def _compare(expected: Expected, actual: str) -> tuple[bool, str]:
    """Does the normalized ``actual`` value equal ``expected``? And a note when it doesn't."""
    if isinstance(expected, bool):
        word = actual.casefold()
        if word in _ON or word in _OFF:
            return (word in _ON) is expected, ""
        return False, ": neither on nor off"
    if isinstance(expected, str):
        return actual == normalize(expected), ""
    return _compare_number(expected, actual)


def first_number(text: str) -> decimal.Decimal | None:
    """The first number in normalized ``text`` (Rule 4), separators removed; None when there is none."""
    found = _NUMBER.search(text)
    if found is None:
        return None
    sign, whole, fraction = found.groups()
    return decimal.Decimal((sign or "") + re.sub(r"[, ]", "", whole) + (fraction or ""))


def _compare_number(expected: float, actual: str) -> tuple[bool, str]:
    number = first_number(actual)
    if number is None:
        return False, ": no number in it"
    want = decimal.Decimal(expected) if isinstance(expected, int) else decimal.Decimal(repr(expected))
    places = min(int(want.as_tuple().exponent), 0)
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        try:
            read = number.quantize(decimal.Decimal(1).scaleb(places), rounding=decimal.ROUND_HALF_UP)
        except decimal.InvalidOperation:  # far too many digits to compare: not equal
            return False, ": the number is out of range"
    if read == want:
        return True, ""
    return False, f" (reads as {read})"
