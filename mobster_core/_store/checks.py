"""Check files: Mobster's version-1 check format, loaded strictly .

Rule 1: a check file is YAML (JSON is YAML too) of at most 1 MiB, UTF-8, read in ruamel's safe
        mode: no duplicate keys, no Python tags. YAML 1.2: ``yes`` is a string, ``1.0`` a number.
Rule 2: every key is known. An unknown key anywhere is an error with a "did you mean" hint, so a
        typo cannot quietly weaken a check. A key of Mobster's tool (MCP) shape says what to write
        in a file instead.
Rule 3: values are never converted: a number where text is expected, text where a number is
        expected, or null anywhere, is an error that says what to write instead.
Rule 4: every error is a :class:`CheckError` that reads ``file:line: key.path: what is wrong;
        what to write instead``.
Rule 5: the keys and their limits:

        ============================  ===================================================================
        ``version``                   1 (the only version; a flag or ``"1"`` is an error). Optional.
        ``name``                      1-120 characters. Default: the first step (cut to 119 characters
                                      plus "…"), else "Launch check".
        ``app.bundle``                a bundle id: ``[A-Za-z0-9_.-]``, with a dot, up to 255 characters.
        ``app.path``                  the app file; relative paths resolve against the project root
                                      (the folder holding ``.mobster/``). An app needs a bundle, a
                                      path, or both; ``app`` is the one required key.
        ``device``, ``runtime``       1-200 characters (``iPhone 17 Pro``, ``iOS 26.4``). ``device`` may
                                      instead be a mapping: ``name`` (the same string), and the
                                      simulator's settings (``_rules/device/controls`` Rule 1):
                                      ``location: [lat, lon]`` (degrees, -90..90 and -180..180),
                                      ``appearance: light|dark``, ``content_size`` (one of
                                      ``CONTENT_SIZES``: ``extra-small`` …
                                      ``accessibility-extra-extra-extra-large``),
                                      ``biometrics: {enrolled: true|false}``.
        ``reset``                     ``none``, ``data`` or ``reinstall`` (``auto``, the default:
                                      reinstall with ``app.path``, else data; ``com.apple.*`` apps are
                                      never reset).
        ``tags``                      up to 10, each ``[a-z0-9][a-z0-9_-]{0,39}``.
        ``launch.args``               up to 20 strings of up to 1,000 characters.
        ``launch.env``                up to 20; keys ``[A-Z_][A-Z0-9_]*``, values strings of up to
                                      1,000 characters.
        ``launch.url``                a deep link of up to 2,000 characters, starting with a scheme
                                      (``[A-Za-z][A-Za-z0-9+.-]*:``).
        ``launch.locale``             the locale the app runs in (``de_DE``): a simulator launches
                                      it so; elsewhere the device's own must be it.
        ``steps``                     a string or a list of strings: up to 20 steps of up to 500
                                      characters. A string holds one step per non-empty line. An
                                      empty list or a blank string is an error; no ``steps`` key is a
                                      launch-only check. An item of the list may instead be a device
                                      step (``_rules/device/controls`` Rule 5), a mapping of one key:
                                      ``biometric: match|fail`` (or ``{result: match|fail, sensor:
                                      faceId|touchId}``) or ``push: <file>``, a JSON file relative to
                                      the check file's folder, read when the check is loaded (a
                                      regular file of at most 4 KB, a JSON object with an ``aps``
                                      object). ``steps`` then holds its text for people and the model
                                      (``Match the Face ID prompt``), ``device_steps`` the step.
        ``all_steps``                 ``true`` or ``false`` (the default): with ``true``, a run whose
                                      steps end before the check's last one (Smart blocked or done
                                      early, a recorded path with fewer actions than steps) fails,
                                      class ``steps_skipped``, even when the expectations hold.
        ``expect``                    assertions (``_rules/assertions/model.py``), up to 50 after lists expand.
                                      None, or ``[]``, means the verdict is ``needs_review``.
        ``budget.max_seconds``        more than 0, at most 600; default 180 (Smart's time limit).
        ``budget.max_usd``            more than 0, at most 1.00; default 0.25 (Smart's spend cap).
        ``alerts``                    ``fail`` (default), ``accept``, ``dismiss`` or ``{allow: [..],
                                      deny: [..]}`` of privacy services (``_rules/device/alerts`` Rule 1).
        ============================  ===================================================================

Rule 6: checks live in ``<project>/.mobster/checks/``: every ``*.yaml`` and ``*.yml`` there (not in
        sub-folders), except heal files (``*.heal.yaml``) and hidden files.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

import attrs

from mobster_core._rules.assertions import Assertion, ExpectError, parse_expect
from mobster_core._rules.device.alerts import AlertPolicy, AlertProblem, parse_alerts
from mobster_core._rules.device.controls import CONTENT_SIZES, MAX_PUSH_BYTES, DeviceEvent, DeviceSettings, push_problem
from mobster_core._rules.device.device import Appearance, LaunchOptions, Reset, normal_locale
from mobster_core._rules.device.secrets import only_references
from mobster_core._rules.formats.yaml import (
    MAX_YAML_BYTES,
    Keys,
    YamlProblem,
    did_you_mean,
    kind_of,
    load_yaml,
)
from mobster_core._rules.replay.identity import composite_identity, part_identity, path_identity, segment_identity
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._rules.vocabulary.steps import SENSORS, Op
from mobster_core.exceptions import CheckError, Problem

from .flows import MAX_EXPANDED, NAME, Crumb, Expanded, FlowBook, StepsReader, bind_data, yaml_files
from .fsutil import MOBSTER_DIR, UnsafeFile, find_project_root, read_user_file
from .rows import MAX_COLUMNS, MAX_ROWS, MAX_VALUE_CHARS, Row, read_csv_rows, row_label

__all__ = [
    "DEFAULT_MAX_SECONDS",
    "DEFAULT_MAX_USD",
    "Budget",
    "Call",
    "Check",
    "CheckApp",
    "CheckError",
    "CheckLaunch",
    "find_checks",
    "load_check",
    "load_check_text",
    "project_of",
]

#: Smart's time limit when the check sets none (seconds).
DEFAULT_MAX_SECONDS = 180.0
#: Smart's spend cap when the check sets none (US dollars).
DEFAULT_MAX_USD = 0.25
#: The name of a check that has neither a name nor steps.
DEFAULT_NAME = "Launch check"

MAX_NAME_CHARS = 120
MAX_BUNDLE_CHARS = 255
MAX_APP_PATH_CHARS = 4096
MAX_DEVICE_CHARS = 200
MAX_TAGS = 10
MAX_LAUNCH_ARGS = 20
MAX_LAUNCH_ARG_CHARS = 1000
MAX_LAUNCH_ENV = 20
MAX_LAUNCH_ENV_CHARS = 1000
MAX_URL_CHARS = 2000
MAX_STEPS = 20
MAX_STEP_CHARS = 500
MAX_SECONDS_LIMIT = 600.0
MAX_USD_LIMIT = 1.00

_BUNDLE = re.compile(r"[A-Za-z0-9_.-]+")
_TAG = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_ENV_KEY = re.compile(r"[A-Z_][A-Z0-9_]*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_NEVER_RESET = "com.apple."
_ELLIPSIS = "\u2026"

_TOP_KEYS = (
    *("version", "name", "app", "device", "runtime", "reset", "tags", "launch", "steps", "all_steps", "expect"),
    "budget", "alerts", "rows",
)  # fmt: skip
_APP_KEYS = ("bundle", "path")
_LAUNCH_KEYS = ("args", "env", "url", "locale")
_BUDGET_KEYS = ("max_seconds", "max_usd")
_DEVICE_KEYS = ("name", "location", "appearance", "content_size", "biometrics")
_BIOMETRICS_KEYS = ("enrolled",)
_DEVICE_STEP_KEYS = ("biometric", "push")
_BIOMETRIC_KEYS = ("result", "sensor")
_BIOMETRIC_RESULTS = {"match": Op.BIOMETRIC_MATCH, "fail": Op.BIOMETRIC_FAIL}
_ROWS_EXAMPLE = "write rows: [{plan: free}, {plan: pro}] or rows: plans.csv"
#: What a step of ``steps_raw`` is: a step's text, or a device step's mapping as the file said it.
RawStep = str | Mapping[str, Any]
_RESETS = ("auto", *(r.value for r in Reset))
# Keys of Mobster's tool (MCP) shape, and others written by habit: what a check file says instead.
_TOP_HINTS = {
    "bundle_id": "app: {bundle: …}",
    "bundle": "app: {bundle: …}",
    "app_path": "app: {path: …}",
    "path": "app: {path: …}",
    "launch_args": "launch: {args: […]}",
    "args": "launch: {args: […]}",
    "launch_env": "launch: {env: {…}}",
    "env": "launch: {env: {…}}",
    "open_url": "launch: {url: …}",
    "url": "launch: {url: …}",
    "max_usd": "budget: {max_usd: …}",
    "max_seconds": "budget: {max_seconds: …}",
    "assert": "expect: […]",
    "assertions": "expect: […]",
    "expectations": "expect: […]",
    "image": "nothing: image is a key of the tool shape only; remove it",
}


@attrs.frozen
class CheckApp:
    """The app under test: a bundle id, an app file, or both (at least one)."""

    bundle: str | None = None
    path: str | None = None


def _env_view(value: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(value))


@attrs.frozen
class CheckLaunch:
    """How the app is launched: arguments, environment, a deep link, and the locale it asks for."""

    args: tuple[str, ...] = ()
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_env_view, hash=False)
    url: str | None = None
    locale: str | None = None


@attrs.frozen
class Budget:
    """Smart's limits for one run: seconds and US dollars."""

    max_seconds: float = DEFAULT_MAX_SECONDS
    max_usd: float = DEFAULT_MAX_USD


@attrs.frozen
class Call:
    """A flow the check's own steps use: a segment of its path (``flows``' Rules, ``identity`` Rule 6).

    ``first`` is the first of its steps among the check's steps (from 1), ``count`` how many it
    expands to; ``key`` the segment's identity; ``files`` the flow files it reads (its own first).
    """

    flow: str
    file: Path
    first: int
    count: int
    key: str
    files: tuple[Path, ...] = ()
    #: What must hold when it ends: ``(the flow's chain, its expectations)`` of it and the flows it uses.
    expect: tuple[tuple[str, tuple[Assertion, ...]], ...] = attrs.field(default=(), eq=False)

    @property
    def last(self) -> int:
        """The last of its steps among the check's (from 1)."""
        return self.first + self.count - 1


@attrs.frozen
class Part:
    """A part of a check's path (``identity`` Rule 6): a flow's segment, or a run of the check's own steps.

    ``first`` and ``count`` are its steps among the check's (from 1); ``file`` is the file its heals
    are written beside (the flow's, or the check's); ``flow`` the flow's name (None: the check's own).
    """

    identity: str
    first: int
    count: int
    file: Path
    flow: str | None = None

    @property
    def last(self) -> int:
        """The last of its steps among the check's (from 1)."""
        return self.first + self.count - 1


@attrs.frozen
class Check:
    """One check, as loaded from ``file`` (Rule 5 lists every key).

    ``steps`` is the normalized tuple of steps (a string's non-empty lines, each stripped);
    ``steps_raw`` is what the file said (a string, a tuple of strings, or None). ``reset`` is None
    when the file leaves it to the default; :attr:`effective_reset` says what a run does.
    """

    file: Path
    app: CheckApp
    name: str
    version: int = 1
    device: str | None = None
    runtime: str | None = None
    reset: Reset | None = None
    tags: tuple[str, ...] = ()
    launch: CheckLaunch = attrs.field(factory=CheckLaunch)
    steps: tuple[str, ...] = ()
    steps_raw: str | tuple[RawStep, ...] | None = None
    expect: tuple[Assertion, ...] = ()
    budget: Budget = attrs.field(factory=Budget)
    #: Every step must run: a run that ends before the last one fails, class ``steps_skipped``.
    all_steps: bool = False
    #: How system alerts are answered (``_rules/device/alerts``): ``fail`` unless the file says otherwise.
    alerts: AlertPolicy = attrs.field(factory=AlertPolicy)
    #: The simulator's settings of a ``device:`` mapping (``_rules/device/controls`` Rule 1); empty: none.
    settings: DeviceSettings = attrs.field(factory=DeviceSettings)
    #: The device steps (``_rules/device/controls`` Rule 5): ``(number of the step, from 1, its event)``.
    device_steps: tuple[tuple[int, DeviceEvent], ...] = ()
    #: Where each step comes from: None for the check's own, a :class:`Crumb` for a flow's (``flows``).
    crumbs: tuple[Crumb | None, ...] = ()
    #: The flows its own steps use, in order: the segments of its path.
    calls: tuple[Call, ...] = ()
    #: What must hold when each flow ends: ``(the flow's chain, its expectations)``, bound.
    flow_expect: tuple[tuple[str, tuple[Assertion, ...]], ...] = ()
    #: The rows (``rows``' Rules); empty: the check runs once.
    rows: tuple[Row, ...] = ()
    #: The row this instance runs (None: the check itself, or a check without rows).
    row: Row | None = None
    #: One instance a row, each named ``name [label]`` with the row's expectations (``instances()``).
    row_checks: tuple[Check, ...] = attrs.field(default=(), eq=False, repr=False)

    def instances(self) -> tuple[Check, ...]:
        """The checks a run runs: one a row (``Buy a plan [pro]``), else this one."""
        return self.row_checks or (self,)

    def instance(self, row: int | None) -> Check:
        """The check of row ``row`` (from 0; None: this one); :class:`CheckError` when it has no such row."""
        if row is None:
            return self
        if not 0 <= row < len(self.row_checks):
            detail = f"has no row {row + 1} now (its rows changed since they were listed); run it again"
            raise CheckError(f"{self.file}: {detail}", file=str(self.file), detail=detail)
        return self.row_checks[row]

    @property
    def row_values(self) -> dict[str, str]:
        """The values this instance's row gives (empty without a row)."""
        return {} if self.row is None else dict(self.row.values)

    def crumb(self, number: int) -> Crumb | None:
        """Where step ``number`` (from 1) comes from: None for the check's own (or past its steps)."""
        return self.crumbs[number - 1] if 1 <= number <= len(self.crumbs) else None

    def shown_step(self, number: int) -> str:
        """Step ``number`` as people read it: ``login › step 2 (Tap "Sign in")``, or ``step 4 (…)``."""
        text = self.steps[number - 1] if 1 <= number <= len(self.steps) else ""
        crumb = self.crumb(number)
        return f"step {number} ({text})" if crumb is None else crumb.show(text)

    @property
    def own_identity(self) -> str:
        """The identity of the check's own steps (``identity`` Rule 6): each flow named ``use: NAME``."""
        own: list[str] = []
        starts = {c.first: c for c in self.calls}
        skip = 0
        for number, step in enumerate(self.steps, 1):
            if number in starts:
                own.append(f"use: {starts[number].flow}")
                skip = starts[number].count
            if skip:
                skip -= 1
                continue
            own.append(step)
        return path_identity(own, bundle=self.app.bundle or "", app_path=self.app.path, launch=self.launch_options())

    @property
    def parts(self) -> tuple[Part, ...]:
        """The parts of the check's path, in order (``identity`` Rule 6): one part when it uses no flow."""
        if not self.calls:
            return (Part(self.identity, 1, len(self.steps), self.file),) if self.steps else ()
        own, parts, number, runs = self.own_identity, [], 1, 0
        for call in self.calls:
            if call.first > number:
                runs += 1
                parts.append(Part(part_identity(own, runs), number, call.first - number, self.file))
            parts.append(Part(call.key, call.first, call.count, call.file, call.flow))
            number = call.last + 1
        if number <= len(self.steps):
            runs += 1
            parts.append(Part(part_identity(own, runs), number, len(self.steps) - number + 1, self.file))
        return tuple(parts)

    def device_step(self, number: int) -> DeviceEvent | None:
        """The device step at ``number`` (from 1), or None when that step is plain English."""
        return next((event for n, event in self.device_steps if n == number), None)

    @property
    def payloads(self) -> dict[str, DeviceEvent]:
        """The push steps by their file, as the check names it (a replay sends today's content)."""
        return {event.file: event for _n, event in self.device_steps if event.op is Op.PUSH}

    @property
    def launch_only(self) -> bool:
        """True when the check has no steps: it launches the app and judges the first screen."""
        return not self.steps

    @property
    def effective_reset(self) -> Reset:
        """The reset a run does.

        A ``com.apple.*`` app is never reset; else the file's ``reset``; else (``auto``) reinstall
        when the check names an app file, and wipe the app's data when it doesn't.
        """
        if self.app.bundle is not None and self.app.bundle.startswith(_NEVER_RESET):
            return Reset.NONE
        if self.reset is not None:
            return self.reset
        return Reset.REINSTALL if self.app.path is not None else Reset.DATA

    @property
    def identity(self) -> str:
        """The identity of this check's recorded path (16 hex digits; ``_rules/replay/identity.py``).

        It covers the steps, the app and how it launches, never the name or the expectations:
        rewording an assertion keeps the path. A check that names only ``app.path`` has no
        bundle id yet: its identity uses an empty one. A check that uses flows is identified by
        its parts (``identity`` Rule 6): its own steps' identity and each segment's. A row is
        never part of it: rows share the path.
        """
        if self.calls:
            return composite_identity(self.own_identity, [c.key for c in self.calls])
        return path_identity(
            self.steps, bundle=self.app.bundle or "", app_path=self.app.path, launch=self.launch_options()
        )

    @property
    def provenance(self) -> Provenance:
        """The check's own words a replay may type (``typing_rules``' Rule 2)."""
        launch = self.launch
        return Provenance.of(steps=self.steps, launch_url=launch.url, launch_args=launch.args, launch_env=launch.env)

    def launch_options(self) -> LaunchOptions:
        """The launch arguments, environment, deep link and reset of this check."""
        return LaunchOptions(
            args=self.launch.args, env=dict(self.launch.env), url=self.launch.url, reset=self.effective_reset
        )

    def app_file(self) -> Path | None:
        """``app.path`` as a path, or None when the check names no app file.

        A relative path resolves against the project root (the folder holding ``.mobster/``, found
        by walking up from the check file), or the check's own folder when there is none.
        """
        if self.app.path is None:
            return None
        path = Path(self.app.path)
        if path.is_absolute():
            return path
        folder = self.file.parent
        return (find_project_root(folder) or folder.absolute()) / path

    def request_text(self) -> str:
        """The check as plain text for the model: its name, steps and expectations."""
        lines = [f"Check: {self.name}"]
        if self.steps:
            lines.append("Steps:")
            lines.extend(
                f"{i}. {step}"
                + (" (a device step: the SDK does it itself, not you)" if self.device_step(i) else "")
                + ("" if (crumb := self.crumb(i)) is None else f" (flow {crumb.flow}, its step {crumb.step})")
                for i, step in enumerate(self.steps, 1)
            )
        else:
            lines.append("Steps: none (the check only launches the app).")
        if self.row is not None:
            lines.append(
                f"This run is the row {self.row.label!r}: type a ${{name}} as written (the SDK types its value); "
                "where a step names one on the screen, it is:"
            )
            lines.extend(
                f"- ${{{k}}} = {v}" if only_references(v) else f"- ${{{k}}} = {json.dumps(v, ensure_ascii=False)}"
                for k, v in self.row.values.items()
            )
        if self.expect:
            lines.append("Afterwards the screen must show (checked by the SDK, not by you):")
            lines.extend(f"- {a.show()}" + (f"  ({a.name})" if a.name else "") for a in self.expect)
        else:
            lines.append("Expectations: none.")
        return "\n".join(lines)


def project_of(file: Path) -> Path:
    """The project a check file belongs to: the folder holding ``.mobster/``, else the file's folder."""
    return find_project_root(file.parent) or file.parent.absolute()


def find_checks(root: Path) -> list[Path]:
    """Every check file of the project at ``root``, sorted by name (Rule 6); [] when there are none."""
    return yaml_files(root / MOBSTER_DIR / "checks")


def load_check(path: Path) -> Check:
    """Read and validate the check file at ``path``; raises :class:`CheckError` (Rule 4)."""
    if path.parent.name == "flows" and path.parent.parent.name == MOBSTER_DIR:
        detail = "is a flow, and a flow is never a check: run a check that uses it (- use: " + path.stem + ")"
        raise CheckError(f"{path}: {detail}", file=str(path), detail=detail)
    try:
        # Nothing under .mobster/ is read through a symlink; a check given by path elsewhere may be one.
        raw = read_user_file(path, max_bytes=MAX_YAML_BYTES, follow=MOBSTER_DIR not in path.parts)
    except UnsafeFile as exc:
        detail = f"can't read the check file: {exc.reason}; a check is a regular YAML file of at most 1 MiB" + (
            ", not a symlink, in .mobster/checks" if exc.problem is Problem.SYMLINK else ""
        )
        raise CheckError(f"{path}: {detail}", file=str(path), detail=detail) from exc
    except OSError as exc:
        detail = f"can't read the check file ({exc.strerror or exc}); check the path"
        raise CheckError(f"{path}: {detail}", file=str(path), detail=detail) from exc
    return _load(raw, str(path), path)


def check_text(doc: Mapping[str, Any]) -> str:
    """The YAML text of a check file holding ``doc`` (its keys in the order given), as people write one.

    It is not validated here: :func:`load_check_text` reads it back as any check file is read.
    """
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = 200
    out = io.StringIO()
    yaml.dump(dict(doc), out)
    return out.getvalue()


def load_check_text(text: str, source: str) -> Check:
    """Validate a check given as text; ``source`` names it in messages and becomes ``Check.file``."""
    return _load(text, source, Path(source))


def _load(raw: bytes | str, source: str, path: Path) -> Check:
    try:
        doc = load_yaml(raw, source)
    except YamlProblem as exc:
        raise CheckError(str(exc), file=source, line=exc.line, key=exc.key, detail=exc.detail) from exc
    book = FlowBook(find_project_root(path.parent))
    check = _Reader(doc, book).check(doc.data, path)
    if not check.rows:
        return check
    instances = tuple(_Reader(doc, book).check(doc.data, path, row=row) for row in check.rows)
    return attrs.evolve(check, row_checks=instances)


class _Reader(StepsReader):
    """Walks the untrusted data once and builds the check; every failure is a CheckError (Rules 2-4)."""

    def __init__(self, doc: Any, book: FlowBook | None = None) -> None:
        super().__init__(doc)
        self.book = book if book is not None else FlowBook(None)  # None: a file read alone, no project's flows

    def unknown_key(self, keys: Keys, name: str, allowed: Sequence[str]) -> NoReturn:
        """Rule 2: a top-level key of the tool (MCP) shape says what a check file writes instead."""
        hint = _TOP_HINTS.get(name) if not keys else None
        if hint is not None:
            self.fail((name,), f"unknown key {name!r}", f"in a check file write {hint}")
        super().unknown_key(keys, name, allowed)

    def strings(self, value: Any, keys: Keys, *, count: int, limit: int) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(keys, f"expected a list of strings, got {kind_of(value)}", f"write {keys[-1]}: [a, b]")
        if len(value) > count:
            self.fail(keys, f"has {len(value)} items; the limit is {count}", "remove some")
        return tuple(self.string(item, (*keys, i), limit=limit, empty=True) for i, item in enumerate(value))

    # -- the file ----------------------------------------------------------------------------

    def check(self, data: Any, path: Path, row: Row | None = None) -> Check:
        if data is None:
            self.fail((), "the file is empty", "write at least app: {bundle: com.example.app}")
        top = self.mapping(data, (), _TOP_KEYS, "version: 1, name, app, steps and expect at the top")
        if "version" in top:
            version = top["version"]
            if isinstance(version, bool) or version != 1 or not isinstance(version, int):
                self.fail(("version",), f"only version 1 exists, got {kind_of(version)}", "write version: 1")
        if "app" not in top:
            self.fail((), "the app is missing", "add app: {bundle: com.example.app} or app: {path: build/App.app}")
        values = {} if row is None else dict(row.values)
        laid = self.steps(top["steps"], path, values) if "steps" in top else _Laid()
        steps = laid.steps
        name = self.text(top["name"], ("name",), limit=MAX_NAME_CHARS) if "name" in top else _default_name(steps)
        if row is not None:
            name = f"{name} [{row.label}]"
        rows = self.rows(top["rows"], path) if "rows" in top and row is None else ()
        device, settings = self.device(top["device"]) if "device" in top else (None, DeviceSettings())
        app = self.app(top["app"])
        bundle = app.bundle or ""
        calls = tuple(attrs.evolve(c, key=segment_identity(c.flow, steps[c.first - 1 : c.last], bundle=bundle))
                      for c in laid.calls)  # fmt: skip
        expect_raw = top.get("expect", None)
        return Check(
            file=path,
            app=app,
            name=name,
            device=device,
            settings=settings,
            runtime=self.text(top["runtime"], ("runtime",), limit=MAX_DEVICE_CHARS) if "runtime" in top else None,
            reset=self.reset(top["reset"]) if "reset" in top else None,
            tags=self.tags(top["tags"]) if "tags" in top else (),
            launch=self.launch(top["launch"]) if "launch" in top else CheckLaunch(),
            steps=steps,
            steps_raw=laid.raw,
            device_steps=laid.device_steps,
            crumbs=laid.crumbs if laid.calls else (),
            calls=calls,
            flow_expect=laid.expect,
            rows=rows,
            row=row,
            expect=self.expect(bind_data(expect_raw, values)) if expect_raw is not None else (),
            budget=self.budget(top["budget"]) if "budget" in top else Budget(),
            all_steps=self.flag(top["all_steps"], ("all_steps",)) if "all_steps" in top else False,
            alerts=self.alerts(top["alerts"]) if "alerts" in top else AlertPolicy(),
        )

    def alerts(self, value: Any) -> AlertPolicy:
        """``alerts: fail | accept | dismiss | {allow: [..], deny: [..]}`` (``_rules/device/alerts`` Rule 1)."""
        try:
            return parse_alerts(value)
        except AlertProblem as exc:
            self.fail(("alerts", *exc.keys), exc.problem, exc.fix)

    def device(self, value: Any) -> tuple[str | None, DeviceSettings]:
        """``device``: the device's name, or a mapping of its name and the simulator's settings."""
        keys: Keys = ("device",)
        if isinstance(value, str):
            return self.text(value, keys, limit=MAX_DEVICE_CHARS), DeviceSettings()
        raw = self.mapping(value, keys, _DEVICE_KEYS, "device: {name: iPhone 17 Pro, appearance: dark}")
        name = self.text(raw["name"], (*keys, "name"), limit=MAX_DEVICE_CHARS) if "name" in raw else None
        appearance = None
        if "appearance" in raw:
            written = raw["appearance"]
            if written not in ("light", "dark"):
                self.fail(
                    (*keys, "appearance"), f"expected light or dark, got {kind_of(written)}", "write appearance: dark"
                )
            appearance = Appearance(written)
        size = None
        if "content_size" in raw:
            size = raw["content_size"]
            if not isinstance(size, str) or size not in CONTENT_SIZES:
                hint = did_you_mean(size, CONTENT_SIZES) if isinstance(size, str) else ""
                self.fail(
                    (*keys, "content_size"),
                    f"unknown content size {kind_of(size)}{hint}",
                    f"write one of {', '.join(CONTENT_SIZES)}",
                )
        enrolled = None
        if "biometrics" in raw:
            bio = self.mapping(
                raw["biometrics"], (*keys, "biometrics"), _BIOMETRICS_KEYS, "biometrics: {enrolled: true}"
            )
            if "enrolled" in bio:
                enrolled = bio["enrolled"]
                if not isinstance(enrolled, bool):
                    self.fail(
                        (*keys, "biometrics", "enrolled"),
                        f"expected true or false, got {kind_of(enrolled)}",
                        "write enrolled: true (yes and no are strings in YAML 1.2)",
                    )
        location = self.location(raw["location"]) if "location" in raw else None
        return name, DeviceSettings(
            location=location, appearance=appearance, content_size=size, biometrics_enrolled=enrolled
        )

    def location(self, value: Any) -> tuple[float, float]:
        keys: Keys = ("device", "location")
        numbers = isinstance(value, list) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        if not numbers or len(value) != 2:
            self.fail(
                keys,
                f"expected [latitude, longitude], two numbers, got {kind_of(value)}",
                "write location: [52.52, 13.405]",
            )
        lat, lon = float(value[0]), float(value[1])
        if not (math.isfinite(lat) and -90 <= lat <= 90):
            self.fail(
                (*keys, 0),
                f"a latitude is from -90 to 90 degrees, got {value[0]!r}",
                "write [latitude, longitude]: latitude first",
            )
        if not (math.isfinite(lon) and -180 <= lon <= 180):
            self.fail(
                (*keys, 1),
                f"a longitude is from -180 to 180 degrees, got {value[1]!r}",
                "write a longitude from -180 to 180",
            )
        return (lat, lon)

    def app(self, value: Any) -> CheckApp:
        keys: Keys = ("app",)
        raw = self.mapping(value, keys, _APP_KEYS, "app: {bundle: com.example.app, path: build/App.app}")
        if not raw:
            self.fail(keys, "names no app", "write app: {bundle: com.example.app} or app: {path: build/App.app}")
        bundle = None
        if "bundle" in raw:
            bundle = self.text(raw["bundle"], (*keys, "bundle"), limit=MAX_BUNDLE_CHARS)
            if not _BUNDLE.fullmatch(bundle) or "." not in bundle:
                self.fail(
                    (*keys, "bundle"),
                    f"{bundle!r} is not a bundle id (letters, digits, '_', '-' and '.', with a dot)",
                    "write the reverse-DNS id, such as com.example.yourapp",
                )
        path = None
        if "path" in raw:
            path = self.text(raw["path"], (*keys, "path"), limit=MAX_APP_PATH_CHARS)
            if "\x00" in path:
                self.fail((*keys, "path"), "holds a NUL character", "write the path of the app file")
        return CheckApp(bundle=bundle, path=path)

    def reset(self, value: Any) -> Reset | None:
        keys: Keys = ("reset",)
        if not isinstance(value, str) or value not in _RESETS:
            hint = did_you_mean(value, _RESETS) if isinstance(value, str) else f" (allowed: {', '.join(_RESETS)})"
            self.fail(keys, f"unknown reset {kind_of(value)}{hint}", "write reset: none, data or reinstall")
        return None if value == "auto" else Reset(value)

    def tags(self, value: Any) -> tuple[str, ...]:
        keys: Keys = ("tags",)
        tags = self.strings(value, keys, count=MAX_TAGS, limit=40)
        for i, tag in enumerate(tags):
            if not _TAG.fullmatch(tag):
                self.fail(
                    (*keys, i),
                    f"{tag!r} is not a tag: lowercase letters, digits, '_' and '-', starting with a letter or digit",
                    f"write a tag such as {_tag_like(tag)}",
                )
        return tags

    def launch(self, value: Any) -> CheckLaunch:
        keys: Keys = ("launch",)
        raw = self.mapping(value, keys, _LAUNCH_KEYS, 'launch: {args: [-Flag, "YES"], env: {KEY: value}, url: app://x}')
        args = (
            self.strings(raw["args"], (*keys, "args"), count=MAX_LAUNCH_ARGS, limit=MAX_LAUNCH_ARG_CHARS)
            if "args" in raw
            else ()
        )
        env = self.env(raw["env"]) if "env" in raw else {}
        url = None
        if "url" in raw:
            url = self.text(raw["url"], (*keys, "url"), limit=MAX_URL_CHARS)
            if not _SCHEME.match(url):
                self.fail((*keys, "url"), f"{url!r} has no scheme", "write a deep link such as yourapp://signup")
        locale = None
        if "locale" in raw:
            written = self.text(raw["locale"], (*keys, "locale"), limit=40)
            try:
                locale = normal_locale(written)
            except ValueError:
                self.fail((*keys, "locale"), f"{written!r} is not a locale", "write one such as en_US or de_DE")
        return CheckLaunch(args=args, env=env, url=url, locale=locale)

    def env(self, value: Any) -> dict[str, str]:
        keys: Keys = ("launch", "env")
        if not isinstance(value, Mapping):
            self.fail(keys, f"expected a mapping of names to strings, got {kind_of(value)}", "write env: {KEY: value}")
        if len(value) > MAX_LAUNCH_ENV:
            self.fail(keys, f"has {len(value)} variables; the limit is {MAX_LAUNCH_ENV}", "remove some")
        out: dict[str, str] = {}
        for key, item in value.items():
            name = str(key)
            if not isinstance(key, str) or not _ENV_KEY.fullmatch(key):
                self.fail(
                    (*keys, name),
                    f"{kind_of(key)} is not a variable name (A-Z, 0-9 and '_', not starting with a digit)",
                    f"write a name such as {_env_like(name)}",
                )
            out[key] = self.string(item, (*keys, key), limit=MAX_LAUNCH_ENV_CHARS, empty=True)
        return out

    def steps(self, value: Any, path: Path, row: Mapping[str, str]) -> _Laid:
        keys: Keys = ("steps",)
        fix = "write at least one step, or remove steps for a launch-only check"
        if isinstance(value, str):
            return self.step_lines(value)
        if not isinstance(value, list):
            self.fail(keys, f"expected a step or a list of steps, got {kind_of(value)}", "write steps: [Tap Sign up]")
        if not value:
            self.fail(keys, "is an empty list", fix)
        if len(value) > MAX_STEPS:
            self.fail(keys, f"has {len(value)} steps; the limit is {MAX_STEPS}", "split the check in two")
        laid = _Laid(tuple(_plain(item) if isinstance(item, Mapping) else item for item in value))
        for i, item in enumerate(value):
            laid = self.step_item(laid, item, (*keys, i), path, row)
        return laid

    def step_lines(self, value: str) -> _Laid:
        """``steps`` as a string: one step a non-empty line, stripped."""
        keys: Keys = ("steps",)
        steps = tuple(line.strip() for line in value.splitlines() if line.strip())
        if not steps:
            self.fail(keys, "is blank", "write at least one step, or remove steps for a launch-only check")
        for i, step in enumerate(steps):
            if len(step) > MAX_STEP_CHARS:
                self.fail(
                    keys,
                    f"step {i + 1} is {len(step)} characters long; the limit is {MAX_STEP_CHARS}",
                    "split it into shorter steps",
                )
        if len(steps) > MAX_STEPS:
            self.fail(keys, f"has {len(steps)} steps; the limit is {MAX_STEPS}", "split the check in two")
        return _Laid(value, steps, crumbs=(None,) * len(steps))

    def step_item(self, laid: _Laid, item: Any, keys: Keys, path: Path, row: Mapping[str, str]) -> _Laid:
        """One item of ``steps``: a use step (its flow expanded), a device step, or a step's text."""
        number = len(laid.steps) + 1
        if isinstance(item, Mapping) and "use" in item:
            use = self.use(item, keys)
            got: Expanded = self.book.expand(use, self.fail, (), row)
            call = Call(use.flow, got.files[0], number, len(got.steps), "", got.files, got.expect)
            if len(laid.steps) + len(got.steps) > MAX_EXPANDED:
                self.fail(keys, f"the check's steps with its flows are more than {MAX_EXPANDED}",
                          "use fewer or shorter flows")  # fmt: skip
            return attrs.evolve(
                laid, steps=laid.steps + got.steps, crumbs=laid.crumbs + got.crumbs, calls=(*laid.calls, call),
                expect=laid.expect + got.expect,
            )  # fmt: skip
        if isinstance(item, Mapping):
            event = self.device_step(item, keys, path)
            return attrs.evolve(
                laid, steps=(*laid.steps, event.show()), crumbs=(*laid.crumbs, None),
                device_steps=(*laid.device_steps, (number, event)),
            )  # fmt: skip
        text = self.text(item, keys, limit=MAX_STEP_CHARS)
        return attrs.evolve(laid, steps=(*laid.steps, text), crumbs=(*laid.crumbs, None))

    def rows(self, value: Any, path: Path) -> tuple[Row, ...]:
        """``rows``: a list of mappings of names to text, or a CSV file beside the check (``rows``' Rules)."""
        keys: Keys = ("rows",)
        shown = ""
        if isinstance(value, str):
            written = self.text(value, keys, limit=MAX_APP_PATH_CHARS)
            if "\x00" in written:
                self.fail(keys, "holds a NUL character", "write the name of the CSV file")
            file = Path(written) if Path(written).is_absolute() else path.parent / written
            shown = str(file)
            found: list[tuple[Keys | int, dict[str, str]]] = list(read_csv_rows(file, shown))
        elif isinstance(value, list):
            found = self.inline_rows(value)
        else:
            self.fail(keys, f"expected a list of rows or a CSV file's name, got {kind_of(value)}", _ROWS_EXAMPLE)
        return self.labelled(found, shown)

    def inline_rows(self, value: list[Any]) -> list[tuple[Keys | int, dict[str, str]]]:
        """``rows:`` written in the check: each a mapping of ``${name}`` names to text."""
        keys: Keys = ("rows",)
        if not value:
            self.fail(keys, "is an empty list", _ROWS_EXAMPLE)
        if len(value) > MAX_ROWS:
            self.fail(keys, f"has {len(value)} rows; the limit is {MAX_ROWS}", "split the check in two")
        found: list[tuple[Keys | int, dict[str, str]]] = []
        for i, item in enumerate(value):
            at: Keys = (*keys, i)
            if not isinstance(item, Mapping) or not item:
                self.fail(at, f"expected a mapping of names to text, got {kind_of(item)}", _ROWS_EXAMPLE)
            if len(item) > MAX_COLUMNS:
                self.fail(at, f"has {len(item)} names; the limit is {MAX_COLUMNS}", "remove some")
            values: dict[str, str] = {}
            for key, text in item.items():
                if not isinstance(key, str) or not NAME.fullmatch(key):
                    self.fail((*at, str(key)), f"{kind_of(key)} is not a ${{name}} name (a letter or '_', "
                              "then letters, digits or '_')", "write a name such as plan")  # fmt: skip
                values[key] = self.string(text, (*at, key), limit=MAX_VALUE_CHARS, empty=True)
            found.append((at, values))
        return found

    def labelled(self, found: list[tuple[Keys | int, dict[str, str]]], shown: str) -> tuple[Row, ...]:
        """The rows, each with its label (``rows``' Rule 3): every row the first's names, labels unique."""
        columns = tuple(found[0][1])
        rows: list[Row] = []
        labels: dict[str, int] = {}
        for number, (where, values) in enumerate(found, 1):
            if set(values) != set(columns):
                missing = [c for c in columns if c not in values]
                extra = [c for c in values if c not in columns]
                what = f"has no {missing[0]}" if missing else f"has {extra[0]}, which the first row hasn't"
                self._row_fail(where, shown, f"row {number} {what}", "give every row the same names")
            label = row_label(values, columns)
            if not label:
                self._row_fail(where, shown, f"row {number}'s label ({'name' if 'name' in columns else columns[0]}) "
                               "is empty", "give each row a name: a name column, or a first value")  # fmt: skip
            if label in labels:
                self._row_fail(where, shown, f"rows {labels[label]} and {number} are both labelled {label!r}",
                               "give each row its own name (a name column, or its first value)")  # fmt: skip
            labels[label] = number
            rows.append(Row(label, number, {c: values[c] for c in columns}))
        return tuple(rows)

    def _row_fail(self, where: Keys | int, shown: str, problem: str, fix: str) -> NoReturn:
        if isinstance(where, int):  # a CSV line
            raise CheckError(f"{shown}:{where}: {problem}; {fix}", file=shown, line=where, detail=f"{problem}; {fix}")
        self.fail(where, problem, fix)

    def device_step(self, value: Mapping[str, Any], keys: Keys, path: Path) -> DeviceEvent:
        """A device step (``_rules/device/controls`` Rule 5): ``biometric: match|fail`` or ``push: file``."""
        example = "write - biometric: match, - biometric: fail or - push: payload.json, one step an item"
        self.mapping(value, keys, _DEVICE_STEP_KEYS, "- biometric: match")
        if len(value) != 1:
            found = ", ".join(str(k) for k in value) or "none"
            self.fail(keys, f"a device step is a mapping of one key, biometric or push; got {found}", example)
        ((key, item),) = value.items()
        if key == "push":
            return self.push(item, (*keys, "push"), path)
        where: Keys = (*keys, "biometric")
        result, sensor = item, "faceId"
        if isinstance(item, Mapping):
            raw = self.mapping(item, where, _BIOMETRIC_KEYS, "biometric: {result: match, sensor: touchId}")
            if "result" not in raw:
                self.fail(where, "names no result", "write biometric: {result: match} (or fail)")
            result = raw["result"]
            sensor = raw.get("sensor", "faceId")
            if sensor not in SENSORS:
                hint = did_you_mean(sensor, SENSORS) if isinstance(sensor, str) else ""
                problem = f"unknown sensor {kind_of(sensor)}{hint}"
                self.fail((*where, "sensor"), problem, "write sensor: faceId or touchId")
            where = (*where, "result")
        if not isinstance(result, str) or result not in _BIOMETRIC_RESULTS:  # a mapping or a list is no key
            hint = did_you_mean(result, tuple(_BIOMETRIC_RESULTS)) if isinstance(result, str) else ""
            self.fail(
                where,
                f"expected match or fail, got {kind_of(result)}{hint}",
                "write biometric: match (the face matches) or biometric: fail (it doesn't)",
            )
        return DeviceEvent(_BIOMETRIC_RESULTS[result], sensor=sensor)

    def push(self, value: Any, keys: Keys, path: Path) -> DeviceEvent:
        """``push: payload.json``: the file beside the check, read now (``_rules/device/controls`` Rule 5)."""
        written = self.text(value, keys, limit=MAX_APP_PATH_CHARS)
        if "\x00" in written:
            self.fail(keys, "holds a NUL character", "write the path of the payload file")
        file = Path(written) if Path(written).is_absolute() else path.parent / written
        fix = 'give a JSON file of at most 4 KB beside the check, such as {"aps": {"alert": "Hi"}}'
        shown = written if written.isprintable() else repr(written)  # one line, whatever the name holds
        try:
            data = read_user_file(file, max_bytes=MAX_PUSH_BYTES)
        except UnsafeFile as exc:
            self.fail(keys, f"can't use {shown} as a push payload: {exc.reason}", fix)
        except OSError as exc:
            self.fail(keys, f"can't read the push payload {shown} ({exc.strerror or exc})", fix)
        problem = push_problem(data)
        if problem is not None:
            self.fail(keys, f"{shown} is no push payload: {problem}", fix)
        return DeviceEvent(Op.PUSH, file=written, payload=data)

    def expect(self, value: Any) -> tuple[Assertion, ...]:
        try:
            doc = self.doc
            return parse_expect(
                value, locate=lambda keys: doc.where(("expect", *keys)), line=lambda keys: doc.line(("expect", *keys))
            )
        except ExpectError as exc:
            self.fail(("expect", *exc.keys), exc.problem, exc.fix)

    def budget(self, value: Any) -> Budget:
        keys: Keys = ("budget",)
        raw = self.mapping(value, keys, _BUDGET_KEYS, "budget: {max_seconds: 180, max_usd: 0.25}")
        seconds = (
            self.number(raw["max_seconds"], (*keys, "max_seconds"), unit="seconds", above=True, most=MAX_SECONDS_LIMIT)
            if "max_seconds" in raw
            else DEFAULT_MAX_SECONDS
        )
        usd = (
            self.number(raw["max_usd"], (*keys, "max_usd"), unit="US dollars", above=True, most=MAX_USD_LIMIT)
            if "max_usd" in raw
            else DEFAULT_MAX_USD
        )
        return Budget(max_seconds=seconds, max_usd=usd)


@attrs.frozen
class _Laid:
    """The steps as read: what the file said, the steps (flows expanded), device steps, crumbs, calls.

    ``expect`` are the flows' expectations, each with its flow's chain.
    """

    raw: str | tuple[RawStep, ...] | None = None
    steps: tuple[str, ...] = ()
    device_steps: tuple[tuple[int, DeviceEvent], ...] = ()
    crumbs: tuple[Crumb | None, ...] = ()
    calls: tuple[Call, ...] = ()
    expect: tuple[tuple[str, tuple[Assertion, ...]], ...] = ()


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    """A device step's mapping as plain dictionaries (``steps_raw`` keeps what the file said)."""
    return {str(k): _plain(v) if isinstance(v, Mapping) else v for k, v in value.items()}


def _default_name(steps: tuple[str, ...]) -> str:
    if not steps:
        return DEFAULT_NAME
    first = steps[0]
    return first if len(first) <= MAX_NAME_CHARS else first[: MAX_NAME_CHARS - 1] + _ELLIPSIS


def _tag_like(tag: str) -> str:
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", tag.lower()).strip("-_")[:40]
    return cleaned or "smoke"


def _env_like(name: str) -> str:
    cleaned = re.sub(r"[^A-Z0-9_]+", "_", name.upper())
    return cleaned if _ENV_KEY.fullmatch(cleaned) else "MY_FLAG"
