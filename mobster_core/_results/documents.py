"""Reading ``results.json`` back: typed values from the ``mobster.test/1`` document.

Rule 1: a document is read with cattrs, strictly per key (``_rules/formats/strict``): a value of the
        wrong type (``"3"`` for a number, a mapping for a list, an unknown verdict) is refused
        with :class:`~mobster_core.exceptions.ResultsError`, naming its dotted key
        (``checks[2].steps[0].waited_s``) and what was expected.
Rule 2: keys this version doesn't know are ignored: a reader takes documents that later versions
        wrote with keys added. The keys the first ``mobster.test/1`` promised (``docs/cli.md``) must
        be there; a key added since may be missing (an older file), and reads as its empty value.
Rule 3: what ``to_dict`` derives (``healed_steps``, ``replayed_with_no_model``, ``flaky``, ``platform``, the
        summary, ``pass_rates``, ``exit_code``) is never read back: the values compute it again (their Rule 4).
Rule 4: ``message`` holds the core's message joined with its fix's neutral sentence
        (``_rules/verdict/fixes`` Rule 3); reading it back takes off exactly that sentence, computed from
        the ``fix`` read beside it. A message that doesn't end with it (an older file, an edited
        one) is kept whole.
Rule 5: what is read is a result's fields (:class:`CheckFields`, :class:`SuiteFields`), of the
        parts of a result (``parts``); ``CheckResult.from_dict`` and ``SuiteResult.from_dict``
        build themselves from them. So the reader knows the parts and not the results that hold
        them, and the results import the reader, never the other way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict, TypeVar

import attrs
import cattrs
from cattrs.cols import homogenous_tuple_structure_factory, is_sequence
from cattrs.gen import make_dict_structure_fn, override

from mobster_core._rules.assertions import AssertionResult
from mobster_core._rules.device.device import AppInfo, DeviceInfo, DeviceKind
from mobster_core._rules.formats.strict import first_error, shown, strict_converter, strict_frame, strict_list
from mobster_core._rules.model.cost import Cost
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict
from mobster_core._rules.vocabulary.screen import Element, Frame
from mobster_core._rules.vocabulary.steps import Op
from mobster_core._store.healfile import HealEntry
from mobster_core.exceptions import ResultsError

from .parts import SCHEMA, Attempt, FinishedEarly, Mode, StepReport, StepSource

__all__ = ["CheckFields", "SuiteFields", "read_check", "read_suite"]

T = TypeVar("T")

# -- the document's shapes (as ``to_dict`` writes them; Rule 2 says which keys may be missing) -----


@attrs.frozen
class _Device:
    name: str
    kind: DeviceKind
    ios: str
    release: str | None = None  # Android's version beside its API level (``ios``): added with Android


@attrs.frozen
class _App:
    bundle: str
    version: str | None
    build: str | None


@attrs.frozen
class _Target:
    label: str
    role: str
    frame: Frame
    id: str


@attrs.frozen
class _Step:
    index: int
    op: Op
    text: str
    source: StepSource
    waited_s: float
    similarity: float | None
    settled: bool
    reason: str | None
    target: _Target | None = None
    frame: str | None = None


@attrs.frozen
class _Path:
    identity: str | None
    env: str | None
    used: bool
    why: str | None
    carried_from: str | None = None


@attrs.frozen
class _Fix:
    code: FixCode
    args: dict[str, str] = attrs.Factory(dict)


@attrs.frozen
class _Attempt:
    verdict: Verdict
    class_: FailureClass | None
    message: str
    run_dir: str
    device_label: str | None = None
    seconds: float = 0.0


@attrs.frozen
class _Repeat:
    run: int
    of: int


@attrs.frozen
class _Check:
    name: str
    file: str
    device: _Device | None
    app: _App | None
    verdict: Verdict
    class_: FailureClass | None
    message: str
    mode: Mode | None
    seconds: float
    cost_usd: float
    cost_estimated: bool
    model_calls: int
    path: _Path
    steps: tuple[_Step, ...]
    heals: tuple[HealEntry, ...]
    assertions: tuple[AssertionResult, ...]
    run_dir: str
    stable: bool | None = None
    device_label: str | None = None
    final_frame: str | None = None
    step: int | None = None
    fix: _Fix | None = None
    finished_early: FinishedEarly | None = None
    attempts: tuple[_Attempt, ...] = ()
    repeat: _Repeat | None = None
    video: str | None = None
    video_url: str | None = None


@attrs.frozen
class _Suite:
    schema: str
    suite_id: str
    started_at: str
    seconds: float
    checks: tuple[dict[str, Any], ...]  # each read as a check, so an error names its index


# -- what the values are made of: a result's fields, read (the values build themselves from them) -----


class CheckFields(TypedDict):
    """A ``CheckResult``'s fields, as one check's entry holds them (``CheckResult(**fields)``)."""

    name: str
    file: str
    device: DeviceInfo | None
    app: AppInfo | None
    outcome: Outcome
    mode: Mode | None
    seconds: float
    cost: Cost
    model_calls: int
    identity: str | None
    env: str | None
    path_used: bool
    path_why: str | None
    steps: tuple[StepReport, ...]
    heals: tuple[HealEntry, ...]
    assertions: tuple[AssertionResult, ...]
    run_dir: str
    stable: bool | None
    carried_from: str | None
    device_label: str | None
    final_frame: str | None
    finished_early: FinishedEarly | None
    attempts: tuple[Attempt, ...]
    repeat: tuple[int, int] | None
    video: str | None
    video_url: str | None


class SuiteFields(TypedDict):
    """A ``SuiteResult``'s fields, as ``results.json`` holds them (its folder aside)."""

    suite_id: str
    started_at: str
    seconds: float
    checks: tuple[CheckFields, ...]


# -- the converter (Rule 1) ------------------------------------------------------------------------


def _converter() -> cattrs.Converter:
    conv = strict_converter(forbid_extra_keys=False)

    def sequence(kind: Any, _conv: Any) -> Callable[[Any, Any], Any]:
        items = homogenous_tuple_structure_factory(kind, conv)
        return lambda value, _type: items(strict_list(value), kind)

    def mapping(value: Any, kind: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise TypeError(f"expected a mapping, got {shown(value)}")
        key_type, value_type = getattr(kind, "__args__", (str, Any))
        keep = value_type is Any  # an action of a heal: kept as the heal file has it
        return {conv.structure(k, key_type): v if keep else conv.structure(v, value_type) for k, v in value.items()}

    conv.register_structure_hook_func(lambda t: t == Frame, strict_frame)
    conv.register_structure_hook_factory(lambda t: is_sequence(t) and getattr(t, "__origin__", None) is tuple, sequence)
    conv.register_structure_hook_func(lambda t: getattr(t, "__origin__", None) is dict, mapping)
    renames: dict[type, dict[str, Any]] = {
        HealEntry: {"from_": override(rename="from")},
        _Check: {"class_": override(rename="class")},
        _Attempt: {"class_": override(rename="class")},
    }
    # Leaves first: a class's hook is made with the hooks of its fields. A heal, an assertion and a
    # match are their own values (the document names their fields as they do); the rest differ.
    kinds = (
        Element, _Device, _App, _Target, _Step, HealEntry, AssertionResult, _Path, _Fix, FinishedEarly, _Attempt,
        _Repeat, _Check, _Suite,
    )  # fmt: skip
    for cls in kinds:
        _register(conv, cls, renames.get(cls, {}))
    return conv


def _register(conv: cattrs.Converter, cls: type[T], overrides: dict[str, Any]) -> None:
    made = make_dict_structure_fn(cls, conv, **overrides)

    def hook(value: Any, kind: type[T]) -> T:
        if not isinstance(value, Mapping):
            raise TypeError(f"expected a mapping, got {shown(value)}")
        return made(value, kind)

    conv.register_structure_hook(cls, hook)


_CONVERTER = _converter()


#: The document's keys that aren't names in Python: the attributes that hold them.
_RENAMED = {"from_": "from", "class_": "class"}


def _structure(data: Any, kind: type[T], where: str) -> T:
    try:
        return _CONVERTER.structure(data, kind)
    except (cattrs.BaseValidationError, TypeError, ValueError) as exc:
        key, message = first_error(exc, whole="")
        key = ".".join(_RENAMED.get(part, part) for part in key.split(".")) if key else key
        dotted = f"{where}{'.' if where and key and not key.startswith('[') else ''}{key}"
        raise ResultsError(f"{dotted or 'the document'}: {message}", key=dotted or None) from exc


def _value(key: str, make: Callable[[], T]) -> T:
    """A value whose own rules may refuse what the document holds (an iOS version, a fix's arguments)."""
    try:
        return make()
    except (TypeError, ValueError) as exc:
        raise ResultsError(f"{key}: {exc}", key=key) from exc


# -- from the shapes to the values -----------------------------------------------------------------


def read_check(data: Any, where: str = "") -> CheckFields:
    """One check's entry (``result.json``): the fields of its ``CheckResult`` (the module rules)."""
    doc = _structure(data, _Check, where)
    at = f"{where}." if where else ""
    given = doc.device
    device = (
        None
        if given is None
        else _value(f"{at}device.ios", lambda: DeviceInfo(given.name, given.ios, given.kind, release=given.release))
    )
    return CheckFields(
        name=doc.name,
        file=doc.file,
        device=device,
        app=None if doc.app is None else AppInfo(doc.app.bundle, doc.app.version, doc.app.build),
        outcome=_outcome(doc, at),
        mode=doc.mode,
        seconds=doc.seconds,
        cost=Cost(doc.cost_usd, doc.cost_estimated),
        model_calls=doc.model_calls,
        identity=doc.path.identity,
        env=doc.path.env,
        path_used=doc.path.used,
        path_why=doc.path.why,
        steps=tuple(_step(s) for s in doc.steps),
        heals=doc.heals,
        assertions=doc.assertions,
        run_dir=doc.run_dir,
        stable=doc.stable,
        carried_from=doc.path.carried_from,
        device_label=doc.device_label,
        final_frame=doc.final_frame,
        finished_early=doc.finished_early,
        attempts=tuple(
            Attempt(a.verdict, a.class_, a.message, a.run_dir, a.device_label, a.seconds) for a in doc.attempts
        ),
        repeat=_repeat(doc.repeat, at),
        video=doc.video,
        video_url=doc.video_url,
    )


def _repeat(given: _Repeat | None, at: str) -> tuple[int, int] | None:
    if given is None:
        return None
    if not 1 <= given.run <= given.of:
        raise ResultsError(f"{at}repeat: run {given.run} of {given.of} is not a run of them", key=f"{at}repeat")
    return (given.run, given.of)


def read_suite(data: Any) -> SuiteFields:
    """A whole ``results.json``: the fields of its ``SuiteResult``, each check's as :func:`read_check` reads it."""
    doc = _structure(data, _Suite, "")
    if doc.schema != SCHEMA:
        raise ResultsError(f"schema: expected {SCHEMA!r}, got {shown(doc.schema)}", key="schema")
    checks = tuple(read_check(c, f"checks[{n}]") for n, c in enumerate(doc.checks))
    return SuiteFields(suite_id=doc.suite_id, started_at=doc.started_at, seconds=doc.seconds, checks=checks)


def _outcome(doc: _Check, at: str) -> Outcome:
    given = doc.fix
    fix = None if given is None else _value(f"{at}fix.args", lambda: Fix(given.code, given.args))
    message = doc.message
    if fix is not None:  # Rule 4
        tail = fix.sentence
        if message == tail:
            message = ""
        elif message.endswith(f"; {tail}"):
            message = message.removesuffix(f"; {tail}")
    if doc.step is not None and doc.step < 1:
        raise ResultsError(f"{at}step: a step is counted from 1, got {doc.step}", key=f"{at}step")
    return _value(f"{at}class", lambda: Outcome(doc.verdict, doc.class_, message, step=doc.step, fix=fix))


def _step(doc: _Step) -> StepReport:
    given = doc.target
    target = None if given is None else Element(role=given.role, label=given.label, frame=given.frame, path=given.id)
    return StepReport(
        doc.index, doc.op, doc.text, doc.source, doc.waited_s, doc.similarity, doc.settled, doc.reason, target,
        doc.frame,
    )  # fmt: skip
