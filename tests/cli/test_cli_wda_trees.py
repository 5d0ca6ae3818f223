"""`mobster verify --wda` against real WDA captures served by the fake: the verdicts a person gives.

Each check asserts on content that is shown, hidden (opacity, a toggle's inner switch), covered (a
full-screen cover) and scrolled away (under the search toolbar, below the list's edge), with every
assertion kind; the expected ``ok`` of each assertion is what a person looking at the screen says.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import cli
from mobster_core._rules.replay.settle import DEFAULT_READ_POLICY, ReadPolicy
from mobster_core._run import judge as _judge
from mobster_drivers.testing.wda import FakeWda
from tests.wda_trees import tree_path

# Per tree: the check's expectations, each with the answer a person looking at the screen gives.
CASES: dict[str, list[tuple[dict[str, Any], bool]]] = {
    "hidden-pages.xml": [
        ({"text": "Weekly summary"}, True),  # the page that shows
        ({"text": "Morning list"}, False),  # a page hidden with opacity 0, full frame
        ({"no_text": "Preferences"}, True),
        ({"visible": {"label": "Share week", "role": "button"}}, True),
        ({"visible": {"label": "Add habit"}}, False),
        ({"absent": {"id": "reset_data"}}, True),
        ({"count": {"role": "button"}, "equals": 4}, True),  # Share week and the three tabs
        ({"count": {"role": "button"}, "equals": 6}, False),
    ],
    "daybreak-paywall.xml": [
        ({"text": "Choose your plan"}, True),
        ({"no_text": "Build habits that stick"}, True),  # the onboarding under the cover
        ({"text": "Drink water"}, False),
        ({"absent": {"id": "onboarding_continue"}}, True),
        ({"visible": {"label": "Continue", "role": "button"}}, False),
        ({"value": {"id": "plan_annual"}, "equals": "$39.99 / year"}, True),
        ({"count": {"role": "button", "selected": True}, "equals": 1}, True),
    ],
    "settings-root.xml": [
        ({"text": "General"}, True),
        ({"no_text": "Screen Time"}, True),  # under the search toolbar
        ({"visible": {"label": "Screen Time"}}, False),
        ({"absent": {"label": "Screen Time", "role": "button"}}, True),
        ({"value": {"role": "field"}, "equals": ""}, True),  # the search field shows its placeholder
        ({"value": {"role": "field"}, "equals": "Search"}, False),
        ({"count": {"role": "cell"}, "equals": 10}, True),
        ({"count": {"role": "cell"}, "equals": 11}, False),
    ],
    "settings-general.xml": [
        ({"visible": {"label": "About", "role": "button"}}, True),
        ({"absent": {"label": "VPN & Device Management", "role": "button"}}, True),  # below the list's edge
        ({"visible": {"label": "VPN & Device Management", "role": "text"}}, False),
        ({"text": "Language & Region"}, True),
    ],
    "daybreak-today.xml": [
        ({"count": {"role": "switch"}, "equals": 3}, True),  # each Toggle once, not its inner switch
        ({"value": {"label": "Read 10 pages", "role": "switch"}, "equals": False}, True),
        ({"text": "12-day streak"}, True),
    ],
    "daybreak-settings.xml": [
        ({"visible": {"label": "Daily reminder", "role": "switch"}}, True),  # its Form's list isn't "visible"
        ({"absent": {"label": "Version", "role": "text"}}, True),  # merged into "Version, 1.0 (1)"
        ({"text": "On this iPhone only"}, True),
    ],
    "tab-view.xml": [
        ({"visible": {"label": "Week", "role": "tab", "selected": True}}, True),
        ({"visible": {"label": "Share week", "role": "tab"}}, False),
        ({"text": "Weekly summary"}, True),
    ],
    "settings-about.xml": [
        ({"value": {"label": "iOS Version, 26.4", "role": "button"}, "equals": ""}, True),
        ({"text": "Certificate Trust Settings"}, True),
        ({"visible": {"label": "chevron", "role": "button", "enabled": False}}, True),
    ],
}


@pytest.fixture
def project(project: Path, private_locks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # A failing settled read keeps reading for the 5 s assert timeout (a screen may still be
    # loading); a served capture never changes, so the test reads for 0.2 s instead.
    quick = ReadPolicy(settle_gap=0.05, interval=0.05, timeout=0.2)

    original = _judge.settled_read

    async def settled_read(read: Any, clock: Any, policy: ReadPolicy = quick, **kw: Any) -> Any:
        return await original(read, clock, quick if policy is DEFAULT_READ_POLICY else policy, **kw)

    monkeypatch.setattr(_judge, "settled_read", settled_read)
    return project


@pytest.fixture(params=sorted(CASES))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, FakeWda]]:
    name = str(request.param)
    with FakeWda(tree=tree_path(name), lifetime=60) as fake:
        yield name, fake


def verify(project: Path, fake: FakeWda, expect: list[dict[str, Any]]) -> Result:
    check = {"version": 1, "name": "What a person sees", "app": {"bundle": fake.static_bundle}, "expect": expect}
    file = project / ".mobster" / "checks" / "seen.yaml"
    file.write_text(json.dumps(check), "utf-8")  # JSON is YAML
    return CliRunner().invoke(
        cli, ["verify", "--wda", fake.url, "--check", str(file), "--json"], catch_exceptions=False
    )


def test_verify_gives_the_verdicts_a_person_gives(project: Path, served: tuple[str, FakeWda]) -> None:
    name, fake = served
    cases = CASES[name]
    result = verify(project, fake, [expect for expect, _ in cases])
    check = json.loads(result.stdout)["checks"][0]
    got = [a["ok"] for a in check["assertions"]]
    wanted = [ok for _, ok in cases]
    wrong = [(a["text"], a["observed"]) for a, ok in zip(check["assertions"], wanted, strict=True) if a["ok"] != ok]
    assert got == wanted, wrong
    assert result.exit_code == (0 if all(wanted) else 1)
    # The verdict settled on fast reads and was judged on one read with WDA's own visibility (the
    # last), and the check never tapped.
    sources = [r.path for r in fake.requests if r.route == "/source"]
    *settling, judged = sources
    assert "excluded_attributes=accessible" in judged
    assert "visible" not in judged
    assert settling
    assert all("excluded_attributes=visible,accessible" in p for p in settling)
    assert not [r for r in fake.requests if r.route in ("/actions", "/wda/tap")]


def test_the_messages_say_what_was_seen(project: Path) -> None:
    with FakeWda(tree=tree_path("settings-root.xml"), lifetime=60) as fake:
        result = verify(project, fake, [{"count": {"role": "cell"}, "equals": 11}])
    (assertion,) = json.loads(result.stdout)["checks"][0]["assertions"]
    assert assertion["observed"] == (
        'found 10: "Apple Account, Sign in to access your iCloud data, the App Store, Apple service\u2026", '
        '"Ready for Apple Intelligence", "General", "Accessibility", "Action Button", "Apple Intelligence & Siri", '
        '"Camera", "Home Screen & App Library", "Search", "StandBy"; '
        'left out 1 not shown (hidden, covered or off screen): "Screen Time"'
    )
