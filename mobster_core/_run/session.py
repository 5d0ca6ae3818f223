"""A live session: one device driven from outside a run, whose recording becomes a check.

Someone outside a run (an agent over MCP) reads and acts; what it did since ``start_recording``
becomes a check that ``mobster test`` replays with no model.

Rule 1: every action goes through what a run's actions go through (``agent.Actor``): the safety
        rules (a refused action is never sent, :class:`ActionRefused` says why), the dispatcher
        (journaled before it is sent, at most once, typing confirmed, masked text never journaled,
        ``${NAME}`` resolved as it leaves for the device) and the recording of a step as Smart
        records it (the target as the matcher finds it again, the screen it acted on).
Rule 2: a session is segments, each with its own run folder and journal under ``.mobster/runs/``:
        one opens with the session, and one with each ``start_recording``.
Rule 3: ``start_recording`` launches the app as a run of its check does (``plan.prepare``: the
        check's reset and link, the device's env), and takes the baseline as a run does; from then
        every action sent is a step, and its plain-English words are the step's own description
        (``Tap "Sign up"``, ``Type "ada@example.com" into "Email"``: what the heal file and the
        terminal say).
Rule 4: an unknown outcome (an action whose effect nobody knows, typing that half happened) ends the
        segment and its recording, as it ends a run: nothing is kept, nothing more is sent
        (:class:`SessionEnded`) until ``start_recording`` launches the app again.
Rule 5: typing while recording follows the typing rules, so that the check replays with no model:
        the typed text becomes the step's words, except masked text (a secure field, a field that
        says it holds a secret), which is refused before it is sent unless it is a ``${NAME}``
        reference (kept as written; the value is typed as it leaves). A reference that isn't set,
        or is empty, is refused, naming it (every one of them, when several are).
Rule 6: ``record`` writes nothing unless the verdict passes: the name and the expectations make a
        check file whose steps are the recorded steps' words, read back as every check file is
        (``load_check_text``); the verdict is ``judge``'s, on a settled read of the current screen
        (never anyone's word); then, under the project's lock, the check file is written (never
        over an existing one) and its path is kept as a passing run keeps Smart's (``keep``).
Rule 7: the check file is one of the project's checks: a file of ``.mobster/checks/`` (``*.yaml`` or
        ``*.yml``, not a heal file); any other place is a :class:`SessionError`.
Rule 8: ``replay(check, until=N)`` reaches the screen a check's recorded path leads to, at $0: it
        opens a segment (Rule 2), then does what a run of the check with healing off and no model
        does (``mobster test --no-heal``): the check's secrets, ``plan.prepare``, the path for this
        device and app (``plan.choose_path``: the healed path while its heal waits for review; never
        a path carried from another build, never a recording), the check's device settings, its
        launch and baseline, then the replay (``steps.execute``: the matcher, the safety rules, a
        step the review rejected, a heal that waits, the journal and the effect ledger), stopped
        after step N (``steps`` Rule 11). Before anything is sent, a check with no path for this
        device and app is :class:`NoRecordedPath` (saying why, as a run would), and an N that is no
        step of the path :class:`NotInPath`. How the replay stopped (a drift, a refusal, an unknown
        outcome: then Rule 4) is data (:class:`Reached`), never a heal. Afterwards the actions are
        the session's again (Rule 1), and a read shows a system alert as any other screen.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from mobster_core._clock import utc_now
from mobster_core._results.results import Mode, StepReport
from mobster_core._rules.assertions import AssertionResult, evaluate
from mobster_core._rules.device.device import Action, DeviceInfo, DeviceKind
from mobster_core._rules.device.secrets import MissingSecret, Secrets, only_references, references
from mobster_core._rules.formats.text import utf8
from mobster_core._rules.replay.settle import BASELINE_POLICY, SettledRead
from mobster_core._rules.replay.typing_rules import Provenance, is_masked
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Op, Step, describe_action
from mobster_core._store.checks import Check, check_text, load_check_text
from mobster_core._store.fsutil import MOBSTER_DIR, atomic_write, project_lock
from mobster_core._store.journal import Journal
from mobster_core._store.runs import new_run_folder
from mobster_core.exceptions import CheckError, JournalError, MobsterError, PathError, UnsafeFile
from mobster_core.protocols import Clock, Device

from .agent import Actor, Brief, make_action
from .check import missing_secret, secrets_of
from .context import Run, RunOptions
from .controls import apply_settings
from .dispatch import Dispatcher
from .ended import Ended
from .judge import Baseline, judge, settled_read
from .keep import keep
from .plan import Plan, Prepared, choose_path, prepare, read_device
from .steps import Executed, execute

__all__ = [
    "Acted",
    "ActionRefused",
    "LiveSession",
    "NoRecordedPath",
    "NotInPath",
    "Reached",
    "RecordedCheck",
    "SessionEnded",
    "SessionError",
]

T = TypeVar("T")

#: Rule 7: a check file's name.
_CHECK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}\.ya?ml")


class SessionError(MobsterError):
    """What a session can't do, in one line that says what to do instead; ``outcome`` when a run would end so."""

    def __init__(self, message: str, outcome: Outcome | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.outcome = outcome


class ActionRefused(SessionError):
    """Rule 1: the safety rules refused the action; it was not sent."""


class SessionEnded(SessionError):
    """Rule 4: an outcome is unknown; the recording is dropped and nothing more is sent."""


class NoRecordedPath(SessionError):
    """Rule 8: the check has no recorded path for this device and app; ``why`` says why, as a run would."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


class NotInPath(SessionError):
    """Rule 8: ``until`` is no step of the recorded path, which has ``steps`` steps (0: the check only launches)."""

    def __init__(self, message: str, until: int, steps: int) -> None:
        super().__init__(message)
        self.until = until
        self.steps = steps


@attrs.frozen
class Reached:
    """What ``replay`` did (Rule 8).

    ``steps`` is the recorded path's length (0 for a check that only launches), ``until`` the step
    it was asked to stop after (None: the last), ``reports`` the steps it ran (a drifted step's
    included), ``outcome`` how it stopped before getting there (None: it got there), ``healed``
    whether the path replayed is the healed one whose heal waits for review.
    """

    check: Check
    steps: int
    until: int | None
    reports: tuple[StepReport, ...]
    outcome: Outcome | None = None
    healed: bool = False

    @property
    def reached(self) -> bool:
        """Whether every step asked for ran."""
        return self.outcome is None


@attrs.frozen
class Acted:
    """An action sent: its words, whether it became a step of the recording, and the settled screen after it."""

    said: str
    recorded: bool
    screen: Screen


@attrs.frozen
class RecordedCheck:
    """A check that ``record`` wrote (Rule 6): its file, steps, the verdict's assertions, where its path is kept."""

    file: Path
    check: Check
    outcome: Outcome
    assertions: tuple[AssertionResult, ...]
    path: str


@attrs.frozen
class _Recording:
    """What ``start_recording`` found out: the app, how it launched (``prepared``) and the baseline."""

    bundle: str
    url: str | None
    prepared: Prepared
    baseline: SettledRead


class _Segment:
    """Rule 2: one journal, one dispatcher, one actor; ``ended`` once an outcome is unknown."""

    def __init__(self, session: LiveSession) -> None:
        self.folder = new_run_folder(session.root, utc_now())
        self.journal = Journal(self.folder)
        self.dispatch = Dispatcher(
            session.device, session.clock, self.journal, timing=session.timing, secrets=session.secrets
        )
        self.timing = session.timing
        self.actor = self.acting_on(DeviceKind.SIMULATOR)
        self.ended: Outcome | None = None

    def acting_on(self, kind: DeviceKind) -> Actor:
        """The actor of this segment on a device of ``kind`` (the safety rules depend on it)."""
        brief = Brief("", kind, Provenance(), timing=self.timing, key_prefix="live", source="live")
        self.actor = Actor(self.dispatch, brief)
        return self.actor

    def close(self) -> None:
        self.journal.close()


class LiveSession:
    """One device driven from outside a run (see the module rules); ``await start()`` before anything else.

    ``root`` is the project (the folder holding ``.mobster/``). Of ``options``, a session uses what
    a run would: ``timing`` paces every wait, ``secrets`` gives ``${NAME}`` their values (None: the
    process environment), ``paths`` is the store recorded paths go to, ``locale`` the app's.
    """

    def __init__(self, device: Device, clock: Clock, root: Path, options: RunOptions | None = None) -> None:
        self.device = device
        self.clock = clock
        self.root = root
        self.options = attrs.evolve(options or RunOptions(), root=root)
        self.timing = self.options.timing
        self.secrets = Secrets()
        self._info: DeviceInfo | None = None
        self._segment: _Segment | None = None
        self._recording: _Recording | None = None

    # -- the session ---------------------------------------------------------------------------

    async def start(self) -> DeviceInfo:
        """Read the device's info and open the first segment (Rule 2); a device that fails is a SessionError."""
        if self._info is None:
            self._open()
            info = await self._ended(read_device(self._run(self._check("com.example.session"))))  # the device only
            self._live().acting_on(info.kind)  # nothing was sent yet
            self._info = info
        return self._info

    @property
    def info(self) -> DeviceInfo:
        """The device's info (after :meth:`start`)."""
        if self._info is None:
            raise SessionError("the session isn't started: await start() first")
        return self._info

    @property
    def recording(self) -> bool:
        """Whether actions are being recorded (Rule 3)."""
        return self._recording is not None

    @property
    def steps(self) -> tuple[str, ...]:
        """The words of the steps recorded since ``start_recording``."""
        return tuple(s.describe() for s in self._recorded_path())

    @property
    def run_dir(self) -> Path:
        """The folder of the current segment, whose ``journal.jsonl`` lists every action (Rule 2)."""
        return self._live().folder

    def close(self) -> None:
        """Close the journal; nothing is sent after this."""
        if self._segment is not None:
            self._segment.close()
            self._segment = None
        self._recording = None

    # -- reads -----------------------------------------------------------------------------

    async def read(self) -> Screen:
        """The settled screen: read until two reads agree (the wait of a run); a failing read is a SessionError."""
        segment = self._live()
        return await self._ended(segment.actor.settled_screen())

    async def screenshot(self) -> bytes | None:
        """A screenshot of the screen, when the device takes them (None otherwise)."""
        return await self._live().dispatch.screenshot()

    # -- actions (Rules 1, 4, 5) -----------------------------------------------------------

    async def act(self, op: Op, *, target: str | None = None, text: str | None = None) -> Acted:
        """Send one action: ``target`` is the tree path of an element shown now (``/0/0/3``), ``text`` what is typed.

        Raises :class:`ActionRefused` when the safety rules refuse it, :class:`SessionEnded` when
        its outcome is unknown, :class:`SessionError` for anything else it can't do.
        """
        segment = self._live()
        screen = segment.dispatch.latest or await self.read()
        element = None if target is None else _shown_at(screen, target)
        try:
            action = make_action(op, element, text)
        except ValueError as exc:
            raise SessionError(f"{exc}: read the screen for the elements shown and their paths") from None
        said = describe_action(op, None if action.element is None else action.element.label, action.text)
        self._typing_rules(action, said)
        actor, recorded = segment.actor, len(segment.actor.path)
        sent = await self._ended(actor.send(screen, action, provenance=Provenance.of(steps=(said,))))
        if not sent:
            raise ActionRefused(f"{actor.refusals[-1]}; it was not sent", _refused(actor.refusals[-1]))
        after = await self._ended(actor.after_action(screen))
        return Acted(actor.path[-1].describe(), self.recording and len(actor.path) > recorded, after)

    def _typing_rules(self, action: Action, said: str) -> None:
        """Rule 5: masked text isn't recorded unless it is a reference; every reference must be set."""
        text, element = action.text, action.element
        if text is None:
            return
        names = references([text])
        if names:
            try:
                environ = os.environ if self.options.secrets is None else self.options.secrets
                self.secrets = Secrets.of([*self.secrets.values, *names], environ)
            except MissingSecret as exc:
                named, unset = exc.words()
                them = "it" if len(exc.names) == 1 else "them"
                raise SessionError(
                    f"{said} names {named}, and {unset}: set {them} in the server's environment and start it again"
                ) from None
            self._live().dispatch.secrets = self.secrets
        masked = element is not None and is_masked(element.role, element.label, element.identifier)
        if masked and self.recording and not only_references(text):
            raise SessionError(
                f'the field "{element.label if element else ""}" is masked: its text is never recorded, so a '
                "check can't replay it with no model. Type a ${NAME} reference (its value set in the "
                "server's environment) instead; nothing was sent"
            )

    # -- reaching a screen (Rule 8) ----------------------------------------------------------

    async def replay(self, check: Check, *, until: int | None = None) -> Reached:
        """Rule 8: launch ``check``'s app as its run does and replay its recorded path at $0, up to step ``until``.

        Raises :class:`NoRecordedPath` or :class:`NotInPath` before anything is sent, and
        :class:`SessionError` for a check or a device that can't run (an unset secret, a device
        that fails); how the replay stopped is the :class:`Reached` it returns.
        """
        info = self.info
        self._stop_segment()
        segment = self._open()
        segment.acting_on(info.kind)
        secrets, missing = secrets_of(check, self.options)
        if missing is not None:
            raise SessionError(missing_secret(check, missing).message)
        segment.dispatch.secrets = secrets
        options = attrs.evolve(self.options, no_heal=True, fresh=False, carry=False)
        run = Run(check, self.device, self.clock, self.root, options, segment.dispatch, None)
        prepared = await self._ended(prepare(run, info))
        try:
            plan = choose_path(run, prepared)
        except Ended as ended:  # a heal file that can't be read: nothing was sent
            raise SessionError(ended.outcome.message, ended.outcome) from None
        steps = len(plan.path or ())
        _reachable(check, plan, until, steps)
        try:
            await apply_settings(run)
            executed = await execute(run, prepared, plan, until=until)
            outcome, reports = executed.failure, executed.reports
        except Ended as ended:
            outcome, reports = ended.outcome, ()
        finally:
            segment.dispatch.watch_alerts(None, info.kind)
        if outcome is not None:
            outcome = attrs.evolve(outcome, message=secrets.scrub(outcome.message))  # as a run's result is
            if outcome.failure_class is FailureClass.UNKNOWN_OUTCOME:
                segment.ended = outcome  # Rule 4: nothing more is sent
        return Reached(check, steps, until, reports, outcome, healed=plan.adopted)

    # -- recording (Rules 3, 6, 7) ------------------------------------------------------------

    async def start_recording(self, bundle: str, *, url: str | None = None) -> Screen:
        """Launch ``bundle`` as a run of its check does, take the baseline, and record from here (Rule 3)."""
        info = self.info
        self._stop_segment()
        self._open().acting_on(info.kind)
        check = self._check(bundle, url)
        run = self._run(check)
        prepared = await self._ended(prepare(run, info))
        await self._ended(self._live().dispatch.launch(bundle, prepared.launch))
        baseline = await self._ended(
            settled_read(lambda: run.dispatch.read_evidence("the baseline"), self.clock, BASELINE_POLICY)
        )
        self._recording = _Recording(bundle, url, prepared, baseline)
        return baseline.screen

    def stop_recording(self) -> int:
        """Drop the recording (nothing is written); the number of steps dropped."""
        dropped = len(self._recorded_path())
        self._recording = None
        return dropped

    async def record(self, name: str, expect: Sequence[Any], *, file: str | None = None) -> RecordedCheck:
        """Rule 6: judge the current screen by ``expect``; on a pass, write the check file and keep its path.

        ``file`` is the check file's name in ``.mobster/checks/`` (default: from the name). A
        failing verdict writes nothing and raises :class:`SessionError` with the outcome.
        """
        recording = self._recording
        if recording is None:
            raise SessionError("nothing is being recorded: start_recording launches the app and records from there")
        path = tuple(self._recorded_path())
        if not path:
            raise SessionError("no step was recorded since start_recording: act on the app first")
        target = self.check_file(name, file)
        check = self._load(target, name, recording, path, expect)
        run = self._run(check)
        first = recording.baseline
        baseline = Baseline(evaluate(check.expect, first.screen) if first.stable else None, first)
        judged = await self._ended(judge(run, baseline, None))
        if judged.outcome.verdict is not Verdict.PASSED:
            said = f"the verdict is {judged.outcome.verdict}: {judged.outcome.message}; nothing was written"
            raise SessionError(said, judged.outcome)
        prepared = attrs.evolve(recording.prepared, identity=check.identity)
        self._write(target, check_text(_doc(check, recording, expect)))
        try:
            keep(run, prepared, Executed(Mode.SMART, Plan(), None, ran=path))  # under the project's lock
        except (Ended, PathError, UnsafeFile, OSError) as exc:
            target.unlink(missing_ok=True)  # Rule 6: a check without its path is not written either
            said = exc.outcome.message if isinstance(exc, Ended) else str(exc)
            raise SessionError(f"the check's path couldn't be kept ({said}); nothing was written") from None
        self._recording = None
        where = run.options.paths if isinstance(run.options.paths, str) else run.options.paths.name
        return RecordedCheck(target, check, judged.outcome, judged.assertions, where)

    def _write(self, target: Path, text: str) -> None:
        """Rule 6: the check file, never over an existing one (under the project's lock)."""
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with project_lock(self.root):
                if target.exists():
                    raise SessionError(f"{target} exists already: record under another name or file")
                atomic_write(target, utf8(text))
        except (UnsafeFile, OSError) as exc:
            raise SessionError(f"the check file {target} couldn't be written: {exc}") from exc

    def check_file(self, name: str, file: str | None = None) -> Path:
        """Rule 7: the file ``record(name, expect, file=file)`` writes; SessionError if ``file`` is no such file."""
        return self._check_file(file or f"{_slug(name)}.yaml")

    def _check_file(self, name: str) -> Path:
        """Rule 7: the check file ``name`` names, in the project's ``.mobster/checks/``; anything else is refused."""
        folder = self.root / MOBSTER_DIR / "checks"
        if not _CHECK_NAME.fullmatch(name) or name.endswith((".heal.yaml", ".heal.yml")):
            raise SessionError(
                f"{name[:80]!r} is not a check file of this project: give a file name such as signup.yaml "
                f"(letters, digits, '.', '_', '-'; no folder), written to {folder}"
            )
        return folder / name

    def _load(
        self, target: Path, name: str, recording: _Recording, path: Sequence[Step], expect: Sequence[Any]
    ) -> Check:
        steps = [s.describe() for s in path]
        doc = _doc(None, recording, expect, name=name, steps=steps)
        try:
            check = load_check_text(check_text(doc), str(target))
        except CheckError as exc:
            raise SessionError(str(exc)) from None
        except (TypeError, ValueError) as exc:  # what YAML can't write (a number too large, a tag)
            raise SessionError(f"{target}: the expectations can't be written as a check file: {exc}") from None
        if list(check.steps) != steps:
            raise SessionError(f"{target}: the steps' words don't read back as written: {steps}")
        return check

    def _recorded_path(self) -> list[Step]:
        if self._recording is None or self._segment is None:
            return []
        return self._segment.actor.path

    # -- internals ---------------------------------------------------------------------------

    def _open(self) -> _Segment:
        try:
            self._segment = _Segment(self)
        except (JournalError, UnsafeFile, OSError) as exc:
            raise SessionError(f"the session's journal can't be opened: {exc}") from exc
        return self._segment

    def _stop_segment(self) -> None:
        if self._segment is not None:
            self._segment.close()
        self._segment, self._recording = None, None

    def _live(self) -> _Segment:
        segment = self._segment
        if segment is None:
            raise SessionError("the session isn't started: await start() first")
        if segment.ended is not None:
            raise SessionEnded(
                f"{segment.ended.message} Nothing more is sent: start_recording launches the app again",
                segment.ended,
            )
        return segment

    def _check(self, bundle: str, url: str | None = None) -> Check:
        """The check a recording will be: its app and link, read by the check file's rules (a bad one is refused)."""
        doc: dict[str, Any] = {"version": 1, "name": "session", "app": {"bundle": bundle}}
        if url is not None:
            doc["launch"] = {"url": url}
        try:
            return load_check_text(check_text(doc), "start_recording")
        except CheckError as exc:
            raise SessionError(str(exc)) from None

    def _run(self, check: Check) -> Run:
        return Run(check, self.device, self.clock, self.root, self.options, self._live().dispatch, None)

    async def _ended(self, call: Awaitable[T]) -> T:
        """Rule 4: a run's ending, as the session's error; an unknown outcome ends the segment."""
        try:
            return await call
        except Ended as ended:
            outcome = ended.outcome
            if outcome.failure_class is FailureClass.UNKNOWN_OUTCOME and self._segment is not None:
                self._segment.ended = outcome
                self._recording = None
                raise SessionEnded(f"{outcome.message} The recording is dropped.", outcome) from None
            raise SessionError(outcome.message, outcome) from None
        except JournalError as exc:
            raise SessionError(str(exc)) from exc


def _reachable(check: Check, plan: Plan, until: int | None, steps: int) -> None:
    """Rule 8: a path to replay, and ``until`` one of its steps; else the error that says so."""
    name = check.file.name
    if plan.path is None and not check.launch_only:
        why = plan.why or "no recorded path yet"
        raise NoRecordedPath(
            f"{name} has no recorded path to replay on this device and app: {why}; a run of the check with a "
            "model records one",
            why,
        )
    if until is None or 1 <= until <= steps:
        return
    if steps == 0:
        raise NotInPath(f"{name} has no steps to stop after: it only launches its app", until, 0)
    raise NotInPath(
        f"step {until} is not a step of {name}'s recorded path: it has {steps} step{'s' if steps != 1 else ''} "
        f"(1 to {steps})",
        until,
        steps,
    )


def _shown_at(screen: Screen, target: str) -> Element:
    element = screen.element_at(target)
    if element is None or not screen.is_shown(element):
        raise SessionError(
            f"no element shown at {target[:80]!r} on the current screen: read it again for the elements and their paths"
        )
    return element


def _refused(note: str) -> Outcome:
    return Outcome(Verdict.COULDNT_RUN, FailureClass.REFUSED, note)


def _slug(name: str) -> str:
    words = re.findall(r"[a-z0-9]+", name.lower())
    return "-".join(words)[:60].strip("-") or "session"


def _doc(
    check: Check | None,
    recording: _Recording,
    expect: Sequence[Any],
    *,
    name: str | None = None,
    steps: Sequence[str] = (),
) -> dict[str, Any]:
    """The check file's keys, in the order of docs/checks.md."""
    doc: dict[str, Any] = {
        "version": 1,
        "name": check.name if check is not None else name,
        "app": {"bundle": recording.bundle},
    }
    if recording.url is not None:
        doc["launch"] = {"url": recording.url}
    doc["steps"] = list(check.steps) if check is not None else list(steps)
    doc["expect"] = list(expect)
    return doc
