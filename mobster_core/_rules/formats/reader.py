"""The strict reader: the shapes every reader of a file's data checks, said once.

Rule 1: a reader walks untrusted data (a parsed file: mappings, lists and scalars) once, from the
        top, each value at its key path (``Keys``). A value is never converted: it is the shape
        asked for, as written, or a problem.
Rule 2: every problem goes through :meth:`StrictReader.fail` with the value's keys, what is wrong
        and what to write. By default it is a :class:`~.problems.YamlProblem` (its file, the line
        :meth:`StrictReader.line` finds, and the key: ``file:line: key.path: problem; fix``),
        which a reader makes its own error of (:meth:`StrictReader.error`). The line is the
        document's (YAML's nodes say it); a reader of a file parsed without them (TOML) finds it
        itself, and one whose line reads otherwise (the project config's) says ``fail`` itself.
Rule 3: the words are the problems' (``problems``: :func:`kind_of`, :func:`quote_fix`,
        :func:`did_you_mean`). A reader that ``advises`` (a check file) says what to write after
        every problem; one that doesn't (an app script) says it only where the value shows it:
        quote the number that should be text, write the number without its quotes (a string
        that is one), the hint a missing key comes with. A fix that shows a key and its value spells them as the file
        does (``assigns``: YAML's ``wait: 1.5``, TOML's ``wait = 1.5``); a list item's shows the
        value alone (its index is not a key to write).
Rule 4: a mapping is a mapping whose keys are all allowed (an unknown key names the nearest
        allowed one: :meth:`StrictReader.unknown_key`, which a reader may word for its own
        file) and, for a reader that ``refuses_nulls``, none of whose values is null; then it has
        the keys it requires (:meth:`StrictReader.require`). In that order: the first problem is
        the one said.
Rule 5: text is a string. :meth:`StrictReader.text` trims it and refuses it blank;
        :meth:`StrictReader.string` keeps it as written and refuses it empty unless asked not
        to; either refuses one longer than its limit.
Rule 6: a number is an integer or a float, never a flag, finite, and an amount: 0 or more (more
        than 0 where asked). With a top, its range is said whole (``must be more than 0 and at
        most 600 seconds``); without one, by the end it misses (``must be more than 0 seconds``,
        ``must be 0 or more seconds``), and a number that isn't finite is said to be that.
Rule 7: a flag is ``true`` or ``false`` (YAML 1.2 reads ``yes`` as a string).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from .problems import Keys, YamlProblem, did_you_mean, dotted, kind_of, quote_fix
from .yaml import YamlDoc

__all__ = ["StrictReader"]

#: Rule 6: a string that is a number in quotes (``"1.5"``, ``" 60 "``), written as YAML and TOML
#: both read a number: the fix unquotes it. Any other string (``"abc"``, ``"inf"``, ``".5"``, a
#: line break, a number too long to show) is told to be a number.
_QUOTED_NUMBER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_SHOWN_DIGITS = 32


class StrictReader:
    """**Base:** a strict reader of one parsed document (``doc``); a file's reader adds its own schema.

    Subclass it, give :meth:`error` the reader's own exception (a check file's ``CheckError``),
    and read the file top down with :meth:`mapping`, :meth:`text`, :meth:`string`, :meth:`number`
    and :meth:`flag`, failing with :meth:`fail` for what the file's own rules refuse (the module
    rules). ``advises`` and ``refuses_nulls`` are the two ways readers differ (Rules 3 and 4);
    ``assigns`` and :meth:`line` fit a file that isn't YAML (Rules 2 and 3).
    """

    #: Rule 3: say what to write after every problem (False: only where the value shows it).
    advises: ClassVar[bool] = True
    #: Rule 4: refuse a null value in any mapping (False: each value is read as its shape says).
    refuses_nulls: ClassVar[bool] = False
    #: Rule 3: what stands between a key and its value where a fix shows them (TOML's is " = ").
    assigns: ClassVar[str] = ": "

    def __init__(self, doc: YamlDoc) -> None:
        self.doc = doc

    def error(self, problem: YamlProblem) -> Exception:
        """The reader's own exception for ``problem`` (Rule 2); the problem itself by default."""
        return problem

    def line(self, keys: Keys) -> int | None:
        """Rule 2: the line (from 1) of the value at ``keys``, or None: the document's by default."""
        return self.doc.line(keys)

    def fail(self, keys: Keys, problem: str, fix: str = "") -> NoReturn:
        """Rule 2: refuse the value at ``keys``: what is wrong, and what to write instead."""
        raise self.error(YamlProblem(self.doc.source, problem, fix, line=self.line(keys), key=dotted(keys)))

    def advice(self, fix: str) -> str:
        """Rule 3: ``fix`` when the reader advises, else nothing."""
        return fix if self.advises else ""

    def written(self, keys: Keys, value: object) -> str:
        """Rule 3: the key at ``keys`` and ``value`` as the file writes them (``wait: 1.5``; a list item: ``1.5``)."""
        last = keys[-1] if keys else None
        return f"{last}{self.assigns}{value}" if isinstance(last, str) else str(value)

    def quote(self, keys: Keys, value: Any) -> str:
        """Rule 3: how to write a value that should have been text (``quote it: build: "1"``)."""
        fix = quote_fix(keys, value, assigns=self.assigns)
        return fix if isinstance(value, bool | int | float) else self.advice(fix)

    # -- Rule 4: mappings ----------------------------------------------------------------------

    def unknown_key(self, keys: Keys, name: str, allowed: Sequence[str]) -> NoReturn:
        """Rule 4: refuse the key ``name`` of the mapping at ``keys``, naming the nearest allowed one."""
        self.fail(
            (*keys, name), f"unknown key {name!r}{did_you_mean(name, allowed)}", self.advice("rename it or remove it")
        )

    def mapping(
        self, value: Any, keys: Keys, allowed: Sequence[str], example: str | None = None, *, what: str | None = None
    ) -> Mapping[str, Any]:
        """Rule 4: ``value`` as a mapping of ``allowed`` keys (and no null value where the reader refuses them).

        ``what`` names what is expected (``a mapping of`` the allowed keys by default);
        ``example`` is what to write instead of something else. Keys it must have are
        :meth:`require`'s, asked next.
        """
        if not isinstance(value, Mapping):
            expected = what or f"a mapping of {', '.join(allowed)}"
            fix = "" if example is None else self.advice(f"write {example}")
            self.fail(keys, f"expected {expected}, got {kind_of(value)}", fix)
        for key in value:
            if key not in allowed:
                self.unknown_key(keys, str(key), allowed)
        if self.refuses_nulls:
            for key, item in value.items():
                if item is None:
                    fix = self.advice("give it a value, or remove the key for the default")
                    self.fail((*keys, key), "has no value (null)", fix)
        return value

    def require(self, value: Mapping[str, Any], keys: Keys, hints: Mapping[str, str]) -> None:
        """Rule 4: the mapping at ``keys`` has each key of ``hints``; a missing one is said with its hint."""
        for key, hint in hints.items():
            if key not in value:
                self.fail(keys, f"key {key!r} is missing", hint)

    # -- Rule 5: text --------------------------------------------------------------------------

    def text(self, value: Any, keys: Keys, *, limit: int, what: str = "characters") -> str:
        """Rule 5: ``value`` trimmed, not blank, at most ``limit`` long (in ``what``)."""
        if not isinstance(value, str):
            self.fail(keys, f"expected a string, got {kind_of(value)}", self.quote(keys, value))
        text = value.strip()
        if not text:
            self.fail(keys, "is blank", self.advice(_write_it(keys)))
        if len(text) > limit:
            self.fail(keys, f"is {len(text)} {what} long; the limit is {limit}", self.advice("shorten it"))
        return text

    def string(self, value: Any, keys: Keys, *, limit: int | None = None, empty: bool = False) -> str:
        """Rule 5: ``value`` as written, empty only when ``empty``, at most ``limit`` characters."""
        if not isinstance(value, str):
            self.fail(keys, f"expected a string, got {kind_of(value)}", self.quote(keys, value))
        if not empty and not value:
            self.fail(keys, "must not be empty", self.advice(_write_it(keys)))
        if limit is not None and len(value) > limit:
            self.fail(keys, f"is {len(value)} characters long; the limit is {limit}", self.advice("shorten it"))
        return value

    # -- Rules 6 and 7: numbers and flags -----------------------------------------------------

    def number(self, value: Any, keys: Keys, *, unit: str, above: bool = False, most: float | None = None) -> float:
        """Rule 6: a finite number of ``unit``, 0 or more (more than 0 with ``above``), at most ``most``."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            written = value.strip() if isinstance(value, str) else ""
            fix = (
                f"write it without quotes: {self.written(keys, written)}"
                if len(written) <= _SHOWN_DIGITS and _QUOTED_NUMBER.fullmatch(written)
                else self.advice(f"write a number of {unit}")
            )
            self.fail(keys, f"expected a number of {unit}, got {kind_of(value)}", fix)
        under = value <= 0 if above else value < 0
        if most is not None:
            if not math.isfinite(value) or under or value > most:
                lowest = "more than 0" if above else "at least 0"
                self.fail(
                    keys,
                    f"must be {lowest} and at most {most:g} {unit}, got {value!r}",
                    self.advice(f"write a number up to {most:g}"),
                )
        elif not math.isfinite(value):
            self.fail(
                keys, f"expected a finite number of {unit}, got {value!r}", self.advice(f"write a number of {unit}")
            )
        elif under:
            said = f"more than 0 {unit}" if above else f"0 or more {unit}"
            self.fail(keys, f"must be {said}, got {value!r}", self.advice(f"write a number {said}"))
        return float(value)

    def flag(self, value: Any, keys: Keys) -> bool:
        """Rule 7: ``true`` or ``false``."""
        if not isinstance(value, bool):
            fix = self.advice(f"write {self.written(keys, 'true')}")
            self.fail(keys, f"expected true or false, got {kind_of(value)}", fix)
        return value


def _write_it(keys: Keys) -> str:
    """What to write for a blank value: remove an empty list item, else write the key's value."""
    last = keys[-1]
    return "remove the empty item" if isinstance(last, int) else f"write the {last}"
