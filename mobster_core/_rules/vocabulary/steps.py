"""Steps and paths: what a passing run executed, as plain dictionaries.

Rule 1: a step is ``{"op", "app", "target", "screen", "text", "commit", "live"}``, in that order,
        every key present, no other key.
Rule 2: values are never converted: ``"1.5"`` is not a number and ``1`` is not a label.
Rule 3: ``TAP``, ``LONG_PRESS`` and ``TYPE`` need a target; swipes may have one; ``SUBMIT``,
        ``DISMISS_KEYBOARD`` (added later: a path without it reads as before), ``BACK`` (Android's
        system back, added with Android: a path without it reads as before), ``LAUNCH_APP``,
        ``HOME``, ``OPEN_URL`` and the device steps take none. ``BACK`` is matched on its screen,
        as ``SUBMIT`` is: what it goes back from is the screen's.
Rule 4: ``text`` is the typed text for ``TYPE`` (null only when the step is live), the bundle id
        for ``LAUNCH_APP``, the URL for ``OPEN_URL``, the sensor (``faceId`` or ``touchId``) for
        ``BIOMETRIC_MATCH`` and ``BIOMETRIC_FAIL``, the payload file as the check names it and its
        content's digest for ``PUSH`` (``payload.json sha256:<16 hex digits>``: never the
        payload itself), and null for every other op.
Rule 7: ``BIOMETRIC_MATCH``, ``BIOMETRIC_FAIL`` and ``PUSH`` (added later: a path without them reads
        as before) are device steps: they come from the check (``- biometric: match``, ``- push:
        payload.json``), never from the model; the runner sends them itself, at their place.
Rule 5: a path is validated whole: one bad step drops the whole path (``PathError`` names the
        step, counted from 1, and the key).
Rule 6: a target is ``{"label", "role", "id", "frame", "count", "nth"}``: ``count`` is how many shown
        elements had its label and role on the recorded screen (1 or more) and ``nth`` which of
        them it was (0-based, in tree order), so ``0 <= nth < count``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import attrs
import cattrs

from mobster_core._rules.formats.strict import (
    KeyedError,
    first_error,
    shown,
    strict_converter,
    strict_frame,
    strict_list,
    strict_str,
)
from mobster_core.exceptions import PathError

__all__ = [
    "DEVICE_OPS",
    "SENSORS",
    "Commit",
    "Op",
    "ScreenRef",
    "Step",
    "Target",
    "dump_path",
    "load_path",
    "push_text",
    "sensor_name",
]


class Op(enum.StrEnum):
    """What a step does."""

    TAP = "TAP"
    LONG_PRESS = "LONG_PRESS"
    TYPE = "TYPE"
    SUBMIT = "SUBMIT"
    SWIPE_UP = "SWIPE_UP"
    SWIPE_DOWN = "SWIPE_DOWN"
    SWIPE_LEFT = "SWIPE_LEFT"
    SWIPE_RIGHT = "SWIPE_RIGHT"
    LAUNCH_APP = "LAUNCH_APP"
    HOME = "HOME"
    OPEN_URL = "OPEN_URL"
    DISMISS_KEYBOARD = "DISMISS_KEYBOARD"
    BACK = "BACK"
    BIOMETRIC_MATCH = "BIOMETRIC_MATCH"
    BIOMETRIC_FAIL = "BIOMETRIC_FAIL"
    PUSH = "PUSH"

    @property
    def is_device(self) -> bool:
        """True for the device steps of Rule 7 (a check's, never the model's)."""
        return self in DEVICE_OPS

    @property
    def needs_target(self) -> bool:
        """True for ops that act on an element."""
        return self in _NEEDS_TARGET

    @property
    def takes_target(self) -> bool:
        """True for ops that may have a target."""
        return self in _NEEDS_TARGET or self in SWIPES

    @property
    def is_swipe(self) -> bool:
        """True for the four swipes."""
        return self in SWIPES

    @property
    def is_global(self) -> bool:
        """True for ops that need nothing on the screen (the matcher skips every rule)."""
        return self in _GLOBAL


class Commit(enum.StrEnum):
    """What an action commits, by the safety classifier."""

    SEND = "send"
    POST = "post"
    DELETE = "delete"
    PURCHASE = "purchase"


SWIPES = frozenset({Op.SWIPE_UP, Op.SWIPE_DOWN, Op.SWIPE_LEFT, Op.SWIPE_RIGHT})
_NEEDS_TARGET = frozenset({Op.TAP, Op.LONG_PRESS, Op.TYPE})
_GLOBAL = frozenset({Op.LAUNCH_APP, Op.HOME, Op.OPEN_URL})
#: Rule 7: the ops a check's device steps record; the model is never offered them.
DEVICE_OPS = frozenset({Op.BIOMETRIC_MATCH, Op.BIOMETRIC_FAIL, Op.PUSH})
#: Rule 4: the sensors a biometric step names, as XCUITest's ``sendBiometricMatch`` spells them.
SENSORS = ("faceId", "touchId")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_PUSH_TEXT = re.compile(r"(?P<file>\S(?:.*\S)?) sha256:(?P<digest>[0-9a-f]{16})", re.DOTALL)
_TREE_PATH = re.compile(r"/0(/[0-9]+)*")


def _non_empty(_inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not value:
        raise KeyedError(attribute.name, "must not be empty")


def _frame(_inst: object, attribute: attrs.Attribute[Any], value: tuple[float, ...]) -> None:
    if len(value) != 4:
        raise KeyedError(attribute.name, f"expected [x, y, w, h], four numbers; got {len(value)}")
    for v in value:
        if not 0.0 <= v <= 1.0:
            raise KeyedError(attribute.name, f"frame numbers are normalized to the screen, each in 0..1; got {v}")


def _tree_path(_inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _TREE_PATH.fullmatch(value):
        raise KeyedError(attribute.name, f"expected a tree path such as /0/3/1; got {value!r}")


def _count(_inst: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1:
        raise KeyedError(attribute.name, f"expected how often the label was on the screen, 1 or more; got {value}")


@attrs.frozen
class Target:
    """The element a step acts on, as recorded (Rule 6).

    Its label and role, tree path (``id``) and frame; ``count``, how many shown elements had this
    label and role on the recorded screen, and ``nth``, which of them it was (0-based, tree order).
    """

    label: str = attrs.field(validator=_non_empty)
    role: str = attrs.field(validator=_non_empty)
    id: str = attrs.field(validator=_tree_path)
    frame: tuple[float, float, float, float] = attrs.field(validator=_frame)
    count: int = attrs.field(validator=_count)
    nth: int = attrs.field()

    @nth.validator
    def _nth(self, attribute: attrs.Attribute[Any], value: int) -> None:
        if not 0 <= value < self.count:
            raise KeyedError(
                attribute.name, f"expected which of the {self.count} it was, 0 to {self.count - 1}; got {value}"
            )


def _hash(_inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _HEX16.fullmatch(value):
        raise KeyedError(attribute.name, f"expected 16 lowercase hex digits; got {value!r}")


@attrs.frozen
class ScreenRef:
    """The screen a step was recorded on: its hash and signature."""

    hash: str = attrs.field(validator=_hash)
    signature: tuple[tuple[str, str], ...]

    @cached_property
    def pairs(self) -> frozenset[tuple[str, str]]:
        """The signature as a set of ``(role, label)`` pairs (made once: a step is matched at every poll)."""
        return frozenset(self.signature)


@attrs.frozen
class Step:
    """One recorded action. See the module rules; build from data with :meth:`from_dict`."""

    op: Op
    app: str = attrs.field(validator=_non_empty)
    target: Target | None
    screen: ScreenRef
    text: str | None
    commit: Commit | None
    live: bool

    def __attrs_post_init__(self) -> None:
        if self.op.needs_target and self.target is None:
            raise KeyedError("target", f"{self.op} needs a target")
        if self.target is not None and not self.op.takes_target:
            raise KeyedError("target", f"{self.op} takes no target; it must be null")
        if self.op is Op.TYPE:
            if self.text is None and not self.live:
                raise KeyedError("text", "a TYPE step has text, or is live with text null")
        elif self.op in (Op.LAUNCH_APP, Op.OPEN_URL):
            if not self.text:
                raise KeyedError("text", f"{self.op} needs text (the bundle id or the URL)")
        elif self.op.is_device:
            _device_text(self.op, self.text)
        elif self.text is not None:
            raise KeyedError("text", f"{self.op} takes no text; it must be null")

    @classmethod
    def from_dict(cls, data: Any) -> Step:
        """Build a step from its dictionary; raises :class:`PathError` on anything malformed."""
        return _structure_step(data, None)

    def describe(self) -> str:
        """One line for people: ``Tap "Continue"``, ``Type "ada@example.com" into "Email"``, ``Swipe up``."""
        return describe_action(self.op, None if self.target is None else self.target.label, self.text)

    def to_dict(self) -> dict[str, Any]:
        """The step's dictionary, keys in the order of Rule 1."""
        target = None
        if self.target is not None:
            t = self.target
            target = {
                "label": t.label,
                "role": t.role,
                "id": t.id,
                "frame": list(t.frame),
                "count": t.count,
                "nth": t.nth,
            }
        return {
            "op": self.op.value,
            "app": self.app,
            "target": target,
            "screen": {"hash": self.screen.hash, "signature": [list(p) for p in self.screen.signature]},
            "text": self.text,
            "commit": None if self.commit is None else self.commit.value,
            "live": self.live,
        }


def describe_action(op: Op, label: str | None, text: str | None) -> str:  # noqa: C901, PLR0911, PLR0912 - one line per op, as a table
    """Describe an action in one line, as the heal file and the terminal show it."""
    on = "" if label is None else f' "{label}"'
    match op:
        case Op.TAP:
            return f"Tap{on}"
        case Op.LONG_PRESS:
            return f"Long press{on}"
        case Op.TYPE:
            what = "" if text is None else f' "{text}"'
            return f"Type{what} into{on}"
        case Op.SUBMIT:
            return "Submit"
        case Op.DISMISS_KEYBOARD:
            return "Dismiss the keyboard"
        case Op.BACK:
            return "Go back"
        case Op.LAUNCH_APP:
            return f"Open {text}"
        case Op.HOME:
            return "Go home"
        case Op.OPEN_URL:
            return f'Open link "{text}"'
        case Op.BIOMETRIC_MATCH:
            return f"Match the {sensor_name(text)} prompt"
        case Op.BIOMETRIC_FAIL:
            return f"Fail the {sensor_name(text)} prompt"
        case Op.PUSH:
            parsed = None if text is None else push_text(text)
            return f"Send the push notification in {text if parsed is None else parsed[0]}"
        case _:
            direction = op.value.removeprefix("SWIPE_").lower()
            return f"Swipe {direction}" + ("" if label is None else f" on{on}")


def _device_text(op: Op, text: str | None) -> None:
    """Rule 4: a device step's text: its sensor, or its payload file and digest."""
    if op is Op.PUSH:
        if not isinstance(text, str) or push_text(text) is None:
            wanted = "its payload file and digest (payload.json sha256:<16 hex>)"
            raise KeyedError("text", f"PUSH names {wanted}; got {shown(text)}")
    elif text not in SENSORS:
        raise KeyedError("text", f"{op} names its sensor, {' or '.join(SENSORS)}; got {shown(text)}")


def sensor_name(sensor: str | None) -> str:
    """``faceId`` -> ``Face ID``, ``touchId`` -> ``Touch ID`` (Rule 4)."""
    return "Touch ID" if sensor == "touchId" else "Face ID"


def push_text(text: str) -> tuple[str, str] | None:
    """Rule 4: a ``PUSH`` step's text as ``(file, digest)``; None when it isn't one."""
    m = _PUSH_TEXT.fullmatch(text)
    return None if m is None else (m["file"], m["digest"])


def load_path(data: Any) -> tuple[Step, ...]:
    """Validate a whole path (a list of step dictionaries); raises :class:`PathError` on any flaw."""
    if not isinstance(data, Sequence) or isinstance(data, str | bytes):
        raise PathError(f"a path is a list of steps, not {type(data).__name__}")
    return tuple(_structure_step(item, i + 1) for i, item in enumerate(data))


def dump_path(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """The path as JSON-ready dictionaries."""
    return [s.to_dict() for s in steps]


# -- strict structuring ---------------------------------------------------------------------

_STEP_KEYS = ("op", "app", "target", "screen", "text", "commit", "live")


def _make_converter() -> cattrs.Converter:
    conv = strict_converter(forbid_extra_keys=True)

    def pair_hook(value: Any, _type: Any) -> tuple[str, str]:
        items = strict_list(value)
        if len(items) != 2:
            raise ValueError(f"expected [role, label]; got {len(items)} items")
        return (strict_str(items[0]), strict_str(items[1]))

    def signature_hook(value: Any, _type: Any) -> tuple[tuple[str, str], ...]:
        return tuple(pair_hook(v, None) for v in strict_list(value))

    def op_hook(value: Any, _type: Any) -> Op:
        if not isinstance(value, str) or value not in Op.__members__:
            raise ValueError(f"unknown op {shown(value)} (ops: {', '.join(Op)})")
        return Op(value)

    def commit_hook(value: Any, _type: Any) -> Commit:
        if not isinstance(value, str) or value not in {c.value for c in Commit}:
            raise ValueError(f"unknown commit {shown(value)} (send, post, delete, purchase or null)")
        return Commit(value)

    frame_type = tuple[float, float, float, float]
    signature_type = tuple[tuple[str, str], ...]
    conv.register_structure_hook_func(lambda t: t == frame_type, strict_frame)
    conv.register_structure_hook_func(lambda t: t == signature_type, signature_hook)
    conv.register_structure_hook(Op, op_hook)
    conv.register_structure_hook(Commit, commit_hook)
    return conv


_CONVERTER = _make_converter()


def _structure_step(data: Any, number: int | None) -> Step:
    where = "step" if number is None else f"step {number}"
    if not isinstance(data, Mapping):
        raise PathError(f"{where}: expected a mapping of {', '.join(_STEP_KEYS)}", step=number)
    missing = [k for k in _STEP_KEYS if k not in data]
    if missing:
        raise PathError(f"{where}: key {missing[0]!r} is missing", step=number, key=missing[0])
    try:
        return _CONVERTER.structure(dict(data), Step)
    except cattrs.BaseValidationError as exc:
        key, message = first_error(exc, whole="step")
        raise PathError(f"{where}: key {key!r}: {message}", step=number, key=key) from exc
    except KeyedError as exc:
        raise PathError(f"{where}: key {exc.key!r}: {exc}", step=number, key=exc.key) from exc
