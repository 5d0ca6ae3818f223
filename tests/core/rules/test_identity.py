from __future__ import annotations

import hashlib
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mobster_core import AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset
from mobster_core._rules.replay.identity import Env, path_identity, why_fresh

SIGNUP: dict[str, Any] = {
    "steps": ['Tap "Create account"', "Type ada@example.com into Email", 'Tap "Continue"'],
    "bundle": "com.example.yourapp",
    "app_path": "build/YourApp.app",
    "launch_args": ["-uitest"],
    "launch_env": {"API": "staging"},
    "launch_url": "yourapp://signup",
    "reset": Reset.DATA,
}
SIGNUP_IDENTITY = "b4f5b1de9d5b86e2"

SIM = Env("1.0", "1", 26, DeviceKind.SIMULATOR)
PHONE = Env(None, None, 26, DeviceKind.IPHONE)


def identity(**changes: Any) -> str:
    given = {**SIGNUP, **changes}
    launch = LaunchOptions(
        args=given["launch_args"], env=given["launch_env"], url=given["launch_url"], reset=given["reset"]
    )
    return path_identity(given["steps"], bundle=given["bundle"], app_path=given["app_path"], launch=launch)


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# -- identity -------------------------------------------------------------------------------


def test_identity_golden_digest() -> None:
    assert identity() == SIGNUP_IDENTITY
    assert (
        path_identity([], bundle="com.example.yourapp", app_path=None, launch=LaunchOptions(reset=Reset.NONE))
        == "7286775e3f4f9ecb"
    )


def test_identity_hashes_exactly_this_payload() -> None:
    payload = (
        '{"app_file":"YourApp.app","bundle":"com.example.yourapp","format":1,'
        '"launch":{"args":["-uitest"],"env":{"API":"staging"},"url":"yourapp://signup"},'
        '"reset":"data","steps":["Tap \\"Create account\\"","Type ada@example.com into Email",'
        '"Tap \\"Continue\\""]}'
    )
    assert sha16(payload) == SIGNUP_IDENTITY


def test_whitespace_in_steps_is_collapsed() -> None:
    spaced = ['  Tap  "Create account"\n', "Type\tada@example.com   into Email", 'Tap "Continue"  ']
    assert identity(steps=spaced) == SIGNUP_IDENTITY


def test_only_the_app_files_name_counts() -> None:
    assert identity(app_path="/Users/ci/dist/YourApp.app") == SIGNUP_IDENTITY
    assert identity(app_path="YourApp.app/") == SIGNUP_IDENTITY


@pytest.mark.parametrize(
    "change",
    [
        {"steps": ['Tap "Create account"', "Type ada@example.com into Email"]},
        {"steps": ['Tap "Create account"', "Type ada@example.com into Email", 'Tap "Next"']},
        {"steps": ['Tap "Create account"', "Type ada@example.com  into  Email", 'Tap "continue"']},
        {"bundle": "com.example.other"},
        {"app_path": "build/Other.app"},
        {"app_path": None},
        {"launch_args": []},
        {"launch_args": ["-uitest", "-reset"]},
        {"launch_env": {}},
        {"launch_env": {"API": "production"}},
        {"launch_url": None},
        {"launch_url": "yourapp://login"},
        {"reset": Reset.NONE},
        {"reset": Reset.REINSTALL},
    ],
)
def test_every_parameter_changes_the_identity(change: dict[str, Any]) -> None:
    assert identity(**change) != SIGNUP_IDENTITY


def test_name_expectations_tags_and_budget_are_not_parameters() -> None:
    # Rewording an assertion keeps the path: there is nowhere to pass them.
    for name in ("name", "expect", "tags", "budget"):
        with pytest.raises(TypeError):
            path_identity(SIGNUP["steps"], bundle="b", app_path=None, launch=LaunchOptions(), **{name: "anything"})


def test_reset_may_be_given_as_its_value() -> None:
    assert identity(reset="data") == SIGNUP_IDENTITY


@pytest.mark.parametrize(("name", "said"), [("steps", "steps"), ("launch_args", "args")])
def test_a_single_string_is_not_a_list(name: str, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        identity(**{name: "Tap Continue"})


words = st.text(alphabet="abcXYZ\"'é", min_size=1, max_size=6)
gaps = st.text(alphabet=" \t\n", min_size=1, max_size=3)


@given(st.lists(st.lists(st.tuples(words, gaps), min_size=1, max_size=5), max_size=4), gaps, gaps)
def test_any_spacing_of_the_same_words_is_one_identity(
    steps: list[list[tuple[str, str]]], before: str, after: str
) -> None:
    tidy = [" ".join(w for w, _ in step) for step in steps]
    messy = [before + "".join(w + g for w, g in step) + after for step in steps]
    assert identity(steps=messy) == identity(steps=tidy)


# -- env ------------------------------------------------------------------------------------


def test_env_golden_digests() -> None:
    assert SIM.digest == "a9424b38a97d"
    assert PHONE.digest == "9c1b483fa2af"
    assert Env(None, None, 26, DeviceKind.SIMULATOR).digest == "bc39b48c6375"


def test_env_hashes_exactly_this_payload() -> None:
    assert SIM.digest == sha16('{"app":["1.0","1"],"format":1,"ios":26,"kind":"simulator"}')[:12]
    assert PHONE.digest == sha16('{"app":null,"format":1,"ios":26,"kind":"iphone"}')[:12]


def test_env_with_a_locale_and_an_appearance_hashes_format_2() -> None:
    german = Env("1.0", "1", 26, DeviceKind.SIMULATOR, locale="de_DE", appearance="dark")
    payload = '{"app":["1.0","1"],"appearance":"dark","format":2,"ios":26,"kind":"simulator","locale":"de_DE"}'
    assert german.digest == sha16(payload)[:12]
    assert german.digest == "83307bdbef2e"  # golden: a change here is on purpose
    assert Env("1.0", "1", 26, DeviceKind.SIMULATOR, locale="de-DE").locale == "de_DE"
    assert Env.from_dict(german.to_dict()) == german


def test_an_env_stored_before_locales_reads_back_with_none() -> None:
    old = {"digest": SIM.digest, "app_version": "1.0", "app_build": "1", "ios_major": 26, "kind": "simulator"}
    assert Env.from_dict(old) == SIM


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**SIM.to_dict(), "digest": None, "locale": "Deutsch!"}, "key 'locale': expected a locale"),
        ({**SIM.to_dict(), "digest": None, "locale": 5}, "key 'locale': expected a locale"),
        ({**SIM.to_dict(), "digest": None, "appearance": "dim"}, "key 'appearance': expected 'light', 'dark'"),
    ],
)
def test_a_bad_locale_or_appearance_is_named(data: dict[str, object], message: str) -> None:
    data = {k: v for k, v in data.items() if k != "digest"}
    with pytest.raises(ValueError, match=message):
        Env.from_dict(data)


@pytest.mark.parametrize(
    ("recorded", "now", "why"),
    [
        ("en_US", "de_DE", "the device's language changed: recorded in en_US, this is de_DE"),
        (None, "de_DE", "the device's language is now part of the env: the path was recorded before it was read"),
    ],
)
def test_why_fresh_names_the_language(recorded: str | None, now: str, why: str) -> None:
    was = Env("1.0", "1", 26, DeviceKind.SIMULATOR, locale=recorded)
    assert why_fresh(Env("1.0", "1", 26, DeviceKind.SIMULATOR, locale=now), was).startswith(why)


def test_why_fresh_names_the_appearance_after_the_language() -> None:
    light = Env("1.0", "1", 26, DeviceKind.SIMULATOR, locale="en_US", appearance="light")
    dark = attrs.evolve(light, appearance="dark")
    assert why_fresh(dark, light) == "the device's appearance changed: recorded in light mode, this is dark mode"
    assert why_fresh(attrs.evolve(dark, locale="fr_FR"), light).startswith("the device's language changed")


def test_env_of_takes_the_launch_locale_over_the_devices() -> None:
    info = DeviceInfo("iPhone 17 Pro", "26.4", DeviceKind.SIMULATOR, locale="en_US", appearance="light")
    app = AppInfo("com.x", "1.0", "1")
    assert Env.of(info, app).locale == "en_US"
    assert Env.of(info, app, locale="de_DE").locale == "de_DE"
    assert Env.of(info, app).describe(SIM) == "1.0 (1) in en_US in light mode"


def test_env_of_a_simulator_keeps_the_apps_version() -> None:
    env = Env.of(DeviceInfo("iPhone 17 Pro", "26.4", DeviceKind.SIMULATOR), AppInfo("com.x", "1.0", "1"))
    assert env == SIM


def test_env_of_an_iphone_leaves_the_version_out() -> None:
    env = Env.of(DeviceInfo("Ada's iPhone", "26.4", DeviceKind.IPHONE), AppInfo("com.x", "1.0", "1"))
    assert env == PHONE
    other = Env.of(DeviceInfo("Ada's iPhone", "26.1", DeviceKind.IPHONE), AppInfo("com.x", "2.0", "9"))
    assert other.digest == PHONE.digest


def test_a_minor_ios_update_keeps_the_env() -> None:
    app = AppInfo("com.x", "1.0", "1")
    a = Env.of(DeviceInfo("sim", "26.4", DeviceKind.SIMULATOR), app)
    b = Env.of(DeviceInfo("sim", "26.5", DeviceKind.SIMULATOR), app)
    c = Env.of(DeviceInfo("sim", "27.0", DeviceKind.SIMULATOR), app)
    assert a.digest == b.digest != c.digest


def test_each_part_of_the_env_changes_its_digest() -> None:
    digests = {
        SIM.digest,
        Env("1.1", "1", 26, DeviceKind.SIMULATOR).digest,
        Env("1.0", "2", 26, DeviceKind.SIMULATOR).digest,
        Env("1.0", "1", 27, DeviceKind.SIMULATOR).digest,
        PHONE.digest,
    }
    assert len(digests) == 5


def test_an_iphone_env_has_no_app_version() -> None:
    with pytest.raises(ValueError, match="iPhone"):
        Env("1.0", None, 26, DeviceKind.IPHONE)
    with pytest.raises(ValueError, match="iPhone"):
        Env(None, "1", 26, DeviceKind.IPHONE)


@pytest.mark.parametrize("bad", [0, -1, True, "26"])
def test_ios_major_is_a_whole_number_from_1(bad: Any) -> None:
    with pytest.raises(ValueError, match="ios_major"):
        Env(None, None, bad, DeviceKind.SIMULATOR)


def test_kind_is_converted_from_its_value() -> None:
    assert Env(None, None, 26, "iphone") == PHONE


@pytest.mark.parametrize(
    ("version", "build", "shown"),
    [
        ("1.0", "1", "1.0 (1)"),
        ("1.0", None, "1.0"),
        (None, "7", "build 7"),
        (None, None, "an unknown version"),
    ],
)
def test_describe_app(version: str | None, build: str | None, shown: str) -> None:
    assert Env(version, build, 26, DeviceKind.SIMULATOR).describe_app() == shown


def test_env_round_trips_through_its_dictionary() -> None:
    for env in (SIM, PHONE, Env(None, "3", 18, DeviceKind.SIMULATOR)):
        data = env.to_dict()
        assert list(data) == ["digest", "app_version", "app_build", "ios_major", "kind", "locale", "appearance"]
        assert data["digest"] == env.digest
        assert Env.from_dict(data) == env
        assert Env.from_dict({k: v for k, v in data.items() if k != "digest"}) == env


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["1.0", "1", 26, "simulator"], "expected a mapping, got list"),
        ({**SIM.to_dict(), "os": "iOS"}, "unknown key 'os'"),
        ({"app_version": "1.0", "app_build": "1", "ios_major": 26}, "key 'kind' is missing"),
        ({**SIM.to_dict(), "app_version": 1.0}, "key 'app_version': expected a string or null"),
        ({**SIM.to_dict(), "app_build": 1}, "key 'app_build': expected a string or null"),
        ({**SIM.to_dict(), "ios_major": "26"}, "key 'ios_major': expected a whole number"),
        ({**SIM.to_dict(), "ios_major": True}, "key 'ios_major': expected a whole number"),
        ({**SIM.to_dict(), "ios_major": 26.0}, "key 'ios_major': expected a whole number"),
        ({**SIM.to_dict(), "ios_major": 0}, "env: ios_major is a whole number from 1 up"),
        ({**SIM.to_dict(), "kind": "ipad"}, "key 'kind': expected 'simulator' or 'iphone'"),
        ({**SIM.to_dict(), "kind": None}, "key 'kind': expected 'simulator' or 'iphone'"),
        ({**PHONE.to_dict(), "app_version": "1.0"}, "env: on an iPhone"),
        ({**SIM.to_dict(), "digest": PHONE.digest}, "key 'digest'"),
    ],
)
def test_env_from_dict_is_strict(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=r"^env: ") as info:
        Env.from_dict(data)
    assert message in str(info.value)


# -- why_fresh ------------------------------------------------------------------------------


def test_why_fresh_messages_exactly() -> None:
    assert why_fresh(SIM, None) == "no recorded path yet"
    assert why_fresh(PHONE, SIM) == "recorded on a simulator, this is an iPhone"
    assert why_fresh(SIM, PHONE) == "recorded on an iPhone, this is a simulator"
    assert (
        why_fresh(Env("1.0", "1", 27, DeviceKind.SIMULATOR), SIM) == "iOS changed (recorded on iOS 26, this is iOS 27)"
    )
    assert (
        why_fresh(Env(None, None, 27, DeviceKind.IPHONE), PHONE) == "iOS changed (recorded on iOS 26, this is iOS 27)"
    )
    assert (
        why_fresh(Env("1.1", "2", 26, DeviceKind.SIMULATOR), SIM)
        == "the app changed (recorded on 1.0 (1), this is 1.1 (2))"
    )
    assert (
        why_fresh(Env("1.0", "2", 26, DeviceKind.SIMULATOR), SIM)
        == "the app changed (recorded on 1.0 (1), this is 1.0 (2))"
    )


def test_why_fresh_precedence_is_kind_then_ios_then_app() -> None:
    phone27 = Env(None, None, 27, DeviceKind.IPHONE)
    assert why_fresh(phone27, SIM) == "recorded on a simulator, this is an iPhone"
    sim27 = Env("2.0", "5", 27, DeviceKind.SIMULATOR)
    assert why_fresh(sim27, SIM) == "iOS changed (recorded on iOS 26, this is iOS 27)"


def test_why_fresh_with_the_same_env() -> None:
    assert why_fresh(SIM, SIM) == "no recorded path for this environment"


@pytest.mark.parametrize(
    ("env", "beside", "shown"),
    [
        (Env("1.0", "1", 26, DeviceKind.SIMULATOR), Env("1.1", "2", 26, DeviceKind.SIMULATOR), "1.0 (1)"),
        (Env("1.0", "1", 26, DeviceKind.SIMULATOR), Env("1.0", "1", 27, DeviceKind.SIMULATOR), "1.0 (1) on iOS 26"),
        (Env(None, None, 26, DeviceKind.IPHONE), Env(None, None, 27, DeviceKind.IPHONE), "iOS 26"),
        (Env(None, None, 26, DeviceKind.IPHONE), Env("1.0", "1", 26, DeviceKind.SIMULATOR), "iOS 26 on an iPhone"),
        (
            Env("1.0", "1", 26, DeviceKind.SIMULATOR),
            Env(None, None, 26, DeviceKind.IPHONE),
            "1.0 (1) on a simulator",
        ),
        (Env("2.3", "45", 26, DeviceKind.SIMULATOR), None, "2.3 (45) on iOS 26 on a simulator"),
    ],
)
def test_describe_names_what_differs(env: Env, beside: Env | None, shown: str) -> None:
    assert env.describe(beside) == shown
