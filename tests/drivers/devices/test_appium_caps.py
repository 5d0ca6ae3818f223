"""The Appium driver's pure parts: caps files, ${ENV}, merging, secrets, providers, bundles."""

from __future__ import annotations

import json
import os
import plistlib
import zipfile
from pathlib import Path

import pytest

from mobster_core import Verdict
from mobster_drivers.devices.appium import (
    CAPS_ENV,
    NEW_COMMAND_TIMEOUT,
    AppiumCaps,
    CapsError,
    Provider,
    detect_provider,
    load_caps,
    provider_scripts,
    read_bundle_info,
    scrub,
    session_capabilities,
)
from mobster_drivers.devices.appium._caps import split_url
from mobster_drivers.devices.appium._provider import MAX_TEXT

ENV = {"BS_USER": "ada", "BS_KEY": "s3cr3t-k3y", "PLAIN": "iPhone 15"}


def write(tmp_path: Path, data: object, name: str = "caps.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


# -- loading and ${ENV} ------------------------------------------------------------------------


def test_a_caps_file_is_loaded_expanded_and_prefixed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "deviceName": "${PLAIN}",
            "platformVersion": "17",
            "bstack:options": {"userName": "${BS_USER}", "accessKey": "${BS_KEY}", "tags": ["a-${BS_USER}"]},
            "literal": "$${NOT_A_VAR}",
        },
    )
    caps = load_caps(path, environ=ENV)
    assert caps.capabilities == {
        "appium:deviceName": "iPhone 15",
        "appium:platformVersion": "17",
        "bstack:options": {"userName": "ada", "accessKey": "s3cr3t-k3y", "tags": ["a-ada"]},
        "appium:literal": "${NOT_A_VAR}",
    }
    assert caps.source == str(path)
    assert "s3cr3t-k3y" in caps.secrets
    assert "ada" not in caps.secrets  # a user name is not a secret


def test_a_missing_variable_names_the_file_the_key_and_the_variable(tmp_path: Path) -> None:
    path = write(tmp_path, {"sauce:options": {"accessKey": "${SAUCE_ACCESS_KEY}"}})
    with pytest.raises(CapsError) as caught:
        load_caps(path, environ={})
    message = str(caught.value)
    assert str(path) in message
    assert "sauce:options.accessKey" in message
    assert "${SAUCE_ACCESS_KEY}" in message
    assert "export SAUCE_ACCESS_KEY" in message


def test_an_empty_variable_counts_as_missing_and_a_bad_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CapsError, match=r"deviceName refers to \$\{EMPTY\}"):
        load_caps(write(tmp_path, {"deviceName": "${EMPTY}"}), environ={"EMPTY": ""})
    with pytest.raises(CapsError, match="is not a variable name"):
        load_caps(write(tmp_path, {"deviceName": "${1-2}"}), environ={})


def test_a_secret_variable_is_secret_whatever_key_holds_it(tmp_path: Path) -> None:
    caps = load_caps(write(tmp_path, {"lt:options": {"auth": "${LT_ACCESS_KEY}"}}), environ={"LT_ACCESS_KEY": "lt-999"})
    assert caps.secrets == {"lt-999"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "one JSON object of capabilities, got list"),
        ('{"capabilities": {"alwaysMatch": {}}}', "W3C request envelope"),
        ('{"udid": "A", "appium:udid": "B"}', "'udid' and 'appium:udid' are the same capability"),
    ],
)
def test_bad_caps_files_say_what_is_wrong(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "caps.json"
    path.write_text(content)
    with pytest.raises(CapsError, match=message) as caught:
        load_caps(path, environ={})
    assert str(path) in str(caught.value)


def test_a_bad_json_file_does_not_echo_its_text(tmp_path: Path) -> None:
    path = tmp_path / "caps.json"
    path.write_text('{"accessKey": "hunter2-key", oops}')
    with pytest.raises(CapsError) as caught:
        load_caps(path, environ={})
    assert "hunter2-key" not in str(caught.value)
    assert caught.value.__cause__ is None


def test_unreadable_and_huge_files(tmp_path: Path) -> None:
    with pytest.raises(CapsError, match="can't read the caps file"):
        load_caps(tmp_path / "nope.json", environ={})
    big = tmp_path / "big.json"
    big.write_bytes(b" " * ((1 << 20) + 1))
    with pytest.raises(CapsError, match="at most 1 MiB"):
        load_caps(big, environ={})
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(CapsError, match="not UTF-8"):
        load_caps(binary, environ={})


def test_a_caps_file_is_read_by_the_one_reader_with_lines_and_keys(tmp_path: Path) -> None:
    path = tmp_path / "caps.json"
    path.write_text('{\n  "deviceName": "A",\n  "bstack:options": {\n    "accessKey": "${BS_KEY}"\n  }\n}\n')
    with pytest.raises(CapsError) as caught:
        load_caps(path, environ={})
    assert str(caught.value).startswith(f"{path}:4: bstack:options.accessKey refers to ${{BS_KEY}}")
    path.write_text('{"accessKey": "first-s3cr3t",\n "accessKey": "second-s3cr3t"}')
    with pytest.raises(CapsError) as caught:
        load_caps(path, environ={})
    message = str(caught.value)
    assert message == f"{path}:2: accessKey: the key is written twice (lines 1 and 2); keep one of them"
    assert caught.value.__cause__ is None
    path.write_text('{"platformName": "iOS",\n "udid": "A",\n "appium:udid": "B"}')
    with pytest.raises(CapsError, match=r":3: 'udid' and 'appium:udid' are the same capability"):
        load_caps(path, environ={})


def test_a_caps_file_with_a_bom_crlf_and_tabs_loads(tmp_path: Path) -> None:
    path = tmp_path / "caps.json"
    path.write_bytes(b'\xef\xbb\xbf{\r\n\t"deviceName": "A",\r\n\t"bstack:options": {"userName": "u"}\r\n}\r\n')
    assert load_caps(path, environ={}).capabilities == {"appium:deviceName": "A", "bstack:options": {"userName": "u"}}


def test_a_yaml_caps_file_holds_the_same_capabilities(tmp_path: Path) -> None:
    path = tmp_path / "caps.yaml"
    path.write_text('deviceName: "${PLAIN}"\nbstack:options:\n  accessKey: ${BS_KEY}\n  tags: [a, b]\n')
    caps = load_caps(path, environ=ENV)
    assert caps.capabilities == {
        "appium:deviceName": "iPhone 15",
        "bstack:options": {"accessKey": "s3cr3t-k3y", "tags": ["a", "b"]},
    }
    assert caps.secrets == {"s3cr3t-k3y"}
    path.write_text("deviceName: A\nbuilt: 2024-01-01\n")
    with pytest.raises(CapsError, match=r"caps\.yaml:2: built is a date \(from a YAML tag or an unquoted date\)"):
        load_caps(path, environ={})
    path.write_text("")
    with pytest.raises(CapsError, match=r"caps\.yaml: the file is empty; write one object of capabilities"):
        load_caps(path, environ={})


def test_a_json_file_is_held_to_json(tmp_path: Path) -> None:
    path = tmp_path / "caps.json"
    path.write_text("deviceName: A\n")  # YAML, in a file that promises JSON
    with pytest.raises(CapsError, match=r"caps\.json:1: not valid JSON \(Expecting value\)"):
        load_caps(path, environ={})
    with pytest.raises(CapsError, match=r"^\$MOBSTER_APPIUM_CAPS:1: not valid JSON"):
        load_caps(environ={CAPS_ENV: '{"deviceName": A}'})


def test_the_environment_variable_names_a_file_or_holds_the_json(tmp_path: Path) -> None:
    path = write(tmp_path, {"deviceName": "A"})
    assert load_caps(environ={CAPS_ENV: str(path)}).capabilities == {"appium:deviceName": "A"}
    inline = load_caps(environ={CAPS_ENV: '{"deviceName": "${PLAIN}"}', **ENV})
    assert inline.capabilities == {"appium:deviceName": "iPhone 15"}
    assert inline.source == f"${CAPS_ENV}"
    assert load_caps(environ={}).capabilities == {}


# -- merging -----------------------------------------------------------------------------------


def test_mobsters_capabilities_are_merged_over_the_files() -> None:
    caps = AppiumCaps.from_mapping({"deviceName": "iPhone 15", "platformName": "ios"})
    merged = session_capabilities(caps, bundle="com.example.yourapp")
    assert merged == {
        "appium:deviceName": "iPhone 15",
        "platformName": "iOS",
        "appium:automationName": "XCUITest",
        "appium:noReset": True,
        "appium:autoLaunch": False,
        "appium:newCommandTimeout": NEW_COMMAND_TIMEOUT,
    }
    assert "appium:bundleId" not in session_capabilities(caps)


def test_a_bundle_id_is_sent_only_when_the_file_asks_for_it() -> None:
    # Sent at session start, it makes XCUITest look the app up through usbmuxd: a Linux Appium in
    # front of a networked WDA has none and refuses every session (issue 26).
    asked = AppiumCaps.from_mapping({"bundleId": "com.example.yourapp"})
    assert session_capabilities(asked, bundle="com.example.yourapp")["appium:bundleId"] == "com.example.yourapp"
    assert session_capabilities(asked)["appium:bundleId"] == "com.example.yourapp"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"platformName": "Windows"}, "platformName is 'Windows'; Mobster runs iOS .XCUITest. or Android"),
        ({"platformName": "Android", "automationName": "XCUITest"}, "appium:automationName is 'XCUITest', but Mobster"),
        ({"platformName": "Android", "appPackage": "com.other"}, "appium:appPackage is 'com.other'"),
        ({"platformName": "Android", "autoLaunch": True}, "appium:autoLaunch is True, but Mobster needs False"),
        ({"automationName": "Espresso"}, "appium:automationName is 'Espresso'"),
        ({"noReset": False}, "appium:noReset is False, but Mobster needs True"),
        ({"appium:autoLaunch": "false"}, "appium:autoLaunch is 'false'"),
        ({"bundleId": "com.other"}, "appium:bundleId is 'com.other'"),
        ({"newCommandTimeout": 60}, "newCommandTimeout is 60 s; Mobster needs at least 600 s"),
        ({"newCommandTimeout": "600"}, "newCommandTimeout is a number of seconds"),
    ],
)
def test_a_file_that_contradicts_mobster_is_refused_not_overridden(given: dict[str, object], message: str) -> None:
    caps = AppiumCaps.from_mapping(given, source="ci.json")
    with pytest.raises(CapsError, match=message) as caught:
        session_capabilities(caps, bundle="com.example.yourapp")
    assert "ci.json" in str(caught.value)


def test_an_android_file_gets_uiautomator2_and_mobsters_own_android_caps() -> None:
    merged = session_capabilities(AppiumCaps.from_mapping({"platformName": "android", "udid": "emulator-5554"}))
    assert merged["appium:automationName"] == "UiAutomator2"
    assert (merged["appium:noReset"], merged["appium:autoLaunch"], merged["appium:udid"]) == (
        True,
        False,
        "emulator-5554",
    )
    assert "appium:bundleId" not in merged
    # A file without platformName is for the platform the device is made for; one that says another is refused.
    assert session_capabilities(AppiumCaps(), platform="android")["platformName"] == "Android"
    with pytest.raises(CapsError, match="platformName is 'iOS', but this device is for android"):
        session_capabilities(AppiumCaps.from_mapping({"platformName": "iOS"}), platform="android")


def test_a_longer_or_disabled_command_timeout_is_kept() -> None:
    for value in (3600, 0):
        merged = session_capabilities(AppiumCaps.from_mapping({"newCommandTimeout": value}))
        assert merged["appium:newCommandTimeout"] == value


def test_vendor_blocks_pass_through_untouched() -> None:
    block = {"userName": "u", "accessKey": "k", "sessionName": "n", "idleTimeout": 300}
    caps = AppiumCaps.from_mapping({"bstack:options": block, "sauce:options": {"name": "x"}})
    merged = session_capabilities(caps)
    assert merged["bstack:options"] == block
    assert merged["sauce:options"] == {"name": "x"}


# -- secrets -----------------------------------------------------------------------------------


def test_secrets_are_found_at_any_depth_by_their_key() -> None:
    caps = AppiumCaps.from_mapping(
        {
            "sauce:options": {"username": "u", "accessKey": "sauce-k"},
            "lt:options": {"nested": [{"api_key": "lt-k"}]},
            "appium:keychainPassword": "kc-pass",
            "appium:keychainPath": "/keychains/ci",
            "appium:udid": "00008110-0001",
        }
    )
    assert caps.secrets == {"sauce-k", "lt-k", "kc-pass"}


def test_scrub_hides_plain_json_escaped_and_url_quoted_forms() -> None:
    secret = 'k"e/y 1'
    text = f"raw {secret} json {json.dumps(secret)} url k%22e%2Fy%201 end"
    cleaned = scrub(text, [secret])
    assert 'k"e/y' not in cleaned
    assert 'k\\"e' not in cleaned
    assert "k%22e" not in cleaned
    assert cleaned.startswith("raw *** json ")


def test_split_url_takes_the_user_info_out() -> None:
    assert split_url("https://ada:k%40y@Hub.BrowserStack.com/wd/hub/") == (
        "https://hub.browserstack.com/wd/hub",
        "ada",
        "k@y",
    )
    assert split_url("http://127.0.0.1:4723") == ("http://127.0.0.1:4723", None, None)
    for bad in ("ftp://x", "127.0.0.1:4723", "http://h/x?y=1", "http://h:99999"):
        with pytest.raises(ValueError, match="URL"):
            split_url(bad)


# -- providers ---------------------------------------------------------------------------------


def test_the_provider_comes_from_the_host_then_the_vendor_blocks() -> None:
    assert detect_provider("https://hub-cloud.browserstack.com/wd/hub", {}) is Provider.BROWSERSTACK
    assert detect_provider("https://ondemand.eu-central-1.saucelabs.com:443/wd/hub", {}) is Provider.SAUCE
    assert detect_provider("https://mobile-hub.lambdatest.com/wd/hub", {}) is Provider.LAMBDATEST
    assert detect_provider("http://grid.internal:4444", {"LT:Options": {}}) is Provider.LAMBDATEST
    assert detect_provider("http://grid.internal:4444", {"sauce:options": {}}) is Provider.SAUCE
    assert detect_provider("https://hub.browserstack.com", {"sauce:options": {}}) is Provider.BROWSERSTACK
    assert detect_provider("http://127.0.0.1:4723", {"appium:udid": "x"}) is None
    assert detect_provider("https://notbrowserstack.com", {}) is None


def test_browserstack_scripts() -> None:
    scripts = provider_scripts(
        Provider.BROWSERSTACK, "A new user signs up", Verdict.FAILED, 'text "Welcome" isn\'t shown'
    )
    assert [json.loads(s.split(":", 1)[1]) for s in scripts] == [
        {"action": "setSessionName", "arguments": {"name": "A new user signs up"}},
        {"action": "setSessionStatus", "arguments": {"status": "failed", "reason": 'text "Welcome" isn\'t shown'}},
    ]
    assert all(s.startswith("browserstack_executor: ") for s in scripts)


def test_sauce_and_lambdatest_scripts() -> None:
    assert provider_scripts(Provider.SAUCE, "Sign up", Verdict.PASSED, "") == [
        "sauce:job-name=Sign up",
        "sauce:job-result=passed",
    ]
    name, status = provider_scripts(Provider.LAMBDATEST, "Sign up", Verdict.COULDNT_RUN, "the device went away")
    assert name == "lambda-name=Sign up"
    assert json.loads(status.removeprefix("lambda-hook: ")) == {
        "action": "setTestStatus",
        "arguments": {"status": "failed", "remark": "couldn't run: the device went away"},
    }


def test_needs_review_only_names_the_session_and_long_text_is_cut() -> None:
    assert provider_scripts(Provider.SAUCE, "x", Verdict.NEEDS_REVIEW, "no assertions") == ["sauce:job-name=x"]
    (script,) = provider_scripts(Provider.SAUCE, "line one\nline two " + "y" * 400, Verdict.NEEDS_REVIEW, "")
    name = script.removeprefix("sauce:job-name=")
    assert len(name) == MAX_TEXT
    assert name.startswith("line one line two ")
    assert name.endswith("…")


# -- app bundles -------------------------------------------------------------------------------


def _info_plist(bundle: str = "com.example.yourapp") -> bytes:
    info = {"CFBundleIdentifier": bundle, "CFBundleShortVersionString": "2.1", "CFBundleVersion": "42"}
    return plistlib.dumps(info, fmt=plistlib.FMT_BINARY)


def test_version_and_build_from_an_app_folder_and_an_ipa(tmp_path: Path) -> None:
    app = tmp_path / "YourApp.app"
    app.mkdir()
    (app / "Info.plist").write_bytes(_info_plist())
    ipa = tmp_path / "YourApp.ipa"
    with zipfile.ZipFile(ipa, "w") as archive:
        archive.writestr("Payload/YourApp.app/Info.plist", _info_plist())
        archive.writestr("Payload/YourApp.app/Frameworks/X.framework/Info.plist", _info_plist("com.x"))
    for path in (app, ipa):
        info = read_bundle_info(path)
        assert (info.bundle, info.version, info.build) == ("com.example.yourapp", "2.1", "42")


def test_bad_bundles_name_the_file(tmp_path: Path) -> None:
    empty_ipa = tmp_path / "Empty.ipa"
    with zipfile.ZipFile(empty_ipa, "w") as archive:
        archive.writestr("README", "x")
    with pytest.raises(ValueError, match=r"Empty\.ipa: an \.ipa holds one Payload"):
        read_bundle_info(empty_ipa)
    app = tmp_path / "Bad.app"
    app.mkdir()
    (app / "Info.plist").write_bytes(b"not a plist")
    with pytest.raises(ValueError, match=r"Bad\.app/Info\.plist is not a property list"):
        read_bundle_info(app)
    with pytest.raises(ValueError, match=r"neither a \.app folder nor an \.ipa"):
        read_bundle_info(tmp_path / "caps.json")
    no_id = tmp_path / "NoId.app"
    no_id.mkdir()
    (no_id / "Info.plist").write_bytes(plistlib.dumps({"CFBundleVersion": "1"}))
    with pytest.raises(ValueError, match="has no CFBundleIdentifier"):
        read_bundle_info(no_id)


def test_a_token_in_the_url_path_is_a_secret() -> None:
    from mobster_drivers.devices.appium._caps import url_secrets

    token = "AbCdEf0123456789-xyz_TOKEN"
    assert url_secrets(f"https://farm.example.com/remote-endpoint/{token}/wd/hub") == {token}
    assert url_secrets("https://u:p%40ss@hub.example.com/wd/hub") == {"p@ss"}
    assert url_secrets("http://127.0.0.1:4723/wd/hub") == set()


def test_the_public_surface_is_pinned() -> None:
    import mobster_drivers.devices.appium as appium

    assert sorted(appium.__all__) == sorted(
        [
            "CAPS_ENV",
            "EVIDENCE_ARGS",
            "NEW_COMMAND_TIMEOUT",
            "QUERY_SETTINGS",
            "QUERY_STRATEGY",
            "REFUSED_ERRORS",
            "REQUIRED_CAPABILITIES",
            "SOURCE_ARGS",
            "AppiumBadReply",
            "AppiumCaps",
            "AppiumDevice",
            "AppiumErrorReply",
            "AppiumNoReply",
            "AppiumTimeouts",
            "AppiumTransportError",
            "AppiumUnreachable",
            "BundleInfo",
            "CapsError",
            "Provider",
            "appium_device",
            "detect_provider",
            "load_caps",
            "provider_scripts",
            "read_bundle_info",
            "scrub",
            "session_capabilities",
        ]
    )
    for name in appium.__all__:
        assert getattr(appium, name) is not None


def test_a_fifo_caps_file_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "caps.json"
    os.mkfifo(fifo)
    with pytest.raises(CapsError, match="not a regular file"):
        load_caps(fifo)  # a blocking open would wait here for a writer forever


def test_an_expanded_value_is_never_in_a_message(tmp_path: Path) -> None:
    file = tmp_path / "bs.json"
    # a value taken from a secret's variable, wherever it is put, never shows in a message
    file.write_text('{"appium:automationName": "${BS_ACCESS_KEY}"}')
    env = {"BS_ACCESS_KEY": "bsKeyS3cretValue99"}
    with pytest.raises(CapsError) as caught:
        session_capabilities(load_caps(file, environ=env))
    assert "bsKeyS3cretValue99" not in str(caught.value)
    file.write_text('{"appium:newCommandTimeout": "${BS_ACCESS_KEY}"}')
    with pytest.raises(CapsError) as caught:
        session_capabilities(load_caps(file, environ=env))
    assert "bsKeyS3cretValue99" not in str(caught.value)
    assert "***" in str(caught.value)


def test_deeply_nested_caps_are_refused_with_a_line_not_an_internal_error(tmp_path: Path) -> None:
    file = tmp_path / "deep.json"
    file.write_text('{"a": ' + "[" * 50_000 + "]" * 50_000 + "}")
    with pytest.raises(CapsError) as caught:
        load_caps(file)
    assert "deep.json" in str(caught.value)
