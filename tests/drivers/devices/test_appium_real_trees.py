"""The eight real WDA trees behind the fake Appium server: the Appium driver sees what the WDA driver sees.

Each tree is served by the fake WDA behind the fake Appium server and read through the real
Appium-Python-Client by ``AppiumDevice``, then through the same fake WDA by ``WdaDevice``: both
drivers run one parser and one set of visibility rules, so their fast reads, evidence reads,
signatures and target checks must be the same, and both must show what WDA itself calls
visible (``tests/wda_trees.py`` reads that from each tree, independently of the product).
"""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest

import mobster_core as mc
from mobster_core import LaunchOptions, PollPolicy
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.testing import MemoryJournal
from mobster_drivers.devices.appium import QUERY_STRATEGY, AppiumDevice
from mobster_drivers.devices.wda import WdaDevice
from mobster_drivers.testing.appium import AppiumRequest, FakeAppium
from mobster_drivers.testing.wda import WdaRequest
from tests.core.helpers import step_on
from tests.wda_trees import NAMES, Truth, is_scroll_indicator, tree_path, truth

#: A quick poll policy, so a drift through the real-time fakes takes a fraction of a second.
QUICK = PollPolicy(interval=0.01, drift_after=0.05, give_up_after=0.5)
#: The trees whose fast read stacks labelled content (measured on the WDA driver: the same three).
ASKING = ("hidden-pages.xml", "daybreak-paywall.xml", "daybreak-settings.xml")


@attrs.frozen
class Reads:
    fast: mc.Screen
    evidence: mc.Screen
    checks: tuple[bool, ...]  # the target check of each labelled element of the fast read


@attrs.frozen
class Served:
    """One tree read through both drivers, and what each server was asked."""

    name: str
    bundle: str
    appium: Reads
    wda: Reads
    appium_requests: tuple[AppiumRequest, ...]
    wda_requests: tuple[WdaRequest, ...]  # what the fake WDA got while the Appium device read
    truth: tuple[Truth, ...]


async def _reads(device: AppiumDevice | WdaDevice, bundle: str, *, check: bool) -> Reads:
    await device.launch(bundle, LaunchOptions())
    fast = await device.read()
    evidence = await device.read_evidence()
    labelled = [e for e in fast.elements if e.label] if check else []
    checks = [await device.check_target(element) for element in labelled]
    return Reads(fast, evidence, tuple(checks))


_SERVED: dict[str, Served] = {}


def serve(name: str) -> Served:
    """Serve one tree behind the fake Appium; read it through Appium, then through WDA (once)."""
    if name not in _SERVED:
        # The target check of every labelled element is a query each: only on the small trees.
        check = name in ("hidden-pages.xml", "tab-view.xml")
        with FakeAppium(tree=tree_path(name), lifetime=60) as fake:
            bundle = fake.wda.static_bundle
            assert bundle is not None
            appium = AppiumDevice(fake.url, {}, bundle=bundle)
            try:
                through_appium = asyncio.run(_reads(appium, bundle, check=check))
            finally:
                appium.close()  # ends the Appium session, and its WDA session with it
            wda_requests = tuple(fake.wda.requests)
            wda = WdaDevice(fake.wda.url)
            try:
                through_wda = asyncio.run(_reads(wda, bundle, check=check))
            finally:
                wda.close()
            _SERVED[name] = Served(
                name,
                bundle,
                through_appium,
                through_wda,
                tuple(fake.requests),
                wda_requests,
                tuple(truth(name)),
            )
    return _SERVED[name]


@pytest.fixture(params=NAMES)
def served(request: pytest.FixtureRequest) -> Served:
    return serve(str(request.param))


# -- every tree ------------------------------------------------------------------------------


def test_both_drivers_read_every_tree_alike(served: Served) -> None:
    assert served.appium.fast == served.wda.fast
    assert served.appium.evidence == served.wda.evidence
    assert served.appium.fast.hash == served.wda.fast.hash
    assert served.appium.fast.signature == served.wda.fast.signature
    assert served.appium.checks == served.wda.checks


def test_the_evidence_read_through_appium_shows_exactly_what_wda_says(served: Served) -> None:
    assert served.appium.evidence.shown_paths == frozenset(t.path for t in served.truth if t.shown)
    assert served.appium.evidence.app == served.bundle


def test_the_fast_read_through_appium_shows_the_labelled_elements_wda_shows(served: Served) -> None:
    by_path = {t.path: t for t in served.truth}
    expected = {t.path for t in served.truth if t.shown and t.label and not is_scroll_indicator(t, by_path)}
    assert {e.path for e in served.appium.fast.shown if e.label} == expected


def test_no_hidden_label_is_in_a_signature_read_through_appium(served: Served) -> None:
    shown_pairs = {(t.role, t.label) for t in served.truth if t.shown and t.label}
    hidden_pairs = {(t.role, t.label) for t in served.truth if not t.shown and t.label} - shown_pairs
    for screen in (served.appium.fast, served.appium.evidence):
        assert set(screen.signature_pairs) <= shown_pairs
        assert not set(screen.signature_pairs) & hidden_pairs


def test_the_reads_through_appium_cost_what_the_wda_drivers_cost(served: Served) -> None:
    # The same WDA requests: the fast source without visible, the evidence source with it, and a
    # visibility query only where the tree stacks labelled content.
    sources = [r.path for r in served.wda_requests if r.route == "/source"]
    assert len(sources) == 2
    assert "format=json" in sources[0]
    assert "excluded_attributes=visible%2Caccessible" in sources[0]
    assert "excluded_attributes=accessible" in sources[1]
    finds = [r for r in served.appium_requests if r.command == "POST /elements"]
    asks = [r for r in finds if r.body["value"].startswith("label IN {")]
    assert len(asks) == (1 if served.name in ASKING else 0)
    for query in finds:
        assert query.body["using"] == QUERY_STRATEGY
    proxied = [r.body for r in served.wda_requests if r.route == "/elements"]
    assert proxied == [{"using": "predicate string", "value": r.body["value"]} for r in finds]
    # Set up once in the session, before its first query, and never when nothing is asked.
    setup = [r.command for r in served.appium_requests if r.command in ("POST /timeouts", "POST /appium/settings")]
    assert setup == (["POST /timeouts", "POST /appium/settings"] if finds else [])


# -- what a target check says ------------------------------------------------------------------


def test_a_target_check_through_appium_confirms_only_what_wda_shows() -> None:
    s = serve("hidden-pages.xml")
    labelled = [e for e in s.appium.fast.elements if e.label]
    shown = {t.path for t in s.truth if t.shown}
    # The fast read's own query confirmed the shown pages' elements; the hidden pages' elements
    # were asked about one by one, and WDA found none of them visible.
    assert [e.path in shown for e in labelled] == list(s.appium.checks)
    assert not all(s.appium.checks)
    assert any(s.appium.checks)


# -- a replayed tap on a hidden label ---------------------------------------------------------


def _replay(device: AppiumDevice, bundle: str, elements: list[dict[str, Any]], label: str) -> Replayed:
    recorded = mc.Screen.from_dict({"app": bundle, "elements": elements})
    step = step_on(recorded, label=label)
    dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
    replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, Provenance(), timing=QUICK)

    async def go() -> Replayed:
        await dispatch.launch(bundle, LaunchOptions())
        return await replayer.run([step])

    return asyncio.run(go())


def test_a_replayed_tap_on_a_hidden_page_drifts_through_appium_and_taps_nothing() -> None:
    with FakeAppium(tree=tree_path("hidden-pages.xml"), lifetime=60) as fake:
        bundle = fake.wda.static_bundle
        assert bundle is not None
        device = AppiumDevice(fake.url, {}, bundle=bundle)
        try:
            # The step was recorded when the Preferences page showed: its screen, its button.
            result = _replay(
                device,
                bundle,
                [
                    {"role": "StaticText", "label": "Preferences", "frame": [0.3, 0.44, 0.36, 0.04]},
                    {"role": "Button", "label": "Reset data", "frame": [0.4, 0.5, 0.2, 0.02]},
                    {"role": "Button", "label": "Today", "frame": [0.1, 0.91, 0.12, 0.02]},
                    {"role": "Button", "label": "Week", "frame": [0.45, 0.91, 0.1, 0.02]},
                    {"role": "Button", "label": "Settings", "frame": [0.76, 0.91, 0.16, 0.02]},
                ],
                "Reset data",
            )
        finally:
            device.close()
        commands = fake.commands
        wda_posts = [r.route for r in fake.wda.requests if r.method == "POST"]
    assert result.drift is not None
    assert result.message.endswith('drifted: "Reset data" isn\'t on the screen')
    assert not {"mobile: tap", "POST /actions"} & set(commands)
    assert not {"/wda/tap", "/actions"} & set(wda_posts)
