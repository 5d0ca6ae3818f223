"""The platform in the core: the kind says it, the env keys a path by it, safety holds Android to iOS's rules.

And what Android brought to every platform: BACK, the prompt per platform, a press on a control's text.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core import AppInfo, DeviceInfo, DeviceKind
from mobster_core._rules.model.prompt import ACTION_TOOL, SYSTEM_PROMPT, action_tool, system_prompt
from mobster_core._rules.replay.identity import Env, why_fresh
from mobster_core._rules.safety.safety import check_commit, classify, classify_press
from mobster_core._rules.vocabulary.steps import Commit
from mobster_core._store.cache import KEEP_ENVS, ReplayCache
from mobster_core.exceptions import PathError
from mobster_core.protocols import HOME_SCREENS, SPRINGBOARD, Platform
from tests.core.helpers import NOW
from tests.samples import TAP

IOS_SIM = Env("1.0", "1", 26, DeviceKind.SIMULATOR)
EMULATOR = Env("1.0", "1", 34, DeviceKind.EMULATOR)
ANDROID_PHONE = Env("1.0", "1", 34, DeviceKind.DEVICE)
ID = "b4f5b1de9d5b86e2"
STEPS = mc.load_path([TAP])


def sha12(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def test_the_kind_says_the_platform() -> None:
    assert [k.platform for k in DeviceKind] == [Platform.IOS, Platform.IOS, Platform.ANDROID, Platform.ANDROID]
    assert [k for k in DeviceKind if k.is_real] == [DeviceKind.IPHONE, DeviceKind.DEVICE]
    assert DeviceInfo("Pixel 8", "34", DeviceKind.DEVICE).platform is Platform.ANDROID


def test_the_os_reads_as_people_write_it() -> None:
    assert DeviceInfo("iPhone 17", "26.4", DeviceKind.SIMULATOR).os_text == "iOS 26.4"
    assert DeviceInfo("Pixel 8", "34", DeviceKind.EMULATOR, release="14").os_text == "Android 14 (API 34)"
    assert DeviceInfo("Pixel 8", "34", DeviceKind.EMULATOR).os_text == "Android API 34"
    assert DeviceInfo("Pixel 8", "34", DeviceKind.EMULATOR).ios_major == 34


def test_an_ios_env_keeps_the_digest_it_had_before_android() -> None:
    # The same goldens as test_identity's: Android's arrival renamed no iOS path.
    assert IOS_SIM.digest == "a9424b38a97d"
    assert Env(None, None, 26, DeviceKind.IPHONE).digest == "9c1b483fa2af"


def test_an_android_env_hashes_its_own_payload() -> None:
    payload = (
        '{"api":34,"app":["1.0","1"],"appearance":null,"format":3,"kind":"emulator","locale":null,"platform":"android"}'
    )
    assert EMULATOR.digest == sha12(payload)
    assert EMULATOR.digest == "cf27839688a9"  # golden: a change here is on purpose


def test_the_same_numbers_on_the_two_platforms_are_two_envs() -> None:
    ios_26 = Env("1.0", "1", 34, DeviceKind.SIMULATOR)
    assert ios_26.digest != EMULATOR.digest
    assert EMULATOR.digest != ANDROID_PHONE.digest


def test_a_real_android_device_reads_the_apps_version() -> None:
    device = DeviceInfo("Pixel 8", "34", DeviceKind.DEVICE)
    env = Env.of(device, AppInfo("com.example.yourapp", "1.0", "1"))
    assert (env.app_version, env.app_build) == ("1.0", "1")  # only an iPhone can't read it


def test_an_android_env_is_stored_readably_and_read_back() -> None:
    stored = EMULATOR.to_dict()
    assert stored == {
        "digest": EMULATOR.digest,
        "platform": "android",
        "app_version": "1.0",
        "app_build": "1",
        "api_level": 34,
        "kind": "emulator",
        "locale": None,
        "appearance": None,
    }
    assert Env.from_dict(stored) == EMULATOR
    assert Env.from_dict(IOS_SIM.to_dict()) == IOS_SIM
    assert "platform" not in IOS_SIM.to_dict()  # an iOS file reads as it always did


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"kind": "simulator"}, "env: key 'kind': expected 'emulator' or 'device', got 'simulator'"),
        ({"api_level": "34"}, "env: key 'api_level': expected a whole number, got '34'"),
        ({"ios_major": 34}, "env: unknown key 'ios_major'"),
        ({"digest": "000000000000"}, "env: key 'digest': '000000000000' is not the digest"),
    ],
)
def test_an_android_env_is_read_strictly(change: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
        Env.from_dict({**EMULATOR.to_dict(), **change})


def test_an_ios_env_names_the_android_key_it_doesnt_have() -> None:
    with pytest.raises(ValueError, match=r"unknown key 'api_level' \(only an Android env, platform: android"):
        Env.from_dict({**IOS_SIM.to_dict(), "api_level": 34})
    with pytest.raises(ValueError, match="expected 'simulator' or 'iphone', got 'emulator'"):
        Env.from_dict({**IOS_SIM.to_dict(), "kind": "emulator"})


@pytest.mark.parametrize(
    ("current", "newest", "why"),
    [
        (EMULATOR, IOS_SIM, "recorded on iOS, this is Android"),
        (IOS_SIM, EMULATOR, "recorded on Android, this is iOS"),
        (ANDROID_PHONE, EMULATOR, "recorded on an emulator, this is a real Android device"),
        (EMULATOR, ANDROID_PHONE, "recorded on a real Android device, this is an emulator"),
        (Env("1.0", "1", 35, DeviceKind.EMULATOR), EMULATOR, "Android changed (recorded on API 34, this is API 35)"),
        (Env("1.1", "2", 34, DeviceKind.EMULATOR), EMULATOR, "the app changed (recorded on 1.0 (1), this is 1.1 (2))"),
    ],
)
def test_why_a_run_records_afresh_names_the_platform_first(current: Env, newest: Env, why: str) -> None:
    assert why_fresh(current, newest) == why


def test_an_android_env_describes_itself() -> None:
    assert EMULATOR.describe() == "1.0 (1) on Android API 34 on an emulator"
    assert EMULATOR.describe(IOS_SIM) == "1.0 (1) on Android API 34 on an emulator"
    assert EMULATOR.describe(EMULATOR) == "1.0 (1)"


@pytest.mark.parametrize(
    ("kind", "refused"),
    [
        (DeviceKind.EMULATOR, {Commit.PURCHASE}),
        (DeviceKind.DEVICE, {Commit.SEND, Commit.POST, Commit.DELETE, Commit.PURCHASE}),
    ],
)
def test_an_emulator_is_held_as_a_simulator_and_a_device_as_an_iphone(kind: DeviceKind, refused: set[Commit]) -> None:
    assert {c for c in Commit if not check_commit(c, kind).allowed} == refused


def test_a_refusal_on_android_names_the_kind() -> None:
    assert check_commit(Commit.DELETE, DeviceKind.DEVICE).rule == (
        "a delete is refused on a real Android device (send, post, delete and purchase are)"
    )
    assert check_commit(Commit.PURCHASE, DeviceKind.EMULATOR).rule == "a purchase is refused on an emulator"


def test_the_launchers_are_home_screens() -> None:
    assert SPRINGBOARD in HOME_SCREENS
    # The launchers the real dumps in ../shared/android-trees show in front.
    assert {"com.android.launcher", "com.google.android.apps.nexuslauncher"} <= HOME_SCREENS


# -- the replay cache keeps a path per platform --------------------------------------------------


def test_recording_on_android_never_deletes_the_ios_path(tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path)
    cache.store(ID, IOS_SIM, STEPS, recorded_at=NOW)
    for n in range(KEEP_ENVS + 2):
        env = Env(f"1.{n}", str(n), 34, DeviceKind.EMULATOR)
        cache.store(ID, env, STEPS, recorded_at=NOW + timedelta(seconds=n + 1))
    envs = [s.env for s in cache.envs(ID)]
    assert IOS_SIM in envs
    assert sum(1 for e in envs if e.platform is Platform.ANDROID) == KEEP_ENVS


def test_a_path_is_never_carried_to_the_other_platform(tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path)
    cache.store(ID, IOS_SIM, STEPS, recorded_at=NOW)
    missed = cache.lookup(ID, EMULATOR)
    assert missed.steps is None
    assert missed.carry is None
    assert missed.why == "recorded on iOS, this is Android"


def test_a_miss_compares_with_the_newest_path_of_its_own_platform(tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path)
    cache.store(ID, EMULATOR, STEPS, recorded_at=NOW)
    cache.store(ID, IOS_SIM, STEPS, recorded_at=NOW + timedelta(seconds=1))  # newer, but iOS
    newer_app = Env("1.1", "2", 34, DeviceKind.EMULATOR)
    missed = cache.lookup(ID, newer_app)
    assert missed.why == "the app changed (recorded on 1.0 (1), this is 1.1 (2))"
    assert missed.carry is not None
    assert missed.carry.stored.env == EMULATOR


# -- BACK, the prompt, and a press on a control's text ---------------------------------------


def test_back_is_a_step_without_target_or_text() -> None:
    step = mc.Step.from_dict({**TAP, "op": "BACK", "target": None})
    assert step.op is mc.Op.BACK
    assert step.describe() == "Go back"
    assert not step.op.is_global  # matched on the screen it goes back from, as SUBMIT is
    with pytest.raises(PathError, match="BACK takes no target"):
        mc.Step.from_dict({**TAP, "op": "BACK"})
    with pytest.raises(PathError, match="BACK takes no text"):
        mc.Step.from_dict({**TAP, "op": "BACK", "target": None, "text": "x"})


def _ops(tool: dict[str, Any]) -> list[str]:
    return list(tool["input_schema"]["properties"]["actions"]["items"]["properties"]["op"]["enum"])


def test_only_android_is_offered_back() -> None:
    assert "BACK" in _ops(action_tool(Platform.ANDROID))
    assert "BACK" not in _ops(action_tool(Platform.IOS))
    assert action_tool(Platform.IOS) == ACTION_TOOL
    assert system_prompt(Platform.IOS) == SYSTEM_PROMPT
    assert "an iPhone app" in SYSTEM_PROMPT
    assert "BACK" not in SYSTEM_PROMPT
    android = system_prompt(Platform.ANDROID)
    assert "an Android app" in android
    assert "BACK (the system back button)" in android
    assert "LAUNCH_APP (text: package name)" in android


def _row(role: str, label: str, children: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"role": role, "label": label, "frame": [0.1, 0.5, 0.8, 0.1], "children": children or []}


@pytest.mark.parametrize("holder", ["Button", "Cell"])
def test_a_press_on_a_controls_text_commits_what_the_control_does(holder: str) -> None:
    s = mc.Screen.from_dict(
        {"app": "com.example.yourapp", "elements": [_row(holder, "Delete account", [_row("StaticText", "Delete")])]}
    )
    text = s.elements[1]
    assert text.role == "StaticText"
    assert classify_press(s, text, mc.Op.TAP) is Commit.DELETE
    assert classify_press(s, text, mc.Op.LONG_PRESS) is Commit.DELETE
    assert classify_press(s, text, mc.Op.SWIPE_UP) is None  # a swipe is judged on its element
    assert classify(text.label, text.role) is None  # alone, a StaticText that says Delete is a title


def test_a_press_inside_a_harmless_control_commits_nothing() -> None:
    s = mc.Screen.from_dict(
        {
            "app": "com.example.yourapp",
            "elements": [_row("Cell", "Purchase History", [_row("StaticText", "Purchase History")])],
        }
    )
    assert classify_press(s, s.elements[1], mc.Op.TAP) is None


def test_typing_into_a_field_inside_a_row_is_judged_on_the_field() -> None:
    s = mc.Screen.from_dict(
        {"app": "com.example.yourapp", "elements": [_row("Cell", "Send feedback", [_row("TextField", "Message")])]}
    )
    assert classify_press(s, s.elements[1], mc.Op.TYPE) is None
