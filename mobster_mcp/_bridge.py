"""What each tool does, as plain values: the project, its device, the live session, the checks.

Rule 1: one device per server, opened (and locked, when it is a real one) by the harness's door
        (``Harness.one_device``) the first time a tool needs it, and released when the server
        stops; or a ``Device`` given as it is (your own driver, from Python), which its owner
        closes.
Rule 2: one tool at a time: a tool waits for the one before it (one phone, one journal).
Rule 3: what a tool can't do is a :class:`ToolProblem` with one line that says what to do instead;
        the server answers it as the tool's error and goes on serving.
Rule 4: a check is named by its file's name (``signup.yaml``, or ``.mobster/checks/signup.yaml``
        as ``record_check`` answers it), its file's stem (``signup``) or its ``name:``, among the
        project's checks (``.mobster/checks/``): nothing else is read, so no argument reaches a
        file elsewhere. A file's name is one check; a stem or a name more than one check answers
        to (two checks called "Signs up"; "signup" the stem of one and the name of another;
        ``x.yaml`` and ``x.yml``) is refused, listing their files, so a decision never lands on a
        file nobody meant. ``record_check`` keeps it so: a new check's name, and its file's
        stem, must be no other check's.
Rule 5: ``run_check`` runs as ``mobster test`` does, through the same door: the settings' run
        options with the HTML report and its "Run it again" device (``Harness.run_options``: the
        config's alerts, frames, video and budget included), the models the settings choose, ready
        (``Harness.models``), and a check that couldn't run for a class of the machine tried again
        up to ``retries`` times on the server's device (``mobster_core.results.retryable``, the
        attempts joined by ``with_attempts``, as the plugin's tests are); never while a recording
        is under way.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from mobster_core import Clock, Device, Element, MobsterError, Op, Screen, find_checks, load_check, run_check
from mobster_core.checks import CheckError, read_user_file
from mobster_core.heals import HealFileError, accept_heals, heal_file_for, pending_heals, read_heal_file, reject_heals
from mobster_core.protocols import PathStore
from mobster_core.results import retryable, with_attempts
from mobster_core.sessions import LiveSession, SessionError
from mobster_harness import CouldntOpen, Harness, OpenDevice, PoolError, Settings

__all__ = ["OPS", "Bridge", "ToolProblem", "element_row", "screen_doc"]

T = TypeVar("T")

#: The ops of ``act``, by the name a model writes.
OPS: dict[str, Op] = {
    "tap": Op.TAP,
    "long_press": Op.LONG_PRESS,
    "type": Op.TYPE,
    "submit": Op.SUBMIT,
    "swipe_up": Op.SWIPE_UP,
    "swipe_down": Op.SWIPE_DOWN,
    "swipe_left": Op.SWIPE_LEFT,
    "swipe_right": Op.SWIPE_RIGHT,
    "launch": Op.LAUNCH_APP,
    "home": Op.HOME,
    "open_link": Op.OPEN_URL,
}

#: The most elements ``read_screen`` lists (a screen of a thousand cells is cut, and says so).
MAX_ROWS = 400


class ToolProblem(MobsterError):
    """Rule 3: a tool can't do what it was asked; the message says what to do instead."""


def element_row(element: Element) -> dict[str, Any]:
    """One shown element as a tool answers it: its path, role, label and what else it says."""
    row: dict[str, Any] = {"path": element.path, "role": element.role, "label": element.label}
    said = {"value": element.value, "id": element.identifier, "placeholder": element.placeholder}
    row.update({key: value for key, value in said.items() if value})
    if not element.enabled:
        row["enabled"] = False
    if element.selected:
        row["selected"] = True
    return row


def screen_doc(screen: Screen) -> dict[str, Any]:
    """The screen as the matcher sees it: the app in front and its shown elements, in tree order."""
    shown = screen.shown
    doc: dict[str, Any] = {"app": screen.app, "elements": [element_row(e) for e in shown[:MAX_ROWS]]}
    if len(shown) > MAX_ROWS:
        doc["cut"] = f"{len(shown) - MAX_ROWS} more elements are not listed; swipe to bring others into view"
    return doc


class Bridge:
    """The server's state and the tools' work (see the module rules)."""

    def __init__(self, settings: Settings, root: Path, clock: Clock, *, device: Device | None = None) -> None:
        if not root.is_dir():  # Rule 4: the project is a folder that is there; none is made for it
            raise ToolProblem(f"the project {root} is not a folder that is there: give the folder holding .mobster")
        self.settings = settings
        self.root = root
        self.clock = clock
        self.harness = Harness(settings, root, clock)
        self._given = device
        self._opened: OpenDevice | None = None
        self._session: LiveSession | None = None
        self._lock = asyncio.Lock()
        self.last_result: dict[str, Any] | None = None

    async def one_at_a_time(self, call: Callable[[], Awaitable[T]]) -> T:
        """Rule 2: run a tool's work alone; a session's error becomes the tool's (Rule 3)."""
        async with self._lock:
            try:
                return await call()
            except SessionError as exc:
                raise ToolProblem(exc.message) from None
            except (CheckError, HealFileError, CouldntOpen, PoolError) as exc:
                raise ToolProblem(str(exc)) from None

    def close(self) -> None:
        """Rule 1: close the session's journal and release the device."""
        if self._session is not None:
            self._session.close()
            self._session = None
        if self._opened is not None:
            self._opened.release()
            self._opened = None

    # -- the device and the session (Rule 1) ---------------------------------------------------

    def _spec_labels(self) -> list[tuple[str, str]]:
        if self._given is not None:
            return [("device", "driver")]
        return [(s.label, s.kind) for s in self.harness.specs()]

    def _device(self) -> Device:
        """Rule 1: the device given, else the one the settings name, opened by the harness."""
        if self._given is not None:
            return self._given
        if self._opened is None:
            count = len(self.harness.specs())
            if count != 1:
                raise ToolProblem(f"the server was given {count} devices; start it with one device option")
            self._opened = self.harness.one_device()
        return self._opened.device

    async def session(self) -> LiveSession:
        """The live session on the server's device, opened the first time."""
        if self._session is None:
            options = self.harness.run_options()
            session = LiveSession(self._device(), self.clock, self.root, options)
            try:
                await session.start()
            except SessionError:
                self.close()
                raise
            self._session = session
        return self._session

    async def list_devices(self) -> dict[str, Any]:
        """The device the server drives: its label and kind, and what it says of itself once opened."""
        rows: list[dict[str, Any]] = [{"label": label, "kind": kind} for label, kind in self._spec_labels()]
        if rows:
            info = (await self.session()).info
            rows[0].update(name=info.name, ios=info.ios, device_kind=info.kind.value, opened=True)
        return {"devices": rows}

    async def read_screen(self, *, screenshot: bool) -> tuple[dict[str, Any], bytes | None]:
        """The settled screen, and a screenshot when asked and the device takes them."""
        session = await self.session()
        screen = await session.read()
        picture = await session.screenshot() if screenshot else None
        doc = screen_doc(screen)
        doc["recording"] = self._recording_doc(session)
        return doc, picture

    async def act(self, op: str, target: str | None, text: str | None) -> dict[str, Any]:
        """One action, through the session's rules; the settled screen after it."""
        session = await self.session()
        acted = await session.act(OPS[op], target=target, text=text)
        return {"done": acted.said, "recorded": acted.recorded, "screen": screen_doc(acted.screen),
                "recording": self._recording_doc(session)}  # fmt: skip

    async def start_recording(self, app: str, link: str | None) -> dict[str, Any]:
        """Launch the app as its check's run will, and record from here."""
        session = await self.session()
        screen = await session.start_recording(app, url=link)
        return {"recording": self._recording_doc(session), "screen": screen_doc(screen)}

    async def stop_recording(self) -> dict[str, Any]:
        """Drop the recording."""
        session = await self.session()
        return {"dropped_steps": session.stop_recording(), "recording": self._recording_doc(session)}

    async def record_check(self, name: str, expect: Sequence[Any], file: str | None) -> dict[str, Any]:
        """Judge the current screen; on a pass, write the check file and its recorded path."""
        session = await self.session()
        self._unique(name, session.check_file(name, file))
        recorded = await session.record(name, expect, file=file)
        return {
            "verdict": recorded.outcome.verdict.value,
            "file": _shown(recorded.file, self.root),
            "name": recorded.check.name,
            "steps": list(recorded.check.steps),
            "paths_store": recorded.path,
            "assertions": [r.to_dict() for r in recorded.assertions],
            "replay": f"mobster test {recorded.file.name} --no-heal",
        }

    def _recording_doc(self, session: LiveSession) -> dict[str, Any]:
        return {"on": session.recording, "steps": list(session.steps)}

    # -- checks and heals (Rules 4, 5) -----------------------------------------------------------

    def checks_answering(self, name: str) -> list[Path]:
        """Rule 4: the check files ``name`` names: the file of that name, else each whose stem or name it is."""
        files = find_checks(self.root)
        exact = [f for f in files if name in (f.name, _shown(f, self.root))]
        if exact:
            return exact
        return [f for f in files if name in (f.stem, _name_of(f))]

    def check_named(self, name: str) -> Path:
        """Rule 4: the one check file ``name`` names (its file's name, its stem, its name); else a ToolProblem."""
        found = self.checks_answering(name)
        if len(found) == 1:
            return found[0]
        if not found:
            raise ToolProblem(
                f"no check called {name[:80]!r} in {self.root / '.mobster' / 'checks'}: list_checks lists them"
            )
        listed = ", ".join(f.name for f in found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise ToolProblem(
            f"{len(found)} checks answer to {name[:80]!r} ({listed}): give the file's name instead, such as "
            f'{{"check": "{found[0].name}"}} (list_checks lists each check\'s file)'
        )

    def _unique(self, name: str, target: Path) -> None:
        """Rule 4: a new check's name, and its file's stem, name no other check."""
        for file in self.checks_answering(name):
            if file != target:
                how = "is called so" if _name_of(file) == name else "answers to it"
                raise ToolProblem(
                    f"the name {name[:80]!r} is taken: {file.name} {how}; give the new check another name"
                )
        for file in self.checks_answering(target.stem):
            if file != target:
                raise ToolProblem(
                    f"the file {target.name} would answer to {target.stem!r}, as {file.name} does; "
                    "give the new check another file name (file)"
                )

    def list_checks(self) -> dict[str, Any]:
        """The project's checks: name, file, steps and expectations, or why one can't be read."""
        rows: list[dict[str, Any]] = []
        for file in find_checks(self.root):
            try:
                check = load_check(file)
            except CheckError as exc:
                rows.append({"file": file.name, "problem": str(exc)})
                continue
            rows.append({"name": check.name, "file": file.name, "steps": list(check.steps),
                         "expect": [a.show() for a in check.expect], "tags": list(check.tags),
                         "heals_waiting": len(_entries(file))})  # fmt: skip
        return {"checks": rows}

    def list_heals(self) -> dict[str, Any]:
        """The heals waiting for review, by check."""
        rows: list[dict[str, Any]] = []
        for file in find_checks(self.root):
            if not _entries(file):
                continue
            check = load_check(file)
            for pending in pending_heals(check, self.root, paths=self._paths()):
                e = pending.entry
                row = {"check": check.name, "file": file.name, "step": e.step, "from": e.from_, "to": e.to}
                row.update(why=e.why, in_use=pending.in_use, gone=[list(p) for p in pending.gone],
                           came=[list(p) for p in pending.came], not_in_use=pending.why)  # fmt: skip
                rows.append(row)
        return {"heals": rows}

    def _paths(self) -> str | PathStore:
        """The path store the settings name, as a run opens it (a team's store, signed, read-only)."""
        try:
            return self.settings.path_store(self.root)
        except ValueError as exc:  # an unset ${NAME}, a team key too short
            raise ToolProblem(str(exc)) from None

    def decide_heal(self, name: str, *, accept: bool) -> dict[str, Any]:
        """Accept or reject the heals of one check (under the project's lock, by the core)."""
        check = load_check(self.check_named(name))
        if not self.settings.paths_write:
            raise ToolProblem(
                "the path store is read-only here (the config's paths-write = false): nothing was changed; "
                "decide the heals where the store may be written"
            )
        decide = accept_heals if accept else reject_heals
        n = decide(check, self.root, paths=self._paths())
        return {"check": check.name, "accepted" if accept else "rejected": n}

    async def run_check(self, name: str, *, no_heal: bool) -> dict[str, Any]:
        """Rule 5: run one check on the server's device; its result, and the report's path."""
        from dataclasses import replace

        file = self.check_named(name)
        check = load_check(file)
        session = await self.session()
        if session.recording:
            raise ToolProblem("a recording is under way: record_check or stop_recording first")
        door = Harness(replace(self.settings, no_heal=no_heal or self.settings.no_heal), self.root, self.clock)
        try:
            models = door.models()
            options = door.run_options()  # the path store too: an unset ${NAME} is one line
        except (MobsterError, ValueError) as exc:
            raise ToolProblem(str(exc)) from None
        runs = [await run_check(check, session.device, self.clock, model=models(), options=options)]
        while len(runs) <= options.retries and retryable(runs[-1]):
            runs.append(await run_check(check, session.device, self.clock, model=models(), options=options))
        result = with_attempts(runs)
        doc = result.to_dict()
        report = self.root / result.run_dir / "report.html" if result.run_dir else None
        doc["report"] = str(report) if report is not None and report.is_file() else None
        self.last_result = doc
        return doc

    # -- resources ---------------------------------------------------------------------------

    def check_text(self, name: str) -> str:
        """The text of one check file (Rule 4)."""
        file = self.check_named(name)
        return read_user_file(file, max_bytes=1 << 20, follow=False).decode("utf-8", errors="replace")

    def last_results(self) -> str:
        """The last run's result: this server's last ``run_check``, else the newest ``result.json`` of the project."""
        if self.last_result is not None:
            return json.dumps(self.last_result, indent=2, ensure_ascii=False)
        runs = self.root / ".mobster" / "runs"
        newest = sorted(runs.glob("*/result.json"), reverse=True) if runs.is_dir() else []
        if not newest:
            return json.dumps({"result": None, "why": "no check has run in this project yet"})
        return read_user_file(newest[0], max_bytes=8 << 20, follow=False).decode("utf-8", errors="replace")


def _entries(file: Path) -> list[Any]:
    try:
        return list(read_heal_file(heal_file_for(file)))
    except HealFileError:
        return [None]


def _name_of(file: Path) -> str | None:
    """The ``name:`` of a check file, None when it can't be read (list_checks says why)."""
    try:
        return load_check(file).name
    except CheckError:
        return None


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
