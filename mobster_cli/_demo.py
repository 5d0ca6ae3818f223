"""``mobster demo``: a sample project run on the scripted phone, no key, no phone.

The demo runs the library's own suite code (the same as ``mobster test``, through the same door:
``mobster_harness.Harness`` opens its phone, makes its model and its run options) on the scripted
phone with the ``usb-iphone`` latency profile and the scripted model thinking 2.5 s a call, on a
simulated clock: the times it prints are what those latencies add up to, measured by the clock
the SDK waits on, not the time the demo takes. It reads no key (its settings' environment is
empty), so a shell's ``ANTHROPIC_API_KEY`` never turns its model-less run into a paid one.

Rule 1: the demo writes only into a folder that is missing, empty, or an earlier demo left as the
        demo left it: the marker file ``.mobster-demo`` lists the digest of every file the demo
        left (its checks, app scripts, recorded paths, heal files and caches; not its run and
        result folders). A folder holding anything else, or an earlier demo whose files someone
        changed since (a check edited, a check added, a heal accepted, a path recorded), is refused
        with one line naming what changed, so ``mobster demo .`` never overwrites an edited check
        nor deletes recorded paths or pending heals. A marker of an older Mobster (no digests) is
        an earlier demo only while its checks and app scripts are the demo's own.
Rule 2: every folder the demo makes is 0700 and every file 0600, whatever the umask.
Rule 3: running the demo again removes only the run and result folders it made itself (the marker
        lists them, ``made``): the runs of your own ``mobster test`` in the demo folder, which the
        demo tells you to try, stay. An entry of the list is removed only when it is one folder
        right under ``.mobster/runs/`` or ``.mobster/test-results/`` (never through a symlink): the
        marker is a file anyone may edit. A marker of an older Mobster lists none, so nothing of
        its runs is removed.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from mobster_core import PriceTable, SuiteResult
from mobster_core.exceptions import UnsafeFile
from mobster_core.files import atomic_write, read_user_file
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from mobster_harness import Harness, Settings, run_on_pool

from ._render import check_lines, pending_line, summary_line
from ._shared import USAGE_EXIT, note

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

#: The demo under pytest (the ``mobster_pytest`` plugin): ``pytest`` in the folder runs both checks.
PYTEST_INI = """\
# `pytest` in this folder runs the two checks with the mobster plugin (docs/pytest.md) on version
# 1.1 of the app: the first run records them with the scripted model, the next ones replay them at
# $0 with no model call (after `mobster demo`, whose last run recorded 1.1, they replay at once).
# The clock is simulated, as in `mobster demo`: remove that line to wait out the phone's latencies.
[pytest]
mobster_scripted = apps/yourapp-1.1.yaml
mobster_model = scripted
mobster_clock = simulated
"""


MARKER = ".mobster-demo"
#: Rule 1: the largest file of a demo's state read (a recorded path is at most 8 MiB); a larger one isn't the demo's.
_MAX_STATE_FILE = 16 * 1024 * 1024
_MARKER_HEAD = "Made by `mobster demo`: running it again here starts the demo afresh while nothing below changed.\n"
#: Rule 1: what a demo's state leaves out: its runs' and results' folders, and caches of other tools.
_NOT_STATE = (
    ".mobster/runs/",
    ".mobster/test-results/",
    ".mobster/cache/replayed.json",
    ".mobster/cache/.lock",  # the project's lock: no state, whichever run made it
    ".mobster/.lock",  # where an older Mobster kept it
    ".pytest_cache/",
    "__pycache__/",
)


class NotADemoFolder(Exception):
    """Rule 1: the folder holds something that isn't an earlier demo, or an earlier demo changed since."""


def _state(folder: Path) -> dict[str, str]:
    """Rule 1: the digest of every file of the folder that is part of a demo's state, by relative path."""
    import hashlib

    state: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if name == MARKER or any(name.startswith(p) or f"/{p}" in f"/{name}" for p in _NOT_STATE):
            continue
        if path.is_symlink() or not path.is_file():
            if path.is_symlink():
                state[name] = "symlink"
            continue
        try:
            data = read_user_file(path, max_bytes=_MAX_STATE_FILE, follow=False)
        except (UnsafeFile, OSError) as exc:  # swapped for a FIFO, grown past any demo file: not the demo's
            state[name] = f"unreadable: {exc.reason if isinstance(exc, UnsafeFile) else exc.strerror}"
            continue
        state[name] = hashlib.sha256(data).hexdigest()
    return state


class _UnreadableMarker(Exception):
    """Rule 1: the marker can't be read (swapped for a FIFO or a link, grown past any marker): not the demo's."""


def _marker(folder: Path) -> tuple[dict[str, str] | None, list[str]]:
    """The marker's digests of the demo's files (Rule 1; None: an older Mobster's marker) and its folders (Rule 3).

    Raises :class:`_UnreadableMarker` saying why it can't be read.
    """
    import json

    try:
        marker = read_user_file(folder / MARKER, max_bytes=_MAX_STATE_FILE, follow=False)
    except (UnsafeFile, OSError) as exc:
        why = exc.reason if isinstance(exc, UnsafeFile) else exc.strerror
        raise _UnreadableMarker(f"{MARKER} can't be read ({why})") from None
    lines = marker.decode("utf-8", errors="replace").split("\n", 1)
    try:
        doc = json.loads(lines[1]) if len(lines) > 1 and lines[1].strip() else None
    except (ValueError, RecursionError):
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("files"), dict):  # this Mobster's: {"files", "made"}
        made = doc.get("made")
        return doc["files"], [m for m in made if isinstance(m, str)] if isinstance(made, list) else []
    return (doc if isinstance(doc, dict) else None), []  # an earlier one: the digests alone, or no JSON


def _changed(folder: Path, left: dict[str, str] | None) -> str | None:
    """Rule 1: what in an earlier demo differs from what its marker says it left (``left``; None: nothing)."""
    now = _state(folder)
    if not isinstance(left, dict):  # an older Mobster's marker: its checks and app scripts must be the demo's
        left = {k: v for k, v in now.items() if not k.startswith((".mobster/checks/", "apps/"))}
        left.update(_demo_files_digests())
    for name in sorted(set(left) | set(now)):
        if name not in now:
            return f"{name} is gone"
        if name not in left:
            return f"{name} was added"
        if left[name] != now[name]:
            return f"{name} was changed"
    return None


def _claim(folder: Path) -> list[str]:
    """Rule 1: refuse a folder that is neither missing, empty nor an earlier demo left as it was.

    Returns the folders the earlier demo's runs made (Rule 3), which go before this one runs.
    """
    if folder.exists() and not folder.is_dir():
        raise NotADemoFolder(f"{folder} is not a folder: give a new folder for the demo, such as mobster-demo")
    made: list[str] = []
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / MARKER).is_file():
            raise NotADemoFolder(
                f"{folder} is not empty and holds no earlier demo ({MARKER}): the demo would replace its "
                "recorded paths and heals; give a new folder, such as mobster-demo"
            )
        try:
            left, made = _marker(folder)
        except _UnreadableMarker as exc:
            changed: str | None = str(exc)
        else:
            changed = _changed(folder, left)
        if changed is not None:
            raise NotADemoFolder(
                f"{folder} holds an earlier demo that changed since ({changed}): running the demo again would "
                "overwrite it; give a new folder for the demo, or delete this one to start afresh"
            )
    _private_folder(folder)
    _private_file(folder / MARKER, _MARKER_HEAD)
    return made


def _seal(folder: Path, made: list[str]) -> None:
    """Rules 1, 3: the marker, with the digest of every file the demo left and the folders its runs made."""
    import json

    doc = {"files": _state(folder), "made": sorted(set(made))}
    _private_file(folder / MARKER, _MARKER_HEAD + json.dumps(doc, indent=1, sort_keys=True) + "\n")


#: Rule 3: a folder the demo made, as the marker lists it.
_MADE = re.compile(r"\.mobster/(?:runs|test-results)/[A-Za-z0-9][A-Za-z0-9._-]{0,200}")


def _made(folder: Path, suites: list[SuiteResult]) -> list[str]:
    """Rule 3: the run and result folders the demo's suites made, relative to the demo folder."""
    made = [".mobster/test-results/demo"]
    for suite in suites:
        made.append(suite.folder.resolve().relative_to(folder).as_posix())
        made += [a.run_dir for c in suite.checks for a in c.attempts if a.run_dir]
        made += [c.run_dir for c in suite.checks if c.run_dir]
    return made


def _remove_made(folder: Path, made: Sequence[str]) -> None:
    """Rule 3: the run and result folders an earlier demo made go; every other one stays."""
    for name in made:
        path = folder / name
        if _MADE.fullmatch(name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)


def _demo_files() -> dict[str, str]:
    """The checks and app scripts the demo writes, by relative path."""
    base = sample_path("yourapp").read_text().replace("latency: zero", "latency: usb-iphone")
    renamed = sample_path("yourapp-renamed").read_text().replace("latency: zero", "latency: usb-iphone")
    newer = base.replace('version: "1.0"', 'version: "1.1"').replace('build: "1"', 'build: "2"')
    android = sample_path("yourapp-android").read_text().replace("latency: zero", "latency: android")
    # The Android rebuild renames another control than the iPhone's: a heal waiting for review on
    # one platform is never healed over on the other (the heal file keeps one entry a step).
    android_rebuild = android.replace("label: Upgrade to Pro,", "label: Go Premium,")
    return {
        "apps/yourapp-android.yaml": android,
        "apps/yourapp-android-rebuild.yaml": android_rebuild,
        ".mobster/checks/signup.yaml": SIGNUP,
        ".mobster/checks/paywall.yaml": PAYWALL,
        "apps/yourapp.yaml": base,
        "apps/yourapp-rebuild.yaml": renamed,
        "apps/yourapp-1.1.yaml": newer,
        "pytest.ini": PYTEST_INI,
    }


def _demo_files_digests() -> dict[str, str]:
    import hashlib

    return {k: hashlib.sha256(v.encode()).hexdigest() for k, v in _demo_files().items()}


def _private_folder(folder: Path) -> None:
    """Rule 2: a folder the demo made is 0700 whatever the umask."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)


def _private_file(path: Path, text: str) -> None:
    """Rule 2: a file the demo writes is 0600 whatever the umask, written whole, never through a link."""
    atomic_write(path, text.encode("utf-8"))


def _write_project(folder: Path, made: Sequence[str] = ()) -> dict[str, Path]:
    checks = folder / ".mobster" / "checks"
    for made_here in (folder / ".mobster", checks, folder / "apps"):
        _private_folder(made_here)
    for name, text in _demo_files().items():
        _private_file(folder / name, text)
    # A demo starts clean: its own cache, heal files and runs go (Rule 1: nothing else of its state was
    # there; Rule 3: the runs of your own mobster test there stay).
    _remove_made(folder, made)
    shutil.rmtree(folder / ".mobster" / "cache", ignore_errors=True)
    for heal in (*checks.glob("*.heal.yaml"), *checks.glob("*.heal.yml")):
        heal.unlink()
    apps = folder / "apps"
    return {
        "app": apps / "yourapp.yaml",
        "rebuild": apps / "yourapp-rebuild.yaml",
        "newer": apps / "yourapp-1.1.yaml",
        "android": apps / "yourapp-android.yaml",
        "android-rebuild": apps / "yourapp-android-rebuild.yaml",
    }


def _run(folder: Path, app: Path, *, model: bool) -> SuiteResult:
    clock = FakeClock()
    # The phone of this run, the scripted model or none, and no key read (the environment is empty).
    settings = Settings.from_values({"scripted": (str(app),), "model": "scripted" if model else None}, secrets={})
    harness = Harness(settings, folder, clock)
    # Price the scripted model like a Sonnet-class model, to show what a real first run costs.
    sonnet, _guessed = PriceTable().price_of("claude-sonnet")
    prices = PriceTable().extend({"scripted": sonnet})
    files = sorted((folder / ".mobster" / "checks").glob("*.yaml"))
    files = [f for f in files if not f.name.endswith(".heal.yaml")]
    models = harness.models(scripted_delay=MODEL_SECONDS)
    options = harness.run_options(prices=prices)  # "Run it again": the phone, as `mobster test` names it
    return clock.run(run_on_pool(files, harness.pool(files), clock, models=models, options=options))


def _android(folder: Path, apps: dict[str, Path]) -> list[SuiteResult]:
    """Runs 5 to 7: the same two checks on a scripted Android phone, with a path of their own."""
    print("\nThe same two checks, written once, on a scripted Android phone (Android's latencies):")
    fifth = _run(folder, apps["android"], model=True)
    _show("5. Android: no path for this platform yet, so Smart records one beside the iPhone's", fifth)
    sixth = _run(folder, apps["android"], model=False)
    _show("6. Android again, no model and no key: its own path replays", sixth)
    seventh = _run(folder, apps["android-rebuild"], model=True)
    renamed = '"Upgrade to Pro" to "Go Premium"'
    _show(f"7. An Android rebuild renames {renamed}: the Android path heals, the iPhone's stays", seventh)
    heal = folder / ".mobster" / "checks" / "paywall.heal.yaml"
    if heal.exists():
        print(f"   Its heal waits for review in {heal.relative_to(folder)}; the iPhone's paywall path is as recorded.")
    return [fifth, sixth, seventh]


def _android_went_as_expected(runs: list[SuiteResult]) -> bool:
    fifth, sixth, seventh = runs
    return (
        fifth.exit_code == 0
        and all(c.path_why == "recorded on iOS, this is Android" for c in fifth.checks)
        and sixth.exit_code == 0
        and all(c.model_calls == 0 for c in sixth.checks)
        and seventh.exit_code == 0
        and any(c.heals for c in seventh.checks)
    )


def _show(title: str, suite: SuiteResult) -> None:
    print(f"\n== {title}")
    for result in suite.checks:
        for line in check_lines(result):
            print(line)
    print(summary_line(suite))
    waiting = pending_line(suite.healed_steps)
    if waiting:
        print(waiting)


def _mobster() -> str:
    """The ``mobster`` command to type: its full path beside this Python, so no virtualenv needs activating."""
    beside = Path(sys.executable).with_name("mobster")
    return shlex.quote(str(beside)) if beside.exists() else "mobster"


def _pytest() -> str:
    """The ``pytest`` to type: the one beside this Python (a bare ``pytest`` may be the system's, without Mobster)."""
    beside = Path(sys.executable).with_name("pytest")
    return shlex.quote(str(beside)) if beside.exists() else f"{shlex.quote(sys.executable)} -m pytest"


def _report(folder: Path, suites: list[SuiteResult]) -> Path | None:
    """The demo's suites on one page: each check's runs side by side, each linking to its report.html."""
    from mobster_report import MergeError, merge_suites

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
    """Create (or reuse) the sample project in ``folder`` and run it seven times: four on an iPhone, three on Android.

    Returns 0 when every run ended as the demo expects, 1 when one didn't, 3 when the folder is
    refused (Rule 1).
    """
    folder = folder.resolve()
    try:
        made = _claim(folder)
    except NotADemoFolder as exc:
        note(exc)
        return USAGE_EXIT
    apps = _write_project(folder, made)
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
    android = _android(folder, apps)

    heal = folder / ".mobster" / "checks" / "signup.heal.yaml"
    print("\n== The heal waits for review beside the check:", heal.relative_to(folder))
    if heal.exists():  # the heal file the run just wrote, read as every heal file is: never through a link
        print(read_user_file(heal, max_bytes=_MAX_STATE_FILE, follow=False).decode("utf-8", errors="replace").rstrip())
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
    print(f"Under pytest: cd {shlex.quote(str(folder))} && {_pytest()}   (pytest.ini names the phone and the model)")

    page = _report(folder, [first, second, third, fourth, *android])
    _seal(folder, _made(folder, [first, second, third, fourth, *android]))
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
        and _android_went_as_expected(android)
    )
    if not expected:
        print("\nThe demo did not go as expected: see the lines above.")
    return 0 if expected else 1
