"""What the docs promise a reader: no spec they don't have, one story about budgets, a heal limit explained."""

from __future__ import annotations

import re
from pathlib import Path

import mobster_cli
import mobster_core
import mobster_drivers
import mobster_harness
import mobster_pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]
PACKAGES = [
    Path(str(package.__file__)).parent
    for package in (mobster_core, mobster_drivers, mobster_harness, mobster_cli, mobster_pytest)
]
CODE = [p for package in PACKAGES for p in package.rglob("*.py")]


def flat(path: Path) -> str:
    return " ".join(path.read_text().split())


def test_no_doc_or_docstring_cites_a_spec_the_reader_doesnt_have() -> None:
    cited = re.compile(r"SPEC\b|reference/[a-z-]+\.md|Mobster §")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in (*DOCS, *CODE)
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if cited.search(line)
    ]
    assert found == []


def test_the_docs_agree_on_what_a_budget_stop_is() -> None:
    # A run stopped by its budget is couldnt_run, class budget, with no verdict: everywhere it is said.
    assert "| `budget` | `couldnt_run` | Smart ran out of its budget" in flat(ROOT / "docs" / "checks.md")
    assert "A run stopped by a budget is `couldnt_run`, class `budget`" in flat(ROOT / "docs" / "smart.md")
    for path in DOCS:
        assert not re.search(r"`budget` \| `failed`", path.read_text()), path


def test_the_heal_docs_explain_why_a_one_step_check_cant_heal() -> None:
    text = flat(ROOT / "docs" / "heal.md")
    assert "A check of one step can never be healed." in text
    assert "healing step 1 would make 1 of 1 recorded steps healed" in text


def test_every_app_script_the_docs_name_in_the_demo_is_one_the_demo_writes() -> None:
    # docs/scripted-phone.md once sent readers to apps/yourapp-renamed.yaml: the demo writes yourapp-rebuild.yaml.
    from mobster_cli._demo import _demo_files
    from mobster_drivers.devices.scripted import SAMPLES

    written = {Path(name).name for name in _demo_files() if name.startswith("apps/")}
    assert written == {
        "yourapp.yaml",
        "yourapp-rebuild.yaml",
        "yourapp-1.1.yaml",
        "yourapp-android.yaml",
        "yourapp-android-rebuild.yaml",
    }
    samples = {p.name for p in SAMPLES.glob("*.yaml")}
    pages = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named: set[str] = set()
    for page in pages:
        text = page.read_text()
        for name in re.findall(r"apps/([A-Za-z0-9._-]+\.yaml)", text):
            assert name in written, (page.name, name)
            named.add(name)
        for name in re.findall(r"\byourapp[A-Za-z0-9._-]*\.yaml\b", text):
            assert name in written | samples, (page.name, name)
    demo = flat(ROOT / "docs" / "scripted-phone.md").split("**the demo**", 1)[1].split(";", 1)[0]
    assert "apps/yourapp-rebuild.yaml" in demo
    assert named >= {"yourapp-rebuild.yaml"}


def test_the_benchmark_sections_are_numbered_once_and_every_link_to_one_resolves() -> None:
    # Two sections were numbered 4, and the links to the later ones pointed one section off.
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", page, re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1))

    def anchor(heading: str) -> str:  # GitHub's: lowercase, punctuation dropped, spaces to hyphens
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    anchors = {anchor(h) for h in re.findall(r"^#+ (.+)$", page, re.MULTILINE)}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    links = {(p.name, link) for p in pages for link in re.findall(r"benchmarks\.md#([\w-]+)", p.read_text())}
    assert links
    assert {(name, link) for name, link in links if link not in anchors} == set()


def test_the_readme_says_how_long_make_test_takes_and_why_tests_skip() -> None:
    text = flat(ROOT / "README.md")
    assert "**How long it takes, and what skips.**" in text
    for said in (
        "about 6 minutes",
        "../shared/wda-trees",
        "../shared/android-trees",
        "/usr/bin/chromium",
        "skips as root",
    ):
        assert said in text, said
    # The reasons it gives are the tests' own.
    trees = (ROOT / "tests" / "wda_trees.py").read_text()
    assert "the shared WDA trees are read in place, never copied" in trees
    dumps = (ROOT / "tests" / "android_trees.py").read_text()
    assert "the shared Android dumps are read in place, never copied" in dumps
    assert "no /usr/bin/chromium" in (ROOT / "tests" / "report" / "test_report_browser.py").read_text()


def test_the_check_key_table_has_a_row_for_every_key_a_check_file_may_hold() -> None:
    # checks.md's table of keys lacked launch.locale, which the loader took.
    from mobster_core._store import checks

    page = (ROOT / "docs" / "checks.md").read_text()
    table = page.split("### Every key", 1)[1].split("\n### ", 1)[0]
    rows = set(re.findall(r"^\| `([a-z_.]+)` \|", table, re.MULTILINE))
    nested = {"app": checks._APP_KEYS, "launch": checks._LAUNCH_KEYS, "budget": checks._BUDGET_KEYS}
    keys = {k for k in checks._TOP_KEYS if k not in nested} | {f"{t}.{k}" for t, ks in nested.items() for k in ks}
    assert keys - rows == set()
    assert rows - keys == set()


def test_checks_md_says_what_a_check_never_asserts_and_the_assertions_table_is_every_kind() -> None:
    # The position that the verdict is the tree's, never pixels, was stated nowhere a user would look.
    from mobster_core._rules.assertions import Kind

    page = (ROOT / "docs" / "checks.md").read_text()
    section = " ".join(page.split("## What a check never asserts", 1)[1].split("\n## ", 1)[0].split())
    for said in ("**Pixels.**", "evidence to look at, never a verdict", "**Tree assertions**",
                 "**The accessibility audit** (`accessibility_audit`)", "**The frames in the report**",
                 "Maestro's `assertScreenshot`", "`thresholdPercentage`"):  # fmt: skip
        assert said in section, said
    kinds = set(
        re.findall(r"^\| `([a-z_]+)` \| `", page.split("## Assertions", 1)[1].split("\n### ", 1)[0], re.MULTILINE)
    )
    assert kinds == {k.value for k in Kind}  # no kind compares a picture: the table is every kind there is
