"""``mobster demo``: a sample project run on the scripted phone, no key, no phone.

The demo runs the library's own suite code (the same as ``mobster test``) on the scripted phone
with the ``usb-iphone`` latency profile and the scripted model thinking 2.5 s a call, on a
simulated clock: the times it prints are what those latencies add up to, measured by the clock
the SDK waits on, not the time the demo takes.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from mobster_core import PriceTable, RunOptions, SuiteResult, run_suite
from mobster_core.testing import FakeClock
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.scripted import ScriptedPhone, sample_path

from ._render import check_lines, pending_line, summary_line

__all__ = ["run_demo"]

SIGNUP = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""

PAYWALL = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
  - visible: {label: Restore Purchases, role: button}
"""

MODEL_SECONDS = 2.5


def _write_project(folder: Path) -> dict[str, Path]:
    checks = folder / ".mobster" / "checks"
    apps = folder / "apps"
    checks.mkdir(parents=True, exist_ok=True)
    apps.mkdir(parents=True, exist_ok=True)
    (checks / "signup.yaml").write_text(SIGNUP)
    (checks / "paywall.yaml").write_text(PAYWALL)
    base = sample_path("yourapp").read_text().replace("latency: zero", "latency: usb-iphone")
    renamed = sample_path("yourapp-renamed").read_text().replace("latency: zero", "latency: usb-iphone")
    newer = base.replace('version: "1.0"', 'version: "1.1"').replace('build: "1"', 'build: "2"')
    paths = {"app": apps / "yourapp.yaml", "rebuild": apps / "yourapp-rebuild.yaml", "newer": apps / "yourapp-1.1.yaml"}
    paths["app"].write_text(base)
    paths["rebuild"].write_text(renamed)
    paths["newer"].write_text(newer)
    # A demo starts clean: its own cache, runs and heal files go, its checks stay.
    for stale in (folder / ".mobster" / "cache", folder / ".mobster" / "runs", folder / ".mobster" / "test-results"):
        shutil.rmtree(stale, ignore_errors=True)
    for heal in checks.glob("*.heal.yaml"):
        heal.unlink()
    return paths


def _run(folder: Path, app: Path, *, model: bool) -> SuiteResult:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(app, clock=clock)
    # Price the scripted model like a Sonnet-class model, to show what a real first run costs.
    sonnet, _guessed = PriceTable().price_of("claude-sonnet")
    prices = PriceTable().extend({"scripted": sonnet})
    files = sorted((folder / ".mobster" / "checks").glob("*.yaml"))
    files = [f for f in files if not f.name.endswith(".heal.yaml")]

    def make_model() -> Any:
        return ScriptedModel(clock=clock, delay=MODEL_SECONDS) if model else None

    options = RunOptions(prices=prices, root=folder)
    return clock.run(run_suite(files, [phone], clock, models=make_model, options=options))


def _show(title: str, suite: SuiteResult) -> None:
    print(f"\n== {title}")
    for result in suite.checks:
        for line in check_lines(result):
            print(line)
    print(summary_line(suite))
    waiting = pending_line(sum(len(h.new) for c in suite.checks for h in c.heals))
    if waiting:
        print(waiting)


def _mobster() -> str:
    """The ``mobster`` command to type: its full path beside this Python, so no virtualenv needs activating."""
    beside = Path(sys.executable).with_name("mobster")
    return shlex.quote(str(beside)) if beside.exists() else "mobster"


def _report(folder: Path, suites: list[SuiteResult]) -> Path | None:
    """The demo's suites on one page: each check's runs side by side, each linking to its report.html."""
    from mobster_core.results import MergeError, merge_suites

    out = folder / ".mobster" / "test-results" / "demo"
    try:
        merge_suites([s.folder for s in suites], out)
    except (MergeError, OSError) as exc:
        print(f"\nThe demo's page couldn't be written: {exc}")
        return None
    return out / "index.html"


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def run_demo(folder: Path) -> int:
    """Create (or reuse) the sample project in ``folder`` and run it four times.

    Returns 0 when every run ended as the demo expects, else 1.
    """
    folder = folder.resolve()
    apps = _write_project(folder)
    print(f"Mobster replay demo in {folder}")
    print("The scripted phone has a USB iPhone's latencies; the scripted model thinks 2.5 s a call.")
    print("Times are simulated seconds; costs are priced like a Sonnet-class model (~ means estimated).")

    first = _run(folder, apps["app"], model=True)
    _show("1. First run: Smart performs each check once and records its path", first)
    second = _run(folder, apps["app"], model=False)
    _show("2. Second run, no model and no key: the recorded paths replay", second)
    third = _run(folder, apps["rebuild"], model=True)
    _show('3. A rebuild renames "Continue" to "Next" (same version and build): the step heals', third)
    fourth = _run(folder, apps["newer"], model=True)
    _show("4. Version 1.1 (2): a new build finds no path and records afresh", fourth)

    heal = folder / ".mobster" / "checks" / "signup.heal.yaml"
    print("\n== The heal waits for review beside the check:", heal.relative_to(folder))
    if heal.exists():
        print(heal.read_text().rstrip())
    mobster = _mobster()
    print()
    for command, what in (
        ("test heal", "what healed, with the screen before and after"),
        ("test heal --accept signup.yaml", "keep the healed steps as the recorded path"),
        ("test heal --reject signup.yaml", "bring the recorded steps back; they fail if they change"),
    ):
        print(f"   {mobster} {command:<31}# {what}")
    print(f"\nLook at: {folder.name}/.mobster/test-results/*/results.json and junit.xml,")
    print(f"         {folder.name}/.mobster/runs/*/journal.jsonl (every action, written before it was sent),")
    print(f"         {folder.name}/.mobster/cache/replay/ (the recorded paths).")
    print(f"Try it yourself: cd {shlex.quote(str(folder))} && {mobster} test --scripted apps/yourapp-rebuild.yaml")
    print(f"  (replays the healed path at $0 while the heal waits for review; then try {mobster} test heal)")

    page = _report(folder, [first, second, third, fourth])
    if page is not None:
        print("\nOne page shows the record, the $0 replay and the heal, each run's steps with their screens:")
        print(f"  {_shown(page)}")

    expected = (
        first.exit_code == 0
        and second.exit_code == 0
        and all(c.model_calls == 0 for c in second.checks)
        and third.exit_code == 0
        and any(c.heals for c in third.checks)
        and fourth.exit_code == 0
    )
    if not expected:
        print("\nThe demo did not go as expected: see the lines above.")
    return 0 if expected else 1
