"""Parsing a check's ``expect`` list: the assertion model's values, built strictly from untrusted data.

Rule 7: values are never converted: a malformed entry is an :class:`ExpectError` whose keys
        locate it in the ``expect`` list, with what is wrong and what to write instead, worded
        as every strict YAML reader words its errors (``formats/problems``). What an
        assertion means on a screen is ``evaluation``'s.

It holds the entries to the model's Rules 1, 5, 6 and 8 and the selectors' Rules 2 and 4 (the
limits below): a kind and its bounds, the most assertions, a name's length, an ``equals``
number's digits, an audit's types.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from mobster_core._rules.device.controls import AUDIT_TYPES
from mobster_core._rules.formats.yaml import Keys, did_you_mean, kind_of
from mobster_core._rules.vocabulary.screen import MAX_ELEMENTS

from .explanation import cut, quoted
from .model import BOUNDS, TEXT_KINDS, Assertion, AuditSpec, Expected, Kind, is_count, is_expected
from .selectors import (
    MAX_TEXT_CHARS,
    SELECTOR_KEYS,
    ExpectError,
    Pattern,
    Selector,
    parse_pattern,
    role_types,
    written_string,
)

__all__ = ["MAX_ASSERTIONS", "parse_assertion", "parse_expect"]

#: The most assertions one check holds, after ``text``/``no_text`` lists expand.
MAX_ASSERTIONS = 50
#: The longest assertion ``name``.
MAX_NAME_CHARS = 120
#: Rule 6: the largest ``equals`` number (in magnitude, exclusive), its most digits and decimal
#: places (an order number of 20 digits compares exactly).
MAX_EQUALS_NUMBER = 10**30
MAX_EQUALS_DIGITS = 30
MAX_EQUALS_PLACES = 10

_ITEM_KEYS = (*(k.value for k in Kind), "name", *BOUNDS)
# Keys people write for a selector field by habit, and the field they mean.
_SELECTOR_HINTS = {
    "text": "label",
    "name": "label",
    "title": "label",
    "identifier": "id",
    "accessibility_id": "id",
    "accessibilityIdentifier": "id",
    "type": "role",
}
_AUDIT_KEYS = ("types", "max")


def parse_expect(
    items: Any, locate: Callable[[Keys], str] | None = None, line: Callable[[Keys], int | None] | None = None
) -> tuple[Assertion, ...]:
    """Parse a check's ``expect`` list (lists of text expand, Rule 1); raises :class:`ExpectError`.

    ``locate`` turns an item's keys into where it was written (``file:line``), kept in
    ``Assertion.where`` for messages; ``line`` into its line, kept in ``Assertion.line``.
    """
    if not isinstance(items, list):
        raise ExpectError(
            (),
            f"expected a list of assertions, got {kind_of(items)}",
            'write one assertion per list item, such as "- text: Welcome"',
        )
    out: list[Assertion] = []
    for index, item in enumerate(items):
        parsed = parse_assertion(item, (index,))
        if locate is not None:
            where = f"{locate((index,))}: expect[{index}]"
            parsed = tuple(attrs.evolve(a, where=where) for a in parsed)
        if line is not None:
            at = line((index,))
            parsed = tuple(attrs.evolve(a, line=at) for a in parsed)
        out.extend(parsed)
    if len(out) > MAX_ASSERTIONS:
        raise ExpectError(
            (),
            f"{len(out)} assertions after lists expand; the limit is {MAX_ASSERTIONS}",
            "split the check in two",
        )
    return tuple(out)


def parse_assertion(item: Any, keys: Keys = ()) -> tuple[Assertion, ...]:
    """Parse one item of ``expect``: one assertion, or several when ``text`` is a list."""
    if not isinstance(item, Mapping):
        fix = f"write - text: {quoted(item)}" if isinstance(item, str) else "write - text: Welcome"
        raise ExpectError(keys, f"expected a mapping with one kind ({', '.join(Kind)}), got {kind_of(item)}", fix)
    for key in item:
        if key not in _ITEM_KEYS:
            unknown = str(key)
            raise ExpectError(
                (*keys, unknown),
                f"unknown key {unknown!r}{did_you_mean(unknown, _ITEM_KEYS)}",
                "rename it or remove it",
            )
    kinds = [k for k in Kind if k.value in item]
    if not kinds:
        raise ExpectError(
            keys,
            f"no kind: an assertion needs one of {', '.join(Kind)}",
            "add one, such as text: Welcome or visible: {label: Continue}",
        )
    if len(kinds) > 1:
        raise ExpectError(
            keys,
            f"two kinds ({kinds[0]} and {kinds[1]}): an assertion checks one thing",
            "split it into two list items",
        )
    kind = kinds[0]
    name = _name(item["name"], (*keys, "name")) if "name" in item else None
    bounds = {b: item[b] for b in BOUNDS if b in item}
    body = item[kind.value]
    where = (*keys, kind.value)
    if kind in TEXT_KINDS:
        _no_bounds(kind, bounds, keys)
        return tuple(Assertion(kind, p, name=name) for p in _texts(body, where))
    if kind is Kind.ACCESSIBILITY_AUDIT:
        _no_bounds(kind, bounds, keys)
        return (Assertion(kind, _audit(body, where), name=name),)
    selector = _selector(body, where)
    if kind in (Kind.VISIBLE, Kind.ABSENT):
        _no_bounds(kind, bounds, keys)
        return (Assertion(kind, selector, name=name),)
    if kind is Kind.VALUE:
        return (Assertion(kind, selector, equals=_value_equals(bounds, keys), name=name),)
    bound, value = _count_bound(bounds, keys)
    counts: dict[str, int | None] = {b: value if b == bound else None for b in BOUNDS}
    return (
        Assertion(
            kind, selector, name=name, equals=counts["equals"], at_least=counts["at_least"], at_most=counts["at_most"]
        ),
    )


def _audit(value: Any, keys: Keys) -> AuditSpec:
    """Rule 8: ``{types: [contrast, …], max: 0}``; ``{}`` or null-free defaults: every type, none allowed."""
    if not isinstance(value, Mapping):
        raise ExpectError(
            keys,
            f"expected a mapping of types and max, got {kind_of(value)}",
            "write accessibility_audit: {types: [contrast], max: 0}",
        )
    for key in value:
        if key not in _AUDIT_KEYS:
            unknown = str(key)
            raise ExpectError(
                (*keys, unknown), f"unknown key {unknown!r}{did_you_mean(unknown, _AUDIT_KEYS)}", "write types and max"
            )
    types: list[str] = []
    raw = value.get("types", [])
    if not isinstance(raw, list):
        raise ExpectError(
            (*keys, "types"), f"expected a list of audit types, got {kind_of(raw)}", "write types: [contrast]"
        )
    for index, item in enumerate(raw):
        if not isinstance(item, str) or item not in AUDIT_TYPES:
            hint = did_you_mean(item, AUDIT_TYPES) if isinstance(item, str) else ""
            raise ExpectError(
                (*keys, "types", index),
                f"unknown audit type {item!r}{hint}"
                if isinstance(item, str)
                else f"expected an audit type, got {kind_of(item)}",
                f"write one of {', '.join(AUDIT_TYPES)}",
            )
        if item not in types:
            types.append(item)
    most = value.get("max", 0)
    if not is_count(most) or most > MAX_ELEMENTS:
        raise ExpectError(
            (*keys, "max"), f"expected a whole number from 0 to {MAX_ELEMENTS}, got {kind_of(most)}", "write max: 0"
        )
    return AuditSpec(types=tuple(types), max=most)


def _name(value: Any, keys: Keys) -> str:
    text = written_string(value, keys)
    if not text.strip():
        raise ExpectError(keys, "the name is blank", "write a short name, or remove the key")
    if len(text) > MAX_NAME_CHARS:
        raise ExpectError(keys, f"the name is {len(text)} characters; the limit is {MAX_NAME_CHARS}", "shorten it")
    return text.strip()


def _no_bounds(kind: Kind, bounds: Mapping[str, Any], keys: Keys) -> None:
    if bounds:
        bound = next(iter(bounds))
        raise ExpectError(
            (*keys, bound),
            f"{bound} belongs to value and count assertions, not to {kind}",
            f"remove {bound}",
        )


def _value_equals(bounds: Mapping[str, Any], keys: Keys) -> Expected:
    for bound in ("at_least", "at_most"):
        if bound in bounds:
            raise ExpectError(
                (*keys, bound),
                f"a value assertion takes equals, not {bound}",
                "write equals: the expected value, or use count for a number of matches",
            )
    if "equals" not in bounds:
        raise ExpectError(
            keys, "a value assertion needs equals", "add equals: the expected value (text, a number, true/false)"
        )
    value = bounds["equals"]
    where = (*keys, "equals")
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise ExpectError(where, f"the text is {len(value)} characters; the limit is {MAX_TEXT_CHARS}", "shorten it")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpectError(where, f"expected a finite number, got {value!r}", "write a number such as 39.99")
    if isinstance(value, int | float) and not isinstance(value, bool):
        _bounded_number(value, where)
    if is_expected(value):
        return value  # type: ignore[no-any-return]
    raise ExpectError(
        where,
        f"expected text, a number or true/false, got {kind_of(value)}",
        'write equals: "$39.99 / year", equals: 3 or equals: true',
    )


def _count_bound(bounds: Mapping[str, Any], keys: Keys) -> tuple[str, int]:
    if len(bounds) != 1:
        given = " and ".join(bounds) if bounds else "none"
        raise ExpectError(
            keys,
            f"a count takes exactly one of equals, at_least, at_most; got {given}",
            "keep one, such as equals: 3 or at_least: 1",
        )
    bound, value = next(iter(bounds.items()))
    if not is_count(value):
        raise ExpectError(
            (*keys, bound),
            f"expected a whole number from 0, got {kind_of(value)}",
            f"write {bound}: 3",
        )
    if value > MAX_ELEMENTS:
        raise ExpectError(
            (*keys, bound),
            f"{value} is more elements than a screen holds (at most {MAX_ELEMENTS})",
            f"write a count from 0 to {MAX_ELEMENTS}",
        )
    return bound, value


def _bounded_number(value: float, keys: Keys) -> None:
    """Refuse an ``equals`` number no screen shows: too large, too many digits or places."""
    number = decimal.Decimal(value) if isinstance(value, int) else decimal.Decimal(repr(value))
    _sign, digits, exponent = number.as_tuple()
    places = -int(exponent) if isinstance(exponent, int) and exponent < 0 else 0
    significant = len(digits)
    if number.copy_abs() >= MAX_EQUALS_NUMBER or significant > MAX_EQUALS_DIGITS or places > MAX_EQUALS_PLACES:
        raise ExpectError(
            keys,
            f"the number {cut(str(value))} is out of range: at most {MAX_EQUALS_DIGITS} digits, "
            f"{MAX_EQUALS_PLACES} decimal places, below 10^30",
            'write the number as the screen shows it, or quote it to compare text: equals: "…"',
        )


def _texts(value: Any, keys: Keys) -> list[Pattern]:
    if isinstance(value, list):
        if not value:
            raise ExpectError(keys, "the list is empty", "list at least one text, or remove the assertion")
        return [parse_pattern(item, (*keys, index)) for index, item in enumerate(value)]
    return [parse_pattern(value, keys)]


def _selector(value: Any, keys: Keys) -> Selector:
    _selector_keys(value, keys)
    fields: dict[str, Any] = {}
    for name in ("id", "label", "value"):
        if name in value:
            fields[name] = parse_pattern(value[name], (*keys, name))
    if "role" in value:
        role = written_string(value["role"], (*keys, "role"))
        try:
            role_types(role)
        except ValueError as exc:
            problem, _, fix = str(exc).partition("; ")
            raise ExpectError((*keys, "role"), problem, fix) from exc
        fields["role"] = role
    for name in ("enabled", "selected"):
        if name in value:
            fields[name] = _selectorshown_flag(value[name], (*keys, name))
    return Selector(**fields)


def _selector_keys(value: Any, keys: Keys) -> None:
    """A selector is a mapping of known keys, at least one."""
    kind = keys[-1]
    if not isinstance(value, Mapping):
        example = f"{{label: {quoted(value)}}}" if isinstance(value, str) else "{label: Continue}"
        raise ExpectError(
            keys,
            f"expected a selector, a mapping of {', '.join(SELECTOR_KEYS)}; got {kind_of(value)}",
            f"write {kind}: {example}",
        )
    for key in value:
        if key not in SELECTOR_KEYS:
            name = str(key)
            hint = (
                f" (did you mean {_SELECTOR_HINTS[name]!r}?)"
                if name in _SELECTOR_HINTS
                else did_you_mean(name, SELECTOR_KEYS)
            )
            raise ExpectError((*keys, name), f"unknown selector key {name!r}{hint}", "rename it or remove it")
    if not value:
        raise ExpectError(
            keys, f"the selector is empty; it needs at least one of {', '.join(SELECTOR_KEYS)}", "write {id: …}"
        )


def _selectorshown_flag(flag: Any, keys: Keys) -> bool:
    if not isinstance(flag, bool):
        name = keys[-1]
        raise ExpectError(
            keys,
            f"expected true or false, got {kind_of(flag)}",
            f"write {name}: true or {name}: false (yes and no are strings in YAML 1.2)",
        )
    return flag
