"""Without Pillow (a ``mobster_core``-only install) a run's report is still written: no pictures, and it says so."""

from __future__ import annotations

import html
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import mobster_report
from mobster_core.distribution import DISTRIBUTION, install_hint

PROJECT = Path(mobster_report.__file__).resolve().parent.parent

RUN = r"""
import json, logging, sys
sys.modules["PIL"] = None  # Pillow is not installed: "import PIL" raises ImportError
logging.basicConfig(level=logging.WARNING, format="%(name)s %(message)s")
from pathlib import Path
import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_report import HtmlReport

root = Path(sys.argv[1])
check = root / ".mobster" / "checks" / "welcome.yaml"
check.parent.mkdir(parents=True)
check.write_text("version: 1\nname: Sign up shows\napp: {bundle: com.example.yourapp}\n"
                 "steps: [Tap \"Sign up\"]\nexpect:\n  - text: Create your account\n")
clock = FakeClock()
options = mc.RunOptions(root=root, reporter=HtmlReport())
for _ in range(2):
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    model = ScriptedModel(clock=clock)
    result = clock.run(mc.run_check(mc.load_check(check), phone, clock, model=model, options=options))
    print(json.dumps({"verdict": result.verdict.value, "run_dir": result.run_dir}))
"""


def test_the_page_is_written_without_pictures_and_says_so_once(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path)], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    runs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["verdict"] for r in runs] == ["passed", "passed"]
    for r in runs:
        run_dir = tmp_path / r["run_dir"]
        page = (run_dir / "report.html").read_text()
        hint = html.escape(install_hint("report"))  # how to add the extra to this copy, from where it came
        assert f"No pictures: Pillow isn&#x27;t installed ({hint})" in page
        assert "mobster-replay" in hint or "[report]" in hint
        assert not list(run_dir.glob("frames/*.thumb.*"))
        assert (run_dir / "frames" / "final.png").is_file()  # the frames are the core's: still written
    assert done.stderr.count("reports have no pictures: Pillow isn't installed") == 1  # said once a process


def extras() -> dict[str, list[str]]:
    found: dict[str, list[str]] = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    return found


def brings(extra: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """Every requirement an extra brings, through the extras it names."""
    out: set[str] = set()
    for requirement in extras()[extra]:
        if requirement.startswith(f"{DISTRIBUTION}["):
            for name in requirement.removeprefix(f"{DISTRIBUTION}[").removesuffix("]").split(","):
                if name not in seen:
                    out |= brings(name, seen | {extra})
        else:
            out.add(requirement)
    return out


def test_every_extra_that_runs_checks_brings_pillow() -> None:
    assert extras()["report"] == ["Pillow>=10"]
    for extra in ("cli", "pytest", "simulator", "usb", "appium", "all"):
        assert "Pillow>=10" in brings(extra), extra
        ours = f"{DISTRIBUTION}["
        named = {n for r in extras()[extra] if r.startswith(ours) for n in r[len(ours) : -1].split(",")}
        assert "report" in named, extra  # named, not only brought through another extra
