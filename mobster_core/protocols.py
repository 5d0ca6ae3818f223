"""The interfaces between the core and the world: a clock, a device, a model, a reporter.

They are ``typing.Protocol`` classes: implement the methods, no base class needed. The ones that
do I/O are async so a run can cancel them (a heal cancels a model call in flight). The values they
exchange (``Screen``, ``Action``, ``Prompt``, …) are in ``mobster_core``; the few only a driver
needs are here too: :data:`SPRINGBOARD` (the home screen's bundle id), :data:`HOME_SCREENS` (every
home screen's, Android's launchers too), :class:`Platform` (iOS or Android), :data:`DEFAULT_SCREEN_SIZE`,
:data:`Frame` (an element's normalized ``(x, y, w, h)``), :class:`Appearance` (light or dark), and what
the optional abilities of device controls, device steps, video and the audit exchange
(:class:`DeviceSettings`, :class:`DeviceEvent`, :class:`Recording`, :class:`AuditIssue`,
:class:`AuditReport`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ._results.frames import FramesMode
from ._rules.device.controls import AuditIssue, AuditReport, DeviceEvent, DeviceSettings, Recording
from ._rules.device.device import (
    HOME_SCREENS,
    SPRINGBOARD,
    Action,
    Appearance,
    AppInfo,
    DeviceInfo,
    LaunchOptions,
    Platform,
)
from ._rules.model.model import Decision, Prompt
from ._rules.verdict.verdict import Verdict
from ._rules.vocabulary.screen import DEFAULT_SCREEN_SIZE, Element, Frame, Screen
from ._store.pathstores import PathStore

if TYPE_CHECKING:
    from ._results.results import CheckResult, SuiteResult

__all__ = [
    "DEFAULT_SCREEN_SIZE",
    "HOME_SCREENS",
    "SPRINGBOARD",
    "AlertAnswers",
    "Appearance",
    "AuditIssue",
    "AuditReport",
    "Audits",
    "CheckReports",
    "Clock",
    "Device",
    "DeviceControls",
    "DeviceEvent",
    "DeviceEvents",
    "DeviceSettings",
    "EvidenceReads",
    "Frame",
    "LocaleLaunches",
    "Model",
    "PathStore",
    "Platform",
    "Recording",
    "Recordings",
    "Reporter",
    "ScreenshotChannel",
    "Screenshots",
    "TargetChecks",
]


@runtime_checkable
class Clock(Protocol):
    """**Protocol:** monotonic time in seconds, and a way to wait.

    The core never reads the time any other way, so tests run on a fake clock and never sleep.
    """

    def now(self) -> float:
        """Seconds on a monotonic clock (the origin is arbitrary)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (at once when ``seconds`` <= 0)."""
        ...


@runtime_checkable
class Device(Protocol):
    """**Protocol:** a phone (simulated, scripted or real) the SDK reads and drives.

    Errors: a failure before anything was sent raises :class:`~mobster_core.DeviceError`; an
    action that was sent and whose effect is unknown (it raised, it timed out) raises
    :class:`~mobster_core.UnknownOutcome`. A device never retries an action by itself. Reads are
    safe to retry; actions are not.
    """

    async def info(self) -> DeviceInfo:
        """The device's name, OS version (iOS's, or Android's API level) and kind."""
        ...

    async def app_info(self, bundle: str) -> AppInfo:
        """An installed app's version and build (None where the device can't read them).

        Raises ``DeviceError`` when the app is not installed.
        """
        ...

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch an app with arguments, environment, an optional deep link and a reset."""
        ...

    async def read(self) -> Screen:
        """Read the accessibility tree and the app in front."""
        ...

    async def act(self, action: Action) -> None:
        """Send one action, once. Acts on the element's current frame."""
        ...


@runtime_checkable
class Screenshots(Protocol):
    """**Protocol:** an optional ability of a device: a screenshot as PNG bytes."""

    async def screenshot(self) -> bytes:
        """The screen as a PNG image."""
        ...


@runtime_checkable
class AlertAnswers(Protocol):
    """**Protocol:** an optional ability: answer the system alert shown now by tapping a button.

    ``button`` is one of the alert's buttons as a read shows them (``docs/alerts.md``). WDA does it
    with ``POST /alert/accept {"name": button}``, the scripted phone taps it. ``DeviceError`` when
    no alert is shown (nothing was sent); any other failure is an unknown outcome, as for ``act``.
    A device without it can't answer alerts: a check whose policy answers one then can't run.
    """

    async def answer_alert(self, button: str) -> None:
        """Tap ``button`` of the alert shown now."""
        ...


@runtime_checkable
class ScreenshotChannel(Protocol):
    """**Protocol:** an optional ability of a device with ``Screenshots``: it says how they are taken.

    ``separate_screenshots`` is True when its screenshots come by a channel of their own (a
    simulator's ``simctl io``), so taking one never delays a read: the run then takes one beside
    each read. False, or a device without the attribute, is the one channel WebDriverAgent serves
    one request at a time: a screenshot beside a read would delay the read, so the run takes one
    only of a screen it acts on, drifts on, shows the model or ends on (``_run/dispatch.py``,
    Rule 9).
    """

    separate_screenshots: bool


@runtime_checkable
class EvidenceReads(Protocol):
    """**Protocol:** an optional ability of a device whose :meth:`Device.read` is a fast read.

    A fast read may leave out what is costly to ask for (WebDriverAgent's own ``visible`` flag,
    about 4 ms an element), so some hidden content can read as visible. The verdict's settled
    read (and the baseline) use ``read_evidence`` instead when a device has it: the read that
    says of each element what the phone itself says. A device whose ``read`` is already truthful
    (the scripted phone) doesn't need it. Same errors as ``read``.
    """

    async def read_evidence(self) -> Screen:
        """Read the tree with each element's own visibility, as the device reports it."""
        ...


@runtime_checkable
class TargetChecks(Protocol):
    """**Protocol:** an optional ability: confirm an element is shown right before acting on it.

    ``element`` comes from the device's latest read. The answer is the device's own (for
    WebDriverAgent, one predicate query for that element with ``visible == 1``), so content a
    fast read can't tell apart from what is shown (a view faded out with opacity keeps its
    frame) is never tapped: the replay waits instead, and the step drifts if it stays hidden.
    Same errors as ``read``; a device that can't tell answers True.
    """

    async def check_target(self, element: Element) -> bool:
        """Is ``element`` shown now, by the device's own account?"""
        ...


@runtime_checkable
class LocaleLaunches(Protocol):
    """**Protocol:** an optional ability: launch the app under test in a locale the run asks for.

    A simulator does (``-AppleLanguages (de) -AppleLocale de_DE`` at launch); an iPhone's or a
    cloud's language is the one set on the phone. When a check or a run asks for a locale
    (``launch.locale``, ``RunOptions(locale=…)``), a device that answers True is given it in
    ``LaunchOptions.locale`` and the path's env records it; on any other device the locale it
    reports (``DeviceInfo.locale``) must be that one, or the check can't run (class
    ``environment``), never a drift.
    """

    def launches_in_locale(self) -> bool:
        """Whether :meth:`Device.launch` applies ``LaunchOptions.locale`` on this device now."""
        ...


@runtime_checkable
class CheckReports(Protocol):
    """**Protocol:** an optional ability: be told which check runs on the device, and its verdict.

    A device cloud's dashboard shows one session per device; with this, it shows it named after
    the check that runs on it and marked with that check's verdict. The runner calls
    ``check_started`` before a check's first call to the device and ``check_ended`` once its
    result is written (not when the run was stopped from outside). Both are best effort: they
    must not raise (the runner logs and ignores an error if one does), and what they send is no
    action on the app.
    """

    async def check_started(self, name: str) -> None:
        """The check ``name`` starts on this device."""
        ...

    async def check_ended(self, name: str, verdict: Verdict, reason: str) -> None:
        """The check ``name`` ended with ``verdict``; ``reason`` is its one-line message."""
        ...


@runtime_checkable
class Model(Protocol):
    """**Protocol:** a model that decides the next actions of a check.

    Given a provider-neutral prompt it returns 1 to a few actions, or done, or blocked, with the
    token usage. Adapters translate; prompts and the action schema live in the core.
    """

    @property
    def name(self) -> str:
        """The model's name, for the price table and the results (``claude-…``, ``scripted``)."""
        ...

    async def decide(self, prompt: Prompt) -> Decision:
        """Ask for the next decision. Cancellable: cancelling drops the call in flight."""
        ...


@runtime_checkable
class Reporter(Protocol):
    """**Protocol:** what presents results once they are written: pages, pictures, a dashboard.

    ``RunOptions(reporter=...)`` carries one (``mobster_report.HtmlReport`` writes ``report.html``
    and ``index.html``); with none, a run writes its results and no page, and takes no frames.
    The runner calls :meth:`check_ended` once a check's ``result.json`` is written (a stopped run
    too, at once) and :meth:`suite_ended` once a suite's ``results.json`` and ``junit.xml`` are.
    The values are frozen and the files already written: a reporter can't change a verdict.
    An exception it raises is logged, never the run's outcome. Both are called after the verdict:
    their time counts in no run's ``seconds``. :meth:`check_ended` is called in a worker thread (a
    stopped run's at once, on the event loop), so making pictures never delays another device of
    a pool; :meth:`suite_ended` on the runner's event loop.
    """

    def check_ended(self, result: CheckResult, folder: Path, frames: FramesMode) -> None:
        """A check ended: ``result`` is its ``result.json``, ``folder`` its run folder.

        The frames the run took are in ``folder``, named by ``result`` (each step's ``frame``,
        ``final_frame``); ``frames`` is the run's ``--frames`` mode, which says which to keep.
        """
        ...

    def suite_ended(self, suite: SuiteResult) -> None:
        """A suite ended: ``suite.folder`` holds its ``results.json`` and ``junit.xml``."""
        ...


# -- device controls, video and the audit (``_rules/device/controls``) -----------------------------


@runtime_checkable
class DeviceControls(Protocol):
    """**Protocol:** an optional ability: apply a check's ``device:`` settings (``_rules/device/controls``).

    A simulator does (``xcrun simctl location``, ``ui``, biometric enrolment; Appium's ``mobile:``
    commands on a simulator session). ``controls_refusal`` says why it can't apply these settings
    now (an Appium session on a real iPhone; a setting the driver has no command for), or None.
    A device without this ability, or with a refusal, is no place for a check with settings: it
    can't run (class ``environment``), before anything is sent. ``apply_settings`` runs before the
    app is launched; it raises ``DeviceError``.
    """

    def controls_refusal(self, settings: DeviceSettings) -> str | None:
        """None when :meth:`apply_settings` can apply ``settings`` on this device now, else why not (one line)."""
        ...

    async def apply_settings(self, settings: DeviceSettings) -> None:
        """Apply every setting given (a None field is left as it is)."""
        ...


@runtime_checkable
class DeviceEvents(Protocol):
    """**Protocol:** an optional ability: a check's device steps (``_rules/device/controls`` Rule 5).

    A biometric prompt matched or failed, a push notification sent to the app
    (:class:`DeviceEvent`): a simulator does (``simctl spawn … notifyutil``, ``simctl push``;
    Appium's ``mobile: sendBiometricMatch`` and ``pushNotification`` on a simulator session).
    ``event_refusal`` says why it can't send ``event`` (a USB iPhone, an Appium session on a real
    phone), or None. A device without the ability, or with a refusal, is no place for a check with
    such a step: it can't run (class ``environment``), before anything is sent. ``send_event`` is
    an action: the runner journals it first; it raises ``DeviceError`` when nothing was sent.
    """

    def event_refusal(self, event: DeviceEvent) -> str | None:
        """None when :meth:`send_event` can send ``event`` on this device, else why not (one line)."""
        ...

    async def send_event(self, event: DeviceEvent) -> None:
        """Send ``event``: the biometric answer, or the push to ``event.bundle``."""
        ...


@runtime_checkable
class Recordings(Protocol):
    """**Protocol:** an optional ability: record a video of the screen while a check runs.

    ``start_recording(file)`` starts one that will be written to ``file`` (in the run folder;
    the device writes it privately, 0600); ``stop_recording()`` finalizes it and says what it
    left (:class:`~mobster_core._rules.device.controls.Recording`: the file, and a cloud's own video
    link where the provider names one). Both raise ``DeviceError``; the runner treats a
    recording that fails as a warning, never as the check's outcome.
    """

    async def start_recording(self, file: Path) -> None:
        """Start recording the screen into ``file``."""
        ...

    async def stop_recording(self) -> Recording:
        """Stop and finalize the recording started last."""
        ...


@runtime_checkable
class Audits(Protocol):
    """**Protocol:** an optional ability: Apple's accessibility audit of the app in front.

    ``types`` are ``_rules/device/controls.AUDIT_TYPES`` names (empty: all). A device that can't audit
    now (iOS before 17) returns a report whose ``unavailable`` says why. A reply that can't be
    read raises ``DeviceError``. The runner asks once, on the verdict's settled screen.
    """

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        """Audit the screen in front for ``types``."""
        ...
