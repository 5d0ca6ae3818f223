"""Every real dump in ../shared/android-trees, read in place: what a person reading its XML sees.

Each test names the shown elements a person finds in the XML (their roles and labels), the
package in front, the password fields and what the reader must not make of the rest. The
expectations were read off the XML by hand (README.md in the folder describes each capture).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from mobster_core import Element, Screen
from mobster_core._rules.device.alerts import find_alert
from mobster_core.protocols import HOME_SCREENS
from mobster_drivers._uiautomator.tree import BULLET, AndroidRead, read_source
from tests.android_trees import NAMES, TREES, tree_bytes


def read(name: str) -> AndroidRead:
    return read_source(tree_bytes(name))


def pairs(screen: Screen) -> set[tuple[str, str]]:
    return set(screen.signature_pairs)


def shown(screen: Screen, role: str, label: str) -> list[Element]:
    return list(screen.find(role, label))


def test_every_dump_in_the_folder_has_its_test() -> None:
    if not TREES.is_dir():
        pytest.skip(f"{TREES} is not here")
    assert sorted(p.name for p in TREES.glob("*.xml")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_dump_reads_without_loss(name: str) -> None:
    # Every node of the XML is an element of the screen (none dropped, none invented but a window's).
    nodes = sum(1 for n in ET.fromstring(tree_bytes(name)).iter() if n.tag != "hierarchy")
    screen = read(name).screen
    assert len(screen.elements) == nodes
    assert all(0.0 <= v <= 1.0 for e in screen.elements for v in e.frame)


def test_settings_home_shows_its_rows_and_the_row_cut_by_the_bottom_edge() -> None:
    got = read("shirates-settings-top.xml")
    s = got.screen
    assert got.package == "com.android.settings"
    assert s.size == (1080, 2088)
    assert {
        ("Button", "Search settings"),
        ("StaticText", "Network & internet"),
        ("StaticText", "Wi‑Fi, mobile, data usage, and hotspot"),
        ("StaticText", "Battery"),
        ("Cell", "Storage, 37% used - 40.53 GB free"),
    } <= pairs(s)
    (location,) = shown(s, "StaticText", "Location")  # the last row, cut by the bottom edge: still shown
    assert location.frame[1] + location.frame[3] == pytest.approx(1.0)
    assert not [e for e in s.elements if e.role == "SecureTextField"]


def test_network_and_internet_shows_its_switches_with_their_state() -> None:
    got = read("shirates-network-internet.xml")
    s = got.screen
    assert got.package == "com.android.settings"
    (wifi,) = shown(s, "Switch", "Wi‑Fi")
    assert wifi.value == "1"
    airplane = [e for e in s.shown if e.role == "Switch" and e.identifier == "android:id/switch_widget"]
    assert [(e.label, e.value) for e in airplane] == [("", "0")]  # text "OFF" is its state, not a label
    assert ("Cell", "Airplane mode") in pairs(s)
    assert ("StaticText", "ON") not in pairs(s)


def test_security_shows_headers_rows_and_the_gear_and_the_19_px_last_title() -> None:
    got = read("shirates-security.xml")
    s = got.screen
    assert got.package == "com.android.settings"
    assert {("StaticText", "SECURITY STATUS"), ("StaticText", "DEVICE SECURITY"), ("Image", "Settings")} <= pairs(s)
    (last,) = shown(s, "StaticText", "Encryption & credentials")
    assert round(last.frame[3] * 2088) == 19
    assert ("Cell", "Screen lock, Password") in pairs(s)  # "Password" is a summary, not a password field
    assert not [e for e in s.elements if e.role == "SecureTextField"]


def test_languages_read_the_description_where_text_and_description_differ() -> None:
    got = read("shirates-languages.xml")
    s = got.screen
    assert got.package == "com.android.settings"
    assert s.size == (1080, 2160)
    assert {("StaticText", "Japanese (Japan)"), ("StaticText", "English (United States)")} <= pairs(s)
    assert not [p for p in pairs(s) if p[1] == "日本語 (日本)"]  # the text is what a sighted person reads;
    # TalkBack and the label say content-desc (the reader's Rule 7)
    assert {("StaticText", "1"), ("StaticText", "2"), ("Button", "Add a language"), ("Button", "Navigate up")} <= pairs(
        s
    )


def test_the_anr_dialog_is_the_only_window_and_an_alert() -> None:
    got = read("shirates-anr-dialog.xml")
    s = got.screen
    assert got.package == "android"
    alert = find_alert(s)
    assert alert is not None
    assert (alert.app, alert.title, alert.buttons) == ("android", "Settings isn't responding", ("Close app", "Wait"))
    assert s.elements[0].role == "Alert"
    assert s.elements[0].frame == pytest.approx((28 / 1080, 807 / 2088, 1024 / 1080, 539 / 2088))


def test_the_android_4_launcher_is_home_with_its_hotseat() -> None:
    got = read("xiaocong-launcher-home.xml")
    s = got.screen
    assert got.package == "com.android.launcher"
    assert got.package in HOME_SCREENS
    assert s.size == (480, 800)
    assert {("Button", n) for n in ("Phone", "People", "Apps", "Messaging", "Browser")} <= pairs(s)
    assert ("Button", "11:33") in pairs(s)  # the clock widget's view, from com.android.deskclock, inside it


def test_the_pixel_launcher_shows_its_hotseat_and_at_a_glance() -> None:
    got = read("avc-nexus-launcher-api27.xml")
    s = got.screen
    assert got.package == "com.google.android.apps.nexuslauncher"
    assert got.package in HOME_SCREENS
    assert s.size == (1080, 1794)
    assert {("Button", n) for n in ("Phone", "Messages", "Play Store", "Chrome")} <= pairs(s)
    assert {("Button", "Sunday, May 19"), ("StaticText", "56°F"), ("Image", "Apps list")} <= pairs(s)


def test_quick_settings_tiles_show_their_state_and_the_scrim_no_label() -> None:
    got = read("seniorshield-quick-settings.xml")
    s = got.screen
    assert got.package == "com.android.systemui"
    states = {e.label: e.value for e in s.shown if e.role == "Switch"}
    assert states["Internet,AndroidWifi"] == "1"
    assert (states["Flashlight"], states["Airplane mode"]) == ("0", "0")
    assert ("Slider", "Display brightness") in pairs(s)
    scrim = next(e for e in s.elements if e.identifier == "scrim_behind")  # NAF="true", full screen
    assert (scrim.label, scrim.value) == ("", "")
    assert not any(p[1] == "" for p in s.signature_pairs)  # an unlabelled node is never in the signature
    assert sum(1 for e in s.elements if e.selected) == 49


def test_the_react_native_login_has_an_email_and_a_password_field_showing_their_hints() -> None:
    got = read("wdio-demo-login.xml")
    s = got.screen
    assert got.package == "com.wdiodemoapp"
    fields = [(e.role, e.label, e.value, e.placeholder) for e in s.shown if e.role in ("TextField", "SecureTextField")]
    assert fields == [("TextField", "input-email", "", "Email"), ("SecureTextField", "input-password", "", "Password")]
    assert {("Button", n) for n in ("Home", "Webview", "Login", "Forms", "Swipe", "Drag", "Menu")} <= pairs(s)
    assert {("Button", "button-LOGIN"), ("StaticText", "LOGIN"), ("StaticText", "Login / Sign up Form")} <= pairs(s)


def test_the_notification_shade_reads_its_tiles_as_toggles_and_its_rows() -> None:
    got = read("wdio-notification-shade.xml")
    s = got.screen
    assert got.package == "com.android.systemui"
    on = sorted(e.label for e in s.shown if e.role == "Toggle" and e.value == "1")
    assert on == ["Bluetooth.", "Mobile data", "Wi-Fi,AndroidWifi"]  # the three checked="true" tiles
    assert {("Button", "Expand"), ("Button", "Collapse"), ("Button", "Clear all notifications.")} <= pairs(s)
    assert ("StaticText", "Appium Settings") in pairs(s)
    unlabelled = [e for e in s.elements if e.identifier == "android:id/alternate_expand_target"]
    assert unlabelled
    assert all(e.label == "" for e in unlabelled)  # NAF="true": never matched by a label


def test_the_fire_tv_web_error_is_landscape_with_its_toolbar() -> None:
    got = read("hazel-firetv-webview-error.xml")
    s = got.screen
    assert got.package == "com.webviewer.firetv"
    assert s.size == (1920, 1080)
    assert {
        ("Button", n) for n in ("Go Back", "Go Forward", "Refresh", "Home", "Settings", "Server Profiles")
    } <= pairs(s)
    assert {("WebView", "Webpage not available"), ("StaticText", "net::ERR_CONNECTION_REFUSED")} <= pairs(s)


def test_compose_icon_buttons_take_the_label_their_child_carries() -> None:
    got = read("banjen-tuner-compose.xml")
    s = got.screen
    assert got.package == "com.makingiants.android.banjotuner"
    strings = sorted(e.label for e in s.shown if e.role == "Button" and "string" in e.label)
    assert strings == [
        "1st string, note D4. Double tap to play.",
        "2nd string, note B3. Double tap to play.",
        "3rd string, note G3. Double tap to play.",
        "4th string, note D3. Double tap to play.",
    ]
    assert {("Button", "Session mode"), ("Button", "Settings"), ("StaticText", "BANJEN")} <= pairs(s)


def test_no_dump_holds_a_password_in_clear() -> None:
    for name in NAMES:
        for e in read(name).screen.elements:
            if e.role == "SecureTextField":
                assert set(e.value) <= {BULLET}
