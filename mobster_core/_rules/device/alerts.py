"""System alerts and permission prompts: what one is, which service it asks for, and the answer.

Rule 1 (the policy): a check's ``alerts:`` is ``fail`` (the default), ``accept``, ``dismiss``, or
        ``{allow: [..], deny: [..]}`` naming privacy services from :data:`SERVICES` (the names
        ``xcrun simctl privacy`` and Appium's ``mobile: setPermission`` know, plus ``tracking``,
        ``bluetooth`` and ``notifications``). A name not in the list is an error naming the key and
        the known names. A service both allowed and denied is an error too.
Rule 2 (recognising one): an alert is the first shown ``Alert`` element of a read (SpringBoard's
        permission prompts and an app's own ``UIAlertController`` both show as
        ``XCUIElementTypeAlert``); its title is its first ``StaticText`` (else its own label), its
        message the other texts, its buttons the ``Button`` elements under it, in tree order (the
        order WDA's ``/wda/alert/buttons`` gives them). Texts are cut to :data:`MAX_TEXT` characters
        and at most :data:`MAX_BUTTONS` buttons are kept, so a hostile alert costs little.
Rule 3 (its service): read from its English text (:data:`_SERVICE_WORDS`): "use your location" is
        ``location``, "send you notifications" ``notifications``, "track your activity"
        ``tracking``, and so on. "Open in “App”?" is the open-in prompt. Text in another language
        names no service: such an alert is answered by ``accept``/``dismiss`` only, or refused.
Rule 4 (the button): an English label is chosen by its words ("Allow", "Allow While Using App",
        "OK", "Open" accept; "Don't Allow", "Ask App Not to Track", "Cancel" decline). Otherwise by
        its order, as WDA's own ``/alert/accept`` and ``/alert/dismiss`` choose: accepting takes
        the last button, declining the first; a three-button location prompt ("Allow Once",
        "Allow While Using App", "Don't Allow") accepts with the middle one and declines with the
        last.
Rule 5 (the decision, :func:`decide`): ``fail`` answers nothing: the step ends, its reason naming the
        alert's title. ``accept``/``dismiss`` answer every alert that way, the open-in prompt
        included only right after the run sent the check's own ``launch.url`` (else it is
        refused, whatever the policy). ``{allow, deny}`` answers the alerts of the services it
        names, and refuses every other alert. Nothing here asks a model.
Rule 6 (bounded): an alert answered :data:`MAX_ANSWERS_PER_ALERT` times that comes back is refused:
        "came back after it was answered", so a prompt that reappears can't loop.
Rule 8 (before the launch): ``{allow, deny}`` names its services' answers before any prompt shows:
        :func:`permissions_of` is what the launch asks a device to set (``LaunchOptions.permissions``),
        so a simulator grants or revokes them and their prompts never show. ``accept`` and
        ``dismiss`` name no service: their prompts are answered as they show.
Rule 7 (messages): an alert's title is shown in a message with its control characters (bidi
        included) escaped and cut to :data:`SHOWN_TITLE` characters.
Rule 9 (Android): an Android driver reads a dialog's window as an ``Alert`` (the UiAutomator2
        server's own rule: an ``alertTitle`` or a ``permission_message`` in the window), so Rule 2
        finds it. A runtime permission dialog (:data:`PERMISSION_APPS`: AOSP's and Google's
        PermissionController) says its service in the English of AOSP's PermissionController
        (``permgrouprequest_*``: "take pictures and record video" is ``camera``, "access this
        device's location" ``location``, "nearby devices" ``bluetooth``, …), and its buttons are
        chosen by their English labels as Rule 4 says: "While using the app", "Allow", "Only this
        time" accept (in that order), "Don't allow" (either apostrophe), "Deny" decline. The "Open with" chooser
        (ResolverActivity) is the open-in prompt: accepted only right after the check's own
        ``launch.url``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from mobster_core._rules.formats.text import escape_controls
from mobster_core._rules.formats.yaml import KeyedProblem
from mobster_core._rules.vocabulary.screen import Element, Screen

__all__ = [
    "MAX_ANSWERS_PER_ALERT",
    "OPEN_IN",
    "PERMISSION_APPS",
    "SERVICES",
    "Alert",
    "AlertAnswer",
    "AlertMode",
    "AlertPolicy",
    "AlertProblem",
    "AlertRefusal",
    "decide",
    "find_alert",
    "parse_alerts",
    "permissions_of",
    "service_of",
    "shown_title",
]

#: Rule 1: the privacy services a policy may name (``xcrun simctl privacy`` and ``mobile: setPermission``).
SERVICES = (
    "location",
    "location-always",
    "notifications",
    "camera",
    "microphone",
    "photos",
    "photos-add",
    "contacts",
    "calendar",
    "reminders",
    "tracking",
    "bluetooth",
    "motion",
    "media-library",
    "siri",
    "speech",
    "health",
    "homekit",
    "faceid",
)
#: The service an "Open in “App”?" prompt stands for (not a privacy service: never in a policy).
OPEN_IN = "open-in"
#: Rule 9: the packages of Android's runtime permission dialog (AOSP's, and Google builds' whose
#: buttons keep AOSP's resource ids).
PERMISSION_APPS = frozenset({"com.android.permissioncontroller", "com.google.android.permissioncontroller"})
#: Rule 2: how much of an alert's text is kept, and how many buttons.
MAX_TEXT = 500
MAX_BUTTONS = 8
#: Rule 6: how often one alert (by title) is answered before its coming back is refused.
MAX_ANSWERS_PER_ALERT = 2
#: Rule 7: how much of a title a message shows.
SHOWN_TITLE = 120


class AlertProblem(KeyedProblem, ValueError):
    """A bad ``alerts:`` value: ``keys`` is where (below ``alerts``), ``problem`` what, ``fix`` the fix."""


class AlertMode(enum.StrEnum):
    """Rule 1: how a check answers alerts."""

    FAIL = "fail"
    ACCEPT = "accept"
    DISMISS = "dismiss"
    SERVICES = "services"  # {allow: [..], deny: [..]}


@attrs.frozen
class AlertPolicy:
    """Rule 1: the mode, and for ``services`` the services allowed and denied."""

    mode: AlertMode = AlertMode.FAIL
    allow: frozenset[str] = frozenset()
    deny: frozenset[str] = frozenset()

    def describe(self) -> str:
        """``fail``, ``accept``, ``{allow: [location], deny: [tracking]}``."""
        if self.mode is not AlertMode.SERVICES:
            return self.mode.value
        parts = [f"{k}: [{', '.join(sorted(v))}]" for k, v in (("allow", self.allow), ("deny", self.deny)) if v]
        return "{" + ", ".join(parts) + "}"


#: The default: an unexpected alert fails the step.
FAIL = AlertPolicy()


_EXAMPLE = "{allow: [location], deny: [tracking]}"


def parse_alerts(value: Any) -> AlertPolicy:
    """Rule 1: the policy an ``alerts:`` value says; :class:`AlertProblem` when it is bad."""
    known = ", ".join(SERVICES)
    if isinstance(value, str):
        modes = ("fail", "accept", "dismiss")
        if value not in modes:
            raise AlertProblem((), f"unknown policy {value!r}", f"write fail, accept, dismiss or {_EXAMPLE}")
        return AlertPolicy(AlertMode(value))
    if not isinstance(value, Mapping) or not value:
        raise AlertProblem((), "expected fail, accept, dismiss or a mapping", f"write {_EXAMPLE}")
    lists: dict[str, frozenset[str]] = {}
    for key, names in value.items():
        if key not in ("allow", "deny"):
            raise AlertProblem((str(key),), f"unknown key {key!r}", "write allow: [..] and/or deny: [..]")
        if not isinstance(names, list) or not names:
            raise AlertProblem((key,), "expected a list of services", f"write {key}: [location]; known: {known}")
        for i, name in enumerate(names):
            if not isinstance(name, str) or name not in SERVICES:
                raise AlertProblem((key, i), f"unknown service {name!r}", f"write one of {known}")
        lists[key] = frozenset(names)
    both = lists.get("allow", frozenset()) & lists.get("deny", frozenset())
    if both:
        raise AlertProblem((), f"{', '.join(sorted(both))} is both allowed and denied", "keep it in one list")
    return AlertPolicy(AlertMode.SERVICES, lists.get("allow", frozenset()), lists.get("deny", frozenset()))


@attrs.frozen
class Alert:
    """Rule 2: an alert as a read shows it: the app it is in, title, message, buttons, and service."""

    app: str
    title: str
    message: str = ""
    buttons: tuple[str, ...] = ()
    service: str | None = None

    @property
    def shown(self) -> str:
        """Rule 7: the title as a message shows it."""
        return shown_title(self.title)


def shown_title(title: str) -> str:
    """Rule 7: ``title`` with its controls escaped, cut to :data:`SHOWN_TITLE` characters."""
    text = escape_controls(title)
    return text if len(text) <= SHOWN_TITLE else text[: SHOWN_TITLE - 1] + "…"


def find_alert(screen: Screen) -> Alert | None:
    """Rule 2: the first shown alert of ``screen``, or None."""
    elements = screen.elements
    for i, element in enumerate(elements):
        if element.role != "Alert" or not screen.is_shown(element):
            continue
        inside = [e for e in elements[i + 1 :] if e.path.startswith(element.path + "/")]
        return _alert(screen.app, element, inside)
    return None


def _alert(app: str, alert: Element, inside: list[Element]) -> Alert:
    texts = [e.label or e.value for e in inside if e.role in ("StaticText", "TextView") and not _in_button(e, inside)]
    texts = [t[:MAX_TEXT] for t in texts if t]
    buttons = tuple(e.label[:MAX_TEXT] for e in inside if e.role == "Button" and e.label)[:MAX_BUTTONS]
    title = texts[0] if texts else alert.label[:MAX_TEXT]
    message = "\n".join(texts[1:4])
    found = Alert(app=app, title=title, message=message, buttons=buttons)
    return attrs.evolve(found, service=service_of(found))


def _in_button(element: Element, inside: list[Element]) -> bool:
    return any(b.role == "Button" and element.path.startswith(b.path + "/") for b in inside)


#: Rule 3: English words of each service's prompt (the title or the message), first match wins.
_SERVICE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (service, re.compile(words, re.IGNORECASE))
    for service, words in (
        (OPEN_IN, r"^open in [“\"]|^open with\b"),
        ("tracking", r"track your activity"),
        ("location-always", r"use your location even when|location all the time"),
        (
            "location",
            (
                r"use your location|your (approximate |precise )?location"
                r"|this device(\u2019|')s (precise |approximate )?location"
            ),
        ),
        ("notifications", r"send you notifications"),
        ("camera", r"access (to )?the camera|take pictures and record video"),
        ("microphone", r"access (to )?the microphone|record audio"),
        ("photos-add", r"add to your photos"),
        ("photos", r"access (to )?your photos|photo library|access photos(,| and) (media|videos)"),
        ("contacts", r"access (to )?your contacts"),
        ("calendar", r"access (to )?your calendars?"),
        ("reminders", r"access (to )?your reminders"),
        ("bluetooth", r"bluetooth|nearby devices"),
        ("motion", r"motion (&|and) fitness|physical activity"),
        ("media-library", r"apple music|media library"),
        ("speech", r"speech recognition"),
        ("siri", r"use siri"),
        ("health", r"health data|access health"),
        ("homekit", r"home data|your accessories"),
        ("faceid", r"face id"),
    )
)


def service_of(alert: Alert) -> str | None:
    """Rule 3: the service ``alert`` asks for, by its English text; None when it names none."""
    text = f"{alert.title}\n{alert.message}"
    return next((service for service, words in _SERVICE_WORDS if words.search(text)), None)


# Rule 9: Android's permission buttons among them ("While using the app" from Android 11, "Allow only
# while using the app" on Android 10; "Only this time" is a grant too, for this session).
_ACCEPT_WORDS = (
    "allow while using app", "while using the app", "allow only while using the app", "allow", "only this time",
    "ok", "open", "continue", "allow full access",
)  # fmt: skip
# iOS and Android 12+ write "Don't allow" with a typographic apostrophe (U+2019): both spellings are
# matched; Android 10 and 11 say "Deny".
_DECLINE_WORDS = ("don\u2019t allow", "don't allow", "deny", "ask app not to track", "cancel", "not now")


def button_for(alert: Alert, *, accept: bool) -> str | None:
    """Rule 4: the label of the button that accepts (or declines) ``alert``; None without buttons."""
    buttons = alert.buttons
    if not buttons:
        return None
    words = _ACCEPT_WORDS if accept else _DECLINE_WORDS
    folded = [b.strip().casefold() for b in buttons]
    for word in words:
        if word in folded:
            return buttons[folded.index(word)]
    if len(buttons) == 3 and alert.service in ("location", "location-always"):  # Once, While Using, Don't
        return buttons[1] if accept else buttons[2]
    return buttons[-1] if accept else buttons[0]


@attrs.frozen
class AlertAnswer:
    """Rule 5: answer ``alert`` by tapping ``button`` (``accept``: whether that grants what it asks)."""

    alert: Alert
    button: str
    accept: bool


@attrs.frozen
class AlertRefusal:
    """Rule 5: the alert is not answered; ``reason`` is the step's (it names the alert's title)."""

    alert: Alert
    reason: str


def in_the_way(alert: Alert) -> str:
    """The drift reason of an alert that is not answered."""
    return f"a system alert is in the way: “{alert.shown}”"


def permissions_of(policy: AlertPolicy) -> dict[str, bool]:
    """Rule 8: the services ``policy`` grants (True) and denies (False) before the launch."""
    if policy.mode is not AlertMode.SERVICES:
        return {}
    return {**dict.fromkeys(sorted(policy.allow), True), **dict.fromkeys(sorted(policy.deny), False)}


def decide(
    policy: AlertPolicy, alert: Alert, *, opened_url: bool, answered: Iterable[str] = ()
) -> AlertAnswer | AlertRefusal:
    """Rules 5, 6: what to do about ``alert`` under ``policy``.

    ``opened_url``: the run's last action was the launch with the check's own ``launch.url``;
    ``answered``: the titles of the alerts answered so far in this run (one per answer).
    """
    reason = in_the_way(alert)
    if sum(1 for t in answered if t == alert.title) >= MAX_ANSWERS_PER_ALERT:
        return AlertRefusal(alert, f"{reason}; it came back after it was answered {MAX_ANSWERS_PER_ALERT} times")
    if alert.service == OPEN_IN:
        if not opened_url:
            only = "an “Open in” prompt is accepted only right after the check's launch.url"
            return AlertRefusal(alert, f"{reason}; {only}")
        accept: bool | None = True  # the check's own link: its prompt is part of the launch
    elif policy.mode is AlertMode.FAIL:
        return AlertRefusal(alert, f"{reason} (the check's alerts: policy is fail)")
    elif policy.mode is AlertMode.SERVICES:
        service = alert.service
        accept = True if service in policy.allow else False if service in policy.deny else None
        if accept is None:
            named = f"it asks for {service}" if service else "its service isn't known"
            return AlertRefusal(alert, f"{reason} ({named}; alerts: {policy.describe()} doesn't name it)")
    else:
        accept = policy.mode is AlertMode.ACCEPT
    button = button_for(alert, accept=bool(accept))
    if button is None:
        return AlertRefusal(alert, f"{reason}; it has no button to answer it with")
    return AlertAnswer(alert, button, bool(accept))
