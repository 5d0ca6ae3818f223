"""The pytest plugin of Mobster replay (entry point ``pytest11``, name ``mobster``); see ``docs/pytest.md``.

Rule 1: pytest loads this module in every project where mobster is installed, so it imports
        nothing of Mobster (no core, no driver, no SDK) until a check item or a mobster fixture
        runs: ``pytest --help`` and a run without checks stay as fast as without the plugin.
Rule 2: check files (``.mobster/checks/*.yaml``) are collected although pytest skips folders whose
        names start with a dot: ``.mobster/`` and its ``checks/`` are visited, nothing else under
        ``.mobster/`` (runs, cache, results), and no sub-folder of ``checks/``.
Rule 3: options and ini keys are read once, when pytest starts, and a mistake stops pytest there
        with a message that names the option (``_settings``).
Rule 4: xdist: worker k runs on device k of the pool; ``-n auto`` starts one worker per device;
        ``-n`` wider than a pool of real devices is refused. Under ``--mobster-each-device`` every
        item of a device runs on one worker (the plugin makes xdist's ``--dist load`` into
        ``loadgroup``), which opens that device for them.
Rule 5: a check whose outcome is unknown is never rerun: with pytest-rerunfailures installed, the
        plugin adds ``^CheckOutcomeUnknown:`` to ``--rerun-except`` (keeping what was given), so
        ``--reruns N`` alone, or with any ``--only-rerun``, leaves it failed. (A ``flaky`` marker
        with its own ``rerun_except`` replaces that list for its test: keep the pattern in it.)
Rule 6: the terminal summary ends with a line of the session's check runs, healed steps, model
        calls and cost, added up on the controller from every worker's reports, after a line of
        the flaky checks (passed on a retry, ``--mobster-retries``; ``PASSED (flaky)`` under
        ``-v``, ``f`` in the progress) and one per check repeated by ``--mobster-repeat`` with its
        pass rate.
Rule 7: with ``--junitxml``, the controller writes each test's runs into its testcase's
        ``<system-out>`` and the session's totals into the testsuite's properties (``_reports``'
        Rule 4), through pytest's own JUnit writer (the ``LogXML`` in the config's stash, its
        ``node_reporter`` and ``add_global_property``, the calls pytest's ``record_testsuite_property``
        makes); a pytest whose writer has none of them gets no Mobster facts in its JUnit, and
        the file stays valid.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._settings import OPTIONS, PluginSettings, SettingsError, html_on, read_settings
from ._state import RECORDS, SESSION, SETTINGS, settings_of, worker_of

if TYPE_CHECKING:
    from mobster_core import Device, Model

    from ._fixture import Mobster
    from ._reports import Totals

__all__ = [
    "mobster",
    "mobster_device",
    "mobster_model",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_generate_tests",
    "pytest_ignore_collect",
    "pytest_report_header",
    "pytest_report_teststatus",
    "pytest_runtest_makereport",
    "pytest_unconfigure",
    "pytest_xdist_auto_num_workers",
]

#: Rule 5's pattern: the type name starts the string pytest-rerunfailures matches.
NEVER_RERUN = r"^CheckOutcomeUnknown: "
_FIXTURES = ("mobster", "mobster_device", "mobster_model")
#: ``_reports``' Rule 1: the attribute of a test's call report that carries its runs' facts.
RUNS = "mobster_runs"


# -- options (Rule 3) ----------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option, and its ini key."""
    group = parser.getgroup("mobster", "Mobster replay: iOS checks (docs/pytest.md)")
    for spec in OPTIONS:
        if spec.kind == "flag":
            group.addoption(spec.flag, action="store_true", dest=spec.dest, default=None, help=spec.help)
            parser.addini(spec.ini, spec.help, type="bool", default=False)
        elif spec.kind == "list":
            group.addoption(spec.flag, action="append", dest=spec.dest, metavar=spec.metavar, help=spec.help)
            parser.addini(spec.ini, spec.help + " (one a line)", type="linelist", default=[])
        else:
            choices = list(spec.choices) or None
            group.addoption(spec.flag, dest=spec.dest, metavar=spec.metavar, choices=choices, help=spec.help)
            parser.addini(spec.ini, spec.help, type="string", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Read the settings (Rule 3), and set up xdist (Rule 4), reruns (Rule 5) and the summary (Rule 6)."""
    config.addinivalue_line("markers", "mobster: a Mobster check, or a test that uses a mobster fixture")
    try:
        settings = read_settings(config)
    except SettingsError as exc:
        raise pytest.UsageError(f"mobster: {exc}") from None
    config.stash[SETTINGS] = settings
    _check_workers(config, settings)
    _each_device_groups(config, settings)
    _never_rerun_unknown_outcomes(config)
    if worker_of(config) is None:
        config.pluginmanager.register(_Summary(config), "mobster-summary")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Release the devices and close the loop (``_session``'s Rule 1)."""
    session = config.stash.get(SESSION, None)
    if session is not None:
        del config.stash[SESSION]
        session.close()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """``mobster: 2 scripted phones (a, b); clock real; worker k runs on device k``."""
    settings = settings_of(config)
    if not settings.devices:
        return None
    how = "each check on every device" if settings.each_device else "worker k on device k; without xdist, the first"
    modes = [name for name, on in (("no-heal", settings.harness.no_heal), ("fresh", settings.harness.fresh)) if on]
    extra = f"; {', '.join(modes)}" if modes else ""
    return [f"mobster: {settings.describe_pool()}; {how}; clock {settings.clock}{extra}"]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Rule 4: ``-n auto`` is one worker per device of the pool (xdist's own choice without a pool)."""
    try:
        settings = read_settings(config)
    except SettingsError:
        return None  # pytest_configure says what is wrong
    return len(settings.devices) or None


def _check_workers(config: pytest.Config, settings: PluginSettings) -> None:
    """Rule 4: a pool of real devices can't serve more workers than it has devices."""
    workers = getattr(config.option, "numprocesses", None)
    if worker_of(config) is not None or not isinstance(workers, int) or workers <= 0 or settings.each_device:
        return
    devices = settings.devices
    if any(d.exclusive for d in devices) and workers > len(devices):
        raise pytest.UsageError(
            f"mobster: -n {workers} starts {workers} workers and the pool has {len(devices)} device"
            f"{'s' if len(devices) != 1 else ''} ({settings.describe_pool()}); each worker needs its own: "
            f"run -n {len(devices)} (or -n auto), or list more devices"
        )


def _each_device_groups(config: pytest.Config, settings: PluginSettings) -> None:
    """Rule 4: under ``--mobster-each-device`` a device's items go to one worker (``loadgroup``)."""
    if not settings.each_device:
        return
    config.addinivalue_line("markers", "xdist_group(name): the xdist worker group of a test")
    if worker_of(config) is not None:
        # A worker reads the grouping from its own options (xdist doesn't pass the controller's).
        config.option.loadgroup = True
        return
    dist = getattr(config.option, "dist", "no")
    if dist == "load":
        config.option.dist = "loadgroup"
    elif dist not in ("no", "loadgroup"):
        raise pytest.UsageError(
            f"mobster: --mobster-each-device runs each device's items on one worker: use xdist's default "
            f"--dist load (or loadgroup), not --dist {dist}"
        )


def _never_rerun_unknown_outcomes(config: pytest.Config) -> None:
    """Rule 5."""
    # By its option, not its name: ``-p pytest_rerunfailures`` registers it under another name.
    if not hasattr(config.option, "rerun_except"):
        return
    given = config.getoption("rerun_except", None)
    patterns = list(given) if given is not None else list(config.getini("rerun_except") or [])
    if NEVER_RERUN not in patterns:
        config.option.rerun_except = [*patterns, NEVER_RERUN]


# -- collection (Rule 2) -------------------------------------------------------------------------


def _is_check_file(path: Path) -> bool:
    return (
        path.suffix in (".yaml", ".yml")
        and path.parent.name == "checks"
        and path.parent.parent.name == ".mobster"
        and not path.name.startswith(".")
        and not path.name.endswith((".heal.yaml", ".heal.yml"))
    )


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Rule 2: visit ``.mobster/`` (pytest skips dot folders) and its ``checks/``, and nothing else in it."""
    name, parent = collection_path.name, collection_path.parent
    if name == ".mobster":
        return False if collection_path.is_dir() else None
    if parent.name == ".mobster":
        return None if name == "checks" else True
    if parent.name == "checks" and parent.parent.name == ".mobster" and collection_path.is_dir():
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A check file pytest was given by name is a :class:`~mobster_pytest._items.CheckFile`."""
    if not _is_check_file(file_path) or isinstance(parent, _checks_folder_class()):
        return None
    from ._items import CheckFile, shown

    file: pytest.Collector = CheckFile.from_parent(parent, path=file_path, name=shown(file_path.name))
    return file


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """``.mobster/checks/`` is a :class:`~mobster_pytest._items.ChecksFolder`: its FIFOs are items too."""
    if path.name != "checks" or path.parent.name != ".mobster":
        return None
    folder: pytest.Collector = _checks_folder_class().from_parent(parent, path=path)
    return folder


def _checks_folder_class() -> type[pytest.Collector]:
    from ._items import ChecksFolder

    return ChecksFolder


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Under ``--mobster-each-device``, a test that uses a mobster fixture runs once per device."""
    settings = settings_of(metafunc.config)
    if not (settings.each_device and settings.devices) or "_mobster_slot" not in metafunc.fixturenames:
        return
    params = [
        pytest.param(n, id=d.label, marks=pytest.mark.xdist_group(f"mobster-device-{n}"))
        for n, d in enumerate(settings.devices)
    ]
    metafunc.parametrize("_mobster_slot", params, indirect=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses a mobster fixture gets the ``mobster`` marker (``-m "not mobster"`` leaves it out)."""
    del config
    for item in items:
        names = getattr(item, "fixturenames", ())
        if any(f in names for f in _FIXTURES):
            item.add_marker("mobster")


# -- reports (Rule 6) ----------------------------------------------------------------------------


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
    """A check that passed on a retry (``--mobster-retries``) is ``PASSED (flaky)`` under ``-v``, and still passed."""
    del config
    if report.when == "call" and report.passed and any(r.get("flaky") is True for r in _runs_of(report)):
        return "passed", "f", ("PASSED (flaky)", {"yellow": True})
    return None


def _runs_of(report: pytest.TestReport) -> list[dict[str, object]]:
    """``_reports``' Rule 1: the runs a test's report carries (none for a test that ran no check)."""
    runs = getattr(report, RUNS, None)
    return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """The test's runs on its call report (``_reports``' Rule 1) and pytest-html's extras; then they are forgotten.

    A rerun's attempt has its own: none of an earlier attempt's is counted twice.
    """
    report = yield
    if call.when == "call":
        records = item.stash.get(RECORDS, None)
        if records:
            from ._reports import run_facts

            setattr(report, RUNS, [run_facts(r, item.config.rootpath) for r in records])
            if html_on(item.config):
                from ._reports import html_extras

                report.extras = [*getattr(report, "extras", []), *html_extras(records)]
            item.stash[RECORDS] = []
    return report


class _Summary:
    """Rules 6 and 7, on the controller (or the only process): totals from every report's runs, and JUnit's facts."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._totals: Totals | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        runs = _runs_of(report)
        if report.when != "call" or not runs:
            return
        if self._totals is None:
            from ._reports import Totals

            self._totals = Totals()
        self._totals.add(runs)
        writer = _junit_writer(self._config)
        if writer is not None:  # Rule 7: the facts in the testcase's system-out, where the schema allows them
            import xml.etree.ElementTree as ET

            from ._reports import facts_text

            out = ET.Element("system-out")
            out.text = facts_text(runs)
            writer.node_reporter(report).append(out)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Rule 7: the session's totals as the testsuite's properties, before pytest writes the file."""
        writer = _junit_writer(self._config)
        if writer is None or self._totals is None or self._totals.runs == 0:
            return
        from ._reports import suite_facts

        for name, value in suite_facts(self._totals):
            writer.add_global_property(name, value)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        totals = self._totals
        if totals is None or totals.runs == 0:
            return
        if totals.healed_steps:
            terminalreporter.write_line("healed steps wait for review: mobster test heal")
        for line in totals.lines():
            terminalreporter.write_line(line)
        terminalreporter.write_line(totals.line())


def _junit_writer(config: pytest.Config) -> Any:
    """Rule 7: pytest's JUnit writer when ``--junitxml`` is on and it has the calls the plugin makes, else None."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # a pytest that keeps its writer elsewhere: no Mobster facts in its JUnit
        return None
    writer = config.stash.get(xml_key, None)
    if writer is None or not (hasattr(writer, "node_reporter") and hasattr(writer, "add_global_property")):
        return None
    return writer


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def _mobster_slot(request: pytest.FixtureRequest) -> int | None:
    """The device a test is pinned to under ``--mobster-each-device``; None: the worker's."""
    param = getattr(request, "param", None)
    return param if isinstance(param, int) else None


@pytest.fixture
def mobster(request: pytest.FixtureRequest, _mobster_slot: int | None) -> Mobster:
    """Run checks from a test: ``mobster.run("signup")`` (see :class:`mobster_pytest.Mobster`)."""
    from ._fixture import Mobster
    from ._session import session_of

    node = request.node
    assert isinstance(node, pytest.Item)
    return Mobster(node, session_of(request.config), _mobster_slot)


@pytest.fixture
def mobster_device(mobster: Mobster) -> Device:
    """This test's device: worker k's device k of the pool (the pinned one under ``--mobster-each-device``)."""
    return mobster.device


@pytest.fixture
def mobster_model(mobster: Mobster) -> Model | None:
    """A model for one run; None under ``--mobster-no-heal`` (or with no model named and no key)."""
    return mobster.model()
