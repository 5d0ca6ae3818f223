"""When may a recorded step be reused? Our policy against models of other tools' policies.

A path is recorded once on the benchmark app (``data/settings-paywall.yaml``: six taps from the
home screen to a paywall through Settings): by the SDK's Smart with the scripted model, or, for the
two scenarios whose app already has a second "Membership" cell when the path is recorded, with the
oracle below (the scripted model won't guess between two cells of one label). Then about 30 changed
builds of that app (same version and build, as local builds are) each replay it under every policy,
on a FakeClock with the ``usb-iphone`` latencies (simulated seconds: the whole benchmark takes a
few seconds of real time).

The policies. ``ours`` is the real SDK (``run_check``: replay, and a drifted step healed by the model
for that step only). The others are **models written for this comparison**, not the tools
themselves. They share everything of the SDK that is not the strategy compared: its poll, settle
and drift timing, and its agent, which keeps reading while the model thinks and checks the action
the model chose against the newest read (re-locating its element, or dropping the action when the
element moved away). Only the reuse rule and what happens after a miss differ:

- ``exact-hash-flow``: a step is reused only while the whole read fingerprint (roles,
  labels, identifiers, values, frames, the app) equals the one recorded before it; at the first
  miss the model does the rest of the flow (the exact-hash cache read as a fallback for the flow).
- ``exact-hash-step``: the same key, read as a per-decision cache (as Arbigent's AI-decision cache
  keyed on the UI tree's hash): at every decision, a read whose fingerprint is one recorded before a
  step replays that step, the recording's final screen means done, and anything else is one model
  decision; then the cache is asked again.
- ``jaccard-0.8``: a screen as alike as 0.8 (Jaccard of the signatures, or the same hash), the
  target found by label and role and, when several have them, the one at the recorded tree path
  (the rule our matcher had before it counted duplicates); no settled relaxation and no per-step
  heal: the first mismatch drops the rest of the recording and the model takes over.
- ``no-cache``: Smart every run: the model does every step.
- ``path-replay``: a selector replay: once the screen settles, act on whatever element is at the
  recorded tree path; the model takes over only when nothing is there (as XPath or coordinate
  replays: Stagehand v3's cached selectors, DroidRun macros).

The model. ``ours`` runs with the SDK's scripted model, as ``mobster test --model scripted`` does.
Every policy, ``ours`` included (row ``ours+oracle``), also runs with an **oracle**: a model written
here that knows, per scenario, the actions a careful tester would take in the changed app (it sleeps
2.5 s a call, as the scripted model does). With the oracle the model never errs, so every
difference between those rows comes from the policy.

What is counted, per scenario and policy: model calls (a call cancelled because the screen came
right counts), steps replayed (actions sent without a model), **wrong actions**, and the verdict.
Each scenario lists the actions it intends, in order: ``(screen, label[, identifier])`` in the
changed app. An action is *right* when it is the next intended action not yet done (same app, same
scripted screen, same label, and the same identifier when the scenario names one); any other
action is *wrong* (an action on an element other than the one the step meant).

Usage::

    python benchmarks/bench_policies.py [--only NAME,...] [--latency zero] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML

import mobster_core as mc
from mobster_core._rules.assertions import evaluate
from mobster_core._rules.replay.settle import DEFAULT_POLICY
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._rules.verdict.verdict import Grounds, decide
from mobster_core._run.agent import Agent, Brief, ModelCalls
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.ended import Ended
from mobster_core._run.judge import settled_read
from mobster_core.prompts import estimate_usage
from mobster_core.results import StepSource
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import PROFILES, AppScript, ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
BASE_APP = DATA / "settings-paywall.yaml"
CHECK = DATA / "open-paywall.yaml"
BUNDLE = "com.example.yourapp"
MODEL_SECONDS = 2.5
MAX_TURNS = 20
#: jaccard-0.8's threshold.
JACCARD = 0.8

POLICIES = ("ours", "ours+oracle", "exact-hash-flow", "exact-hash-step", "jaccard-0.8", "no-cache", "path-replay")
#: The policies that use the oracle model: the fair comparison for the target.
ORACLE_POLICIES = POLICIES[1:]
#: Scenarios that fail under our policy on purpose (the docstring of each says why).
BY_DESIGN = {
    "mostly-renamed": "the breaker: healing would rewrite more than half of the check, so it stops (heal_limit)",
    "another-app": "the flow leaves the app: the paywall can't be reached, so every policy fails it",
}


# -- the scenarios --------------------------------------------------------------------------------


@attrs.frozen
class Want:
    """An intended action: a tap on ``label`` on the scripted ``screen`` of ``app``.

    ``id`` None accepts any identifier; a string (even empty) must equal the element's identifier.
    """

    screen: str
    label: str
    id: str | None = None
    app: str = BUNDLE


Doc = dict[str, Any]
Change = Callable[[Doc], None]

BASE_WANTS = (
    Want("today", "Profile"),
    Want("profile", "Settings"),
    Want("settings", "Account"),
    Want("account", "Membership"),
    Want("membership", "See plans"),
    Want("plans", "Upgrade to Pro"),
)


@attrs.frozen
class Scenario:
    """A changed build of the app, and the actions a careful tester would take in it.

    ``base`` changes the app the path is recorded on (None: the benchmark app as it is); ``change``
    is applied on top of it for the changed build.
    """

    name: str
    what: str
    change: Change
    wants: tuple[Want, ...] = BASE_WANTS
    base: Base | None = None


@attrs.frozen
class Base:
    """An app the path is recorded on: a name (to record it once), a change, the recording's wants."""

    name: str
    change: Change
    wants: tuple[Want, ...] = BASE_WANTS


def screen_of(doc: Doc, name: str, app: str = BUNDLE) -> list[dict[str, Any]]:
    elements: list[dict[str, Any]] = doc["apps"][app]["screens"][name]
    return elements


def element(doc: Doc, screen: str, label: str) -> dict[str, Any]:
    found = [e for e in screen_of(doc, screen) if e.get("label") == label]
    if len(found) != 1:
        raise ValueError(f"{screen}: {len(found)} elements labelled {label!r}")
    return found[0]


def index_of(doc: Doc, screen: str, label: str) -> int:
    return screen_of(doc, screen).index(element(doc, screen, label))


def rename(screen: str, label: str, new: str) -> Change:
    def change(doc: Doc) -> None:
        element(doc, screen, label)["label"] = new

    return change


def update(screen: str, label: str, **values: Any) -> Change:
    def change(doc: Doc) -> None:
        element(doc, screen, label).update(values)

    return change


def insert(screen: str, at: int, *elements: dict[str, Any]) -> Change:
    def change(doc: Doc) -> None:
        screen_of(doc, screen)[at:at] = [dict(e) for e in elements]

    return change


def remove(screen: str, label: str) -> Change:
    def change(doc: Doc) -> None:
        screen_of(doc, screen).remove(element(doc, screen, label))

    return change


def remove_id(screen: str, identifier: str) -> Change:
    def change(doc: Doc) -> None:
        elements = screen_of(doc, screen)
        (found,) = [e for e in elements if e.get("id") == identifier]
        elements.remove(found)

    return change


def move(screen: str, label: str, to: int) -> Change:
    def change(doc: Doc) -> None:
        elements = screen_of(doc, screen)
        elements.insert(to, elements.pop(index_of(doc, screen, label)))

    return change


def add_screen(name: str, *elements: dict[str, Any]) -> Change:
    def change(doc: Doc) -> None:
        doc["apps"][BUNDLE]["screens"][name] = [dict(e) for e in elements]

    return change


def add_app(bundle: str, name: str, *elements: dict[str, Any]) -> Change:
    def change(doc: Doc) -> None:
        doc["apps"][bundle] = {
            "name": name,
            "version": "26.0",
            "build": "1",
            "launch": "root",
            "screens": {"root": [dict(e) for e in elements]},
        }

    return change


def every_frame(doc: Doc) -> None:
    """Dynamic Type, larger: every element of every screen of the app gets a taller row."""
    for elements in doc["apps"][BUNDLE]["screens"].values():
        for n, e in enumerate(elements):
            e["frame"] = [0.04, round(0.06 + n * 0.1, 4), 0.92, 0.09]


def both(*changes: Change) -> Change:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)

    return change


def wants(*replace: tuple[int, Want | None], extra: tuple[int, Want] | None = None) -> tuple[Want, ...]:
    """The base intended actions with some replaced (None removes), and one inserted."""
    out: list[Want] = list(BASE_WANTS)
    for index, want in sorted(replace, reverse=True):
        if want is None:
            del out[index]
        else:
            out[index] = want
    if extra is not None:
        out.insert(extra[0], extra[1])
    return tuple(out)


BANNER = (
    {"role": "StaticText", "label": "Spring sale"},
    {"role": "StaticText", "label": "Pro is half price this week"},
    {"role": "Button", "label": "Learn more"},
)

FAMILY_CELL = {"role": "Cell", "label": "Membership", "id": "family-membership", "tap": "family"}
FAMILY_SCREEN = (
    {"role": "StaticText", "label": "Family"},
    {"role": "Button", "label": "Back", "tap": "account"},
    {"role": "Cell", "label": "Add a family member"},
)
#: The app with a second "Membership" cell (a family plan) below the original when the path is recorded.
TWO_MEMBERSHIPS = Base(
    "two-memberships",
    both(insert("account", 5, FAMILY_CELL), add_screen("family", *FAMILY_SCREEN)),
    wants((3, Want("account", "Membership", id=""))),
)
#: The same with the family plan's cell above the original: the recorded tap is on the second of two.
FAMILY_FIRST = Base(
    "family-first",
    both(insert("account", 4, FAMILY_CELL), add_screen("family", *FAMILY_SCREEN)),
    wants((3, Want("account", "Membership", id=""))),
)
TRIAL = {"role": "StaticText", "label": "Your trial ends in 3 days"}

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("unchanged", "the same build", lambda _doc: None),
    Scenario(
        "moved-button",
        "Membership moves down (its frame only)",
        update("account", "Membership", frame=[0.05, 0.62, 0.9, 0.07]),
    ),
    Scenario(
        "new-artwork",
        "the home screen's artwork changes (Image identifier and frame)",
        update("today", "Featured", id="hero-2026-winter", frame=[0.0, 0.1, 1.0, 0.35]),
    ),
    Scenario(
        "value-changes",
        "a value on the Membership screen changes (3 of 5 -> 4 of 5)",
        update("membership", "Checks used this month", value="4 of 5"),
    ),
    Scenario(
        "small-banner",
        "a one-line banner appears above the Account screen's cells (7 pairs, 86% alike)",
        insert("account", 1, {"role": "StaticText", "label": "Your trial ends in 3 days"}),
    ),
    Scenario(
        "big-banner",
        "a three-element banner on the Membership screen (62% alike: the settled relaxation)",
        insert("membership", 1, *BANNER),
    ),
    Scenario(
        "banner-comes-and-goes",
        "a three-element banner on Account for the first 2 s (until: 2)",
        insert("account", 1, *({**e, "until": 2.0} for e in BANNER)),
    ),
    Scenario(
        "renamed-banner-leaves",
        'Membership renamed "Plan", and a three-element banner above it leaves 2 s after the screen shows',
        both(rename("account", "Membership", "Plan"), insert("account", 1, *({**e, "until": 2.0} for e in BANNER))),
        wants((3, Want("account", "Plan"))),
    ),
    Scenario(
        "late-toast",
        "a toast at the top of Plans from 0.3 s to 1.8 s after it shows (after/until)",
        insert("plans", 0, {"role": "StaticText", "label": "Prices updated", "after": 0.3, "until": 1.8}),
    ),
    Scenario(
        "renamed-button",
        'See plans is now "Compare plans"',
        rename("membership", "See plans", "Compare plans"),
        wants((4, Want("membership", "Compare plans"))),
    ),
    Scenario(
        "renamed-last",
        'the last step\'s button is now "Upgrade now"',
        rename("plans", "Upgrade to Pro", "Upgrade now"),
        wants((5, Want("plans", "Upgrade now"))),
    ),
    Scenario(
        "removed-step",
        "the Account level is gone: Settings lists Membership itself",
        both(
            remove("settings", "Account"),
            insert("settings", 5, {"role": "Cell", "label": "Membership", "tap": "membership"}),
        ),
        wants((2, Want("settings", "Membership")), (3, None)),
    ),
    Scenario(
        "inserted-popup",
        'a "Turn on notifications?" popup with one "Not now" button opens before Settings',
        both(
            update("profile", "Settings", tap="notify"),
            add_screen(
                "notify",
                {"role": "StaticText", "label": "Turn on notifications?"},
                {"role": "StaticText", "label": "Get an alert when a check fails"},
                {"role": "Button", "label": "Not now", "tap": "settings"},
            ),
        ),
        wants(extra=(2, Want("notify", "Not now"))),
    ),
    Scenario(
        "another-app",
        "Settings opens the system Settings app: the flow leaves the app (it should fail, not wander)",
        both(
            update("profile", "Settings", tap={"open": "com.apple.Preferences"}),
            add_app(
                "com.apple.Preferences",
                "Settings",
                {"role": "StaticText", "label": "Settings"},
                {"role": "Cell", "label": "General"},
                {"role": "Cell", "label": "Privacy & Security"},
                {"role": "Cell", "label": "YourApp"},
            ),
        ),
        BASE_WANTS[:2],
    ),
    Scenario(
        "duplicate-after",
        'a second "Membership" cell (a family plan) below the original',
        both(
            insert("account", 6, FAMILY_CELL),
            add_screen("family", *FAMILY_SCREEN),
        ),
        wants((3, Want("account", "Membership", id=""))),
    ),
    Scenario(
        "duplicate-before",
        'a second "Membership" cell (a family plan) above the original: it takes the recorded tree path',
        both(
            insert("account", 4, FAMILY_CELL),
            add_screen("family", *FAMILY_SCREEN),
        ),
        wants((3, Want("account", "Membership", id=""))),
    ),
    Scenario(
        "duplicate-elsewhere",
        'a second "Membership" cell in a new section at the top of Account (a nested element)',
        both(
            insert(
                "account",
                1,
                {"role": "Other", "children": [{**FAMILY_CELL}], "frame": [0.0, 0.1, 1.0, 0.08]},
            ),
            add_screen("family", *FAMILY_SCREEN),
        ),
        wants((3, Want("account", "Membership", id=""))),
    ),
    Scenario(
        "duplicate-recorded-banner",
        'two "Membership" cells when the path was recorded; a one-line banner above them shifts every path',
        insert("account", 1, TRIAL),
        wants((3, Want("account", "Membership", id=""))),
        base=TWO_MEMBERSHIPS,
    ),
    Scenario(
        "duplicate-recorded-shifted",
        'two "Membership" cells when recorded, the tapped one second; a one-line banner puts the first in its place',
        insert("account", 1, TRIAL),
        wants((3, Want("account", "Membership", id=""))),
        base=FAMILY_FIRST,
    ),
    Scenario(
        "duplicate-removed",
        'two "Membership" cells when the path was recorded; the family plan\'s is gone (2 -> 1)',
        remove_id("account", "family-membership"),
        wants((3, Want("account", "Membership", id=""))),
        base=TWO_MEMBERSHIPS,
    ),
    Scenario(
        "never-settles",
        "a countdown on Membership changes every 0.1 s (ticks): the screen never settles",
        insert("membership", 3, {"role": "StaticText", "label": "Offer ends in", "value": "s", "ticks": 0.1}),
    ),
    Scenario(
        "never-settles-renamed",
        'the countdown, and See plans renamed "Compare plans"',
        both(
            insert("membership", 3, {"role": "StaticText", "label": "Offer ends in", "value": "s", "ticks": 0.1}),
            rename("membership", "See plans", "Compare plans"),
        ),
        wants((4, Want("membership", "Compare plans"))),
    ),
    Scenario(
        "slow-control",
        "See plans appears 1.0 s after the Membership screen (a still screen: nothing moves meanwhile)",
        update("membership", "See plans", after=1.0),
    ),
    Scenario(
        "slow-with-spinner",
        "See plans appears after 1.0 s, a spinner turns until then",
        both(
            update("membership", "See plans", after=1.0),
            insert(
                "membership",
                2,
                {"role": "ActivityIndicator", "label": "Loading", "value": "t", "ticks": 0.1, "until": 1.0},
            ),
        ),
    ),
    Scenario(
        "removed-above",
        "the e-mail line above Membership is gone (the tree paths below it shift)",
        remove("account", "ada@example.com"),
    ),
    Scenario(
        "reordered",
        "Account's cells are reordered: Membership first",
        move("account", "Membership", 2),
    ),
    Scenario("bigger-text", "Dynamic Type: every frame of every screen changes", every_frame),
    Scenario(
        "partial-label",
        'Membership is now "Membership & billing" (a partial label never matches)',
        rename("account", "Membership", "Membership & billing"),
        wants((3, Want("account", "Membership & billing"))),
    ),
    Scenario(
        "mostly-renamed",
        "four of the six steps' buttons renamed (the circuit breaker: more than half would be healed)",
        both(
            rename("today", "Profile", "Me"),
            rename("profile", "Settings", "Preferences"),
            rename("settings", "Account", "My account"),
            rename("account", "Membership", "Plan"),
        ),
        wants(
            (0, Want("today", "Me")),
            (1, Want("profile", "Preferences")),
            (2, Want("settings", "My account")),
            (3, Want("account", "Plan")),
        ),
    ),
)


# -- noting what was sent --------------------------------------------------------------------------


@attrs.frozen
class Acted:
    """One action the phone received: where it was sent and on what."""

    app: str
    screen: str
    role: str
    label: str
    identifier: str


def is_want(want: Want, acted: Acted) -> bool:
    return (want.app, want.screen, want.label) == (acted.app, acted.screen, acted.label) and (
        want.id is None or want.id == acted.identifier
    )


def progress(wanted: Sequence[Want], log: Sequence[Acted]) -> tuple[int, int]:
    """(intended actions done, wrong actions): each action is right when it is the next intended one."""
    done = wrong = 0
    for acted in log:
        if done < len(wanted) and is_want(wanted[done], acted):
            done += 1
        else:
            wrong += 1
    return done, wrong


class LoggedDevice:
    """The scripted phone, noting every action and every read's fingerprint (it changes nothing)."""

    def __init__(self, phone: ScriptedPhone) -> None:
        self.phone = phone
        self.log: list[Acted] = []
        self.last_read: mc.Screen | None = None
        self.read_before_act: list[str] = []

    def where(self) -> tuple[str, str]:
        front = self.phone.front
        return front, self.phone.screen_name(front) or ""

    async def info(self) -> mc.DeviceInfo:
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self.phone.launch(bundle, options)

    async def read(self) -> mc.Screen:
        self.last_read = await self.phone.read()
        return self.last_read

    async def act(self, action: mc.Action) -> None:
        """Send; note the action unless the phone refused it before sending (``DeviceError``)."""
        app, screen = self.where()
        e = action.element
        acted = Acted(
            app, screen, "" if e is None else e.role, "" if e is None else e.label, "" if e is None else e.identifier
        )
        fingerprint = "" if self.last_read is None else self.last_read.fingerprint
        try:
            await self.phone.act(action)
        except mc.UnknownOutcome:
            self.log.append(acted)  # it may have landed: it counts
            raise
        self.log.append(acted)
        self.read_before_act.append(fingerprint)


# -- the oracle model ------------------------------------------------------------------------------

_ROW = re.compile(r'^(e[0-9]+) (\S+) ("(?:[^"\\]|\\.)*")(.*)$')
_ID = re.compile(r' id=("(?:[^"\\]|\\.)*")')


class OracleModel:
    """A model written for this benchmark: it knows the scenario's intended actions (see the module doc).

    Each call sleeps ``delay`` on the clock, then taps the next intended action not yet done when it
    is a row of the prompt's screen; says done when every intended action is done; says blocked when
    the app isn't on the screen the next action belongs to; and when that screen is right but the
    control isn't shown yet, it answers with no action (it waits a turn), as a model looking at a
    loading screen would.
    """

    def __init__(self, clock: mc.Clock, device: LoggedDevice, wanted: Sequence[Want], delay: float) -> None:
        self.clock = clock
        self.device = device
        self.wanted = tuple(wanted)
        self.delay = delay
        self.calls = 0

    @property
    def name(self) -> str:
        return "oracle"

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.calls += 1
        await self.clock.sleep(self.delay)
        usage = estimate_usage(prompt)
        done, _wrong = progress(self.wanted, self.device.log)
        if done >= len(self.wanted):
            return mc.Decision(mc.DecisionKind.DONE, reason="every intended action is done", usage=usage)
        want = self.wanted[done]
        if self.device.where() != (want.app, want.screen):
            return mc.Decision(mc.DecisionKind.BLOCKED, reason=f"not on {want.screen}", usage=usage)
        for line in prompt.screen.splitlines():
            m = _ROW.match(line)
            if m is None or json.loads(m.group(3)) != want.label:
                continue
            ident = _ID.search(m.group(4))
            if want.id is not None and (json.loads(ident.group(1)) if ident else "") != want.id:
                continue
            action = mc.ModelAction(mc.Op.TAP, target=m.group(1))
            return mc.Decision(mc.DecisionKind.ACT, (action,), f"tap {want.label}", usage)
        return mc.Decision(mc.DecisionKind.ACT, (), f"waiting for {want.label} to show", usage)


# -- running one scenario under one policy ---------------------------------------------------------


@attrs.frozen
class Outcome:
    """What one policy did in one scenario."""

    scenario: str
    policy: str
    model_calls: int
    replayed: int
    wrong: int
    done: int
    wanted: int
    verdict: str
    why: str
    seconds: float

    def cell(self) -> str:
        mark = {"passed": "P", "failed": "F", "couldnt_run": "C", "needs_review": "R"}[self.verdict]
        return f"{self.model_calls}/{self.replayed}/{self.wrong} {mark}"


@attrs.frozen
class Recorded:
    """The path recorded on a base app, with the read fingerprint each step was recorded on.

    ``final`` is the fingerprint of the verdict's read after the last step (the screen that means
    done, for the per-decision cache).
    """

    project: Path
    check_file: Path
    steps: tuple[mc.Step, ...]
    fingerprints: tuple[str, ...]
    final: str


def load_doc(path: Path) -> Doc:
    data: Doc = YAML(typ="safe").load(path.read_text())
    return data


def build(doc: Doc, latency: str, source: str) -> AppScript:
    doc = copy.deepcopy(doc)
    doc["latency"] = latency
    return AppScript.from_dict(doc, source)


def record(base: AppScript, work: Path, name: str, wants: Sequence[Want] | None) -> Recorded:
    """Record the check on ``base`` with the SDK's Smart: the scripted model, or the oracle for ``wants``."""
    project = work / f"recorded-{name}"
    checks = project / ".mobster" / "checks"
    checks.mkdir(parents=True)
    check_file = checks / CHECK.name
    shutil.copyfile(CHECK, check_file)
    clock = FakeClock()
    device = LoggedDevice(ScriptedPhone(base, clock=clock))
    model: mc.Model = ScriptedModel(clock=clock) if wants is None else OracleModel(clock, device, wants, 0.0)
    result = clock.run(
        mc.run_check(
            mc.load_check(check_file),
            device,
            clock,
            model=model,
            options=mc.RunOptions(screenshots=False, root=project),
        )
    )
    if result.verdict is not mc.Verdict.PASSED:
        raise SystemExit(f"recording on {name} failed: {result.outcome.message}")
    stored = json.loads(next((project / ".mobster" / "cache" / "replay").glob("*.json")).read_text())
    steps = mc.load_path(stored["steps"])
    if len(device.read_before_act) != len(steps):
        raise SystemExit("recording: one read fingerprint per recorded step was expected")
    assert device.last_read is not None
    return Recorded(project, check_file, steps, tuple(device.read_before_act), device.last_read.fingerprint)


def run_ours(rec: Recorded, app: AppScript, sc: Scenario, policy: str, work: Path) -> Outcome:
    """The real SDK: ``run_check`` on the changed app, with the recorded path in its project."""
    project = work / f"{sc.name}-{policy}"
    shutil.copytree(rec.project, project)
    clock = FakeClock()
    device = LoggedDevice(ScriptedPhone(app, clock=clock))
    model: mc.Model
    if policy == "ours":
        model = ScriptedModel(clock=clock, delay=MODEL_SECONDS)
    else:
        model = OracleModel(clock, device, sc.wants, MODEL_SECONDS)
    check = mc.load_check(project / ".mobster" / "checks" / rec.check_file.name)
    result = clock.run(
        mc.run_check(check, device, clock, model=model, options=mc.RunOptions(screenshots=False, root=project))
    )
    done, wrong = progress(sc.wants, device.log)
    replayed = sum(1 for s in result.steps if s.source is StepSource.REPLAY)
    why = f"{result.outcome.failure_class.value}: {result.outcome.message}" if result.outcome.failure_class else ""
    return Outcome(
        sc.name, policy, result.model_calls, replayed, wrong, done, len(sc.wants), result.verdict.value, why,
        result.seconds,
    )  # fmt: skip


def jaccard_rule(step: mc.Step, screen: mc.Screen) -> mc.Element | bool | None:
    """``jaccard-0.8``'s reuse rule: False when the step may not run; else its element (None: no target).

    The app in front, a screen as alike as 0.8 (or the same hash), and the target by label and role,
    the recorded tree path breaking a tie: the rule the SDK's matcher had before it counted a
    label's duplicates. Kept here so that a change to our matcher never changes a peer.
    """
    if step.op.is_global:
        return None
    if screen.app != step.app:
        return False
    if screen.hash != step.screen.hash and mc.similarity(screen, step.screen.signature) < JACCARD:
        return False
    if step.target is None:
        return None
    found = screen.find(step.target.role, step.target.label)
    if len(found) == 1:
        return found[0]
    at_path = [e for e in found if e.path == step.target.id]
    return at_path[0] if at_path else False


async def _wait_for(
    policy: str, step: mc.Step, fingerprint: str, dispatch: Dispatcher, clock: mc.Clock
) -> mc.Element | bool | None:
    """Poll like the SDK's replay (a step's wait) until the policy's reuse rule holds; False when it never does."""
    poll = DEFAULT_POLICY
    state = poll.start(clock.now())
    while True:
        now = clock.now()
        decision = poll.next(state, now)
        if decision.verdict == "drifted":
            return False
        if decision.verdict == "sleep":
            await clock.sleep(decision.until - now)
            continue
        started = clock.now()
        screen = await dispatch.read()
        state = state.observe(started=started, fingerprint=screen.fingerprint)
        if policy == "exact-hash-flow" and screen.fingerprint == fingerprint:
            return None if step.target is None else screen.element_at(step.target.id)
        if policy == "jaccard-0.8":
            found = jaccard_rule(step, screen)
            if found is not False:
                return found


async def _wait_for_key(
    keys: Collection[str], dispatch: Dispatcher, clock: mc.Clock, stale: str | None = None
) -> mc.Screen:
    """Poll like the SDK's replay until a read's fingerprint is one of ``keys``, or the screen drifts.

    ``stale`` is the fingerprint of the screen just acted on: until a read differs from it, it is
    the screen before the action took effect, not a decision to take again. Returns the last read
    either way (the caller looks its fingerprint up).
    """
    poll = DEFAULT_POLICY
    state = poll.start(clock.now())
    screen: mc.Screen | None = None
    while True:
        now = clock.now()
        decision = poll.next(state, now)
        if decision.verdict == "drifted":
            assert screen is not None  # the policy reads before it drifts
            return screen
        if decision.verdict == "sleep":
            await clock.sleep(decision.until - now)
            continue
        started = clock.now()
        screen = await dispatch.read()
        state = state.observe(started=started, fingerprint=screen.fingerprint)
        if screen.fingerprint == stale:
            continue
        stale = None
        if screen.fingerprint in keys:
            return screen


@attrs.define
class Tally:
    """What a run of another policy did so far (it survives a run that ends early)."""

    replayed: int = 0
    verdict: str = ""
    why: str = ""


async def model_turn(agent: Agent, screen: mc.Screen, rest: Sequence[mc.Step]) -> tuple[mc.Decision, mc.Screen]:
    """One model decision as the SDK's agent takes it: reading while the model thinks, then acting
    (one action) on the newest read; returns the decision and the screen after it."""
    decision = await agent.ask_while_reading(screen, recorded=rest)
    if decision.kind is mc.DecisionKind.ACT and decision.actions:
        screen = await agent.act_turn(screen, decision.actions[:1])
    elif decision.kind is mc.DecisionKind.ACT:
        screen = await agent.settled_screen()
    return decision, screen


async def per_decision(rec: Recorded, agent: Agent, dispatch: Dispatcher, clock: mc.Clock, tally: Tally) -> str:
    """``exact-hash-step``: every decision asks the cache first; returns why it was blocked, or ""."""
    cache: dict[str, mc.Step] = {}
    for fingerprint, recorded in zip(rec.fingerprints, rec.steps, strict=True):
        cache.setdefault(fingerprint, recorded)
    keys = {*cache, rec.final}
    sent = 0
    stale: str | None = None
    for _turn in range(MAX_TURNS):
        screen = await _wait_for_key(keys, dispatch, clock, stale)
        stale = None
        if screen.fingerprint == rec.final:
            return ""  # the cached decision for the recording's last screen: done
        step = cache.get(screen.fingerprint)
        if step is not None:
            element = None if step.target is None else screen.element_at(step.target.id)
            action = mc.Action(step.op, element=element, text=step.text if step.op is mc.Op.TYPE else None)
            sent += 1
            await dispatch.send(f"cache-{sent}", step.describe(), action, {"step": sent})
            tally.replayed += 1
            stale = screen.fingerprint  # the next wait starts at once, as the SDK's replay does
            continue
        decision, _screen = await model_turn(agent, screen, ())
        if decision.kind is mc.DecisionKind.DONE:
            return ""
        if decision.kind is mc.DecisionKind.BLOCKED:
            return decision.reason
    return "too many turns"


async def run_other_async(
    policy: str, rec: Recorded, device: LoggedDevice, clock: mc.Clock, model: OracleModel, tally: Tally
) -> None:
    """A model of another tool's policy (see the module doc); fills ``tally``."""
    check = mc.load_check(rec.check_file)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    await dispatch.launch(BUNDLE, check.launch_options())
    info = await device.info()
    brief = Brief(
        request=check.request_text(),
        kind=info.kind,
        provenance=Provenance.of(steps=check.steps),
        steps=check.steps,
        screenshots=False,
    )
    agent = Agent(ModelCalls(model), dispatch, brief)
    blocked = ""
    if policy == "exact-hash-step":
        blocked = await per_decision(rec, agent, dispatch, clock, tally)
    else:
        at = 0
        if policy != "no-cache":
            for at, step in enumerate(rec.steps):  # ``at`` stays where the model takes over
                if policy == "path-replay":
                    screen = await agent.settled_screen()
                    found: mc.Element | bool | None = False
                    if step.target is not None:
                        found = screen.element_at(step.target.id) or False
                else:
                    found = await _wait_for(policy, step, rec.fingerprints[at], dispatch, clock)
                if found is False:
                    break
                element = found if isinstance(found, mc.Element) else None
                action = mc.Action(step.op, element=element, text=step.text if step.op is mc.Op.TYPE else None)
                await dispatch.send(f"step-{at + 1}", step.describe(), action, {"step": at + 1})
                tally.replayed += 1
            else:
                at = len(rec.steps)
        if at < len(rec.steps) or policy == "no-cache":
            rest = rec.steps[at:]
            screen = await agent.settled_screen()
            for _turn in range(MAX_TURNS):
                decision, screen = await model_turn(agent, screen, rest)
                if decision.kind is mc.DecisionKind.DONE:
                    break
                if decision.kind is mc.DecisionKind.BLOCKED:
                    blocked = decision.reason
                    break
            else:
                blocked = "too many turns"
    if blocked:
        tally.verdict, tally.why = "failed", f"blocked: {blocked}"
        return
    expect = check.expect
    read = await settled_read(
        lambda: dispatch.read_evidence("the verdict"), clock, accept=lambda s: all(r.ok for r in evaluate(expect, s))
    )
    outcome = decide(expect, Grounds(evaluate(expect, read.screen), read.screen.app), BUNDLE)
    tally.verdict = outcome.verdict.value
    tally.why = outcome.failure_class.value if outcome.failure_class else ""


def run_other(rec: Recorded, app: AppScript, sc: Scenario, policy: str) -> Outcome:
    clock = FakeClock()
    device = LoggedDevice(ScriptedPhone(app, clock=clock))
    model = OracleModel(clock, device, sc.wants, MODEL_SECONDS)
    began = clock.now()
    tally = Tally()
    try:
        clock.run(run_other_async(policy, rec, device, clock, model, tally))
    except Ended as exc:
        # As the SDK ends a run: an action the phone refused before sending it (its element is no longer
        # where the read showed it), or one whose outcome is unknown.
        tally.verdict, tally.why = "couldnt_run", f"{exc.outcome.failure_class}: {exc.outcome.message}"
    done, wrong = progress(sc.wants, device.log)
    return Outcome(
        sc.name, policy, model.calls, tally.replayed, wrong, done, len(sc.wants), tally.verdict, tally.why,
        clock.now() - began,
    )  # fmt: skip


def run_all(scenarios: Sequence[Scenario], latency: str, work: Path) -> list[Outcome]:
    doc = load_doc(BASE_APP)
    base = build(doc, latency, BASE_APP.name)
    recorded: dict[str, tuple[Doc, Recorded]] = {}
    out: list[Outcome] = []
    for sc in scenarios:
        name = "app" if sc.base is None else sc.base.name
        if name not in recorded:
            based = copy.deepcopy(doc)
            if sc.base is not None:
                sc.base.change(based)
            app = build(based, latency, f"{name}.yaml")
            recorded[name] = (based, record(app, work, name, None if sc.base is None else sc.base.wants))
        based, rec = recorded[name]
        changed = copy.deepcopy(based)
        sc.change(changed)
        app = build(changed, latency, f"{sc.name}.yaml")
        if app.apps[BUNDLE].version != base.apps[BUNDLE].version or app.apps[BUNDLE].build != base.apps[BUNDLE].build:
            raise SystemExit(f"{sc.name}: a changed build must keep the version and build (the path must apply)")
        for policy in POLICIES:
            if policy.startswith("ours"):
                out.append(run_ours(rec, app, sc, policy, work))
            else:
                out.append(run_other(rec, app, sc, policy))
    return out


# -- the report ------------------------------------------------------------------------------------


def totals(outcomes: Sequence[Outcome], policy: str) -> dict[str, Any]:
    mine = [o for o in outcomes if o.policy == policy]
    return {
        "model_calls": sum(o.model_calls for o in mine),
        "replayed": sum(o.replayed for o in mine),
        "wrong": sum(o.wrong for o in mine),
        "passed": sum(1 for o in mine if o.verdict == "passed"),
        "failed": sum(1 for o in mine if o.verdict != "passed"),
        "seconds": round(sum(o.seconds for o in mine), 2),
    }


def findings(outcomes: Sequence[Outcome]) -> list[str]:
    """The target for ``ours`` and ``ours+oracle``, where it isn't met, and why ours fails where it does."""
    lines: list[str] = []
    by = {(o.scenario, o.policy): o for o in outcomes}
    scenarios = list(dict.fromkeys(o.scenario for o in outcomes))
    for ours in ("ours", "ours+oracle"):
        t = totals(outcomes, ours)
        clean = [p for p in ORACLE_POLICIES if p != ours and totals(outcomes, p)["wrong"] == 0]
        fewer = [p for p in clean if totals(outcomes, p)["model_calls"] < t["model_calls"]]
        wrong_in = [name for name in scenarios if by[(name, ours)].wrong]
        verdict = "met" if not wrong_in and not fewer else "NOT met"
        others = ", ".join(f"{p} {totals(outcomes, p)['model_calls']}" for p in clean) or "none"
        lines.append(
            f"target for {ours}: zero wrong actions in every scenario (wrong in {len(wrong_in)} of {len(scenarios)}) "
            f"and the fewest model calls of the policies with zero wrong actions ({t['model_calls']}; {others}): "
            f"{verdict}"
        )
        for name in scenarios:
            o = by[(name, ours)]
            if o.wrong:
                lines.append(f"  {name}: {o.wrong} wrong action(s); {o.verdict}, {o.why}")
            cheaper = [p for p in clean if by[(name, p)].model_calls < o.model_calls]
            if cheaper:
                got = ", ".join(f"{p} {by[(name, p)].model_calls} ({by[(name, p)].verdict})" for p in cheaper)
                lines.append(f"  {name}: {o.model_calls} model calls ({o.verdict}); fewer by {got}")
        for name in scenarios:
            o = by[(name, ours)]
            if o.verdict == "passed":
                continue
            oracle = by[(name, "ours+oracle")]
            if name in BY_DESIGN:
                lines.append(f"  {name}: {o.verdict}, by design: {BY_DESIGN[name]}")
            elif ours == "ours" and oracle.verdict == "passed":
                lines.append(
                    f"  {name}: {o.verdict}, the scripted model's limit, not the policy's (ours+oracle passes with "
                    f"{oracle.model_calls} call(s)): {o.why}"
                )
            else:
                lines.append(f"  {name}: {o.verdict}, NOT by design: {o.why}")
    return lines


def not_passed(outcomes: Sequence[Outcome]) -> list[str]:
    """Why each run that didn't pass ended so (the verdict's class and message)."""
    return [f"  {o.scenario} / {o.policy}: {o.verdict}, {o.why}" for o in outcomes if o.verdict != "passed"]


def render(outcomes: Sequence[Outcome], latency: str) -> str:
    out: list[str] = []
    out.append(
        f"Changed-app scenarios, the recorded six-step path replayed under each policy (FakeClock, {latency} latency, "
        f"model {MODEL_SECONDS:g} s a call)."
    )
    out.append("Only 'ours' is the SDK; the others are models written for this comparison (module doc).")
    out.append("Cell: model calls / steps replayed / wrong actions, then the verdict (P passed, F failed).")
    out.append("")
    width = 16
    head = f"{'scenario':<26}" + "".join(f"{p:>{width}}" for p in POLICIES)
    out.append(head)
    out.append("-" * len(head))
    scenarios = list(dict.fromkeys(o.scenario for o in outcomes))
    by = {(o.scenario, o.policy): o for o in outcomes}
    out.extend(f"{name:<26}" + "".join(f"{by[(name, p)].cell():>{width}}" for p in POLICIES) for name in scenarios)
    out.append("-" * len(head))
    for key, label in (
        ("model_calls", "model calls"),
        ("replayed", "steps replayed"),
        ("wrong", "wrong actions"),
        ("passed", "passed"),
        ("failed", "not passed"),
        ("seconds", "simulated s"),
    ):
        out.append(f"{label:<26}" + "".join(f"{totals(outcomes, p)[key]:>{width}}" for p in POLICIES))
    out.append("")
    out.extend(findings(outcomes))
    out.append("")
    out.append("Runs that didn't pass:")
    out.extend(not_passed(outcomes))
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Replay changed-app scenarios under several reuse policies.")
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    parser.add_argument("--latency", default="usb-iphone", choices=sorted(PROFILES), help="default: %(default)s")
    parser.add_argument("--json", type=Path, help="write every outcome and the totals here")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)
    if args.list:
        for sc in SCENARIOS:
            print(f"{sc.name:<26} {sc.what}")
        return 0
    scenarios = list(SCENARIOS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        known = {sc.name: sc for sc in SCENARIOS}
        unknown = [n for n in names if n not in known]
        if unknown:
            parser.error(f"--only: unknown scenario {unknown[0]!r} (see --list)")
        scenarios = [known[n] for n in names]
    with tempfile.TemporaryDirectory(prefix="mobster-policies-") as tmp:
        outcomes = run_all(scenarios, args.latency, Path(tmp))
    print(render(outcomes, args.latency))
    if args.json is not None:
        doc = {
            "latency": args.latency,
            "model_seconds": MODEL_SECONDS,
            "policies": list(POLICIES),
            "scenarios": [{"name": sc.name, "what": sc.what} for sc in scenarios],
            "outcomes": [attrs.asdict(o) for o in outcomes],
            "totals": {p: totals(outcomes, p) for p in POLICIES},
            "findings": findings(outcomes),
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
