"""The fake WDA is as harsh as real WDA: routes in the form WDA registers them, faithful trees,
settings WDA 9 ignores, predicate queries, read costs, and captured trees served with ``--tree``.

Each behaviour is checked against appium/WebDriverAgent's source or the real captures in
``../shared/wda-trees`` (see the fake's module docstring for which).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mobster_core import Action, LaunchOptions, Op
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.devices.wda import SESSION_SETTINGS, WdaDevice, parse_xml_source
from mobster_drivers.testing.wda import SESSION_ONLY, WITHOUT_SESSION_ONLY, FakeWda, ReadCosts, load_tree, main
from tests.samples import W3C_ELEMENT as W3C
from tests.wda_trees import tree_path

YOURAPP = "com.example.yourapp"

EXTRA = """
  com.example.form:
    name: Form
    version: "1"
    build: "1"
    launch: main
    screens:
      main:
        - {role: StaticText, label: Shown}
        - {role: Button, label: Ghost, visible: false}
        - {role: Button, label: Chosen, selected: true}
        - {role: Button, label: Off, enabled: false}
        - {role: Switch, label: Wifi, value: "1"}
"""


@pytest.fixture
def fake() -> Iterator[FakeWda]:
    text = sample_path("yourapp").read_text("utf-8") + EXTRA
    with FakeWda(AppScript.from_text(text, "form.yaml"), lifetime=60) as server:
        yield server


def raw(fake: FakeWda, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake.url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def session(fake: FakeWda, bundle: str = "com.example.form") -> str:
    _, body = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": bundle}}})
    return str(body["sessionId"])


# -- routes (FBRoute: .withoutSession routes only without the prefix, plain ones only with it) --


def test_routes_answer_in_the_form_wda_registers_them(fake: FakeWda) -> None:
    sid = session(fake)
    for path in ("/status", "/wda/healthcheck"):
        assert raw(fake, "GET", path)[0] == 200
        code, body = raw(fake, "GET", f"/session/{sid}{path}")
        assert (code, body["value"]["error"]) == (404, "unknown command")
    code, body = raw(fake, "POST", f"/session/{sid}/wda/homescreen")
    assert (code, body["value"]["error"]) == (404, "unknown command")
    assert raw(fake, "POST", "/wda/homescreen")[0] == 200
    # A route that doesn't exist under a session is an unknown command, whatever the session id.
    code, body = raw(fake, "GET", "/session/STALE/status")
    assert (code, body["value"]["error"]) == (404, "unknown command")
    code, body = raw(fake, "GET", "/session/STALE/source")
    assert (code, body["value"]["error"]) == (404, "invalid session id")
    for path in ("/wda/pressButton", "/elements", "/appium/settings"):
        code, body = raw(fake, "POST", path, {})
        assert (code, body["value"]["error"]) == (404, "unknown command"), path
    for path in ("/source", "/window/size", "/wda/activeAppInfo", "/orientation", "/wda/screen"):
        assert raw(fake, "GET", path)[0] == 200, path
        assert raw(fake, "GET", f"/session/{sid}{path}")[0] == 200, path
    assert not SESSION_ONLY & WITHOUT_SESSION_ONLY


def test_the_device_sends_homescreen_without_a_session_and_no_removed_settings(fake: FakeWda) -> None:
    device = WdaDevice(fake.url)

    async def go() -> None:
        await device.launch("com.example.form", LaunchOptions())
        await device.act(Action(Op.HOME))

    asyncio.run(go())
    homes = [r for r in fake.requests if r.route == "/wda/homescreen"]
    assert [r.session for r in homes] == [None]
    (settings,) = [r.body["settings"] for r in fake.requests if r.route == "/appium/settings"]
    assert "snapshotTimeout" not in settings
    assert "customSnapshotTimeout" not in settings
    assert settings == {**SESSION_SETTINGS, "activeAppDetectionPoint": "201,437"}
    assert fake.settings["shouldUseCompactResponses"] is False


def test_settings_wda_9_removed_are_ignored(fake: FakeWda) -> None:
    sid = session(fake)
    code, body = raw(
        fake, "POST", f"/session/{sid}/appium/settings", {"settings": {"snapshotTimeout": 6, "snapshotMaxDepth": 60}}
    )
    assert code == 200
    assert "snapshotTimeout" not in body["value"]
    assert body["value"]["snapshotMaxDepth"] == 60
    assert "customSnapshotTimeout" not in raw(fake, "GET", f"/session/{sid}/appium/settings")[1]["value"]


# -- trees (../shared/wda-trees/README.md) --------------------------------------------------------


def nodes(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.get("label"):
            out[node["label"]] = node
        stack.extend(node.get("children", []))
    return out


def test_a_hidden_view_keeps_its_frame_whatever_is_excluded(fake: FakeWda) -> None:
    session(fake)
    _, full = raw(fake, "GET", "/source?format=json")
    _, fast = raw(fake, "GET", "/source?format=json&excluded_attributes=visible,accessible")
    ghost, fast_ghost = nodes(full["value"])["Ghost"], nodes(fast["value"])["Ghost"]
    assert ghost["isVisible"] == "0"
    assert "isVisible" not in fast_ghost
    assert fast_ghost["rect"] == ghost["rect"]
    assert fast_ghost["rect"]["width"] > 0
    assert fast_ghost["rect"]["height"] > 0


def test_rects_are_whole_points_and_traits_are_trait_names(fake: FakeWda) -> None:
    session(fake)
    _, source = raw(fake, "GET", "/source?format=json")
    found = nodes(source["value"])
    for node in found.values():
        assert all(isinstance(v, int) for v in node["rect"].values())
    assert found["Shown"]["traits"] == "StaticText"
    assert found["Chosen"]["traits"] == "Selected, Button"
    assert found["Off"]["traits"] == "NotEnabled, Button"
    assert found["Wifi"]["traits"] == "ToggleButton, Button"
    _, xml = raw(fake, "GET", "/source?format=xml&excluded_attributes=visible,index")
    root = parse_xml_source(xml["value"])
    assert root["bundleId"] == "com.example.form"
    assert 'visible="' not in xml["value"]
    assert 'index="' not in xml["value"]
    assert 'traits="Selected, Button"' in xml["value"]


def test_an_unknown_source_format_is_refused_as_wda_refuses_it(fake: FakeWda) -> None:
    # FBDebugCommands.m:66-68: 400 invalid argument, the formats printed as an NSArray.
    code, body = raw(fake, "GET", "/source?format=yaml")
    assert (code, body["value"]["error"]) == (400, "invalid argument")
    assert body["value"]["message"] == (
        "Unknown source format 'yaml'. Only (\n    xml,\n    json,\n    description\n) source formats are supported."
    )
    assert raw(fake, "GET", "/source?format=XML")[0] == 200  # the format is case-insensitive


# -- predicate queries (FBFindElementCommands, FBResponsePayload) --------------------------------


def test_elements_by_predicate_compact_and_with_attributes(fake: FakeWda) -> None:
    sid = session(fake)
    query = {"using": "predicate string", "value": 'label IN {"Shown", "Ghost"} AND visible == 1'}
    code, body = raw(fake, "POST", f"/session/{sid}/elements", query)
    assert code == 200
    (one,) = body["value"]
    assert set(one) == {"ELEMENT", W3C}
    raw(fake, "POST", f"/session/{sid}/appium/settings", {"settings": {"shouldUseCompactResponses": False}})
    (one,) = raw(fake, "POST", f"/session/{sid}/elements", query)[1]["value"]
    assert (one["type"], one["label"]) == ("XCUIElementTypeStaticText", "Shown")
    raw(
        fake,
        "POST",
        f"/session/{sid}/appium/settings",
        {"settings": {"elementResponseAttributes": "type,label,rect,displayed,enabled,selected"}},
    )
    hidden = {"using": "predicate string", "value": "label == 'Ghost' AND visible == 0"}
    (ghost,) = raw(fake, "POST", f"/session/{sid}/elements", hidden)[1]["value"]
    assert (ghost["displayed"], ghost["enabled"], ghost["selected"]) == (False, True, False)
    assert ghost["rect"]["width"] > 0
    by_class = {"using": "class name", "value": "XCUIElementTypeSwitch"}
    assert [e["label"] for e in raw(fake, "POST", f"/session/{sid}/elements", by_class)[1]["value"]] == ["Wifi"]
    by_id = {"using": "accessibility id", "value": "Chosen"}
    assert [e["label"] for e in raw(fake, "POST", f"/session/{sid}/elements", by_id)[1]["value"]] == ["Chosen"]


def test_bad_queries_get_wdas_errors(fake: FakeWda) -> None:
    sid = session(fake)
    url = f"/session/{sid}/elements"
    cases = [
        ({"using": "predicate string", "value": "colour == 'red'"}, 400, "invalid selector"),
        ({"using": "predicate string", "value": "label == "}, 400, "invalid selector"),
        ({"using": "predicate string", "value": "rect == 1"}, 500, "unknown error"),  # real, not evaluated here
        ({"using": "xpath", "value": "//*"}, 500, "unknown error"),
        ({"using": "telepathy", "value": "x"}, 400, "invalid selector"),
        ({"using": 3, "value": "x"}, 400, "invalid argument"),
    ]
    for body, status, error in cases:
        code, reply = raw(fake, "POST", url, body)
        assert (code, reply["value"]["error"]) == (status, error), body
    code, reply = raw(fake, "POST", f"/session/{sid}/element", {"using": "predicate string", "value": "label == 'No'"})
    assert (code, reply["value"]["error"]) == (404, "no such element")


# -- read costs (Rule 11: Mobster's measurements) -------------------------------------------------


def test_the_read_cost_model_is_mobsters_measurements() -> None:
    costs = ReadCosts()
    assert costs.source(167, visible=False, accessible=False) == pytest.approx(0.10)
    assert costs.source(167, visible=True, accessible=False) == pytest.approx(0.76)
    assert costs.source(167, visible=True, accessible=True) == pytest.approx(0.95)
    assert costs.query(167, 0) == pytest.approx(0.10)
    assert costs.query(167, 2) == pytest.approx(0.10 + 2 * 0.66 / 167)


def test_the_fake_charges_each_reply_what_wda_would_take() -> None:
    costs = ReadCosts(snapshot=0.0001, visible=0.001, accessible=0.0005)
    with FakeWda(tree=tree_path("hidden-pages.xml"), costs=costs, lifetime=60) as fake:
        device = WdaDevice(fake.url)

        async def go() -> None:
            await device.launch("dev.mobster.tabsfixture", LaunchOptions())
            await device.read()
            await device.read_evidence()

        asyncio.run(go())
        charges = dict(fake.charges)
    nodes_served = 15
    assert charges["GET /source"] == pytest.approx(nodes_served * (0.0001 + 0.001))  # the evidence read, last
    # The fast read's one query read `visible` of the six labelled page elements only.
    assert charges["POST /elements"] == pytest.approx(nodes_served * 0.0001 + 6 * 0.001)


# -- captured trees (--tree) ------------------------------------------------------------------


def test_a_captured_tree_is_served_in_both_formats_as_a_static_app() -> None:
    with FakeWda(tree=tree_path("settings-root.xml"), lifetime=60) as fake:
        assert fake.static_bundle == "com.apple.Preferences"
        sid = session(fake, "com.apple.Preferences")
        _, info = raw(fake, "GET", "/wda/activeAppInfo")
        assert info["value"]["bundleId"] == "com.apple.Preferences"
        _, fast = raw(fake, "GET", f"/session/{sid}/source?format=json&excluded_attributes=visible,accessible")
        search = next(n for n in _all(fast["value"]) if n["type"] == "SearchField")
        assert (search["value"], search["placeholderValue"]) == ("Search", "Search")
        assert "isVisible" not in search
        assert "isAccessible" not in search  # the capture didn't record it: never invented
        _, xml = raw(fake, "GET", f"/session/{sid}/source?format=xml&excluded_attributes=accessible,index")
        again = parse_xml_source(xml["value"])
        assert again["bundleId"] == "com.apple.Preferences"
        assert sum(1 for _ in _all(again)) == 167
        screen_time = next(n for n in _all(again) if n.get("label") == "Screen Time" and "Button" in n["type"])
        assert (screen_time["isVisible"], screen_time["rect"]["y"]) == ("false", "831")


def _all(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("children", []))


def test_a_json_capture_needs_a_bundle(tmp_path: Path) -> None:
    source = {"type": "Application", "label": "App", "rect": {"x": 0, "y": 0, "width": 390, "height": 844}}
    file = tmp_path / "tree.json"
    file.write_text(json.dumps({"value": source, "sessionId": None}))
    with pytest.raises(ValueError, match="names no bundleId"):
        FakeWda(tree=file)
    with FakeWda(tree=file, bundle="com.example.app", lifetime=60) as fake:
        assert fake.script.size == (390, 844)
    assert load_tree(file)["type"] == "Application"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("<not xml", "not a WDA source"),
        ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x/>', "DOCTYPE"),
        ('{"label": "no type"}', "root is not an element"),
        ('<XCUIElementTypeApplication x="0" y="0" width="0" height="0" bundleId="a.b"/>', "has no size"),
    ],
)
def test_a_bad_tree_says_what_is_wrong(tmp_path: Path, content: str, message: str) -> None:
    file = tmp_path / "tree.xml"
    file.write_text(content)
    with pytest.raises(ValueError, match=message):
        FakeWda(tree=file)


def test_main_serves_a_tree_and_reports_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tree", str(tree_path("tab-view.xml")), "--lifetime", "0.05"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("http://127.0.0.1:")
    assert "as dev.mobster.tabsfixture" in err
    assert main(["--tree", str(tmp_path / "missing.xml")]) == 2
    assert "can't read the tree" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--app", str(sample_path("yourapp")), "--bundle", "x"])
    with pytest.raises(SystemExit):
        main(["--app", str(sample_path("yourapp")), "--tree", "t.xml"])


def test_one_of_app_or_tree() -> None:
    with pytest.raises(ValueError, match="one of the two"):
        FakeWda()
    with pytest.raises(ValueError, match="one of the two"):
        FakeWda(sample_path("yourapp"), tree="t.xml")
