"""The exceptions a check that didn't pass raises under pytest, built so reruns can tell them apart.

Rule 1: three types, none a subclass of another: :class:`CheckFailed` (``failed`` or
        ``needs_review``: the app or the check, never rerun), :class:`CheckCouldntRun`
        (``couldnt_run``: infrastructure, worth a rerun) and :class:`CheckOutcomeUnknown`
        (``couldnt_run``, class ``unknown_outcome``: an action may have landed; never rerun, by
        anyone). Their common base, :class:`CheckNotPassed`, is for ``except`` and ``isinstance``.
Rule 2: pytest-rerunfailures matches ``--only-rerun`` and ``--rerun-except`` as regexes against
        ``"<type name>: <str(exc)>"`` of each exception in the chain. So ``str(exc)`` holds only
        the verdict and the class (``couldnt_run (device)``), never text from outside (a label, a
        check's name, a device's message), and the exception is raised with no cause or context:
        ``--only-rerun CheckCouldntRun`` can't match a drift whose label reads "CheckCouldntRun",
        and no regex that names ``CheckCouldntRun`` or ``couldnt_run`` can reach an unknown outcome's
        type. The message, the file and the line are an exception note, which pytest prints and the
        regexes never see.
Rule 3: ``result`` is the check's :class:`~mobster_core.CheckResult` when the check ran (None when
        it couldn't start: no device, a check file that doesn't load); ``failure_class`` its class;
        ``where`` is ``file:line`` of what failed (the drifted step, the failed assertion, the bad
        key); ``message`` the one-line message.
Rule 4: :class:`CheckFailed` is also an ``AssertionError``: Allure and other reports call a test
        ending with one "failed" (the app or the check), and anything else "broken" (the
        infrastructure), which is how a check that couldn't run or whose outcome is unknown shows.

This module imports nothing of Mobster at run time: the plugin loads it in every pytest run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mobster_core import CheckResult

__all__ = ["CheckCouldntRun", "CheckFailed", "CheckNotPassed", "CheckOutcomeUnknown"]


class CheckNotPassed(Exception):
    """A check ran under pytest and didn't pass (see the module rules)."""

    def __init__(  # noqa: PLR0913 - the outcome's three parts, and where, what and how it ran
        self,
        verdict: str,
        failure_class: str,
        message: str,
        *,
        where: str | None = None,
        result: CheckResult | None = None,
        details: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"{verdict} ({failure_class})")
        self.verdict = verdict
        self.failure_class = failure_class
        self.message = message
        self.where = where
        self.result = result
        self.details = details
        # Rule 2: pytest prints notes after the exception's line; rerun regexes never read them.
        self.add_note(self.headline)
        for line in details:
            self.add_note(f"    {line}")

    @property
    def headline(self) -> str:
        """``file:line: failed (drift): step 3 (Tap "Continue") drifted: …``: one line, escapes shown."""
        head = f"{self.verdict} ({self.failure_class}): {self.message}"
        return head if self.where is None else f"{self.where}: {head}"

    def __reduce__(self) -> tuple[object, ...]:
        # The note holds what the constructor wrote; pickling (xdist, multiprocessing) rebuilds it.
        kwargs = {"where": self.where, "details": self.details}
        return (_rebuild, (type(self), self.verdict, self.failure_class, self.message, kwargs))


def _rebuild(
    cls: type[CheckNotPassed], verdict: str, failure_class: str, message: str, kwargs: dict[str, object]
) -> CheckNotPassed:
    where = kwargs.get("where")
    details = kwargs.get("details", ())
    return cls(
        verdict,
        failure_class,
        message,
        where=where if isinstance(where, str) else None,
        details=tuple(str(d) for d in details) if isinstance(details, tuple) else (),
    )


class CheckFailed(CheckNotPassed, AssertionError):
    """The check failed (a drift, an assertion, the app not running) or needs review: never rerun it.

    It is also an ``AssertionError`` (Rule 4): reports count it as a test that failed, not one
    that broke.
    """


class CheckCouldntRun(CheckNotPassed):
    """The check couldn't run (a device that doesn't answer, a busy device, no key, a bad file): rerun it."""


class CheckOutcomeUnknown(CheckNotPassed):
    """An action may or may not have landed (``unknown_outcome``): look at the app; never rerun it."""
