"""The app script of the scripted phone: loading, layout, and one test per kind of error."""

from __future__ import annotations

from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core.exceptions import ScriptError
from mobster_core.protocols import DEFAULT_SCREEN_SIZE
from mobster_drivers.devices.scripted import (
    PROFILES,
    SAMPLES,
    AppScript,
    Latency,
    ScriptedElement,
    Tap,
    TapKind,
    sample_path,
)

APP = "com.example.yourapp"

BASE = """\
version: 1
device: {name: Test Phone, ios: "26.4", kind: simulator}
latency: zero
apps:
  com.example.a:
    name: Alpha
    version: "1.0"
    build: "1"
    launch: welcome
    links: {"alpha://signup": signup}
    screens:
      welcome:
        - {role: StaticText, label: Welcome}
        - {role: Button, label: Sign up, tap: signup}
      signup:
        - {role: TextField, label: Email}
        - {role: Button, label: Continue, tap: welcome}
  com.example.b:
    name: Beta
    version: "2.0"
    build: "9"
    launch: main
    screens:
      main:
        - {role: StaticText, label: Beta}
"""


def parse(text: str) -> AppScript:
    return AppScript.from_text(text, "app.yaml")


def error_of(text: str) -> str:
    with pytest.raises(ScriptError) as info:
        parse(text)
    return str(info.value)


def edit(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# -- loading ---------------------------------------------------------------------------------


def test_the_sample_loads_into_frozen_data() -> None:
    script = AppScript.from_file(sample_path("yourapp"))
    assert script.source == str(SAMPLES / "yourapp.yaml")
    assert script.device == mc.DeviceInfo(
        name="Scripted iPhone", ios="26.4", kind=mc.DeviceKind.SIMULATOR, locale="en_US", appearance="light"
    )
    assert script.latency == Latency()
    assert script.size == DEFAULT_SCREEN_SIZE
    app = script.apps[APP]
    assert (app.name, app.version, app.build, app.file, app.launch) == (
        "YourApp",
        "1.0",
        "1",
        "YourApp.app",
        "welcome",
    )
    assert dict(app.links) == {"yourapp://signup": "signup"}
    assert sorted(app.screens) == ["done", "paywall", "settings", "signup", "welcome"]
    email = app.screens["signup"][1]
    assert (email.role, email.label, email.identifier) == ("TextField", "Email", "email")
    assert app.screens["signup"][3].tap == Tap(TapKind.SCREEN, "done")
    assert app.screens["settings"][2].value == "1"
    assert script.link("yourapp://signup") == (app, "signup")
    assert script.link("yourapp://nowhere") is None
    with pytest.raises(TypeError):
        app.screens["x"] = ()  # type: ignore[index]


def test_the_renamed_sample_differs_only_in_the_continue_button() -> None:
    before = AppScript.from_file(sample_path("yourapp")).apps[APP]
    after = AppScript.from_file(sample_path("yourapp-renamed.yaml")).apps[APP]
    assert (after.version, after.build) == (before.version, before.build)
    assert [e.label for e in after.screens["signup"]] == ["Create your account", "Email", "Password", "Next"]
    assert {k: v for k, v in after.screens.items() if k != "signup"} == {
        k: v for k, v in before.screens.items() if k != "signup"
    }


def test_sample_path_names_the_samples_when_asked_for_another() -> None:
    samples = r"\(samples: yourapp, yourapp-android, yourapp-android-permissions, yourapp-android-renamed, "
    samples += r"yourapp-location, yourapp-renamed\)"
    with pytest.raises(ValueError, match=rf"no sample app script 'nope' {samples}"):
        sample_path("nope")
    with pytest.raises(ValueError, match="no sample"):
        sample_path("../scripted/__init__")


def test_defaults_for_device_latency_file_and_element_keys() -> None:
    script = parse(
        "version: 1\napps:\n  com.example.a:\n    {name: A, version: '1', build: '1', launch: w, screens: {w: []}}\n"
    )
    assert script.device == mc.DeviceInfo(
        name="Scripted iPhone", ios="26.4", kind=mc.DeviceKind.SIMULATOR, locale="en_US", appearance="light"
    )
    assert script.latency == PROFILES["zero"]
    app = script.apps["com.example.a"]
    assert app.file == "A.app"
    assert dict(app.links) == {}
    assert app.screens["w"] == ()


def test_every_element_key_is_read() -> None:
    text = edit(
        "- {role: StaticText, label: Welcome}",
        "- {role: StaticText, label: Welcome, id: hi, value: v, frame: [0.1, 0.2, 0.3, 0.4], enabled: false,"
        " visible: false, selected: true, after: 1, until: 2.5, ticks: 0.25}",
    )
    text = edit(
        "label: Sign up, tap: signup}",
        "label: Sign up, tap: home, children: [{role: Image, tap: {open: com.example.b}}]}",
        text,
    )
    welcome = parse(text).apps["com.example.a"].screens["welcome"]
    assert welcome[0] == ScriptedElement(
        role="StaticText",
        label="Welcome",
        identifier="hi",
        value="v",
        frame=(0.1, 0.2, 0.3, 0.4),
        enabled=False,
        visible=False,
        selected=True,
        after=1.0,
        until=2.5,
        ticks=0.25,
    )
    assert welcome[1].tap == Tap(TapKind.HOME)
    assert welcome[1].children[0].tap == Tap(TapKind.OPEN, "com.example.b")


def test_latency_profiles_and_explicit_figures() -> None:
    usb = parse(edit("latency: zero", "latency: usb-iphone")).latency
    assert usb == Latency(read=0.234, tap=0.478, transition=1.247, type_char=0.0175, swipe=0.7, launch=2.6, home=0.5)
    some = parse(edit("latency: zero", "latency: {tap: 0.5, transition: 2}")).latency
    assert some == Latency(tap=0.5, transition=2.0)
    assert parse(edit("latency: zero", "latency: {}")).latency == Latency()
    with pytest.raises(ValueError, match="latency tap must be 0 or more seconds"):
        Latency(tap=-1.0)


def test_device_kind_size_and_iphone() -> None:
    script = parse(edit("kind: simulator}", "kind: iphone, size: [390, 844]}"))
    assert script.device.kind is mc.DeviceKind.IPHONE
    assert script.size == (390, 844)


def test_from_dict_validates_the_same_way() -> None:
    data = {
        "version": 1,
        "apps": {"com.example.a": {"name": "A", "version": "1", "build": "1", "launch": "w", "screens": {"w": []}}},
    }
    assert AppScript.from_dict(data).apps["com.example.a"].name == "A"
    data["apps"]["com.example.a"]["screens"] = {"w": [{"role": "Button", "lable": "x"}]}  # type: ignore[index]
    with pytest.raises(ScriptError, match=r"^<dict>: apps\.\"com\.example\.a\"\.screens\.w\[0\]\.lable: unknown key"):
        AppScript.from_dict(data)


def test_a_missing_file_is_a_script_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScriptError, match=r"nope\.yaml: can't read the app script \(No such file or directory\)"):
        AppScript.from_file(missing)


# -- layout ----------------------------------------------------------------------------------


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


@pytest.mark.parametrize("count", [1, 3, 11, 40])
def test_frameless_elements_are_laid_out_top_to_bottom_without_overlap(count: int) -> None:
    items = "\n".join(f"        - {{role: Button, label: b{i}}}" for i in range(count))
    text = edit(
        "        - {role: StaticText, label: Welcome}\n        - {role: Button, label: Sign up, tap: signup}",
        items,
    )
    frames = [e.frame for e in parse(text).apps["com.example.a"].screens["welcome"]]
    assert all(0.0 <= v <= 1.0 for f in frames for v in f)
    assert all(f[0] + f[2] <= 1.0 and f[1] + f[3] <= 1.0 for f in frames)
    assert [f[1] for f in frames] == sorted(f[1] for f in frames)
    assert not any(_overlap(a, b) for i, a in enumerate(frames) for b in frames[i + 1 :])


def test_given_frames_are_kept_and_frameless_children_sit_inside_their_parent() -> None:
    text = edit(
        "- {role: StaticText, label: Welcome}",
        "- {role: Cell, label: Row, frame: [0.1, 0.5, 0.8, 0.2], children: [{role: StaticText, label: A},"
        " {role: Button, label: B}, {role: Image, frame: [0, 0, 0.1, 0.1]}]}",
    )
    welcome = parse(text).apps["com.example.a"].screens["welcome"]
    row = welcome[0]
    assert row.frame == (0.1, 0.5, 0.8, 0.2)
    a, b, image = (c.frame for c in row.children)
    assert image == (0.0, 0.0, 0.1, 0.1)
    for child in (a, b):
        assert row.frame[0] <= child[0]
        assert child[0] + child[2] <= row.frame[0] + row.frame[2]
        assert row.frame[1] <= child[1]
        assert child[1] + child[3] <= row.frame[1] + row.frame[3]
    assert not _overlap(a, b)
    # The frameless sibling after the framed row takes the first row slot.
    assert welcome[1].frame[1] == pytest.approx(0.1)


def test_presence_and_values_over_time() -> None:
    banner = ScriptedElement(role="StaticText", label="Banner", after=0.5, until=1.5)
    assert [banner.present_at(t) for t in (0.0, 0.4999999999999, 0.5, 1.4, 1.5)] == [
        False,
        True,
        True,
        True,
        False,
    ]
    ticking = ScriptedElement(role="StaticText", value="t", ticks=0.25)
    assert [ticking.value_at(t) for t in (0.0, 0.25, 0.7499999999999, 1.0)] == ["t0", "t1", "t3", "t4"]
    secure = ScriptedElement(role="SecureTextField", label="Password")
    assert secure.value_at(0.0, "hunter2") == "\u2022" * 7
    assert ScriptedElement(role="TextField", value="Hi ").value_at(0.0, "Ada") == "Hi Ada"
    assert secure.takes_typing
    assert not ScriptedElement(role="Button").takes_typing


# -- errors: one test per kind, each asserting the message -----------------------------------


def test_unknown_key_names_the_file_line_key_and_a_hint() -> None:
    message = error_of(edit("label: Sign up, tap", "lable: Sign up, tap"))
    assert message == (
        "app.yaml:14: apps.\"com.example.a\".screens.welcome[1].lable: unknown key 'lable' (did you mean 'label'?)"
    )


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "latency: zero",
            "latancy: zero",
            "app.yaml:3: latancy: unknown key 'latancy' (did you mean 'latency'?)",
        ),
        (
            "kind: simulator",
            "knd: simulator",
            "app.yaml:2: device.knd: unknown key 'knd' (did you mean 'kind'?)",
        ),
        (
            "latency: zero",
            "latency: {tap: 1, raed: 2}",
            "app.yaml:3: latency.raed: unknown key 'raed' (did you mean 'read'?)",
        ),
        (
            '    build: "1"\n',
            '    build: "1"\n    bulid: "1"\n',
            "app.yaml:9: apps.\"com.example.a\".bulid: unknown key 'bulid' (did you mean 'build'?)",
        ),
        ("tap: signup}", "tap: {opn: com.example.b}}", "tap.opn: unknown key 'opn' (did you mean 'open'?)"),
        (
            "latency: zero",
            "zzz: 1",
            "app.yaml:3: zzz: unknown key 'zzz' (allowed: apps, device, latency, platform, version)",
        ),
        ("latency: zero", '"my key": 1', "app.yaml:3: \"my key\": unknown key 'my key'"),
    ],
)
def test_unknown_keys_everywhere(old: str, new: str, expected: str) -> None:
    assert expected in error_of(edit(old, new))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'version: "1.0"',
            "version: 1.0",
            (
                'app.yaml:7: apps."com.example.a".version: expected a string, got 1.0 (a number); quote it:'
                ' version: "1.0"'
            ),
        ),
        ('build: "1"', "build: 1", 'build: expected a string, got 1 (a number); quote it: build: "1"'),
        (
            'ios: "26.4"',
            "ios: 26.4",
            'app.yaml:2: device.ios: expected a string, got 26.4 (a number); quote it: ios: "26.4"',
        ),
        (
            "label: Welcome",
            "label: true",
            'label: expected a string, got true (a flag); quote it: label: "true"',
        ),
        ("label: Welcome", "label: ", "label: expected a string, got nothing (null)"),
        ("name: Alpha", 'name: ""', 'apps."com.example.a".name: must not be empty'),
        (
            "label: Welcome",
            "label: Welcome, enabled: yes",
            "enabled: expected true or false, got 'yes' (a string)",
        ),
        (
            "label: Welcome",
            "label: Welcome, after: '1'",
            "after: expected a number of seconds, got '1' (a string); write it without quotes: after: 1",
        ),
        (
            "label: Welcome",
            "label: Welcome, after: .inf",
            "after: expected a finite number of seconds, got inf",
        ),
        (
            "label: Welcome",
            "label: Welcome, children: {role: X}",
            "children: expected a list of elements, got a mapping",
        ),
        (
            "- {role: StaticText, label: Welcome}",
            "- Welcome",
            "welcome[0]: expected an element: a mapping with at least role, got 'Welcome' (a string)",
        ),
        ("      welcome:\n", "      other: [1]\n      welcome:\n", "other[0]: expected an element"),
        (
            "label: Sign up, tap: signup",
            "label: Sign up, tap: 3",
            "tap: expected a screen name, home, or {open: BUNDLE}; got 3 (a number)",
        ),
        (
            "latency: zero",
            "latency: [1]",
            ("app.yaml:3: latency: expected a profile name (zero, usb-iphone) or a mapping of seconds, got a list"),
        ),
        (
            "kind: simulator",
            "kind: simulator, size: [402.0, 874]",
            "device.size: expected [width, height] in whole points such as [402, 874], got [402.0, 874]",
        ),
        (
            'device: {name: Test Phone, ios: "26.4", kind: simulator}',
            "device: [1]",
            "app.yaml:2: device: expected a mapping with name, ios, kind, size, locale and appearance, got a list",
        ),
        ('ios: "26.4"', "ios: 'x'", "device.ios: expected an iOS version such as \"26.4\", got 'x'"),
        (
            "role: StaticText, label: Welcome",
            "role: XCUIElementTypeStaticText, label: Welcome",
            "role: write the role without its prefix: role: StaticText",
        ),
    ],
)
def test_wrong_types_say_what_to_write(old: str, new: str, expected: str) -> None:
    assert expected in error_of(edit(old, new))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "tap: signup",
            "tap: sigunp",
            (
                'app.yaml:14: apps."com.example.a".screens.welcome[1].tap: com.example.a has no screen'
                " 'sigunp' (did you mean 'signup'?)"
            ),
        ),
        (
            "launch: welcome",
            "launch: start",
            (
                "app.yaml:9: apps.\"com.example.a\".launch: com.example.a has no screen 'start' (allowed:"
                " signup, welcome)"
            ),
        ),
        (
            '{"alpha://signup": signup}',
            '{"alpha://signup": nope}',
            'app.yaml:10: apps."com.example.a".links."alpha://signup": com.example.a has no screen \'nope\'',
        ),
        (
            "tap: signup",
            "tap: {open: com.example.c}",
            (
                "tap.open: no app 'com.example.c' in this script (did you mean 'com.example.b'?); open one of"
                " its apps (tap: home for the home screen)"
            ),
        ),
        (
            "    launch: welcome\n",
            "",
            (
                "app.yaml:5: apps.\"com.example.a\": key 'launch' is missing; write the name of its first"
                " screen, such as launch: welcome"
            ),
        ),
        ("tap: signup", "tap: {}", "tap: key 'open' is missing; write {open: BUNDLE}"),
        (
            "role: StaticText, label: Welcome",
            "label: Welcome",
            "welcome[0]: key 'role' is missing; write its role, such as role: Button",
        ),
    ],
)
def test_missing_screens_apps_and_keys(old: str, new: str, expected: str) -> None:
    assert expected in error_of(edit(old, new))


def test_a_screen_may_not_be_called_home() -> None:
    message = error_of(edit("      signup:\n", "      home:\n        - {role: X}\n      signup:\n"))
    assert "screens.home: 'home' is reserved (tap: home presses the home button); rename this screen" in message


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ("[0, 0, 1.5, 0.1]", "each of x, y, w, h is normalized to the screen, in 0..1; got [0, 0, 1.5, 0.1]"),
        ("[-0.1, 0, 0.5, 0.1]", "in 0..1; got [-0.1, 0, 0.5, 0.1]"),
        (
            "[0.5, 0, 0.6, 0.1]",
            "the frame must lie on the screen (x + w and y + h at most 1); got [0.5, 0, 0.6, 0.1]",
        ),
        ("[0.5, 0]", "expected [x, y, w, h], four numbers normalized to the screen, got [0.5, 0]"),
        ("[0, 0, '1', 1]", "four numbers normalized to the screen, got [0, 0, '1', 1]"),
    ],
)
def test_bad_frames(frame: str, expected: str) -> None:
    message = error_of(edit("label: Welcome", f"label: Welcome, frame: {frame}"))
    assert message.startswith('app.yaml:13: apps."com.example.a".screens.welcome[0].frame: ')
    assert expected in message


@pytest.mark.parametrize(
    ("latency", "expected"),
    [
        ("{tap: -1}", "app.yaml:3: latency.tap: must be 0 or more seconds, got -1"),
        (
            '{tap: "1.0"}',
            ("latency.tap: expected a number of seconds, got '1.0' (a string); write it without quotes: tap: 1.0"),
        ),
        (
            "usb_iphone",
            "app.yaml:3: latency: unknown latency profile 'usb_iphone' (did you mean 'usb-iphone'?)",
        ),
        ("fast", "latency: unknown latency profile 'fast' (allowed: android, usb-iphone, zero)"),
        ("{read: true}", "latency.read: expected a number of seconds, got true (a flag)"),
    ],
)
def test_bad_latency(latency: str, expected: str) -> None:
    assert expected in error_of(edit("latency: zero", f"latency: {latency}"))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("version: 2", "app.yaml:1: version: only version 1 exists, got 2 (a number); write version: 1"),
        ("version: 1.0", "app.yaml:1: version: only version 1 exists, got 1.0 (a number); write version: 1"),
        ("version: true", "app.yaml:1: version: only version 1 exists, got true (a flag); write version: 1"),
        ("version: '1'", "app.yaml:1: version: expected the number 1, got '1' (a string); write version: 1"),
        ("", "app.yaml: key 'version' is missing; write version: 1 at the top"),
    ],
)
def test_bad_version(line: str, expected: str) -> None:
    text = BASE.replace("version: 1\n", f"{line}\n" if line else "", 1)
    assert error_of(text) == expected


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("ipad", "app.yaml:2: device.kind: expected simulator or iphone, got 'ipad' (a string)"),
        (
            "iphon",
            "device.kind: expected simulator or iphone, got 'iphon' (a string) (did you mean 'iphone'?)",
        ),
        ("1", "device.kind: expected simulator or iphone, got 1 (a number)"),
    ],
)
def test_bad_kind(kind: str, expected: str) -> None:
    assert expected in error_of(edit("kind: simulator", f"kind: {kind}"))


def test_duplicate_key() -> None:
    message = error_of(edit('    build: "1"\n', '    build: "1"\n    build: "2"\n'))
    assert message.startswith('app.yaml:9: apps."com.example.a".build: the key is written twice (lines 8 and 9)')


def test_python_tag_is_refused() -> None:
    message = error_of(BASE + "x: !!python/object/apply:os.system [ls]\n")
    assert message.startswith("app.yaml:26: x: could not determine a constructor for the tag")
    assert "python/object/apply:os.system" in message


def test_not_utf8_and_not_yaml() -> None:
    with pytest.raises(ScriptError, match=r"^x\.yaml: not UTF-8 text"):
        AppScript.from_text(b"\xff\xfe", "x.yaml")
    with pytest.raises(ScriptError, match=r"^x\.yaml:2: .*fix the YAML there"):
        AppScript.from_text("a: [1,\n", "x.yaml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "",
            ("app.yaml: expected an app script: a mapping with version, device, latency and apps, got nothing (null)"),
        ),
        ("- 1\n", "got a list"),
        ("version: 1\n", "app.yaml: key 'apps' is missing; list the installed apps under apps:"),
        (
            "version: 1\napps: {}\n",
            "app.yaml:2: apps: expected a mapping of bundle ids to apps, with at least one app",
        ),
        ("version: 1\napps: [1]\n", "apps: expected a mapping of bundle ids to apps"),
        (
            "version: 1\napps: {example: {}}\n",
            "app.yaml:2: apps.example: expected a bundle id such as com.example.yourapp, got 'example'",
        ),
        ("version: 1\napps: {1: {}}\n", 'apps."1": expected a bundle id such as com.example.yourapp, got 1'),
        (
            "version: 1\napps: {com.example.a: 3}\n",
            'apps."com.example.a": expected an app: a mapping with name',
        ),
    ],
)
def test_bad_top_level(text: str, expected: str) -> None:
    assert expected in error_of(text)


def test_the_home_screen_is_not_a_script_app() -> None:
    message = error_of(BASE.replace("com.example.a:", "com.apple.springboard:"))
    assert 'app.yaml:5: apps."com.apple.springboard": com.apple.springboard is the home screen' in message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "label: Sign up, tap: signup}",
            "label: Sign up, after: 2, until: 1}",
            "until: the element disappears at 1.0 s, before it appears at 2.0 s",
        ),
        (
            "label: Sign up, tap: signup}",
            "label: Sign up, until: 0}",
            "until: must be more than 0 seconds, got 0",
        ),
        (
            "label: Sign up, tap: signup}",
            "label: Sign up, ticks: 0}",
            "ticks: must be more than 0 seconds, got 0",
        ),
        (
            "label: Sign up, tap: signup}",
            "label: Sign up, after: -1}",
            "after: must be 0 or more seconds, got -1",
        ),
    ],
)
def test_bad_times(old: str, new: str, expected: str) -> None:
    assert expected in error_of(edit(old, new))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'links: {"alpha://signup": signup}',
            'links: {"alpha-signup": signup}',
            "links.alpha-signup: a link is a URL such as yourapp://signup, got 'alpha-signup'",
        ),
        (
            'links: {"alpha://signup": signup}',
            "links: {1: signup}",
            'links."1": a link is a URL such as yourapp://signup, got 1',
        ),
        (
            'links: {"alpha://signup": signup}',
            "links: [x]",
            'links: expected a mapping of URLs to screen names, such as {"yourapp://signup": signup}',
        ),
        (
            "    launch: main\n",
            '    launch: main\n    links: {"alpha://signup": main}\n',
            'links."alpha://signup": the link is already com.example.a\'s; a link opens one app',
        ),
        (
            "    screens:\n      main:\n        - {role: StaticText, label: Beta}\n",
            "    screens: {}\n",
            ('apps."com.example.b".screens: expected a mapping of screen names to lists of elements, at least one'),
        ),
        ("      main:\n", "      1: []\n      main:\n", 'screens."1": a screen name is a string, got 1'),
    ],
)
def test_bad_links_and_screens(old: str, new: str, expected: str) -> None:
    assert expected in error_of(edit(old, new))


def test_one_text_is_parsed_once_and_a_bad_one_fails_every_time() -> None:
    text = sample_path("yourapp").read_bytes()
    first = AppScript.from_text(text, "yourapp.yaml")
    assert AppScript.from_text(text, "yourapp.yaml") is first  # frozen: shared safely
    # Another source is another script (its messages name their own file).
    other = AppScript.from_text(text, "copy.yaml")
    assert other is not first
    assert (other.source, other.apps) == ("copy.yaml", first.apps)
    bad = b"version: 1\napps: {}\ntypo: 3\n"
    for _ in range(2):
        with pytest.raises(ScriptError, match=r"bad\.yaml"):
            AppScript.from_text(bad, "bad.yaml")


# -- system prompts and the keyboard (the script's Rules 8, 9) -----------------------------------

LOCATION = sample_path("yourapp-location").read_text("utf-8")


def test_the_location_sample_declares_its_prompt_open_in_and_keyboard() -> None:
    app = AppScript.from_text(LOCATION, "yourapp-location.yaml").apps["com.example.yourapp"]
    (prompt,) = app.prompts
    assert (prompt.service, prompt.title) == ("location", "Allow “YourApp” to use your location?")
    assert prompt.buttons == ("Allow Once", "Allow While Using App", "Don’t Allow")
    assert prompt.accept == frozenset({"Allow Once", "Allow While Using App"})  # all but Don't Allow
    assert (app.open_in, app.keyboard, prompt.again) == (True, True, False)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("service: location", "service: gps", r"prompts\[0\]\.service: unknown service 'gps'; write one of location"),
        ("service: location", "servic: location", r"prompts\[0\]\.servic: unknown key 'servic' \(did you mean"),
        (
            "buttons: [Allow Once, Allow While Using App, Don’t Allow]",
            "buttons: []",
            r"prompts\[0\]\.buttons: expected a list of button labels, at least one",
        ),
        (
            "buttons: [Allow Once, Allow While Using App, Don’t Allow]",
            "buttons: [OK]\n        accept: [Allow]",
            r"prompts\[0\]\.accept: 'Allow' is not one of its buttons",
        ),
        ("service: location", "service: location\n        on: link", r"prompts\[0\]\.on: expected launch"),
        ("open_in: true", "open_in: yes", r"open_in: expected true or false"),
        ("keyboard: true", 'keyboard: "true"', r"keyboard: expected true or false"),
    ],
)
def test_a_bad_prompt_or_flag_names_its_key(old: str, new: str, expected: str) -> None:
    assert old in LOCATION
    with pytest.raises(ScriptError, match=expected):
        AppScript.from_text(LOCATION.replace(old, new), "x.yaml")
