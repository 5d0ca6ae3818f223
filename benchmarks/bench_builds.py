"""What carrying a path to the next build saves: a seeded series of builds, without and with ``--carry``.

A team ships a build a day. Without carry, every new build (a new version or build number) has no
recorded path, so every check records afresh with Smart: one model call per step and one for
"done". With carry (``RunOptions(carry=True)``, ``mobster test --carry``), the newest earlier
build's path replays under the same matcher, heals and breaker, and Smart records only when the
carried path can't go on.

The world. A sample app (``data/builds-app.yaml``: a home screen, a profile, settings four levels
deep, a paywall, an inbox, help; 20 screens) on the scripted phone with the ``zero`` latency
profile, on a FakeClock: the whole series runs in seconds of real time. Ten checks
(``data/builds-checks/``) of 2 to 6 steps walk it. Build 1 is the app as it is; each next build
(version ``1.<n>``, build ``<n>``) takes the previous one and draws **one change** from the mix
(``--mix``, seeded by ``--seed``). The default mix, in percent of builds:

==============  ==  ==========================================================================
none            50  nothing a check touches (only the version and build numbers change)
move             8  a control on a check's path moves (its frame)
artwork          4  an image's artwork changes (its identifier and frame)
value            4  a value on a check's screen changes
rename           8  a control a check taps is renamed
popup            5  a popup with one "Not now" opens after a control a check taps
new-screen       4  a new screen ("What's new", "Continue") opens after a control a check taps
remove-step      4  a level is gone: the control of the next screen moves up a level
duplicate        6  a second control with a tapped control's label and role appears on its
                    screen (above it, below it, or nested in a new section at the top)
past-breaker     4  more than half of one check's controls are renamed (the breaker stops a heal)
bug              3  this build only: the text a check expects on its last screen is gone (a
                    regression: the check must fail, with carry as without)
==============  ==  ==========================================================================

A popup or new screen is never inserted after the *last* step of a check: a replay's verdict would
judge the popup (as it does on a same-numbered rebuild today), where the fresh recording's tester
dismisses it (see docs/benchmarks.md, finding B1).

The model. Every run uses an **oracle** written for this benchmark: it knows, for each check and
build, the actions a careful tester takes (it follows each element by its accessibility
identifier, which the builds keep when they rename a control; a copy gets a new one). It never
errs, so the two modes differ only by the policy. It sleeps 2.5 s a call (simulated) and reports
usage estimated at 4 characters a token plus 150 output tokens, priced at $2 / $10 per million
input / output tokens (a Sonnet-class list price).

Per build and check, two runs of the real ``run_check``:

- **without carry** (today): the project of recordings; each new build records afresh with Smart.
  This run is also the **fresh recording** of the build: its actions and verdict are the reference.
- **with carry**: a second project, carried from build to build. After each build the heals it
  wrote are accepted (``accept_heals``, as a team reviewing the heal file would); ``--pending``
  leaves them waiting, so they count in the breaker of later builds.

**A wrong action** is an action of the carry run that a fresh recording on that build would not
take: the run's actions after each launch (a carried attempt, and the recording after it when it
fell back) are compared one by one with the fresh recording's, as (scripted screen, element's
accessibility identifier, op, typed text); the k-th action of an attempt is wrong when it differs
from the fresh recording's k-th action, or when the fresh recording has no k-th action. An attempt
that stops early (it drifted, and Smart took over) is not wrong for the actions it didn't take.

Printed per build: the change, and for each mode the model calls, the cost and the verdicts; for
carry also the checks that ran with no model call, heals, fall-backs to Smart, wrong actions and
verdicts that differ from the fresh recording's. Then the totals and the **cache-hit rate** across
builds 2..N (checks whose carried path ran to the verdict with no model call), and the share of
checks whose carried path was used at all (heals included).

Usage::

    python benchmarks/bench_builds.py [--builds 30] [--seed 13] [--mix rename=20,none=80] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML

import mobster_core as mc
from mobster_core.heals import accept_heals
from mobster_core.prompts import estimate_usage
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
APP_FILE = DATA / "builds-app.yaml"
CHECKS = DATA / "builds-checks"
BUNDLE = "com.example.yourapp"
MODEL_SECONDS = 2.5
PRICES = mc.PriceTable().extend({"oracle": mc.Price(2.0, 10.0, 0.0)})

DEFAULT_MIX: dict[str, int] = {
    "none": 50,
    "move": 8,
    "artwork": 4,
    "value": 4,
    "rename": 8,
    "popup": 5,
    "new-screen": 4,
    "remove-step": 4,
    "duplicate": 6,
    "past-breaker": 4,
    "bug": 3,
}

Doc = dict[str, Any]
Element = dict[str, Any]


# -- the intended actions of each check ------------------------------------------------------------


@attrs.frozen
class Intent:
    """One action a careful tester takes: ``op`` on the element whose identifier is ``key``."""

    op: str
    key: str
    text: str | None = None


@attrs.frozen
class CheckPlan:
    """A check: its file, its intended actions on the current build, and the text it expects last."""

    name: str
    file: Path
    intents: tuple[Intent, ...]
    expects: str


def read_yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def screens_of(doc: Doc) -> dict[str, list[Element]]:
    screens: dict[str, list[Element]] = doc["apps"][BUNDLE]["screens"]
    return screens


def walk(elements: list[Element]) -> list[tuple[list[Element], Element]]:
    """Every element with the list that holds it, depth first."""
    out: list[tuple[list[Element], Element]] = []
    for e in elements:
        out.append((elements, e))
        out.extend(walk(e.get("children", [])))
    return out


def find(doc: Doc, key: str) -> tuple[str, list[Element], Element]:
    """(screen, the list that holds it, the element) of the element whose identifier is ``key``."""
    for name, elements in screens_of(doc).items():
        for holder, e in walk(elements):
            if e.get("id") == key:
                return name, holder, e
    raise KeyError(key)


def load_plans(doc: Doc) -> list[CheckPlan]:
    """The checks, with their steps turned into intended actions on the first build.

    A step ``Tap "X"`` is the element labelled X on the screen the previous step led to (the
    app's launch screen first); ``Type "T" into "F"`` types into the field labelled F there.
    """
    plans: list[CheckPlan] = []
    grammar = re.compile(r'^(Tap|Type "(?P<text>[^"]*)" into) "(?P<label>[^"]+)"$')
    for file in sorted(CHECKS.glob("*.yaml")):
        check = mc.load_check(file)
        screen = doc["apps"][BUNDLE]["launch"]
        intents: list[Intent] = []
        for step in check.steps:
            m = grammar.match(step)
            if m is None:
                raise SystemExit(f"{file.name}: the benchmark reads Tap and Type steps only, not {step!r}")
            matches = [e for _h, e in walk(screens_of(doc)[screen]) if e.get("label") == m["label"]]
            if len(matches) != 1 or "id" not in matches[0]:
                raise SystemExit(f"{file.name}: {m['label']!r} is not one element with an id on {screen}")
            e = matches[0]
            intents.append(Intent("TYPE" if m["text"] is not None else "TAP", e["id"], m["text"]))
            screen = e.get("tap", screen)
        expects = next(a["text"] for a in read_yaml(file)["expect"] if "text" in a)
        plans.append(CheckPlan(file.stem, file, tuple(intents), expects))
    return plans


# -- the changes a build draws -----------------------------------------------------------------------


@attrs.define
class World:
    """The app as it is on the current build, and every check's intended actions on it."""

    doc: Doc
    plans: list[CheckPlan]
    rng: random.Random
    number: int = 1
    #: Each control's first label, by identifier: a rename starts from it, not from the last rename.
    first_labels: dict[str, str] = attrs.Factory(dict)

    def tapped(self) -> list[str]:
        """Identifiers of the elements some check taps, in a stable order."""
        return sorted({i.key for p in self.plans for i in p.intents if i.op == "TAP"})

    def last_keys(self) -> set[str]:
        return {p.intents[-1].key for p in self.plans}

    def visited(self) -> list[str]:
        """The screens some check's actions happen on."""
        return sorted({find(self.doc, i.key)[0] for p in self.plans for i in p.intents})

    def replace_intents(self, rewrite: Callable[[tuple[Intent, ...]], tuple[Intent, ...]]) -> None:
        self.plans = [attrs.evolve(p, intents=rewrite(p.intents)) for p in self.plans]


def labels_on(doc: Doc, screen: str) -> set[tuple[str, str]]:
    return {(e["role"], e.get("label", "")) for _h, e in walk(screens_of(doc)[screen])}


RENAMES = ("Your {}", "{} & more", "Open {}", "My {}", "{} Plus", "See {}")


def new_label(world: World, screen: str, element: Element) -> str | None:
    taken = labels_on(world.doc, screen)
    first = world.first_labels.setdefault(element["id"], element["label"])
    for form in world.rng.sample(RENAMES, len(RENAMES)):
        label = form.format(first)
        if (element["role"], label) not in taken:
            return label
    return None


def change_none(_world: World) -> str:
    return "nothing a check touches"


def change_move(world: World) -> str:
    key = world.rng.choice(world.tapped())
    _screen, _holder, e = find(world.doc, key)
    y = round(world.rng.uniform(0.1, 0.85), 3)
    e["frame"] = [0.05, y, 0.9, 0.06]
    return f'"{e["label"]}" moves to y={y}'


def change_artwork(world: World) -> str:
    images = [(n, e) for n in world.visited() for _h, e in walk(screens_of(world.doc)[n]) if e["role"] == "Image"]
    name, e = world.rng.choice(images)
    e["id"] = f"art-{world.number}"
    e["frame"] = [0.0, 0.08, 1.0, round(world.rng.uniform(0.2, 0.4), 3)]
    return f'the artwork of "{e["label"]}" on {name} is new'


def change_value(world: World) -> str:
    valued = [(n, e) for n in world.visited() for _h, e in walk(screens_of(world.doc)[n]) if "value" in e]
    name, e = world.rng.choice(valued)
    e["value"] = f"{world.number} of 5" if e["role"] != "Switch" else ("0" if e["value"] == "1" else "1")
    return f'the value of "{e["label"]}" on {name} is now {e["value"]!r}'


def change_rename(world: World, key: str | None = None) -> str:
    key = key or world.rng.choice(world.tapped())
    screen, _holder, e = find(world.doc, key)
    label = new_label(world, screen, e)
    if label is None:
        return "nothing (no free name)"
    old, e["label"] = e["label"], label
    return f'"{old}" on {screen} is renamed "{label}"'


def insert_after(world: World, kind: str) -> str:
    """A popup or a new screen after a tapped control that is no check's last step."""
    last = world.last_keys()
    keys = [k for k in world.tapped() if k not in last and "tap" in find(world.doc, k)[2]]
    if not keys:
        return "nothing (no control before a later step)"
    key = world.rng.choice(keys)
    screen, _holder, e = find(world.doc, key)
    name = f"{kind}-{world.number}"
    go = f"{name}.go"
    if kind == "popup":
        elements = [
            {"role": "StaticText", "label": "Turn on notifications?"},
            {"role": "StaticText", "label": "Get an alert when a check fails"},
            {"role": "Button", "label": "Not now", "id": go, "tap": e["tap"]},
        ]
        said = f'a popup ("Not now") opens after "{e["label"]}" on {screen}'
    else:
        elements = [
            {"role": "StaticText", "label": "What's new"},
            {"role": "Image", "label": "Illustration", "id": f"art-new-{world.number}"},
            {"role": "StaticText", "label": "Checks run twice as fast"},
            {"role": "Button", "label": "Continue", "id": go, "tap": e["tap"]},
        ]
        said = f'a new screen ("What\'s new", "Continue") opens after "{e["label"]}" on {screen}'
    screens_of(world.doc)[name] = elements
    e["tap"] = name

    def rewrite(intents: tuple[Intent, ...]) -> tuple[Intent, ...]:
        out: list[Intent] = []
        for i in intents:
            out.append(i)
            if i.key == key:
                out.append(Intent("TAP", go))
        return tuple(out)

    world.replace_intents(rewrite)
    return said


def change_popup(world: World) -> str:
    return insert_after(world, "popup")


def change_new_screen(world: World) -> str:
    return insert_after(world, "new-screen")


def change_remove_step(world: World) -> str:
    """A level is gone: E (on A, leading to B) is removed and B's next control F moves up to A.

    Only where every check that taps E taps F next, and F's label is free on A.
    """
    pairs: set[tuple[str, str]] = set()
    for p in world.plans:
        for first, then in zip(p.intents, p.intents[1:], strict=False):
            if first.op == then.op == "TAP":
                pairs.add((first.key, then.key))
    candidates = []
    for a, b in sorted(pairs):
        followers = {q.intents[n + 1].key for q in world.plans for n, i in enumerate(q.intents[:-1]) if i.key == a} | {
            None for q in world.plans if q.intents and q.intents[-1].key == a
        }
        screen_a, _h, e = find(world.doc, a)
        _screen_b, _hb, f = find(world.doc, b)
        if followers == {b} and (f["role"], f["label"]) not in labels_on(world.doc, screen_a):
            candidates.append((a, b))
    if not candidates:
        return "nothing (no level to remove)"
    a, b = world.rng.choice(candidates)
    screen_a, holder_a, e = find(world.doc, a)
    _screen_b, _hb, f = find(world.doc, b)
    moved = {**copy.deepcopy(f), "id": f"{b}.up-{world.number}"}
    holder_a[holder_a.index(e)] = moved

    def rewrite(intents: tuple[Intent, ...]) -> tuple[Intent, ...]:
        out: list[Intent] = []
        skip = False
        for n, i in enumerate(intents):
            if skip:
                skip = False
                continue
            if i.key == a and n + 1 < len(intents) and intents[n + 1].key == b:
                out.append(Intent("TAP", moved["id"]))
                skip = True
            else:
                out.append(i)
        return tuple(out)

    world.replace_intents(rewrite)
    return f'"{e["label"]}" on {screen_a} is gone; "{f["label"]}" moves up to {screen_a}'


def change_duplicate(world: World) -> str:
    key = world.rng.choice(world.tapped())
    screen, holder, e = find(world.doc, key)
    other = f"other-{world.number}"
    copy_of = {"role": e["role"], "label": e["label"], "id": f"{key}.copy-{world.number}", "tap": other}
    screens_of(world.doc)[other] = [
        {"role": "StaticText", "label": f"{e['label']} for families"},
        {"role": "Button", "label": "Back", "id": f"{other}.back", "tap": screen},
    ]
    where = world.rng.choice(("above it", "below it", "in a new section at the top"))
    top = screens_of(world.doc)[screen]
    if where == "above it":
        holder.insert(holder.index(e), copy_of)
    elif where == "below it":
        holder.insert(holder.index(e) + 1, copy_of)
    else:
        top.insert(1, {"role": "Other", "children": [copy_of]})
    return f'a second "{e["label"]}" ({e["role"]}) appears on {screen}, {where}'


def change_past_breaker(world: World) -> str:
    plans = [p for p in world.plans if len({i.key for i in p.intents if i.op == "TAP"}) >= 3]
    plan = world.rng.choice(plans)
    keys = list(dict.fromkeys(i.key for i in plan.intents if i.op == "TAP"))
    chosen = world.rng.sample(keys, len(plan.intents) // 2 + 1) if len(keys) > len(plan.intents) // 2 else keys
    said = [change_rename(world, k) for k in chosen]
    return f"{plan.name}: {len(chosen)} of its {len(plan.intents)} steps' controls renamed ({'; '.join(said)})"


def change_bug(world: World) -> str:
    """Recorded in ``world.bug``: applied to this build's app only, fixed in the next."""
    plan = world.rng.choice(world.plans)
    return f"bug:{plan.name}"


CHANGES: dict[str, Callable[[World], str]] = {
    "none": change_none,
    "move": change_move,
    "artwork": change_artwork,
    "value": change_value,
    "rename": change_rename,
    "popup": change_popup,
    "new-screen": change_new_screen,
    "remove-step": change_remove_step,
    "duplicate": change_duplicate,
    "past-breaker": change_past_breaker,
    "bug": change_bug,
}


@attrs.frozen
class Build:
    """One build: its number, the change it drew, its app script and every check's intended actions."""

    number: int
    kind: str
    what: str
    app: AppScript
    intents: dict[str, tuple[Intent, ...]]
    broken: str | None  # the check whose expected text this build lost (a bug), if any


def make_builds(count: int, mix: dict[str, int], seed: int, checks: int = 10) -> tuple[list[Build], list[CheckPlan]]:
    """The series of builds; the changes aim at the first ``checks`` checks (by name), the ones that run."""
    base = read_yaml(APP_FILE)
    plans = sorted(load_plans(base), key=lambda p: p.name)[:checks]
    world = World(copy.deepcopy(base), plans, random.Random(seed))
    kinds = [k for k, w in mix.items() if w > 0]
    weights = [mix[k] for k in kinds]
    builds: list[Build] = []
    for number in range(1, count + 1):
        world.number = number
        kind, what = "first", "the app as it is"
        if number > 1:
            kind = world.rng.choices(kinds, weights)[0]
            what = CHANGES[kind](world)
        doc = copy.deepcopy(world.doc)
        broken = None
        if what.startswith("bug:"):
            broken = what.removeprefix("bug:")
            plan = next(p for p in world.plans if p.name == broken)
            last_screen = str(find(doc, plan.intents[-1].key)[2]["tap"])
            shown = [e for _h, e in walk(screens_of(doc)[last_screen]) if e.get("label") == plan.expects]
            for e in shown:
                e["label"] = "Something went wrong"
            what = f'{broken}: "{plan.expects}" is gone from its last screen (this build only)'
        app = doc["apps"][BUNDLE]
        app["version"], app["build"] = f"1.{number - 1}", str(number)
        doc["latency"] = "zero"
        script = AppScript.from_dict(doc, f"build-{number}.yaml")
        builds.append(Build(number, kind, what, script, {p.name: p.intents for p in world.plans}, broken))
    return builds, world.plans


# -- the device and the model ------------------------------------------------------------------------


@attrs.frozen
class Acted:
    """One action the phone received: the scripted screen, the element's identifier, the op, the text."""

    screen: str
    key: str
    op: str
    text: str | None


class LoggedPhone:
    """The scripted phone, noting every launch and action (it changes nothing)."""

    def __init__(self, phone: ScriptedPhone) -> None:
        self.phone = phone
        self.attempts: list[list[Acted]] = []

    async def info(self) -> mc.DeviceInfo:
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        self.attempts.append([])
        await self.phone.launch(bundle, options)

    async def read(self) -> mc.Screen:
        return await self.phone.read()

    async def act(self, action: mc.Action) -> None:
        e = action.element
        screen = self.phone.screen_name(self.phone.front) or ""
        acted = Acted(screen, "" if e is None else e.identifier, action.op.value, action.text)
        await self.phone.act(action)
        self.attempts[-1].append(acted)

    @property
    def since_launch(self) -> list[Acted]:
        return self.attempts[-1] if self.attempts else []


_ROW = re.compile(r'^(e[0-9]+) .* id=("(?:[^"\\]|\\.)*")')


class Oracle:
    """A model that knows the careful tester's actions on this build (see the module doc)."""

    def __init__(self, clock: mc.Clock, phone: LoggedPhone, intents: Sequence[Intent]) -> None:
        self.clock = clock
        self.phone = phone
        self.intents = tuple(intents)
        self.calls = 0

    @property
    def name(self) -> str:
        return "oracle"

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.calls += 1
        await self.clock.sleep(MODEL_SECONDS)
        usage = estimate_usage(prompt)
        done = 0
        for acted in self.phone.since_launch:
            if done < len(self.intents) and acted.key == self.intents[done].key:
                done += 1
        if done >= len(self.intents):
            return mc.Decision(mc.DecisionKind.DONE, reason="every intended action is done", usage=usage)
        want = self.intents[done]
        for line in prompt.screen.splitlines():
            m = _ROW.match(line)
            if m is not None and json.loads(m.group(2)) == want.key:
                action = mc.ModelAction(mc.Op(want.op), target=m.group(1), text=want.text)
                return mc.Decision(mc.DecisionKind.ACT, (action,), f"{want.op} {want.key}", usage)
        return mc.Decision(mc.DecisionKind.ACT, (), f"waiting for {want.key}", usage)


# -- running the series ------------------------------------------------------------------------------


@attrs.frozen
class Run:
    """One check on one build in one mode."""

    build: int
    check: str
    mode: str  # fresh | carry
    verdict: str
    model_calls: int
    cost_usd: float
    path_mode: str  # launch | smart | replay, or empty when no step ran
    carried_from: str | None
    heals: int
    fell_back: bool
    wrong: int
    why: str
    seconds: float


def project(folder: Path, plans: Sequence[CheckPlan]) -> Path:
    checks = folder / ".mobster" / "checks"
    checks.mkdir(parents=True)
    for p in plans:
        shutil.copyfile(p.file, checks / p.file.name)
    return folder


def run_one(root: Path, build: Build, plan: CheckPlan, *, carry: bool) -> tuple[mc.CheckResult, list[list[Acted]]]:
    clock = FakeClock()
    phone = LoggedPhone(ScriptedPhone(build.app, clock=clock))
    model = Oracle(clock, phone, build.intents[plan.name])
    options = mc.RunOptions(carry=carry, screenshots=False, prices=PRICES)
    check = mc.load_check(root / ".mobster" / "checks" / plan.file.name)
    result = clock.run(mc.run_check(check, phone, clock, model=model, options=attrs.evolve(options, root=root)))
    return result, phone.attempts


def wrong_actions(attempts: Sequence[Sequence[Acted]], fresh: Sequence[Acted]) -> int:
    """Actions of any attempt that differ from the fresh recording's at the same place (module doc)."""
    return sum(1 for attempt in attempts for k, a in enumerate(attempt) if k >= len(fresh) or a != fresh[k])


def run_series(builds: Sequence[Build], plans: Sequence[CheckPlan], work: Path, *, pending: bool) -> list[Run]:
    today = project(work / "without-carry", plans)
    carried = project(work / "with-carry", plans)
    runs: list[Run] = []
    for build in builds:
        for plan in plans:
            fresh, fresh_attempts = run_one(today, build, plan, carry=False)
            if build.number > 1 and fresh.mode != "smart":
                raise SystemExit(f"build {build.number}, {plan.name}: without carry a new build must record afresh")
            reference = [a for attempt in fresh_attempts for a in attempt]
            runs.append(summarize(build, plan, "fresh", fresh, 0))
            result, attempts = run_one(carried, build, plan, carry=True)
            runs.append(summarize(build, plan, "carry", result, wrong_actions(attempts, reference)))
            if not pending and result.heals and result.identity is not None:
                accept_heals(mc.load_check(carried / ".mobster" / "checks" / plan.file.name), carried)
    return runs


def summarize(build: Build, plan: CheckPlan, mode: str, result: mc.CheckResult, wrong: int) -> Run:
    fell_back = result.carried_from is not None and result.mode == "smart"
    why = "" if result.outcome.failure_class is None else f"{result.outcome.failure_class}: {result.outcome.message}"
    if fell_back and result.path_why:
        why = result.path_why
    return Run(
        build.number, plan.name, mode, result.verdict.value, result.model_calls, result.cost.usd, result.mode or "",
        result.carried_from, result.healed_steps, fell_back, wrong, why, result.seconds,
    )  # fmt: skip


# -- the report --------------------------------------------------------------------------------------


def tally(runs: Sequence[Run]) -> dict[str, Any]:
    return {
        "model_calls": sum(r.model_calls for r in runs),
        "cost_usd": round(sum(r.cost_usd for r in runs), 6),
        "passed": sum(1 for r in runs if r.verdict == "passed"),
        "not_passed": sum(1 for r in runs if r.verdict != "passed"),
        "no_model": sum(1 for r in runs if r.model_calls == 0),
        "heals": sum(r.heals for r in runs),
        "fell_back": sum(1 for r in runs if r.fell_back),
        "wrong": sum(r.wrong for r in runs),
        "simulated_s": round(sum(r.seconds for r in runs), 1),
    }


def summary(builds: Sequence[Build], runs: Sequence[Run]) -> dict[str, Any]:
    fresh = [r for r in runs if r.mode == "fresh"]
    carry = [r for r in runs if r.mode == "carry"]
    by = {(r.build, r.check, r.mode): r for r in runs}
    differ = [r for r in carry if r.verdict != by[(r.build, r.check, "fresh")].verdict]
    later = [r for r in carry if r.build > 1]
    hits = [r for r in later if r.path_mode == "replay" and r.model_calls == 0 and r.carried_from is not None]
    used = [r for r in later if r.path_mode == "replay" and r.carried_from is not None]
    t_fresh, t_carry = tally(fresh), tally(carry)
    return {
        "builds": len(builds),
        "checks": len({r.check for r in runs}),
        "without_carry": t_fresh,
        "with_carry": t_carry,
        "verdicts_differ": len(differ),
        "cache_hit_rate": round(len(hits) / len(later), 4) if later else None,
        "carried_rate": round(len(used) / len(later), 4) if later else None,
        "calls_saved": t_fresh["model_calls"] - t_carry["model_calls"],
        "calls_ratio": round(t_carry["model_calls"] / t_fresh["model_calls"], 4) if t_fresh["model_calls"] else None,
    }


def render(builds: Sequence[Build], runs: Sequence[Run], doc: dict[str, Any], mix: dict[str, int], seed: int) -> str:
    out: list[str] = []
    out.append(
        f"{len(builds)} builds of {APP_FILE.name} (seed {seed}), {doc['checks']} checks, the scripted phone at zero "
        f"latency on a FakeClock, an oracle model ({MODEL_SECONDS:g} s a call, $2/$10 per million tokens)."
    )
    out.append("Mix: " + ", ".join(f"{k} {v}" for k, v in mix.items() if v))
    out.append("")
    head = (
        f"{'build':>5}  {'change':<14} {'calls':>5} {'cost $':>8} {'pass':>4} | {'calls':>5} {'cost $':>8} "
        f"{'pass':>4} {'0-call':>6} {'heals':>5} {'smart':>5} {'wrong':>5} {'differ':>6}  what changed"
    )
    out.append(f"{'':>5}  {'':<14} {'without carry (fresh)':^21} | {'with carry':^52}")
    out.append(head)
    out.append("-" * len(head))
    by_build: dict[int, list[Run]] = {}
    for r in runs:
        by_build.setdefault(r.build, []).append(r)
    pairs = {(r.build, r.check, r.mode): r for r in runs}
    for build in builds:
        mine = by_build[build.number]
        f = tally([r for r in mine if r.mode == "fresh"])
        c = tally([r for r in mine if r.mode == "carry"])
        differ = sum(1 for r in mine if r.mode == "carry" and r.verdict != pairs[(r.build, r.check, "fresh")].verdict)
        out.append(
            f"{build.number:>5}  {build.kind:<14} {f['model_calls']:>5} {f['cost_usd']:>8.4f} {f['passed']:>4} | "
            f"{c['model_calls']:>5} {c['cost_usd']:>8.4f} {c['passed']:>4} {c['no_model']:>6} {c['heals']:>5} "
            f"{c['fell_back']:>5} {c['wrong']:>5} {differ:>6}  {build.what}"
        )
    out.append("-" * len(head))
    f, c = doc["without_carry"], doc["with_carry"]
    out.append(
        f"{'total':>5}  {'':<14} {f['model_calls']:>5} {f['cost_usd']:>8.4f} {f['passed']:>4} | "
        f"{c['model_calls']:>5} {c['cost_usd']:>8.4f} {c['passed']:>4} {c['no_model']:>6} {c['heals']:>5} "
        f"{c['fell_back']:>5} {c['wrong']:>5} {doc['verdicts_differ']:>6}"
    )
    out.append("")
    checks = doc["checks"] * (len(builds) - 1)
    out.append(
        f"Model calls over the series: {c['model_calls']} with carry against {f['model_calls']} recording every build "
        f"afresh ({doc['calls_ratio']:.1%}; {doc['calls_saved']} fewer); cost ${c['cost_usd']:.4f} against "
        f"${f['cost_usd']:.4f}."
    )
    out.append(
        f"Cache-hit rate, builds 2..{len(builds)}: {doc['cache_hit_rate']:.1%} of {checks} check runs replayed the "
        f"carried path with no model call; {doc['carried_rate']:.1%} used it (heals included); "
        f"{c['fell_back']} fell back to Smart."
    )
    out.append(
        f"Wrong actions with carry: {c['wrong']}. Verdicts that differ from the fresh recording's: "
        f"{doc['verdicts_differ']}."
    )
    odd = [r for r in runs if r.mode == "carry" and (r.wrong or r.fell_back or r.verdict != "passed")]
    if odd:
        out.append("")
        out.append("With carry, the runs that fell back, didn't pass, or acted wrongly:")
        for r in odd:
            fresh = pairs[(r.build, r.check, "fresh")]
            out.append(
                f"  build {r.build} {r.check}: {r.verdict} (fresh: {fresh.verdict}), {r.model_calls} calls"
                f"{', wrong ' + str(r.wrong) if r.wrong else ''}: {r.why}"
            )
    return "\n".join(out)


def parse_mix(text: str) -> dict[str, int]:
    mix = dict.fromkeys(DEFAULT_MIX, 0)
    for part in text.split(","):
        if not part.strip():
            continue
        name, _, weight = part.partition("=")
        name = name.strip()
        if name not in CHANGES:
            raise ValueError(f"--mix: unknown change {name!r} (changes: {', '.join(CHANGES)})")
        try:
            mix[name] = int(weight)
        except ValueError:
            raise ValueError(f"--mix: {part!r}: the weight is a whole number, as in rename=10") from None
        if mix[name] < 0:
            raise ValueError(f"--mix: {part!r}: a weight is 0 or more")
    if not any(mix.values()):
        raise ValueError("--mix: at least one change needs a weight above 0")
    return mix


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--builds", type=int, default=30, help="builds in the series (default 30)")
    parser.add_argument("--checks", type=int, default=10, help="how many of the checks run (default all 10)")
    parser.add_argument("--seed", type=int, default=13, help="the series' seed (default 13)")
    parser.add_argument(
        "--mix",
        default=",".join(f"{k}={v}" for k, v in DEFAULT_MIX.items()),
        help="the changes a build draws, name=weight,... (default: %(default)s); unnamed changes weigh 0",
    )
    parser.add_argument("--pending", action="store_true", help="leave heals waiting for review (no accept)")
    parser.add_argument("--quick", action="store_true", help="8 builds and 4 checks: a look in a second")
    parser.add_argument("--json", type=Path, help="write every run and the totals here")
    args = parser.parse_args(argv)
    try:
        mix = parse_mix(args.mix)
    except ValueError as exc:
        parser.error(str(exc))
    count, checks = (8, 4) if args.quick else (args.builds, args.checks)
    if count < 2 or checks < 1:
        parser.error("--builds is 2 or more and --checks 1 or more")
    builds, plans = make_builds(count, mix, args.seed, checks)
    with tempfile.TemporaryDirectory(prefix="mobster-builds-") as tmp:
        runs = run_series(builds, plans, Path(tmp), pending=args.pending)
    doc = summary(builds, runs)
    print(render(builds, runs, doc, mix, args.seed))
    if args.json is not None:
        payload = {
            "seed": args.seed,
            "mix": mix,
            "pending": args.pending,
            **doc,
            "series": [{"build": b.number, "kind": b.kind, "what": b.what} for b in builds],
            "runs": [attrs.asdict(r) for r in runs],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    bad = doc["with_carry"]["wrong"] or doc["verdicts_differ"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
