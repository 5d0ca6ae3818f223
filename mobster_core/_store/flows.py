"""Flows: steps written once (``.mobster/flows/<name>.yaml``), used by checks and by other flows.

Rule 1: a flow file is read as a check file is (``checks``' Rules 1-4: YAML of at most 1 MiB,
        every key known, nothing converted, every problem one line ``file:line: key: what is
        wrong; what to write``). Its keys: ``version`` (1), ``name`` (optional; when given, the
        file's stem: a flow is used by its file's name), ``inputs``, ``steps`` (required) and
        ``expect`` (what must hold when the flow ends). The keys of a check that say how the app
        is run (``app``, ``launch``, ``device``, ``runtime``, ``reset``, ``rows``, ``tags``,
        ``budget``, ``alerts``, ``all_steps``) are refused by name: a flow is never a check, it
        runs only where a check uses it, and the check says how.
Rule 2: ``inputs`` maps each input's name (a ``${name}`` name: a letter or ``_``, then letters,
        digits or ``_``) to ``text`` or ``secret``, or to ``{type: text|secret, default: "…"}``.
        A secret input is bound to references only (``${PAID_PASSWORD}``), so its value is typed
        from the environment and never written; its default, when it has one, is references too.
Rule 3: a step of a flow (or of a check) is plain English, or ``- use: NAME`` /
        ``- use: {flow: NAME, with: {input: "text or ${REFERENCE}"}}``. Each ``with`` key is a
        declared input (else the nearest is named); each input without a default is bound
        (else it is named as missing). Inside the flow's steps and expectations ``${input}``
        stands for what the caller bound; any other ``${NAME}`` is the caller's (a secret of the
        environment, a value of the check's row). A flow's steps are plain: device steps
        (``biometric``, ``push``) belong in the check.
Rule 4: a flow used by a flow is part of it (its steps are expanded in place); a chain of uses
        deeper than :data:`MAX_DEPTH` is refused, and a cycle is named as the chain it makes
        (``login › helper › login``), at the ``use`` that closes it. A check uses at most
        :data:`MAX_EXPANDED` steps once every flow is expanded.
Rule 5: flows live in ``<project>/.mobster/flows/``: every ``*.yaml`` there but heal files and
        hidden files. An unknown flow is refused at its ``use`` line, naming the nearest flow.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

import attrs

from mobster_core._rules.assertions import Assertion, ExpectError, parse_expect
from mobster_core._rules.device.secrets import REFERENCE, only_references
from mobster_core._rules.formats.reader import StrictReader
from mobster_core._rules.formats.yaml import MAX_YAML_BYTES, Keys, YamlProblem, did_you_mean, kind_of, load_yaml
from mobster_core.exceptions import CheckError, Problem

from .fsutil import MOBSTER_DIR, UnsafeFile, read_user_file

__all__ = [
    "FLOWS_DIR",
    "MAX_DEPTH",
    "MAX_EXPANDED",
    "Crumb",
    "Flow",
    "FlowBook",
    "FlowInput",
    "Use",
    "bind",
    "bind_data",
    "find_flows",
    "load_flow",
]

#: Rule 5's folder, under the project root.
FLOWS_DIR = Path(MOBSTER_DIR) / "flows"
#: Rule 4: the deepest chain of uses (a check using a flow is 1).
MAX_DEPTH = 5
#: Rule 4: the most steps a check has with every flow expanded.
MAX_EXPANDED = 100
MAX_FLOW_STEPS = 20
MAX_STEP_CHARS = 500
MAX_INPUTS = 20
MAX_BINDING_CHARS = 1000
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FLOW_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
SEPARATOR = " \u203a "  # " › ": the breadcrumbs' separator

_TOP_KEYS = ("version", "name", "inputs", "steps", "expect")
_CHECK_ONLY = ("app", "launch", "device", "runtime", "reset", "rows", "tags", "budget", "alerts", "all_steps")
_INPUT_KEYS = ("type", "default")
_INPUT_TYPES = ("text", "secret")
_USE_KEYS = ("flow", "with")


def _frozen_map(value: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(value))


@attrs.frozen
class FlowInput:
    """Rule 2: one declared input: its name, whether it is a secret, and its default (None: it must be bound)."""

    name: str
    secret: bool = False
    default: str | None = None


@attrs.frozen
class Use:
    """Rule 3: a ``use`` step as written: the flow's name, its bindings, and where it is (``file:line``)."""

    flow: str
    bindings: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    where: str = ""
    keys: Keys = ()


@attrs.frozen
class Flow:
    """A flow file, read (Rule 1): its name, inputs, steps (text, or a :class:`Use`) and expectations.

    ``expect_raw`` is the expectations as written, bound per call (``${input}`` replaced) and read
    again there; ``expect`` as read with the inputs unbound (a check of the file alone).
    """

    file: Path
    name: str
    inputs: tuple[FlowInput, ...] = ()
    steps: tuple[str | Use, ...] = ()
    expect: tuple[Assertion, ...] = ()
    expect_raw: Any = attrs.field(default=None, eq=False, repr=False)

    def input(self, name: str) -> FlowInput | None:
        """The declared input ``name``, or None."""
        return next((i for i in self.inputs if i.name == name), None)

    @property
    def uses(self) -> tuple[str, ...]:
        """The flows this flow uses directly, each once, in order."""
        return tuple(dict.fromkeys(s.flow for s in self.steps if isinstance(s, Use)))


@attrs.frozen
class Crumb:
    """Where an expanded step comes from: the chain of flows (outermost first), its step in the innermost (from 1)."""

    flows: tuple[str, ...]
    step: int

    @property
    def flow(self) -> str:
        """The chain as people read it: ``login`` or ``onboarding › login``."""
        return SEPARATOR.join(self.flows)

    def show(self, text: str) -> str:
        """``login › step 2 (Tap "Sign in")``."""
        return f"{self.flow}{SEPARATOR}step {self.step} ({text})"


def bind(text: str, bindings: Mapping[str, str]) -> str:
    """Rule 3: ``text`` with each ``${input}`` of ``bindings`` replaced by what it is bound to (others kept)."""
    if not bindings:
        return text
    return REFERENCE.sub(lambda m: bindings.get(m.group(1), m.group(0)), text)


def bind_data(value: Any, bindings: Mapping[str, str]) -> Any:
    """Rule 3: every string of parsed data (an ``expect``) bound."""
    if isinstance(value, str):
        return bind(value, bindings)
    if isinstance(value, list):
        return [bind_data(v, bindings) for v in value]
    if isinstance(value, Mapping):
        return {k: bind_data(v, bindings) for k, v in value.items()}
    return value


def yaml_files(folder: Path) -> list[Path]:
    """The YAML files of ``folder`` a project reads (checks, flows), sorted by name; [] without the folder.

    No hidden file, no heal file beside them, nothing but regular files.
    """
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.suffix in (".yaml", ".yml")
        and not p.name.startswith(".")
        and not p.name.endswith((".heal.yaml", ".heal.yml"))
        and p.is_file()
    )


def find_flows(root: Path) -> list[Path]:
    """Rule 5: every flow file of the project at ``root``, sorted by name; [] when there are none."""
    return yaml_files(root / FLOWS_DIR)


def load_flow(path: Path) -> Flow:
    """Read and validate the flow file at ``path`` (Rules 1-3); raises :class:`CheckError`."""
    try:
        raw = read_user_file(path, max_bytes=MAX_YAML_BYTES, follow=MOBSTER_DIR not in path.parts)
    except UnsafeFile as exc:
        detail = f"can't read the flow file: {exc.reason}; a flow is a regular YAML file of at most 1 MiB" + (
            ", not a symlink, in .mobster/flows" if exc.problem is Problem.SYMLINK else ""
        )
        raise CheckError(f"{path}: {detail}", file=str(path), detail=detail) from exc
    except OSError as exc:
        detail = f"can't read the flow file ({exc.strerror or exc}); check the path"
        raise CheckError(f"{path}: {detail}", file=str(path), detail=detail) from exc
    try:
        doc = load_yaml(raw, str(path))
    except YamlProblem as exc:
        raise CheckError(str(exc), file=str(path), line=exc.line, key=exc.key, detail=exc.detail) from exc
    return _FlowReader(doc).flow(doc.data, path)


class StepsReader(StrictReader):
    """What a check's reader and a flow's share: a ``use`` step (Rule 3), read where it is written."""

    refuses_nulls = True

    def error(self, problem: YamlProblem) -> CheckError:
        return CheckError(str(problem), file=problem.source, line=problem.line, key=problem.key, detail=problem.detail)

    def use(self, value: Mapping[str, Any], keys: Keys) -> Use:
        """``- use: NAME`` or ``- use: {flow: NAME, with: {…}}``."""
        example = "write - use: login, or - use: {flow: login, with: {user: ${PAID_USER}}}"
        if len(value) != 1:
            found = ", ".join(str(k) for k in value)
            self.fail(keys, f"a use step is a mapping of one key, use; got {found}", example)
        where: Keys = (*keys, "use")
        item = value["use"]
        bindings: dict[str, str] = {}
        if isinstance(item, str):
            name = item.strip()
        else:
            raw = self.mapping(item, where, _USE_KEYS, "use: {flow: login, with: {user: ${PAID_USER}}}")
            self.require(raw, where, {"flow": "write use: {flow: login, with: {…}}"})
            name = self.text(raw["flow"], (*where, "flow"), limit=64)
            if "with" in raw:
                named = tuple(str(k) for k in raw["with"]) if isinstance(raw["with"], Mapping) else ()
                given = self.mapping(
                    raw["with"], (*where, "with"), named, "with: {user: ${PAID_USER}}",
                    what="a mapping of the flow's inputs to text",
                )  # fmt: skip
                for key, bound in given.items():
                    if not isinstance(key, str) or not NAME.fullmatch(key):
                        self.fail(
                            (*where, "with", str(key)),
                            f"{kind_of(key)} is not an input's name",
                            "write user: ${PAID_USER}",
                        )
                    bindings[key] = self.string(bound, (*where, "with", key), limit=MAX_BINDING_CHARS, empty=True)
        if not FLOW_NAME.fullmatch(name):
            self.fail(where, f"{name!r} is not a flow's name (its file's name without .yaml)", "write use: login")
        return Use(name, bindings, self.doc.where(where), where)

    def plain_steps(
        self, value: Any, keys: Keys, *, limit: int, device: Callable[[Mapping[str, Any], Keys], Any] | None = None
    ) -> list[str | Use | Any]:
        """A list of steps: text, ``use`` steps, and (for a check: ``device``) device steps."""
        if not isinstance(value, list):
            self.fail(keys, f"expected a list of steps, got {kind_of(value)}", "write steps: [Tap Sign up]")
        if not value:
            self.fail(keys, "is an empty list", "write at least one step")
        if len(value) > limit:
            self.fail(keys, f"has {len(value)} steps; the limit is {limit}", "split it in two")
        out: list[str | Use | Any] = []
        for i, item in enumerate(value):
            if isinstance(item, Mapping) and "use" in item:
                out.append(self.use(item, (*keys, i)))
            elif isinstance(item, Mapping):
                if device is None:
                    self.fail(
                        (*keys, i),
                        f"a flow's step is text or a use step, got a mapping of {', '.join(map(str, item))}",
                        "device steps (biometric, push) belong in the check that uses the flow",
                    )
                out.append(device(item, (*keys, i)))
            else:
                out.append(self.text(item, (*keys, i), limit=MAX_STEP_CHARS))
        return out


class _FlowReader(StepsReader):
    """Walks a flow file once (Rules 1-3)."""

    def unknown_key(self, keys: Keys, name: str, allowed: Sequence[str]) -> NoReturn:
        if not keys and name in _CHECK_ONLY:
            self.fail(
                (name,),
                f"{name!r} is a check's key, and a flow is never a check: it runs only inside the checks that use it",
                f"move {name} to the checks that use this flow",
            )
        super().unknown_key(keys, name, allowed)

    def flow(self, data: Any, path: Path) -> Flow:
        if data is None:
            self.fail((), "the file is empty", "write steps: [...] and, if it needs them, inputs")
        top = self.mapping(data, (), _TOP_KEYS, "inputs, steps and expect at the top")
        if "version" in top:
            version = top["version"]
            if isinstance(version, bool) or version != 1 or not isinstance(version, int):
                self.fail(("version",), f"only version 1 exists, got {kind_of(version)}", "write version: 1")
        stem = path.stem
        if not FLOW_NAME.fullmatch(stem):
            self.fail((), f"{stem!r} is not a flow's name", "name the file with letters, digits, '_' and '-'")
        if "name" in top:
            name = self.text(top["name"], ("name",), limit=64)
            if name != stem:
                self.fail(("name",), f"the flow is named {name!r} but its file is {path.name}", f"write name: {stem}")
        self.require(top, (), {"steps": "write steps: [Tap Sign in]"})
        inputs = self.inputs(top["inputs"]) if "inputs" in top else ()
        steps = tuple(self.plain_steps(top["steps"], ("steps",), limit=MAX_FLOW_STEPS))
        expect: tuple[Assertion, ...] = ()
        if "expect" in top:
            doc = self.doc
            try:
                expect = parse_expect(
                    top["expect"],
                    locate=lambda keys: doc.where(("expect", *keys)),
                    line=lambda keys: doc.line(("expect", *keys)),
                )
            except ExpectError as exc:
                self.fail(("expect", *exc.keys), exc.problem, exc.fix)
        return Flow(file=path, name=stem, inputs=inputs, steps=steps, expect=expect, expect_raw=top.get("expect"))

    def inputs(self, value: Any) -> tuple[FlowInput, ...]:
        keys: Keys = ("inputs",)
        if not isinstance(value, Mapping):
            self.fail(keys, f"expected a mapping of input names to text or secret, got {kind_of(value)}",
                      "write inputs: {user: text, password: secret}")  # fmt: skip
        if len(value) > MAX_INPUTS:
            self.fail(keys, f"has {len(value)} inputs; the limit is {MAX_INPUTS}", "remove some")
        out = []
        for key, item in value.items():
            name = str(key)
            if not isinstance(key, str) or not NAME.fullmatch(key):
                problem = f"{kind_of(key)} is not an input's name: a ${{name}} name (letters, digits, '_')"
                self.fail((*keys, name), problem, "write a name such as user")
            kind, default = item, None
            if isinstance(item, Mapping):
                raw = self.mapping(item, (*keys, key), _INPUT_KEYS, "user: {type: text, default: ada@example.com}")
                kind = raw.get("type", "text")
                if "default" in raw:
                    default = self.string(raw["default"], (*keys, key, "default"), limit=MAX_BINDING_CHARS, empty=True)
            if kind not in _INPUT_TYPES:
                hint = did_you_mean(kind, _INPUT_TYPES) if isinstance(kind, str) else ""
                self.fail((*keys, key), f"unknown input type {kind_of(kind)}{hint}", "write text or secret")
            secret = kind == "secret"
            if secret and default is not None and not only_references(default):
                self.fail((*keys, key, "default"), "a secret's default is typed from the environment, not written here",
                          "write default: ${YOUR_SECRET}")  # fmt: skip
            out.append(FlowInput(key, secret, default))
        return tuple(out)


@attrs.frozen
class Expanded:
    """What a use step expands to: each step's text (bound) and where it comes from, and the flows' expectations."""

    steps: tuple[str, ...]
    crumbs: tuple[Crumb, ...]
    #: ``(chain, expectations)`` of each flow that has some, bound, in the order the flows end.
    expect: tuple[tuple[str, tuple[Assertion, ...]], ...] = ()
    #: The flow files used, the outermost first, each once.
    files: tuple[Path, ...] = ()


class FlowBook:
    """The flows of a project, read when first used, each once (Rules 4, 5)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._flows: dict[str, Flow] = {}

    def names(self) -> list[str]:
        """The names of the project's flows (Rule 5)."""
        return [] if self.root is None else [p.stem for p in find_flows(self.root)]

    def get(self, name: str) -> Flow | None:
        """The flow ``name``, read once; None when the project has none of that name."""
        if name in self._flows:
            return self._flows[name]
        if self.root is None:
            return None
        folder = self.root / FLOWS_DIR
        file = next((folder / f"{name}{s}" for s in (".yaml", ".yml") if (folder / f"{name}{s}").is_file()), None)
        if file is None:
            return None
        flow = load_flow(file)
        self._flows[name] = flow
        return flow

    def expand(
        self,
        use: Use,
        fail: Callable[[Keys, str, str], NoReturn],
        chain: tuple[str, ...] = (),
        row: Mapping[str, str] | None = None,
    ) -> Expanded:
        """Rule 4: the steps ``use`` stands for, bound, each with its crumb; ``fail`` refuses at the use's line.

        ``chain`` is the flows being expanded around this use (outermost first); ``row`` the values
        of the check's row, which the flows' expectations are judged with (never the steps: a
        step's ``${name}`` is typed as the row's value when the action leaves for the device).
        """
        name = use.flow
        if name in chain:
            cycle = SEPARATOR.join((*chain[chain.index(name) :], name))
            fail(use.keys, f"the flows use each other in a cycle: {cycle}", "remove one of the uses")
        if len(chain) + 1 > MAX_DEPTH:
            shown = SEPARATOR.join((*chain, name))
            fail(use.keys, f"uses flows {len(chain) + 1} deep ({shown}); the limit is {MAX_DEPTH}",
                 "use the inner flows from the check itself")  # fmt: skip
        flow = self.get(name)
        if flow is None:
            names = self.names()  # none yet: say so, never "(allowed: )"
            hint = did_you_mean(name, names) if names else " (the project has no flows in .mobster/flows/)"
            fail(
                use.keys,
                f"unknown flow {name!r}{hint}",
                f"write a flow file .mobster/flows/{name}.yaml, or fix the name",
            )
        bindings = self._bindings(flow, use, fail)
        here = (*chain, name)
        steps: list[str] = []
        crumbs: list[Crumb] = []
        expect: list[tuple[str, tuple[Assertion, ...]]] = []
        files: list[Path] = [flow.file]
        reader = _reader_of(flow)
        for number, step in enumerate(flow.steps, 1):
            if isinstance(step, Use):
                inner = Use(step.flow, {k: bind(v, bindings) for k, v in step.bindings.items()}, step.where, step.keys)
                got = self.expand(inner, reader.fail, here, row)
                steps += got.steps
                crumbs += got.crumbs
                expect += got.expect
                files += [f for f in got.files if f not in files]
            else:
                steps.append(bind(step, bindings))
                crumbs.append(Crumb(here, number))
            if len(steps) > MAX_EXPANDED:
                fail(use.keys, f"expands to more than {MAX_EXPANDED} steps", "use fewer or shorter flows")
        if flow.expect_raw is not None:
            expect.append((SEPARATOR.join(here), _bound_expect(flow, reader, bindings, row or {})))
        return Expanded(tuple(steps), tuple(crumbs), tuple(expect), tuple(files))

    @staticmethod
    def _bindings(flow: Flow, use: Use, fail: Callable[[Keys, str, str], NoReturn]) -> dict[str, str]:
        """Rule 3: what each input is bound to: the use's, else the default; an unknown or missing one is refused."""
        declared = [i.name for i in flow.inputs]
        for key, bound in use.bindings.items():
            found = flow.input(key)
            if found is None:
                hint = did_you_mean(key, declared) if declared else " (the flow declares no inputs)"
                fail((*use.keys, "with", key), f"{key!r} is not an input of the flow {flow.name}{hint}",
                     f"declare it in {flow.file.name}'s inputs, or remove it")  # fmt: skip
            if found.secret and not only_references(bound):
                fail((*use.keys, "with", key), f"{key} is a secret input of {flow.name}: it is bound to a ${{NAME}} "
                     "reference, never to text written in the file", f"write {key}: ${{YOUR_SECRET}}")  # fmt: skip
        out: dict[str, str] = {}
        for item in flow.inputs:
            if item.name in use.bindings:
                out[item.name] = use.bindings[item.name]
            elif item.default is not None:
                out[item.name] = item.default
            else:
                fail(use.keys, f"the flow {flow.name} needs its input {item.name}, and it isn't given",
                     f"write use: {{flow: {flow.name}, with: {{{item.name}: …}}}}")  # fmt: skip
        return out


def _reader_of(flow: Flow) -> _FlowReader:
    """A reader of the flow's file, to refuse a use inside it at its own line."""
    raw = read_user_file(flow.file, max_bytes=MAX_YAML_BYTES, follow=MOBSTER_DIR not in flow.file.parts)
    return _FlowReader(load_yaml(raw, str(flow.file)))


def _bound_expect(
    flow: Flow, reader: _FlowReader, bindings: Mapping[str, str], row: Mapping[str, str]
) -> tuple[Assertion, ...]:
    """The flow's expectations with its inputs bound (Rule 3), then the row's values, read as the file's own."""
    doc = reader.doc
    try:
        return parse_expect(
            bind_data(bind_data(flow.expect_raw, bindings), row),
            locate=lambda keys: doc.where(("expect", *keys)),
            line=lambda keys: doc.line(("expect", *keys)),
        )
    except ExpectError as exc:
        reader.fail(("expect", *exc.keys), exc.problem, exc.fix)
