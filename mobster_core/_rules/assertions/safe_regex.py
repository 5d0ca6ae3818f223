"""The safe regex: a check's ``/pattern/`` refused when pathological, searched under a time limit.

Rule 1: a string written ``/pattern/`` or ``/pattern/i`` is a regex (``/i``: case-insensitive).
        The pattern is 1-500 characters and must compile as a Python ``re`` pattern without a
        warning that its meaning may change (a nested set such as ``[[:alpha:]]``); ``//`` would
        match everything and is refused.
Rule 2: a repeat count is at most 1,000, and repeats nested in repeats multiply to at most 10,000
        (``a{100000000}`` would take gigabytes to compile). A brace that is not a repeat count is
        refused: ``re`` reads it as itself, the ``regex`` library as fuzzy matching (``{e<=1}``),
        so the same pattern would mean two things.
Rule 3: a regex runs with the ``regex`` library's time limit: each search stops after 0.1 s, and
        the searches of one read of the screen (:func:`read_budget`) together stop after 1 s of
        CPU. A search that hits a limit raises :class:`RegexTimeout`; it never spins, and Ctrl+C
        is seen within about a second. What a timeout means for the verdict is the evaluation's
        business (``evaluation``, Rule 5).
Rule 4: the limits are CPU seconds (``work.work_seconds``), never the injected clock: a fake clock
        doesn't move while a regex spins.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import warnings
from collections.abc import Iterator

import attrs
import regex

from mobster_core._rules.assertions.work import work_seconds

__all__ = [
    "MAX_REGEX_CHARS",
    "MAX_REGEX_EXPANSION",
    "MAX_REGEX_REPEAT",
    "REGEX_READ_SECONDS",
    "REGEX_SEARCH_SECONDS",
    "RegexRefused",
    "RegexTimeout",
    "compile_written",
    "read_budget",
    "search",
]

#: The longest regex pattern (between the slashes).
MAX_REGEX_CHARS = 500
#: The largest repeat count in a regex (``{m,n}``), and the largest product of nested counts.
MAX_REGEX_REPEAT = 1000
MAX_REGEX_EXPANSION = 10_000
#: Rule 3: the time limit of one regex search, and the CPU budget of every search on one read.
REGEX_SEARCH_SECONDS = 0.1
REGEX_READ_SECONDS = 1.0


class RegexRefused(ValueError):
    """A written regex that breaks Rule 1 or 2: ``problem`` says what is wrong, ``fix`` what to do."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix


class RegexTimeout(Exception):
    """A check's regex hit a time limit (Rule 3); ``text`` is what it was searching.

    ``spent`` is True when the read's budget was used up before this search began.
    """

    def __init__(self, pattern: str, text: str, *, spent: bool) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.text = text
        self.spent = spent


def compile_written(written: str) -> regex.Pattern[str] | None:
    """The compiled regex of ``written`` when it is written as one (Rule 1), else None (plain text).

    Raises :class:`RegexRefused` when the pattern breaks Rule 1 or 2.
    """
    regex_form = len(written) >= 2 and written[0] == "/" and written.endswith("/")
    regex_i = len(written) >= 3 and written[0] == "/" and written.endswith("/i")
    if not (regex_form or regex_i):
        return None
    ignore_case = regex_i and not regex_form
    source = written[1:-2] if ignore_case else written[1:-1]
    if not source:
        raise RegexRefused("an empty regex matches everything", "write a pattern between the slashes")
    if len(source) > MAX_REGEX_CHARS:
        raise RegexRefused(f"the regex is {len(source)} characters; the limit is {MAX_REGEX_CHARS}", "shorten it")
    _same_in_re(written, source, ignore_case=ignore_case)
    problem = _repeat_problem(source)
    if problem is not None:
        raise RegexRefused(f"{written!r}: {problem}", "fix the pattern: use a smaller repeat count, or + and *")
    try:
        return regex.compile(source, regex.V0 | (regex.IGNORECASE if ignore_case else 0))
    except regex.error as exc:
        raise RegexRefused(f"{written!r} is not a valid regex ({exc})", _INVALID_FIX) from exc


_INVALID_FIX = "fix the pattern (a string between two slashes is a regex)"


def _same_in_re(written: str, source: str, *, ignore_case: bool) -> None:
    """Rule 1: the pattern must mean in Python's ``re`` what it means here."""
    try:
        # re warns (FutureWarning) where a pattern's meaning differs between dialects, such as a
        # nested set [[:alpha:]].
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            re.compile(source, re.IGNORECASE if ignore_case else 0)
    except (re.error, OverflowError, FutureWarning, DeprecationWarning) as exc:
        raise RegexRefused(f"{written!r} is not a valid regex ({exc})", _INVALID_FIX) from exc


# -- Rule 3: searches under a time limit ------------------------------------------------------


@attrs.define
class _Budget:
    """The CPU seconds the regexes of one read may still use."""

    until: float


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("mobster_regex_budget", default=None)


@contextlib.contextmanager
def read_budget() -> Iterator[None]:
    """The searches inside share one read's CPU budget (Rule 3)."""
    token = _BUDGET.set(_Budget(until=work_seconds() + REGEX_READ_SECONDS))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def search(compiled: regex.Pattern[str], text: str) -> bool:
    """Does ``compiled`` find a match in ``text``? Raises :class:`RegexTimeout` at a limit (Rule 3)."""
    budget = _BUDGET.get()
    limit = REGEX_SEARCH_SECONDS
    if budget is not None:
        left = budget.until - work_seconds()
        if left <= 0:
            raise RegexTimeout(compiled.pattern, text, spent=True)
        limit = min(limit, left)
    try:
        return compiled.search(text, timeout=limit) is not None
    except TimeoutError:
        raise RegexTimeout(compiled.pattern, text, spent=False) from None


# -- Rule 2: repeat limits --------------------------------------------------------------------

_REPEAT = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


def _repeat_problem(source: str) -> str | None:
    """Rule 2's repeat limits: a count over 1,000, or nested counts multiplying past 10,000."""
    # Each open group keeps the largest product of counts inside it; a count after a group
    # multiplies that product.
    groups: list[int] = [1]
    last = 1  # the product of the atom just read (a group's inner product, else 1)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in "\\[":
            i, last = _atom_end(source, i), 1
        elif c == "(":
            groups.append(1)
            i += 1
        elif c == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] = max(groups[-1], last)
            i += 1
        elif c == "{":
            product, i, problem = _repeat(source, i, last)
            if problem is not None:
                return problem
            groups[-1], last = max(groups[-1], product), 1
        else:
            i, last = i + 1, 1
    return None


def _atom_end(source: str, i: int) -> int:
    """The index after the escape or the character class at ``i``."""
    if source[i] == "[":
        return _class_end(source, i)
    if source.startswith("N{", i + 1):  # a character by name, \N{EM DASH}
        close = source.find("}", i)
        return len(source) if close < 0 else close + 1
    return i + 2


def _repeat(source: str, i: int, last: int) -> tuple[int, int, str | None]:
    """The repeat count at ``source[i] == "{"``: its product with ``last``, where it ends, and a problem."""
    found = _REPEAT.match(source, i)
    if found is None or not (found.group(1) or found.group(3)):
        return 0, i + 1, "a brace that is not a repeat count; write a literal brace as \\{"
    count = max(int(found.group(1) or 0), int(found.group(3) or 0))
    if count > MAX_REGEX_REPEAT:
        return 0, i + 1, f"the repeat {found.group()} is over {MAX_REGEX_REPEAT}"
    product = count * last
    if product > MAX_REGEX_EXPANSION:
        return 0, i + 1, f"repeats nested in repeats multiply to {product}, over {MAX_REGEX_EXPANSION}"
    return product, found.end(), None


def _class_end(source: str, i: int) -> int:
    """The index after the character class that starts at ``source[i] == "["``."""
    i += 1
    if i < len(source) and source[i] == "^":
        i += 1
    if i < len(source) and source[i] == "]":
        i += 1
    while i < len(source) and source[i] != "]":
        i += 2 if source[i] == "\\" else 1
    return i + 1
