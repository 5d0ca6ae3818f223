"""Assertions: what a check expects to see on one read of the screen, in four rooms.

- ``model``: the parsed ``expect`` entries, their patterns and selectors, built strictly.
- ``safe_regex``: a check's ``/regex/`` refused when pathological, searched under a time limit.
- ``evaluation``: the assertions against one :class:`~mobster_core.Screen`.
- ``explanation``: the words of what a failing assertion found instead.

Each opens with its rules. ``explanation`` and ``safe_regex`` import neither of the others;
``model`` words its errors with ``explanation`` and compiles with ``safe_regex``; ``evaluation``
uses all three. The names below are the ones the rest of the core uses.
"""

from .evaluation import MAX_MATCHES, evaluate, first_number, shown_elements
from .explanation import MAX_LISTED, near_misses
from .model import (
    ELEMENT_TYPES,
    FRIENDLY_ROLES,
    MAX_ASSERTIONS,
    Assertion,
    AssertionResult,
    Expected,
    ExpectError,
    Kind,
    Pattern,
    Selector,
    normalize,
    parse_assertion,
    parse_expect,
    role_types,
)
from .safe_regex import RegexTimeout

__all__ = [
    "ELEMENT_TYPES",
    "FRIENDLY_ROLES",
    "MAX_ASSERTIONS",
    "MAX_LISTED",
    "MAX_MATCHES",
    "Assertion",
    "AssertionResult",
    "ExpectError",
    "Expected",
    "Kind",
    "Pattern",
    "RegexTimeout",
    "Selector",
    "evaluate",
    "first_number",
    "near_misses",
    "normalize",
    "parse_assertion",
    "parse_expect",
    "role_types",
    "shown_elements",
]
