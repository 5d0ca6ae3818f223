"""The fake WDA's NSPredicate subset: the grammar, the operators, and where it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from mobster_drivers.testing._nspredicate import PredicateError, parse_predicate

ELEMENT: dict[str, Any] = {
    "type": "XCUIElementTypeButton",
    "label": "Café Crème",
    "value": None,
    "visible": True,
    "enabled": False,
    "index": 3,
}


def holds(text: str, element: dict[str, Any] = ELEMENT) -> bool:
    return parse_predicate(text).matches(element.__getitem__)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("label == 'Café Crème'", True),
        ('label = "Café Crème"', True),
        ("label != 'x' && visible == YES", True),
        ("label == 'x' || enabled == NO", True),
        ("NOT (visible == 0)", True),
        ("! visible == 1", False),
        ("visible == 1 AND enabled == TRUE", False),
        ("visible == 'true'", False),  # a string is not a number
        ("value == nil", True),
        ("value != NULL", False),
        ("label == nil", False),
        ("label BEGINSWITH 'Café'", True),
        ("label ENDSWITH[c] 'CRÈME'", True),
        ("label CONTAINS[cd] 'creme'", True),
        ("label CONTAINS 'creme'", False),
        ("label LIKE 'Caf? *'", True),
        ("label LIKE[c] 'café*'", True),
        ("label MATCHES 'Caf. Cr.me'", True),
        ("label MATCHES 'Caf'", False),  # the whole string
        ("label IN {'a', 'Café Crème'}", True),
        ("label IN[c] {'café crème'}", True),
        ("'Café' IN label", True),
        ("index > 2 AND index <= 3 AND index >= 3 AND index < 4", True),
        ("index == 3.0", True),
        ("label < 'D' AND label > 'B'", True),
        ("value CONTAINS 'x'", False),
        ("TRUEPREDICATE", True),
        ("FALSEPREDICATE OR label == 'x'", False),
        ('type == "XCUIElementTypeButton" AND label == "Caf\\u00e9 Cr\\u00e8me"', True),
    ],
)
def test_operators(text: str, expected: bool) -> None:
    assert holds(text) is expected


def test_and_stops_at_the_first_false_so_costly_keys_are_read_only_where_needed() -> None:
    read: list[str] = []

    def lookup(key: str) -> Any:
        read.append(key)
        return ELEMENT[key]

    parse_predicate("label == 'nope' AND visible == 1").matches(lookup)
    assert read == ["label"]
    read.clear()
    parse_predicate("label == 'Café Crème' OR visible == 1").matches(lookup)
    assert read == ["label"]


def test_keys_are_listed() -> None:
    assert parse_predicate("(label == 'a' OR NOT value == 'b') AND 1 == visible").keys == {"label", "value", "visible"}


@pytest.mark.parametrize(
    "text",
    [
        "label ==",
        "label == 'open",
        "(label == 'x'",
        "label ~ 'x'",
        "label == 'x' extra",
        "label IN {'a' 'b'}",
        "label IN {visible}",
        "label == 'bad \\q escape'",
        "== 'x'",
        "x" * 100_001,
    ],
)
def test_what_does_not_parse_says_so(text: str) -> None:
    with pytest.raises(PredicateError):
        parse_predicate(text)


def test_a_bad_or_huge_regex_is_refused_when_evaluated() -> None:
    with pytest.raises(PredicateError, match="regex"):
        holds("label MATCHES '('")
    with pytest.raises(PredicateError, match="limit"):
        holds("label MATCHES '" + "a" * 501 + "'")
