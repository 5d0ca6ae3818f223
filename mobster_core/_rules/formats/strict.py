"""Strict structuring with cattrs: values are never converted, and an error names its key.

Rule 1: ``"1.5"`` is not a number, ``1`` is not text, ``1`` is not ``true`` and ``true`` is not
        a number: every str, bool, float and int is checked, never converted (cattrs' own hooks
        call ``int()`` and ``str()``). A whole number is a number wherever a float is asked for.
Rule 2: :func:`first_error` walks cattrs' exception groups to the first failing leaf and says it
        as ``(dotted key, what is wrong)``: ``steps[2].similarity``, ``expected a number, got
        'x'``. A key that is missing, an unknown key (where they are forbidden) and a value a
        validator refused (:class:`KeyedError`) are said the same way.
Rule 3: the recorded path forbids unknown keys (a path is replayed: nothing unexpected may ride
        along); ``results.json`` allows them (a reader must take documents with keys added later).
        Each caller picks with :func:`strict_converter`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

__all__ = [
    "KeyedError",
    "first_error",
    "shown",
    "strict_converter",
    "strict_enum",
    "strict_float",
    "strict_frame",
    "strict_list",
    "strict_str",
]


class KeyedError(ValueError):
    """A rule broken by one key of a value; ``key`` is relative to the object that raised it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def shown(value: Any) -> str:
    """A value in an error message, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def strict_str(value: Any, _type: Any = str) -> str:
    """Rule 1: text, as it is."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {shown(value)}")
    return value


def _strict_bool(value: Any, _type: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {shown(value)}")
    return value


def strict_float(value: Any, _type: Any = float) -> float:
    """Rule 1: a number (a whole number too), never a bool or text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {shown(value)}")
    return float(value)


def _strict_int(value: Any, _type: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {shown(value)}")
    return value


def strict_list(value: Any) -> Sequence[Any]:
    """A JSON list (or a tuple, as Python gives one), never text or a mapping."""
    if not isinstance(value, list | tuple):
        raise TypeError(f"expected a list, got {shown(value)}")
    return value


def strict_frame(value: Any, _type: Any = None) -> tuple[float, float, float, float]:
    """An element's frame: ``[x, y, w, h]``, four numbers."""
    items = strict_list(value)
    if len(items) != 4:
        raise ValueError(f"expected [x, y, w, h], four numbers; got {len(items)}")
    a, b, c, d = (strict_float(v) for v in items)
    return (a, b, c, d)


def strict_enum(value: Any, kind: type[enum.Enum]) -> Any:
    """A member of the string enum ``kind``, by its value."""
    values = [str(m.value) for m in kind]
    if not isinstance(value, str) or value not in values:
        raise ValueError(f"expected one of {', '.join(values)}; got {shown(value)}")
    return kind(value)


def strict_converter(*, forbid_extra_keys: bool) -> cattrs.Converter:
    """A converter with Rule 1's hooks; unknown keys refused or ignored (Rule 3)."""
    conv = cattrs.Converter(forbid_extra_keys=forbid_extra_keys, detailed_validation=True)
    conv.register_structure_hook(str, strict_str)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook(float, strict_float)
    conv.register_structure_hook(int, _strict_int)
    # By class, as the str hook is: a StrEnum is a str, and the str hook would take it as text.
    conv.register_structure_hook(enum.StrEnum, strict_enum)
    conv.register_structure_hook(enum.Enum, strict_enum)
    return conv


def first_error(exc: BaseException, prefix: str = "", *, whole: str = "?") -> tuple[str, str]:  # noqa: PLR0911 - one return per kind of cattrs error
    """Rule 2: the first leaf of cattrs' exception groups, as (dotted key, message).

    ``whole`` names the value itself when the error is about no key of it.
    """
    if isinstance(exc, ForbiddenExtraKeysError):
        extra = min(exc.extra_fields)
        return (f"{prefix}.{extra}".lstrip("."), f"unknown key {extra!r}")
    if isinstance(exc, ClassValidationError | IterableValidationError):
        for sub in exc.exceptions:
            note = _note_of(sub)
            if isinstance(note, str):
                return first_error(sub, f"{prefix}.{note}".lstrip(".") if note else prefix, whole=whole)
            if isinstance(note, int):
                return first_error(sub, f"{prefix}[{note}]", whole=whole)
            return first_error(sub, prefix, whole=whole)
        return (prefix or whole, str(exc))  # pragma: no cover - cattrs never raises an empty group
    if isinstance(exc, KeyError):
        # cattrs notes the missing attribute's name on the KeyError, so ``prefix`` ends with it.
        return (prefix, f"key {prefix.rsplit('.', 1)[-1]!r} is missing")
    if isinstance(exc, KeyedError):
        return (f"{prefix}.{exc.key}".lstrip("."), str(exc))
    return (prefix or whole, str(exc))


def _note_of(exc: BaseException) -> str | int | None:
    """The attribute name or list index cattrs attached to a sub-exception, if any."""
    for note in getattr(exc, "__notes__", []):
        name = getattr(note, "name", None)
        if isinstance(name, str):
            return name
        index = getattr(note, "index", None)
        if isinstance(index, int):
            return index
    return None
