"""Assertions: what a check expects to see on one read of the screen, in rooms held in layers.

- ``selectors``: the patterns an assertion looks for and the selectors of the elements it looks at.
- ``model``: the parsed ``expect`` entries (the assertions) and how one fared on a read.
- ``parse``: the ``expect`` list of a check, built strictly into the model's values.
- ``safe_regex``: a check's ``/regex/`` refused when pathological, searched under a time limit;
  ``work``: the CPU meter its budget is counted on.
- ``evaluation``: the assertions against one :class:`~mobster_core.Screen`.
- ``explanation``: the words of what a failing assertion found instead.

Each opens with its rules; an import contract holds the order: ``evaluation`` and ``parse`` use
``model``, ``model`` its ``selectors``, the selectors their words (``explanation``) and
``safe_regex``, which counts on ``work``; never the other way. The names below are the ones the
rest of the core uses.
"""

from .evaluation import MAX_MATCHES, evaluate, first_number, shown_elements
from .explanation import MAX_LISTED, near_misses
from .model import Assertion, AssertionResult, Expected, Kind
from .parse import MAX_ASSERTIONS, parse_assertion, parse_expect
from .safe_regex import RegexTimeout
from .selectors import ELEMENT_TYPES, FRIENDLY_ROLES, ExpectError, Pattern, Selector, normalize, role_types

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
