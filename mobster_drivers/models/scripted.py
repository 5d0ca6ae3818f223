"""The scripted model (``--model scripted``): no key, no network.

Rule 1 (a first run): it follows the check's steps, one action per step, and says done after the
        last. The grammar: ``Tap "X"``, ``Long press "X"``, ``Type "T" into "F"`` (a secret also as
        ``Type ${NAME} into F``), ``Submit``, ``Dismiss the keyboard``,
        ``Swipe up|down|left|right``, ``Open "bundle"``, ``Open link "url"``, ``Go home``, and on
        Android ``Go back`` (``Press back``: the system back button, ``BACK``).
        A step it can't read, or whose element isn't on the screen, makes it say blocked.
Rule 2 (a heal): it works through the recorded steps from the drifted one on, one action per
        call. A step whose target is on the screen it does as recorded: its label and role are on
        one row, or on as many rows as when it was recorded (the target's ``count``; it then takes
        the ``nth`` of them). More rows than recorded are not the target: a copy could be any of
        them. For a step whose target is
        gone it taps the one element that has that target's role and was not on the step's
        recorded screen; failing that, the one ``Button`` that was not on it (a popup's "Not now").
        If neither is exactly one, it says blocked. After the last recorded step it says done.
Rule 6 (typing in a heal): a typing step types the text the check gives it, as a real model reads
        it from the check: the recorded text (a ``${NAME}`` reference, the check's words), or, for
        a live step (masked text is never recorded), the text of the check's step that types into
        that field; for a field renamed since the check was written, the text of the one typing
        step of the check whose field is not on the screen. When the field is gone it types that
        text into the one field that has the target's role and was not on the step's recorded
        screen, failing that the one such field of any text-entry role (a renamed field: it never
        taps a field where the step types); failing both, it taps the one new ``Button`` (a
        popup over the form), else it says blocked. A text it can't tell says blocked.
Rule 5 (device steps): a check's biometric answer or push is the SDK's, never the model's. When a
        run asks it to do only some steps (a new request or new steps than the last call's), it
        starts again at the first of them. In a heal, a recorded device step is never repeated:
        it taps the one new control, as for a target that is gone, so the screen the device
        step needs comes back.
Rule 7 (rows): a check's row is named in the request (``- ${plan} = "pro"``); a step that taps or
        presses ``"${plan}"`` acts on the element labelled with the row's value, as a real model
        reads it there. A typing step types the reference as written (the SDK types the value).
Rule 3: it sees only what a real model sees: the prompt's screen rows (it parses them), the
        check's steps, and in a heal the recorded steps.
Rule 4: each call can sleep a set time on the clock (the benchmark uses 2.5 s), and reports usage
        estimated at 4 characters a token plus 150 output tokens.
"""

from __future__ import annotations

import json
import re

import attrs

from mobster_core import Clock, Decision, DecisionKind, ModelAction, Op, Prompt, Step
from mobster_core.prompts import estimate_usage

__all__ = ["ScriptedModel", "parse_step"]

_ROW = re.compile(r'^(e[0-9]+) (\S+) ("(?:[^"\\]|\\.)*")')
_STEP_GRAMMAR: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'^tap "(.+)"$', re.IGNORECASE), "TAP"),
    (re.compile(r'^long press "(.+)"$', re.IGNORECASE), "LONG_PRESS"),
    (re.compile(r'^type "(.*)" into "(.+)"$', re.IGNORECASE), "TYPE"),
    # a secret as its reference, unquoted: Type ${SIGNUP_PASSWORD} into Password
    (re.compile(r'^type (\$\{[A-Za-z_][A-Za-z0-9_]*\}) into "?([^"]+?)"?$', re.IGNORECASE), "TYPE"),
    (re.compile(r"^submit$", re.IGNORECASE), "SUBMIT"),
    (re.compile(r"^dismiss the keyboard$", re.IGNORECASE), "DISMISS_KEYBOARD"),
    (re.compile(r"^swipe (up|down|left|right)$", re.IGNORECASE), "SWIPE"),
    (re.compile(r'^open link "(.+)"$', re.IGNORECASE), "OPEN_URL"),
    (re.compile(r'^open "(.+)"$', re.IGNORECASE), "LAUNCH_APP"),
    (re.compile(r"^go home$", re.IGNORECASE), "HOME"),
    (re.compile(r"^(?:go|press) back$", re.IGNORECASE), "BACK"),
]
_PRESSABLE = ("Button", "Cell", "Link", "MenuItem", "Switch", "Image", "Icon", "Other")
_FIELDS = ("TextField", "SecureTextField", "SearchField", "TextView")


@attrs.frozen
class ParsedStep:
    """One step of the grammar: the op, the label it acts on, and the text."""

    op: Op
    label: str | None = None
    text: str | None = None


_ROW_VALUE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ROW_LINE = re.compile(r'^- \$\{([A-Za-z_][A-Za-z0-9_]*)\} = (".*")$', re.MULTILINE)


def _row_values(request: str) -> dict[str, str]:
    """Rule 7: the row's values the request names (a secret's reference is not a value: it is left out)."""
    out = {}
    for m in _ROW_LINE.finditer(request):
        try:
            out[m.group(1)] = json.loads(m.group(2))
        except ValueError:
            continue
    return out


def parse_step(step: str) -> ParsedStep | None:
    """Read one plain-English step of the grammar (Rule 1); None when it isn't one."""
    line = " ".join(step.split())
    for pattern, op in _STEP_GRAMMAR:
        m = pattern.match(line)
        if m is None:
            continue
        if op in ("TAP", "LONG_PRESS"):
            return ParsedStep(Op(op), label=m.group(1))
        if op == "TYPE":
            return ParsedStep(Op.TYPE, label=m.group(2), text=m.group(1))
        if op == "SWIPE":
            return ParsedStep(Op(f"SWIPE_{m.group(1).upper()}"))
        if op in ("OPEN_URL", "LAUNCH_APP"):
            return ParsedStep(Op(op), text=m.group(1))
        return ParsedStep(Op(op))
    return None


def _recorded_row(step: Step, rows: list[tuple[str, str, str]]) -> str | None:
    """Rule 2: the row of ``step``'s target: its label and role on one row, or the ``nth`` of ``count`` rows."""
    target = step.target
    assert target is not None
    same = [r for r in rows if (r[1], r[2]) == (target.role, target.label)]
    if len(same) == target.count:
        return same[target.nth][0]
    return same[0][0] if len(same) == 1 else None


def _rows(screen: str) -> list[tuple[str, str, str]]:
    """(row id, role, label) for each element row of the prompt's screen."""
    out: list[tuple[str, str, str]] = []
    for line in screen.splitlines():
        m = _ROW.match(line)
        if m is not None:
            out.append((m.group(1), m.group(2), json.loads(m.group(3))))
    return out


class ScriptedModel:
    """A model that follows the grammar (Rule 1) and heals by Rule 2. One instance per run."""

    def __init__(self, *, clock: Clock | None = None, delay: float = 0.0, name: str = "scripted") -> None:
        self.clock = clock
        self.delay = delay
        self._name = name
        self._cursor = 0
        self._heal_key: tuple[Step, ...] | None = None
        self._run_key: tuple[str, tuple[str, ...]] | None = None
        self.calls = 0

    @property
    def name(self) -> str:
        """``scripted``: priced at $0 in the default price table."""
        return self._name

    async def decide(self, prompt: Prompt) -> Decision:
        """Rule 1 or Rule 2, after the optional sleep (Rule 4)."""
        self.calls += 1
        if self.clock is not None and self.delay > 0:
            await self.clock.sleep(self.delay)
        usage = estimate_usage(prompt)
        if prompt.recorded:
            kind, actions, reason = self._heal(prompt)
        else:
            kind, actions, reason = self._first_run(prompt)
        return Decision(kind=kind, actions=actions, reason=reason, usage=usage)

    # -- Rule 1 ----------------------------------------------------------------------------

    def _first_run(self, prompt: Prompt) -> tuple[DecisionKind, tuple[ModelAction, ...], str]:
        key = (prompt.request, prompt.steps)
        if not prompt.history or key != self._run_key:
            self._cursor = 0  # Rule 5: a new part of the check starts at its first step
        self._run_key = key
        if self._cursor >= len(prompt.steps):
            return DecisionKind.DONE, (), "every step is done"
        number = self._cursor + 1
        step = prompt.steps[self._cursor]
        self._cursor += 1
        parsed = parse_step(step)
        if parsed is None:
            return DecisionKind.BLOCKED, (), f"step {number} isn't in the scripted grammar: {step!r}"
        if parsed.label is None:
            return DecisionKind.ACT, (ModelAction(parsed.op, text=parsed.text),), f"step {number}"
        roles = _FIELDS if parsed.op is Op.TYPE else _PRESSABLE
        label = _ROW_VALUE.sub(lambda m: _row_values(prompt.request).get(m.group(1), m.group(0)), parsed.label)
        row = self._find(prompt.screen, label, roles)
        if row is None:
            return DecisionKind.BLOCKED, (), f'step {number}: "{parsed.label}" isn\'t on the screen once'
        return DecisionKind.ACT, (ModelAction(parsed.op, target=row, text=parsed.text),), f"step {number}"

    @staticmethod
    def _typed_into(steps: tuple[str, ...], label: str, rows: list[tuple[str, str, str]]) -> str | None:
        """Rule 6: the text a step of the check types into ``label`` (a live step's text).

        Failing that (the field was renamed since the check was written), the text of the one
        typing step of the check whose field is not on the screen (``rows``).
        """
        typing = [p for p in map(parse_step, steps) if p is not None and p.op is Op.TYPE]
        into = [p.text for p in typing if p.label == label]
        if into:
            return into[0]
        shown = {r[2] for r in rows}
        renamed = [p.text for p in typing if p.label not in shown]
        return renamed[0] if len(renamed) == 1 else None

    @staticmethod
    def _find(screen: str, label: str, roles: tuple[str, ...]) -> str | None:
        rows = [r for r in _rows(screen) if r[2] == label]
        preferred = [r for r in rows if r[1] in roles]
        chosen = preferred or rows
        return chosen[0][0] if len(chosen) == 1 else None

    # -- Rule 2 ----------------------------------------------------------------------------

    def _heal(self, prompt: Prompt) -> tuple[DecisionKind, tuple[ModelAction, ...], str]:
        if prompt.recorded != self._heal_key:
            self._heal_key = prompt.recorded
            self._cursor = 0
        if self._cursor >= len(prompt.recorded):
            return DecisionKind.DONE, (), "every recorded step is done"
        step = prompt.recorded[self._cursor]
        self._cursor += 1
        rows = _rows(prompt.screen)
        if step.op.is_device:
            return self._new_control(step, rows, "Button")
        if step.target is None:
            return DecisionKind.ACT, (ModelAction(step.op, text=step.text),), "as recorded"
        if step.op is Op.TYPE:
            return self._type(step, rows, prompt.steps)
        row = _recorded_row(step, rows)
        if row is not None:
            return DecisionKind.ACT, (ModelAction(step.op, target=row),), "as recorded"
        return self._new_control(step, rows, step.target.role)

    def _type(
        self, step: Step, rows: list[tuple[str, str, str]], steps: tuple[str, ...]
    ) -> tuple[DecisionKind, tuple[ModelAction, ...], str]:
        """Rule 6: type the text the check gives the step, into its field or the one that replaces it."""
        target = step.target
        assert target is not None  # a TYPE step has one
        text = step.text if step.text is not None else self._typed_into(steps, target.label, rows)
        if text is None:
            return DecisionKind.BLOCKED, (), f'no step of the check types into "{target.label}"'
        row = _recorded_row(step, rows)
        if row is not None:
            return DecisionKind.ACT, (ModelAction(Op.TYPE, target=row, text=text),), "as recorded"
        return self._new_field(step, rows, text)

    @staticmethod
    def _new_field(
        step: Step, rows: list[tuple[str, str, str]], text: str
    ) -> tuple[DecisionKind, tuple[ModelAction, ...], str]:
        """Rule 6: type ``text`` into the one new field of the target's role (else of a text-entry role).

        Failing both, the one new ``Button`` is tapped (a popup over the form), else it is blocked.
        """
        assert step.target is not None
        recorded = step.screen.pairs
        new = [r for r in rows if (r[1], r[2]) not in recorded]
        for fields in ([r for r in new if r[1] == step.target.role], [r for r in new if r[1] in _FIELDS]):
            if len(fields) == 1:
                return DecisionKind.ACT, (ModelAction(Op.TYPE, target=fields[0][0], text=text),), "the one new field"
        return ScriptedModel._new_control(step, rows, "Button")

    @staticmethod
    def _new_control(
        step: Step, rows: list[tuple[str, str, str]], role: str
    ) -> tuple[DecisionKind, tuple[ModelAction, ...], str]:
        """Rule 2: tap the one element of ``role`` (else the one ``Button``) not on the step's recorded screen."""
        recorded = step.screen.pairs
        new = [r for r in rows if (r[1], r[2]) not in recorded]
        for candidates in ([r for r in new if r[1] == role], [r for r in new if r[1] == "Button"]):
            if len(candidates) == 1:
                return DecisionKind.ACT, (ModelAction(Op.TAP, target=candidates[0][0]),), "the one new control"
        what = f'"{step.target.label}" is gone' if step.target is not None else f"{step.describe()} can't go on"
        return DecisionKind.BLOCKED, (), f"{what} and no single new control replaces it"
