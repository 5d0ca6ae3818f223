"""The eight real WDA trees, served by the fake WDA to the real WdaDevice: what a person sees.

The expectations come from each tree itself (``tests/wda_trees.py`` reads WDA's flags with the
standard library): the verdict's evidence read shows exactly what WDA calls visible, the replay's
fast read shows the same but scroll indicators, no hidden label reaches a signature, and a
replayed tap on a hidden label drifts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs
import pytest

import mobster_core as mc
from mobster_core import LaunchOptions, PollPolicy
from mobster_core._rules.assertions import evaluate, parse_expect
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.results import AssertionResult
from mobster_core.testing import MemoryJournal
from mobster_core.yaml import load_yaml
from mobster_drivers.devices.wda import WdaDevice, read_source
from mobster_drivers.testing.wda import FakeWda, WdaRequest
from tests.core.helpers import step_on
from tests.wda_trees import NAMES, Truth, fast_source, is_scroll_indicator, tree_path, truth

#: A quick poll policy, so a drift through the real-time fake takes a fraction of a second.
QUICK = PollPolicy(interval=0.01, drift_after=0.05, give_up_after=0.5)


@attrs.frozen
class Served:
    """One tree read through the fake WDA: the fast read, the evidence read, the requests."""

    name: str
    bundle: str
    fast: mc.Screen
    evidence: mc.Screen
    requests: tuple[WdaRequest, ...]
    truth: tuple[Truth, ...]

    @property
    def shown(self) -> frozenset[str]:
        return frozenset(t.path for t in self.truth if t.shown)


_SERVED: dict[str, Served] = {}


def serve(name: str) -> Served:
    """Serve one tree through the fake WDA, read it both ways through the real device (once)."""
    if name not in _SERVED:
        with FakeWda(tree=tree_path(name), lifetime=60) as fake:
            device = WdaDevice(fake.url)
            bundle = fake.static_bundle
            assert bundle is not None

            async def reads() -> tuple[mc.Screen, mc.Screen]:
                await device.launch(bundle, LaunchOptions())
                return await device.read(), await device.read_evidence()

            fast, evidence = asyncio.run(reads())
            _SERVED[name] = Served(name, bundle, fast, evidence, tuple(fake.requests), tuple(truth(name)))
    return _SERVED[name]


@pytest.fixture(params=NAMES)
def served(request: pytest.FixtureRequest) -> Served:
    return serve(str(request.param))


def check(screen: mc.Screen, *expect: dict[str, Any]) -> list[AssertionResult]:
    return list(evaluate(parse_expect(list(expect)), screen))


# -- every tree ------------------------------------------------------------------------------


def test_the_evidence_read_shows_exactly_what_wda_says(served: Served) -> None:
    assert served.evidence.shown_paths == served.shown
    assert served.evidence.app == served.bundle


def test_the_fast_read_shows_the_labelled_elements_wda_shows_but_scroll_indicators(served: Served) -> None:
    # Labelled elements are what a signature, a target and a person read; an unlabelled container
    # under a cover may still read as shown on a fast read, and nothing is decided on it.
    by_path = {t.path: t for t in served.truth}
    expected = {t.path for t in served.truth if t.shown and t.label and not is_scroll_indicator(t, by_path)}
    assert {e.path for e in served.fast.shown if e.label} == expected


def test_no_hidden_label_is_in_any_signature(served: Served) -> None:
    shown_pairs = {(t.role, t.label) for t in served.truth if t.shown and t.label}
    hidden_pairs = {(t.role, t.label) for t in served.truth if not t.shown and t.label} - shown_pairs
    for screen in (served.fast, served.evidence):
        assert set(screen.signature_pairs) <= shown_pairs
        assert not set(screen.signature_pairs) & hidden_pairs


def test_only_trees_the_geometry_cant_decide_ask_wda(served: Served) -> None:
    # Measured on the eight trees: three stack labelled content (opacity pages, a cover, SwiftUI's
    # combined LabeledContent); the fast read asks WDA once about them, the others never.
    queries = [r for r in served.requests if r.route == "/elements"]
    asks = served.name in ("hidden-pages.xml", "daybreak-paywall.xml", "daybreak-settings.xml")
    assert len(queries) == (1 if asks else 0)
    for query in queries:
        assert query.body["using"] == "predicate string"
        assert query.body["value"].startswith("label IN {")
        assert query.body["value"].endswith("} AND visible == 1")


def test_the_xml_and_the_json_sources_read_alike(served: Served) -> None:
    xml = read_source(tree_path(served.name).read_text("utf-8"), served.bundle)
    assert xml.screen.fingerprint == served.evidence.fingerprint
    fast = read_source(fast_source(served.name), served.bundle)
    assert {e.path for e in fast.ambiguous} <= {e.path for e in fast.screen.elements}


# -- what the issue lists -------------------------------------------------------------------


def test_hidden_pages_are_not_shown() -> None:
    s = serve("hidden-pages.xml")
    for screen in (s.fast, s.evidence):
        results = check(
            screen,
            {"text": "Morning list"},
            {"no_text": "Preferences"},
            {"text": "Weekly summary"},
            {"visible": {"label": "Share week", "role": "button"}},
            {"absent": {"id": "reset_data"}},
            {"count": {"role": "button"}, "equals": 4},
        )
        assert [r.ok for r in results] == [False, True, True, True, True, True]
        assert "hidden" in results[0].observed
    role = check(s.evidence, {"visible": {"label": "Share week", "role": "tab"}})[0]
    assert (role.ok, role.observed) == (False, '"Share week" is on the screen as a Button, not a tab')


def test_covered_onboarding_is_not_shown() -> None:
    s = serve("daybreak-paywall.xml")
    covered = [t.label for t in s.truth if t.label and not t.visible]
    assert "Drink water" in covered
    for screen in (s.fast, s.evidence):
        results = check(
            screen,
            *({"no_text": label} for label in covered if label not in ("Selected", "circle")),
            {"absent": {"id": "onboarding_continue"}},
            {"visible": {"id": "paywall_cta"}},
            {"value": {"id": "plan_annual"}, "equals": "$39.99 / year"},
            {"visible": {"id": "plan_annual", "selected": True}},
        )
        assert all(r.ok for r in results), [r for r in results if not r.ok]


def test_rows_wda_reports_hidden_are_not_counted() -> None:
    s = serve("settings-root.xml")
    cells = [t for t in s.truth if t.role == "Cell"]
    shown = [t for t in cells if t.shown]
    assert len(shown) == len(cells) - 1  # Screen Time, under the search toolbar
    for screen in (s.fast, s.evidence):
        ok, too_many = check(
            screen,
            {"count": {"role": "cell"}, "equals": len(shown)},
            {"count": {"role": "cell"}, "equals": len(cells)},
        )
        assert ok.ok
        assert not too_many.ok
        assert too_many.observed.endswith('left out 1 not shown (hidden, covered or off screen): "Screen Time"')
        assert check(screen, {"absent": {"label": "Screen Time"}}, {"no_text": "Screen Time"})[0].ok


def test_the_search_field_showing_its_placeholder_reads_empty() -> None:
    s = serve("settings-root.xml")
    for screen in (s.fast, s.evidence):
        (field,) = [e for e in screen.shown if e.role == "SearchField"]
        assert (field.value, field.placeholder) == ("", "Search")
        empty, search = check(
            screen,
            {"value": {"role": "field"}, "equals": ""},
            {"value": {"role": "field"}, "equals": "Search"},
        )
        assert empty.ok
        assert search.observed == '"Search" is "" (it shows its placeholder "Search")'


def test_the_vpn_row_scrolled_under_the_list_edge() -> None:
    s = serve("settings-general.xml")
    # WDA reports the cell visible (8 points of it show above the list's edge) and its button and
    # text hidden: shown follows WDA element by element, as docs/checks.md says of this tree.
    vpn = [t for t in s.truth if t.label == "VPN & Device Management"]
    assert [(t.role, t.visible, t.shown) for t in vpn] == [
        ("Cell", True, True),
        ("Button", False, False),
        ("StaticText", False, False),
    ]
    for screen in (s.fast, s.evidence):
        results = check(
            screen,
            {"visible": {"label": "VPN & Device Management", "role": "cell"}},
            {"absent": {"label": "VPN & Device Management", "role": "button"}},
            {"absent": {"label": "VPN & Device Management", "role": "text"}},
            {"count": {"role": "cell"}, "equals": sum(1 for t in s.truth if t.role == "Cell" and t.shown)},
        )
        assert all(r.ok for r in results), results


def test_each_toggle_counts_once() -> None:
    s = serve("daybreak-today.xml")
    toggles = [t for t in s.truth if t.role == "Switch" and t.label]
    assert len(toggles) == 3
    assert len([t for t in s.truth if t.role == "Switch"]) == 6
    for screen in (s.fast, s.evidence):
        assert check(screen, {"count": {"role": "switch"}, "equals": 3})[0].ok
        assert check(screen, {"value": {"label": "Drink water", "role": "toggle"}, "equals": False})[0].ok


def test_a_form_shows_its_rows_though_its_collection_view_is_not_visible() -> None:
    s = serve("daybreak-settings.xml")
    assert any(t.role == "CollectionView" and not t.visible for t in s.truth)
    for screen in (s.fast, s.evidence):
        results = check(
            screen,
            {"visible": {"label": "Daily reminder", "role": "switch"}},
            {"visible": {"label": "Show paywall", "role": "button"}},
            {"absent": {"label": "Version", "role": "text"}},  # inside the combined "Version, 1.0 (1)"
            {"visible": {"label": "Version, 1.0 (1)"}},
        )
        assert all(r.ok for r in results), results


# -- docs/checks.md's examples, as written ------------------------------------------------------

DOCS = Path(__file__).resolve().parents[3] / "docs" / "checks.md"


def docs_examples() -> list[tuple[str, str, bool]]:
    """The rows of docs/checks.md's table of examples on the real trees: tree, assertion, holds."""
    text = DOCS.read_text("utf-8")
    table = text[text.index("These examples hold on the real trees") :].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        tree, assertion, holds = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows.append((tree, assertion.strip("`"), {"yes": True, "no": False}[holds]))
    return rows


def test_the_docs_list_examples_on_the_shared_trees() -> None:
    rows = docs_examples()
    assert len(rows) >= 10
    assert {tree for tree, _, _ in rows} <= set(NAMES)


@pytest.mark.parametrize(("tree", "assertion", "holds"), docs_examples())
def test_the_docs_examples_hold_as_written(tree: str, assertion: str, holds: bool) -> None:
    s = serve(tree)
    expect = load_yaml("{" + assertion + "}", "docs/checks.md").data
    for screen in (s.fast, s.evidence):
        (result,) = check(screen, expect)
        assert result.ok is holds, (tree, assertion, result.observed)


# -- a replayed tap on a hidden label ---------------------------------------------------------


def test_a_replayed_tap_on_a_hidden_page_drifts_and_taps_nothing() -> None:
    with FakeWda(tree=tree_path("hidden-pages.xml"), lifetime=60) as fake:
        device = WdaDevice(fake.url)
        bundle = fake.static_bundle
        assert bundle is not None
        # The step was recorded when the Preferences page showed: its screen, its button.
        recorded = mc.Screen.from_dict(
            {
                "app": bundle,
                "elements": [
                    {"role": "StaticText", "label": "Preferences", "frame": [0.3, 0.44, 0.36, 0.04]},
                    {"role": "Button", "label": "Reset data", "frame": [0.4, 0.5, 0.2, 0.02]},
                    {"role": "Button", "label": "Today", "frame": [0.1, 0.91, 0.12, 0.02]},
                    {"role": "Button", "label": "Week", "frame": [0.45, 0.91, 0.1, 0.02]},
                    {"role": "Button", "label": "Settings", "frame": [0.76, 0.91, 0.16, 0.02]},
                ],
            }
        )
        step = step_on(recorded, label="Reset data")
        dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
        replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, Provenance(), timing=QUICK)

        async def go() -> Replayed:
            await dispatch.launch(bundle, LaunchOptions())
            return await replayer.run([step])

        result = asyncio.run(go())
        sent = [r.route for r in fake.requests if r.method == "POST"]
    assert result.drift is not None
    assert result.message.endswith('drifted: "Reset data" isn\'t on the screen')
    assert "/actions" not in sent
    assert "/wda/tap" not in sent
