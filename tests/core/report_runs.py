"""Report inputs built from real runs: the demo app on the scripted phone, the scripted model, a FakeClock.

Each scenario runs ``run_check`` as it is today into a temporary project and reads back what the run
folder holds (``result.json``, ``journal.jsonl``, ``frame-final.png``). Until the runner keeps a
frame before each step, the frames are taken here, the way the runner will (``_frames`` Rule 1): a
phone that takes a screenshot just before each action it is sent; a step that drifted (nothing
sent) gets the final frame, which is the screen it drifted on. The step targets and the
assertions' matched elements the runner will add to ``result.json`` are added from the actions the
phone received and the run's own assertion results.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._rules.frames import FINAL, frame_file, make_picture, plan_frames, step_frame
from mobster_core._rules.verdict import suite_exit_code
from mobster_core._store.journal import read_journal
from mobster_core._store.report import RunReport
from mobster_core.testing import FakeClock
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.scripted import ScriptedPhone, sample_path

SIGNUP = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Type "hunter22" into "Password"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""

PAYWALL_WRONG = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
  - visible: {label: Restore Purchases, role: button}
  - visible: {label: Start free trial, role: button}
"""


class FramedPhone(ScriptedPhone):
    """The scripted phone, taking a frame just before each action (as the runner will)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.frames: list[bytes] = []

    async def act(self, action: mc.Action) -> None:
        self.frames.append(await self.screenshot())
        await super().act(action)


def _target(action: mc.Action) -> dict[str, Any] | None:
    e = action.element
    if e is None:
        return None
    return {"label": e.label, "role": e.role, "id": e.path, "frame": list(e.frame)}


def _recorded_target(root: Path, data: Mapping[str, Any], index: int) -> dict[str, Any] | None:
    """The target of step ``index`` (from 1) of the path the run replayed, from the replay cache."""
    path = data["path"]
    cached = root / ".mobster" / "cache" / "replay" / f"{path['identity']}-{path['env']}.json"
    steps = json.loads(cached.read_text())["steps"]
    target = steps[index - 1]["target"]
    return None if target is None else {k: target[k] for k in ("label", "role", "id", "frame")}


def build_report(
    root: Path, result: mc.CheckResult, phone: FramedPhone, *, frames_mode: str = "auto"
) -> tuple[RunReport, dict[str, Any]]:
    """The report input for a finished run, as the wiring will make it; and the result dict it used."""
    run_dir = root / result.run_dir
    data = json.loads((run_dir / "result.json").read_text())
    journal = read_journal(run_dir / "journal.jsonl")
    final = (run_dir / "frame-final.png").read_bytes()
    full: dict[str, bytes] = {FINAL: final}
    sent = iter(zip(phone.frames, phone.actions, strict=True))
    for p, step in enumerate(data["steps"], 1):
        if step["reason"] is not None:
            # Nothing was sent: the frame is the screen it drifted on, the target the recorded one.
            full[step_frame(p)] = final
            step["target"] = _recorded_target(root, data, step["index"])
            continue
        frame, action = next(sent)
        full[step_frame(p)] = frame
        step["target"] = _target(action)
    for entry, outcome in zip(data["assertions"], result.assertions, strict=True):
        entry["matches"] = [{"label": e.label, "role": e.role, "frame": list(e.frame)} for e in outcome.matches]
    plan = plan_frames(data, frames_mode, sizes={k: len(v) for k, v in full.items()})
    files: dict[str, bytes | Path] = {}
    for base, png in full.items():
        if base in plan.full:
            files[frame_file(base)] = png
        for size, wanted in (("thumb", plan.thumbs), ("view", plan.views)):
            if base in wanted:
                picture = make_picture(png, size)
                files[frame_file(base, size, picture.kind)] = picture.data
    return RunReport(result=data, journal=journal, frames=files), data


def _run(
    root: Path, check: Path, app: str, *, model: bool, clock: FakeClock | None = None, **options: Any
) -> tuple[mc.CheckResult, FramedPhone]:
    clock = clock or FakeClock()
    phone = FramedPhone.from_text(app, clock=clock)
    assert isinstance(phone, FramedPhone)
    scripted = ScriptedModel(clock=clock) if model else None
    result = clock.run(
        run_check(load_check(check), phone, clock, model=scripted, options=RunOptions(root=root, **options))
    )
    return result, phone


class Runs(dict[str, tuple[RunReport, dict[str, Any]]]):
    """Report inputs by scenario name, with a short repr (Hypothesis prints a failing test's arguments)."""

    def __repr__(self) -> str:
        return f"<report inputs of the runs {', '.join(self)}>"


def scenarios(root: Path) -> Runs:
    """Five real runs in a project at ``root``: record, replay, heal, drift (strict CI) and a failed assertion."""
    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True)
    signup = checks / "signup.yaml"
    signup.write_text(SIGNUP)
    paywall = checks / "paywall.yaml"
    paywall.write_text(PAYWALL_WRONG)
    app = sample_path("yourapp").read_text()
    renamed = sample_path("yourapp-renamed").read_text()
    out = Runs()
    result, phone = _run(root, signup, app, model=True)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    out["record"] = build_report(root, result, phone)
    result, phone = _run(root, signup, app, model=True)
    assert result.mode == "replay", result.mode
    out["replay"] = build_report(root, result, phone)
    result, phone = _run(root, signup, renamed, model=True)
    assert result.heals, result.outcome
    out["heal"] = build_report(root, result, phone)
    # The healed path (Tap "Next") replayed on the original build, in strict CI: it drifts.
    result, phone = _run(root, signup, app, model=True, no_heal=True)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT, result.outcome
    out["drift"] = build_report(root, result, phone)
    result, phone = _run(root, paywall, app, model=True)
    assert result.outcome.failure_class is mc.FailureClass.ASSERTION, result.outcome
    out["assertion"] = build_report(root, result, phone)
    return out


def suite_results(runs: Mapping[str, tuple[RunReport, dict[str, Any]]]) -> dict[str, Any]:
    """A ``mobster.test/1`` document holding the given runs, as ``SuiteResult.to_dict()`` shapes it."""
    checks = [data for _, data in runs.values()]
    verdicts = [c["verdict"] for c in checks]
    return {
        "schema": "mobster.test/1",
        "suite_id": "20261130T051500Z-3f9a1c",
        "started_at": "2026-11-30T05:15:00Z",
        "seconds": round(sum(c["seconds"] for c in checks), 3),
        "exit_code": suite_exit_code(mc.Verdict(v) for v in verdicts),
        "summary": {
            **{v.value: verdicts.count(v.value) for v in mc.Verdict},
            "healed_steps": sum(len(h["new"]) for c in checks for h in c["heals"]),
            "model_calls": sum(c["model_calls"] for c in checks),
            "cost_usd": round(sum(c["cost_usd"] for c in checks), 6),
            "cost_estimated": any(c["cost_estimated"] for c in checks),
        },
        "checks": checks,
    }


# -- hostile text -----------------------------------------------------------------------------

HOSTILE = (
    "<script>alert(1)</script>",
    "</style><script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "background:url(javascript:alert(1));",
    "\u202egnp.exe\u202c",
    "\u200f\u061c\u2066rtl\u2069",
    "a\x00b\x1b[31mred",
    "\ud800 lone \udfff",
    "W" * 10_000,
    "</bdi></span></p></li></ol></section>",
    "<!-- -->",
    "]]><![CDATA[",
    "&amp;&lt;&#x3c;",
    "{{7*7}}${7*7}",
    "\r\n\t\u2028\u2029",
    "\U0001f600e\u0301",
)


def replace_strings(value: Any, new: Callable[[str], str]) -> Any:
    """``value`` with every string (not the keys) replaced by ``new(string)``."""
    if isinstance(value, str):
        return new(value)
    if isinstance(value, Mapping):
        return {k: replace_strings(v, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [replace_strings(v, new) for v in value]
    return value


def cycling(strings: list[str]) -> Callable[[str], str]:
    """Replaces the n-th string met with ``strings[n % len(strings)]`` (a fixed number of draws)."""
    count = [0]

    def new(_: str) -> str:
        count[0] += 1
        return strings[(count[0] - 1) % len(strings)]

    return new
