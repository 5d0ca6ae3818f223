"""Report inputs built from real runs: the demo app on the scripted phone, the scripted model, a FakeClock.

Each scenario runs ``run_check`` into a temporary project and reads back what the run folder holds:
``result.json`` (with each step's target and each assertion's matches), ``journal.jsonl`` and the
frames the runner kept in ``frames/`` (a frame before each action, taken with the read the step was
decided on, and the final one). The pages are rendered from those, as the runner renders its own
``report.html``; a test also checks that the runner's page is that page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core.results import read_journal, suite_exit_code
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_report import HtmlReport
from mobster_report._evidence import _recorded_pictures as recorded_pictures
from mobster_report._run_page import RunReport

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


def build_report(root: Path, result: mc.CheckResult) -> tuple[RunReport, dict[str, Any]]:
    """The report input of a finished run, from the files it wrote; and its result dict."""
    run_dir = root / result.run_dir
    data = json.loads((run_dir / "result.json").read_text())
    journal = read_journal(run_dir / "journal.jsonl")
    files: dict[str, bytes | Path] = {
        f"frames/{f.name}": f.read_bytes() for f in sorted((run_dir / "frames").iterdir())
    }
    files.update(recorded_pictures(root, data))  # a heal's recorded screens, kept when the path was recorded
    return RunReport(result=data, journal=journal, frames=files), data


def _run(
    root: Path, check: Path, app: str, *, model: bool, clock: FakeClock | None = None, **options: Any
) -> mc.CheckResult:
    clock = clock or FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock)
    scripted = ScriptedModel(clock=clock) if model else None
    return clock.run(
        run_check(
            load_check(check),
            phone,
            clock,
            model=scripted,
            options=RunOptions(root=root, reporter=HtmlReport(), **options),
        )
    )


class Runs(dict[str, tuple[RunReport, dict[str, Any]]]):
    """Report inputs by scenario name, with a short repr (Hypothesis prints a failing test's arguments)."""

    #: The project the runs wrote their folders in.
    root: Path = Path()

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
    out.root = root
    result = _run(root, signup, app, model=True)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    out["record"] = build_report(root, result)
    result = _run(root, signup, app, model=True)
    assert result.mode == "replay", result.mode
    out["replay"] = build_report(root, result)
    result = _run(root, signup, renamed, model=True)
    assert result.heals, result.outcome
    out["heal"] = build_report(root, result)
    # The healed path (Tap "Next") replayed on the original build, in strict CI: it drifts.
    result = _run(root, signup, app, model=True, no_heal=True)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT, result.outcome
    out["drift"] = build_report(root, result)
    result = _run(root, paywall, app, model=True)
    assert result.outcome.failure_class is mc.FailureClass.ASSERTION, result.outcome
    out["assertion"] = build_report(root, result)
    return out


def flaky_suite(root: Path) -> mc.SuiteResult:
    """A suite whose one check couldn't run on a phone that died launching it and passed on a retry on another.

    Its folder holds ``index.html`` (the cell badged flaky, the first attempt listed under it) and
    each attempt's run folder its ``report.html``: a couldn't-run page and a passed one.
    """
    from tests.core.run.test_suite_retries import FaultyPhone
    from tests.samples import SIGNUP_BY_BUNDLE

    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    clock = FakeClock()

    def suite(devices: Any, **options: Any) -> mc.SuiteResult:
        opts = RunOptions(root=root, reporter=HtmlReport(), **options)
        models = lambda: ScriptedModel(clock=clock)  # noqa: E731
        return clock.run(mc.run_suite(mc.find_checks(root), devices, clock, models=models, options=opts))

    assert suite([FaultyPhone(clock)]).exit_code == 0  # records the path
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    result = suite({"dying": dying, "good": good}, retries=1)
    assert result.flaky == 1, result.checks
    return result


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
