"""What a flow and rows save a suite: model calls, heals and paths, against copying the login into every check.

It runs the SDK's own ``run_suite`` (the path of ``mobster test``) on one scripted phone with the
scripted model and a **fake clock** (what is counted is calls, heals and paths, never time):

- ``flows``: ``--checks`` checks (20 by default) that each log in with a 3-step ``login`` flow and
  then do 2 steps of their own. Run 1 records (the login once, then each check's own steps), run 2
  replays, run 3 runs on a rebuild whose sign-in button is renamed (the login heals once, for
  every check).
- ``copied``: the baseline, the same checks with the login's 3 steps copied into each.
- ``rows``: one check with 5 rows, two of which (``pro``, ``team``) lead to another page: the
  verdicts, the paths kept, and the wrong taps (a tap on an element another row's path recorded
  on a screen this row's doesn't show: any plan button but the row's own, or a ``Confirm`` on
  the page the row isn't on) over two runs.

Usage::

    python benchmarks/bench_flows.py                  # 20 checks, prints a table
    python benchmarks/bench_flows.py --checks 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mobster_core import Op, RunOptions, load_check, run_check, run_suite
from mobster_core.heals import heal_file_for, read_heal_file
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel

BUNDLE = "com.example.shop"
SECRETS = {"SHOP_USER": "ada@example.com", "SHOP_PASSWORD": "hunter22-secret"}
LOGIN_STEPS = ('Type ${SHOP_USER} into "Email"', 'Type ${SHOP_PASSWORD} into "Password"', 'Tap "Sign in"')
LOGIN_FLOW = """\
inputs:
  user: text
  password: secret
steps:
  - Type ${user} into "Email"
  - Type ${password} into "Password"
  - Tap "Sign in"
"""
PLANS = {"free": "checkout", "basic": "checkout", "pro": "sales", "plus": "checkout", "team": "sales"}


def app_script(checks: int, sign_in: str = "Sign in") -> str:
    """The shop: a login, a start screen with a button a check, each check's page, and the plans."""
    items = "".join(f"        - {{role: Button, label: Item {n}, tap: item{n}}}\n" for n in range(1, checks + 1))
    pages = "".join(
        f"      item{n}:\n        - {{role: StaticText, label: Item {n}}}\n"
        f"        - {{role: Button, label: Open {n}, tap: opened{n}}}\n"
        f"      opened{n}:\n        - {{role: StaticText, label: Item {n} opened}}\n"
        for n in range(1, checks + 1)
    )
    plans = "".join(f"        - {{role: Button, label: {p}, tap: {page}}}\n" for p, page in PLANS.items())
    return f"""\
version: 1
device: {{name: Scripted iPhone, ios: "26.4", kind: simulator}}
latency: zero
apps:
  {BUNDLE}:
    name: Shop
    version: "1.0"
    build: "1"
    launch: login
    screens:
      login:
        - {{role: StaticText, label: Sign in to Shop}}
        - {{role: TextField, label: Email, id: email}}
        - {{role: SecureTextField, label: Password}}
        - {{role: Button, label: {sign_in}, tap: start}}
      start:
        - {{role: StaticText, label: Welcome back}}
        - {{role: Button, label: Plans, tap: plans}}
{items}{pages}      plans:
        - {{role: StaticText, label: Choose a plan}}
{plans}      checkout:
        - {{role: StaticText, label: Checkout}}
        - {{role: StaticText, label: Pay monthly}}
        - {{role: StaticText, label: Cancel any time}}
        - {{role: Button, label: Confirm, tap: thanks}}
      sales:
        - {{role: StaticText, label: Talk to us}}
        - {{role: StaticText, label: Pro plans start with a call}}
        - {{role: StaticText, label: We answer within a day}}
        - {{role: StaticText, label: Or book a demo}}
        - {{role: Link, label: Confirm, tap: booked}}
      thanks:
        - {{role: StaticText, label: Thanks for your order}}
      booked:
        - {{role: StaticText, label: A call is booked}}
"""


def _check(n: int, *, copied: bool) -> str:
    login = (
        "".join(f"  - {json.dumps(s)}\n" for s in LOGIN_STEPS)
        if copied
        else '  - use: {flow: login, with: {user: "${SHOP_USER}", password: "${SHOP_PASSWORD}"}}\n'
    )
    return (
        f"name: Open item {n}\napp: {{bundle: {BUNDLE}}}\nsteps:\n{login}"
        f'  - Tap "Item {n}"\n  - Tap "Open {n}"\nexpect:\n  - text: Item {n} opened\n'
    )


def project(root: Path, checks: int, *, copied: bool) -> list[Path]:
    """The suite's project: the login flow (unless ``copied``) and the checks."""
    (root / ".mobster" / "checks").mkdir(parents=True)
    if not copied:
        (root / ".mobster" / "flows").mkdir()
        (root / ".mobster" / "flows" / "login.yaml").write_text(LOGIN_FLOW)
    files = []
    for n in range(1, checks + 1):
        file = root / ".mobster" / "checks" / f"item{n:02d}.yaml"
        file.write_text(_check(n, copied=copied))
        files.append(file)
    return files


def suite(root: Path, files: Sequence[Path], app: str) -> tuple[Any, ScriptedPhone]:
    """One ``mobster test`` run of ``files`` on a new scripted phone (the scripted model, a fake clock)."""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock)
    options = RunOptions(root=root, secrets=SECRETS, screenshots=False)
    result = clock.run(run_suite(files, [phone], clock, models=lambda: ScriptedModel(clock=clock), options=options))
    return result, phone


def _heal_entries(root: Path) -> int:
    files = [*(root / ".mobster" / "checks").glob("*.yaml"), *(root / ".mobster" / "flows").glob("*.yaml")]
    return sum(len(read_heal_file(heal_file_for(f))) for f in files if not f.name.endswith(".heal.yaml"))


def measure_suite(checks: int, *, copied: bool) -> dict[str, Any]:
    """Run 1 (record), run 2 (replay), run 3 (the sign-in button renamed): model calls, heals, verdicts."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = project(root, checks, copied=copied)
        out: dict[str, Any] = {"checks": checks, "login": "copied into each check" if copied else "a flow"}
        for name, app in (("first", app_script(checks)), ("second", app_script(checks)),
                          ("renamed", app_script(checks, "Log in"))):  # fmt: skip
            result, _ = suite(root, files, app)
            out[name] = {
                "model_calls": sum(c.model_calls for c in result.checks),
                "passed": sum(c.verdict.value == "passed" for c in result.checks),
                "heals": sum(len(c.heals) for c in result.checks),
            }
        out["heal_entries"] = _heal_entries(root)
        out["paths"] = len(list((root / ".mobster" / "cache" / "replay").glob("*.json")))
        return out


ROWS_CHECK = """\
name: Buy a plan
app: {bundle: com.example.shop}
rows:
ROWS
steps:
  - use: {flow: login, with: {user: "${SHOP_USER}", password: "${SHOP_PASSWORD}"}}
  - Tap "Plans"
  - Tap "${plan}"
  - Tap "Confirm"
expect:
  - text: ${done}
"""


def _wrong_taps(phone: ScriptedPhone, plan: str) -> int:
    """Taps on a plan other than the row's, or on a Confirm of the other page (a Button where a Link is, or back)."""
    page = PLANS[plan]
    wrong = 0
    for action in phone.actions:
        if action.op is not Op.TAP or action.element is None:
            continue
        label, role = action.element.label, action.element.role
        if label in PLANS and label != plan:
            wrong += 1
        if label == "Confirm" and role != ("Link" if page == "sales" else "Button"):
            wrong += 1
    return wrong


def measure_rows() -> dict[str, Any]:
    """One check, 5 rows, two of which lead to another page: verdicts, paths kept and wrong taps over two runs."""
    rows = "".join(
        f"  - {{plan: {p}, done: {'A call is booked' if page == 'sales' else 'Thanks for your order'}}}\n"
        for p, page in PLANS.items()
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".mobster" / "checks").mkdir(parents=True)
        (root / ".mobster" / "flows").mkdir()
        (root / ".mobster" / "flows" / "login.yaml").write_text(LOGIN_FLOW)
        file = root / ".mobster" / "checks" / "plans.yaml"
        file.write_text(ROWS_CHECK.replace("ROWS\n", rows))
        runs = []
        for _ in range(2):
            verdicts, calls, wrong = [], 0, 0
            for row in load_check(file).instances():  # each row on a phone of its own: its taps are its own
                clock = FakeClock()
                phone = ScriptedPhone.from_text(app_script(1), clock=clock)
                options = RunOptions(root=root, secrets=SECRETS, screenshots=False)
                one = clock.run(run_check(row, phone, clock, model=ScriptedModel(clock=clock), options=options))
                expected = "A call is booked" if PLANS[row.row_values["plan"]] == "sales" else "Thanks for your order"
                right = one.verdict.value == "passed" and any(a.ok and expected in a.text for a in one.assertions)
                verdicts.append("right" if right else f"wrong ({one.verdict.value})")
                calls += one.model_calls
                wrong += _wrong_taps(phone, row.row_values["plan"])
            runs.append({"verdicts": verdicts, "model_calls": calls, "wrong_taps": wrong})
        stored = [p.name for p in (root / ".mobster" / "cache" / "replay").glob("*.json")]
        # The login's segment is shared with every other check; the rows' own paths are the others.
        return {"rows": len(PLANS), "runs": runs, "paths_of_the_rows": len(stored) - 1, "paths_kept": len(stored)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=20, help="how many checks share the login (default 20)")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    doc = {
        "flow": measure_suite(args.checks, copied=False),
        "copied": measure_suite(args.checks, copied=True),
        "rows": measure_rows(),
    }
    for key in ("flow", "copied"):
        m = doc[key]
        print(
            f"{m['login']:>22}: model calls {m['first']['model_calls']} / {m['second']['model_calls']} / "
            f"{m['renamed']['model_calls']} (record / replay / renamed), heal entries {m['heal_entries']}, "
            f"passed {m['renamed']['passed']} of {m['checks']}, paths {m['paths']}"
        )
    r = doc["rows"]
    for n, run in enumerate(r["runs"], 1):
        print(f"rows, run {n}: {run['verdicts']}, model calls {run['model_calls']}, wrong taps {run['wrong_taps']}")
    print(f"rows: {r['paths_of_the_rows']} paths of the check's own steps (and the login's segment)")
    if args.json is not None:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
