"""Android's words under the same rules: its permission dialogs as alerts, its destructive labels as commits.

The dialogs' texts are AOSP PermissionController's English strings (``res/values/strings.xml``:
``permgrouprequest_*`` and ``grant_dialog_button_*``, Android 10 to 14; android-facts.md §5.1).
"""

from __future__ import annotations

import pytest

import mobster_core as mc
from mobster_core._rules.device.alerts import (
    OPEN_IN,
    PERMISSION_APPS,
    AlertAnswer,
    AlertMode,
    AlertPolicy,
    AlertRefusal,
    decide,
    find_alert,
)
from mobster_core._rules.safety.safety import classify
from mobster_core._rules.vocabulary.steps import Commit

GOOGLE = "com.google.android.permissioncontroller"
ANDROID_14 = ("While using the app", "Only this time", "Don\u2019t allow")
ANDROID_10 = ("Allow only while using the app", "Deny")


def dialog(app: str, message: str, buttons: tuple[str, ...]) -> mc.Screen:
    """A dialog's window as the Android reader gives it: the window an Alert, its texts and buttons inside."""
    children = [{"role": "StaticText", "label": message, "frame": [0.1, 0.4, 0.8, 0.05]}]
    children += [
        {"role": "Button", "label": b, "frame": [0.1, 0.5 + 0.06 * i, 0.8, 0.05]} for i, b in enumerate(buttons)
    ]
    return mc.Screen.from_dict(
        {"app": app, "elements": [{"role": "Alert", "frame": [0.05, 0.35, 0.9, 0.4], "children": children}]}
    )


ALLOW_CAMERA = AlertPolicy(AlertMode.SERVICES, allow=frozenset({"camera"}))


@pytest.mark.parametrize(
    ("message", "service"),
    [
        ("Allow YourApp to take pictures and record video?", "camera"),
        ("Allow YourApp to record audio?", "microphone"),
        ("Allow YourApp to access this device\u2019s location?", "location"),
        ("Allow YourApp to access this device's precise location?", "location"),
        ("Allow YourApp to access this device\u2019s location all the time?", "location-always"),
        ("Allow YourApp to send you notifications?", "notifications"),
        ("Allow YourApp to access your contacts?", "contacts"),
        ("Allow YourApp to access your calendar?", "calendar"),
        ("Allow YourApp to access photos and videos on this device?", "photos"),
        ("Allow YourApp to access photos, media, and files on your device?", "photos"),
        ("Allow YourApp to find, connect to, and determine the relative position of nearby devices?", "bluetooth"),
        ("Allow YourApp to access your physical activity?", "motion"),
    ],
)
def test_a_permission_dialog_says_its_service_in_aosps_words(message: str, service: str) -> None:
    alert = find_alert(dialog(GOOGLE, message, ANDROID_14))
    assert alert is not None
    assert alert.service == service


def test_the_permission_controllers_are_aosps_and_googles() -> None:
    assert frozenset({"com.android.permissioncontroller", GOOGLE}) == PERMISSION_APPS


@pytest.mark.parametrize(
    ("buttons", "accept", "decline"),
    [
        (ANDROID_14, "While using the app", "Don\u2019t allow"),
        (("While using the app", "Only this time", "Don't allow"), "While using the app", "Don't allow"),
        (ANDROID_10, "Allow only while using the app", "Deny"),
        (("Allow", "Deny"), "Allow", "Deny"),
        (("Allow", "Don\u2019t allow"), "Allow", "Don\u2019t allow"),
    ],
)
def test_android_buttons_are_chosen_by_their_words(buttons: tuple[str, ...], accept: str, decline: str) -> None:
    screen = dialog(GOOGLE, "Allow YourApp to take pictures and record video?", buttons)
    alert = find_alert(screen)
    assert alert is not None
    granted = decide(ALLOW_CAMERA, alert, opened_url=False)
    denied = decide(AlertPolicy(AlertMode.SERVICES, deny=frozenset({"camera"})), alert, opened_url=False)
    assert isinstance(granted, AlertAnswer)
    assert isinstance(denied, AlertAnswer)
    assert (granted.button, denied.button) == (accept, decline)


def test_an_unnamed_permission_is_refused_under_a_services_policy() -> None:
    alert = find_alert(dialog(GOOGLE, "Allow YourApp to send and view SMS messages?", ANDROID_14))
    assert alert is not None
    assert alert.service is None
    refused = decide(ALLOW_CAMERA, alert, opened_url=False)
    assert isinstance(refused, AlertRefusal)
    assert "its service isn't known" in refused.reason


def test_a_system_dialog_without_a_service_is_answered_by_order() -> None:
    # shirates-anr-dialog.xml: "Settings isn't responding" with Close app / Wait (list buttons of the dialog).
    alert = find_alert(dialog("android", "Settings isn't responding", ("Close app", "Wait")))
    assert alert is not None
    assert alert.service is None
    kept = decide(AlertPolicy(AlertMode.ACCEPT), alert, opened_url=False)
    assert isinstance(kept, AlertAnswer)
    assert kept.button == "Wait"
    failed = decide(AlertPolicy(), alert, opened_url=False)
    assert isinstance(failed, AlertRefusal)
    assert (
        failed.reason
        == "a system alert is in the way: “Settings isn't responding” (the check's alerts: policy is fail)"
    )


def test_the_open_with_chooser_is_the_open_in_prompt() -> None:
    alert = find_alert(dialog("android", "Open with", ("Just once", "Always")))
    assert alert is not None
    assert alert.service == OPEN_IN
    refused = decide(AlertPolicy(AlertMode.ACCEPT), alert, opened_url=False)
    assert isinstance(refused, AlertRefusal)
    assert "accepted only right after the check's launch.url" in refused.reason


@pytest.mark.parametrize(
    "label",
    [
        "Uninstall",
        "Clear storage",
        "Clear cache",
        "Move to bin",
        "Move to trash",
        "Desinstalar",
        "Mover a la papelera",
        "Deinstallieren",
        "Cache leeren",
        "In den Papierkorb verschieben",
        "卸载",
        "解除安裝",
        "移至回收站",
        "アンインストール",
    ],
)
def test_androids_destructive_labels_delete(label: str) -> None:
    assert classify(label, "Button") is Commit.DELETE


@pytest.mark.parametrize("label", ["Storage & cache", "App info", "Open by default", "Force stop", "Install"])
def test_androids_settings_rows_that_commit_nothing(label: str) -> None:
    assert classify(label, "Button") is None
