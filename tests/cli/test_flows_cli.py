"""``mobster test`` with flows and rows (issue 39): the list, a suite of row instances, heals of a flow, paths."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.test_cli import mobster
from tests.core.flows.apps import SECRETS, own_check, shop, shop_project

PLANS = """\
name: Buy a plan
app: {bundle: com.example.shop}
rows: plans.csv
steps:
  - use: {flow: login, with: {user: "${SHOP_USER}", password: "${SHOP_PASSWORD}"}}
  - Tap "Plans"
  - Tap "${plan}"
  - Tap "Confirm"
expect:
  - text: ${done}
"""


@pytest.fixture
def shop_dir(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = shop_project(
        project,
        {"orders": own_check("Refresh orders", "Orders", "Orders refreshed"),
         "settings": own_check("Save settings", "Settings", "Settings saved"),
         "plans": PLANS},
    )  # fmt: skip
    (files["plans"].parent / "plans.csv").write_text("plan,done\nfree,Thanks for your order\npro,A call is booked\n")
    (project / "shop.yaml").write_text(shop())
    (project / "renamed.yaml").write_text(shop("Log in"))
    for key, value in SECRETS.items():
        monkeypatch.setenv(key, value)
    return project


def test_list_shows_each_row_as_a_check_and_the_flows_apart(shop_dir: Path) -> None:
    listed = mobster("test", "--list")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert any("Buy a plan [free]" in line for line in lines)
    assert any("Buy a plan [pro]" in line for line in lines)
    assert "4 checks selected; none run" in listed.stdout
    assert "1 flow (run only inside the checks that use them):" in lines
    assert "  .mobster/flows/login.yaml  login  3 steps; inputs: user, password (secret)" in lines
    doc = json.loads(mobster("test", "--list", "--json").stdout)
    assert [f["name"] for f in doc["flows"]] == ["login"]
    assert "login" not in [c["name"] for c in doc["checks"]]


def test_a_suite_records_the_login_once_and_each_row_is_its_own_result_and_junit_case(shop_dir: Path) -> None:
    first = mobster("test", "--scripted", "shop.yaml", "--model", "scripted", "--json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert [c["name"] for c in doc["checks"]] == ["Refresh orders", "Buy a plan [free]", "Buy a plan [pro]",
                                                  "Save settings"]  # fmt: skip
    assert [c["verdict"] for c in doc["checks"]] == ["passed"] * 4
    # The first check records the login; the others replay it (the pro row too: its screens differ from
    # its rows' path after the login, and it records its own path of those steps only).
    login = {c["name"]: [s["source"] for s in c["steps"] if s.get("flow") == "login"] for c in doc["checks"]}
    assert login == {"Refresh orders": ["smart"] * 3, "Buy a plan [free]": ["replay"] * 3,
                     "Buy a plan [pro]": ["replay"] * 3, "Save settings": ["replay"] * 3}  # fmt: skip
    junit = ET.parse(next((shop_dir / ".mobster" / "test-results").glob("*/junit.xml")))
    cases = [c.get("name", "") for c in junit.iter("testcase")][1:3]
    assert [c.split(" on ")[0] for c in cases] == ["Buy a plan [free]", "Buy a plan [pro]"]
    second = mobster("test", "--scripted", "shop.yaml", "--json")
    assert json.loads(second.stdout)["summary"]["model_calls"] == 0


def test_a_flow_s_heal_is_listed_once_and_accepted_for_every_check(shop_dir: Path) -> None:
    assert mobster("test", "--scripted", "shop.yaml", "--model", "scripted").exit_code == 0
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert healed.exit_code == 0, healed.output
    doc = json.loads(healed.stdout)
    assert doc["summary"]["model_calls"] == 1
    listing = mobster("test", "heal")
    assert listing.exit_code == 0, listing.output
    assert 'login.yaml (flow, for every check that uses it): step 3: Tap "Sign in" -> Tap "Log in"' in listing.stdout
    kept = mobster("test", "heal", "--accept", "login")
    assert kept.exit_code == 0, kept.output
    assert "kept 1 heal of login.yaml" in kept.stdout
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert json.loads(strict.stdout)["summary"]["passed"] == 4


def test_paths_list_shows_the_segment_and_the_checks_that_use_it(shop_dir: Path) -> None:
    assert mobster("test", "--scripted", "shop.yaml", "--model", "scripted").exit_code == 0
    listed = mobster("paths", "list")
    assert listed.exit_code == 0, listed.output
    [segment] = [line for line in listed.stdout.splitlines() if line.startswith("the flow login")]
    assert "used by .mobster/checks/orders.yaml, .mobster/checks/plans.yaml, .mobster/checks/settings.yaml" in segment
    doc = json.loads(mobster("paths", "list", "--json").stdout)
    assert {e["part"] for e in doc} >= {"the flow login", "steps 4 to 5", "a row's own path"}


def test_the_terminal_names_a_heal_and_a_stop_inside_a_flow_by_its_breadcrumb(shop_dir: Path) -> None:
    assert mobster("test", "--scripted", "shop.yaml", "--model", "scripted").exit_code == 0
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "orders")
    assert healed.exit_code == 0, healed.output
    assert 'healed step 3 (login › step 3): Tap "Sign in" → Tap "Log in"' in healed.stdout
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "settings")
    assert strict.exit_code == 0, strict.output  # the healed segment replays for every check
    (shop_dir / ".mobster" / "flows" / "login.heal.yaml").unlink()  # the heal file gone: the heal isn't in use
    failed = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "settings")
    assert failed.exit_code == 1
    assert '    at login › step 3 (Tap "Sign in")' in failed.stdout
