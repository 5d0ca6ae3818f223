"""The plugin's settings: command-line options and ini keys, read and checked once per process.

Rule 1: every option is also an ini key (``--mobster-no-heal`` is ``mobster_no_heal``); a value given
        on the command line wins over the ini's. A flag set in the ini can't be unset on the
        command line (pytest's flags only turn things on).
Rule 2: a path on the command line is relative to the folder pytest was started in; a path in the
        ini is relative to the ini file's folder (the root folder when there is no ini file), so
        ``mobster_scripted = apps/yourapp.yaml`` works from any sub-folder.
Rule 3: what the options mean is the harness's (``mobster_harness``, shared with
        ``mobster test``): they are read into its one :class:`~mobster_harness.settings.Settings`
        value by its one mapper (``Settings.from_values``, by ``mobster test``'s option names),
        and the device options (``--mobster-scripted``, ``--mobster-sim``,
        ``--mobster-device``, ``--mobster-wda``, ``--mobster-appium``, ``--mobster-android``,
        repeatable, in the order
        given, and ``--mobster-caps``, one for all or one per Appium URL) make the pool with its
        ``pool_specs``: one kind of device per session, each simulator of a pool on its own WDA
        port. Only the spelling is the plugin's: its messages name an option as the user gave it,
        ``--mobster-sim`` or ``mobster_sim (ini)``.
Rule 4: ``--mobster-clock simulated`` runs on a clock that jumps (``FakeClock``): only the scripted
        phone and the scripted model (or none) live on it; anything else is an error that says so.
Rule 5: ``--mobster-step-frames`` keeps a frame per step for the reports that show them: ``on``, or
        ``auto`` (the default) with Allure (``--alluredir``) or pytest-html (``--html``) on; the
        runs then keep every frame (the core's ``--frames all``), else the core's ``auto``.
Rule 6: reading settings imports nothing of Mobster but the harness's settings and spec (the plugin
        is loaded by every pytest run in a project where mobster is installed): only the standard
        library, so frozen dataclasses here rather than attrs.
Rule 7: the project config (``mobster.toml`` or ``[tool.mobster]``, read by the harness's
        :mod:`~mobster_harness.config` for ``mobster test`` too, looked for from the folder
        pytest was started in) sits below the ini keys: command line > ini > config profile >
        config base > default. Its profile is ``--mobster-profile``, else ``$MOBSTER_PROFILE``,
        else ``mobster_profile`` (ini), else the file's ``profile`` key. A device named by an option
        or an ini key replaces the config's whole pool. The config's keys the plugin has no option
        for (``parallel``, ``sessions``, ``session-per-check``, ``session-wait``, the waits, ``frames``) apply as
        they do to ``mobster test``; so does ``env-file`` (its keys over the environment's).
Rule 8 (a team's store): ``--mobster-paths-write true|false``, ``--mobster-paths-key NAME``,
        ``--mobster-paths-lease SECONDS`` and ``--mobster-paths-wait SECONDS`` are ``mobster
        test``'s ``--[no-]paths-write``, ``--paths-key``, ``--paths-lease`` and ``--paths-wait``
        (a value, not a flag, for the write: the command line can turn the config's ``false``
        back on), held to the config keys' own ranges. A key option that is no variable's name is
        refused without being shown: it may be the key itself, typed by mistake.
"""

from __future__ import annotations

import enum
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mobster_harness.settings import MAX_REPEAT, MAX_RETRIES, Settings
from mobster_harness.spec import KINDS, DeviceSpec, PoolError, pool_specs

__all__ = [
    "ClockKind",
    "OptionSpec",
    "PluginSettings",
    "SettingsError",
    "allure_on",
    "html_on",
    "read_settings",
]

#: How the plugin spells its options in messages.
PREFIX = "--mobster-"


class SettingsError(ValueError):
    """An option or ini key can't be used; the message names it and says what to write."""


class ClockKind(enum.StrEnum):
    """The clock runs wait on: the real one, or a simulated one that jumps (Rule 4)."""

    REAL = "real"
    SIMULATED = "simulated"


#: The options whose values are files (Rule 2).
_PATH_KINDS = frozenset({"scripted", "caps"})
_NOUNS = {"scripted": "scripted phone", "sim": "simulator", "device": "USB iPhone"}


@dataclass(frozen=True)
class PluginSettings:
    """Everything the options and ini keys say (see the module rules).

    ``harness`` is what ``mobster test``'s options would say (the harness's one settings value);
    ``devices`` the pool its device options make; ``clock`` and ``step_frames`` the plugin's own.
    """

    harness: Settings = field(default_factory=Settings)
    devices: tuple[DeviceSpec, ...] = ()
    clock: ClockKind = ClockKind.REAL
    #: Whether each run keeps a frame per step for Allure or pytest-html (Rule 5).
    step_frames: bool = False
    #: Where each value came from, for messages: ``{"model": "--mobster-model"}``.
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def each_device(self) -> bool:
        """``--mobster-each-device``: every check on every device of the pool."""
        return self.harness.each_device

    def describe_pool(self) -> str:
        """``2 scripted phones (a.yaml, b.yaml)`` for the report header and messages."""
        if not self.devices:
            return "no device"
        kind = self.devices[0].kind
        noun = _NOUNS.get(kind, f"{kind} device")
        count = len(self.devices)
        names = ", ".join(d.label for d in self.devices)
        return f"{count} {noun}{'s' if count != 1 else ''} ({names})"


@dataclass(frozen=True)
class OptionSpec:
    """One option and its ini key: ``name`` is ``no-heal`` for ``--mobster-no-heal``/``mobster_no_heal``."""

    name: str
    help: str
    kind: str  # "flag", "list", "value"
    metavar: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        """The command-line option."""
        return f"--mobster-{self.name}"

    @property
    def ini(self) -> str:
        """The ini key."""
        return f"mobster_{self.name.replace('-', '_')}"

    @property
    def dest(self) -> str:
        """Where argparse keeps the value."""
        return self.ini


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("scripted", "run on the scripted phone with this app script (repeat: a pool)", "list", "APP.yaml"),
    OptionSpec(
        "sim",
        "run on the iOS simulator NAME or UDID, its WDA on PORT (repeat: a pool; WDA ports 8100, 8101, … by default)",
        "list",
        "NAME[@PORT]",
    ),
    OptionSpec("device", "run on the USB iPhone NAME or UDID (repeat: a pool)", "list", "NAME"),
    OptionSpec("wda", "drive a WebDriverAgent already listening at URL (repeat: a pool)", "list", "URL"),
    OptionSpec("appium", "run on a phone behind the Appium server at URL (repeat: a pool)", "list", "URL"),
    OptionSpec(
        "android",
        'run on the Android device or emulator SERIAL ("": the only one adb lists; repeat: a pool)',
        "list",
        "SERIAL",
    ),
    OptionSpec("caps", "the caps file of the Appium devices: one for all, or one per --mobster-appium", "list", "FILE"),
    OptionSpec("no-heal", "strict CI: fail a check whose screen changed; no model, no key", "flag"),
    OptionSpec("fresh", "run every step with Smart and record again", "flag"),
    OptionSpec("carry", "on a new build, replay the newest earlier build's path before recording", "flag"),
    OptionSpec("locale", "run the app in this locale (de_DE): a simulator launches it so", "value", "LOCALE"),
    OptionSpec(
        "paths",
        "where recorded paths live: local (default, private), committed (.mobster/paths, in git), "
        "s3://BUCKET/PREFIX or postgresql://... (a team's store: docs/paths.md)",
        "value",
        "STORE",
    ),
    OptionSpec(
        "paths-write",
        "write recorded and healed paths to the store: true (default), or false: a pull request's job replays the "
        "store's paths and keeps what it records in a bundle; default: the config's paths-write",
        "value",
        "WHETHER",
        ("true", "false"),
    ),
    OptionSpec(
        "paths-key",
        "the environment variable that holds the team key (${NAME} or NAME): documents are signed, and unsigned or "
        "forged ones refused and recorded again",
        "value",
        "NAME",
    ),
    OptionSpec("paths-lease", "how long a recording lease lives without renewal (default 60)", "value", "SECONDS"),
    OptionSpec(
        "paths-wait",
        "how long a run waits for another machine's recording before it records itself (default 900)",
        "value",
        "SECONDS",
    ),
    OptionSpec(
        "model", "claude-…, gpt-… or scripted; default: from ANTHROPIC_API_KEY / OPENAI_API_KEY", "value", "NAME"
    ),
    OptionSpec("max-usd", "cap each check's model spend (US dollars)", "value", "X"),
    OptionSpec("each-device", "run every check on every device of the pool (one item per device)", "flag"),
    OptionSpec(
        "profile",
        "the project config's profile (mobster.toml or [tool.mobster]; docs/config.md); default: $MOBSTER_PROFILE",
        "value",
        "NAME",
    ),
    OptionSpec(
        "clock", "real (default), or simulated: the scripted phone's time jumps", "value", "KIND", ("real", "simulated")
    ),
    OptionSpec(
        "retries",
        "run a check that couldn't run because of the machine (class device, busy or environment) up to N times "
        "more in its test; one that passes so is flaky (never a drift, a failed assertion or an unknown outcome)",
        "value",
        "N",
    ),
    OptionSpec(
        "repeat", "make K items of each check file (signup[1-3], …): its pass rate in the summary", "value", "K"
    ),
    OptionSpec(
        "video",
        "record the screen into each run folder: off (default), on, or retain-on-failure (kept when not passed)",
        "value",
        "MODE",
        ("off", "on", "retain-on-failure"),
    ),
    OptionSpec(
        "platform",
        "run the checks on this platform's devices of the pool only: ios or android (default: each on each)",
        "value",
        "PLATFORM",
        ("ios", "android"),
    ),
    OptionSpec(
        "step-frames",
        "keep a frame per step for Allure and pytest-html: auto (when either is on), on, off",
        "value",
        "WHEN",
        ("auto", "on", "off"),
    ),
)


class _Source:
    """Reads one option: the command line's value, else the ini's (Rule 1), else the config's (Rule 7)."""

    def __init__(self, config: Any) -> None:
        self._config = config
        inipath = getattr(config, "inipath", None)
        self.ini_dir = Path(inipath).parent if inipath else Path(config.rootpath)
        self.cli_dir = Path(config.invocation_params.dir)
        self.sources: dict[str, str] = {}
        #: Rule 7: the project config's values and where each came from (none until read).
        self.project: dict[str, object] = {}
        self.project_sources: dict[str, str] = {}
        #: The config's profile used (None: none), for a report's "Run it again" line.
        self.profile: str | None = None

    def from_project(self, name: str) -> object:
        """The config's value of ``name`` (None: it has none), noted as its source."""
        if name not in self.project:
            return None
        self.sources[name] = f"{name} in {self.project_sources[name]}"
        return self.project[name]

    def given(self, spec: OptionSpec) -> bool:
        """Whether the command line or the ini names ``spec`` (Rule 7: a device there replaces the config's pool)."""
        return bool(self._config.getoption(spec.dest, default=None) or self._config.getini(spec.ini))

    def flag(self, spec: OptionSpec) -> bool:
        if self._config.getoption(spec.dest, default=None):
            self.sources[spec.name] = spec.flag
            return True
        if bool(self._config.getini(spec.ini)):
            self.sources[spec.name] = f"{spec.ini} (ini)"
            return True
        return bool(self.from_project(spec.name))

    def value(self, spec: OptionSpec) -> str | None:
        given = self._config.getoption(spec.dest, default=None)
        if given is not None:
            self.sources[spec.name] = spec.flag
            return str(given)
        raw = str(self._config.getini(spec.ini) or "").strip()
        if raw:
            self.sources[spec.name] = f"{spec.ini} (ini)"
            return raw
        value = self.from_project(spec.name)
        return None if value is None else str(value)

    def values(self, spec: OptionSpec, *, paths: bool) -> list[str]:
        given = self._config.getoption(spec.dest, default=None)
        if given:
            self.sources[spec.name] = spec.flag
            return [_resolve(v, self.cli_dir) if paths else v for v in given]
        lines = [str(v).strip() for v in self._config.getini(spec.ini) or ()]
        lines = [v for v in lines if v]
        if lines:
            self.sources[spec.name] = f"{spec.ini} (ini)"
            return [_resolve(v, self.ini_dir) if paths else v for v in lines]
        value = self.from_project(spec.name)
        return [str(v) for v in value] if isinstance(value, tuple) else []  # paths: made absolute by the harness


def _resolve(value: str, base: Path) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (base / path))


def _spec(name: str) -> OptionSpec:
    return next(s for s in OPTIONS if s.name == name)


def read_settings(config: Any) -> PluginSettings:
    """The settings of this pytest run (the module rules); :class:`SettingsError` says what's wrong."""
    src = _Source(config)
    _read_project(src)
    values = _read_pool(src)
    given = dict(src.sources)  # how the device options were given, for messages (spec Rule 3)
    step_frames = _step_frames(config, _choice(src, "step-frames", "auto"))
    frames = src.from_project("frames")
    values.update(
        no_heal=src.flag(_spec("no-heal")),
        fresh=src.flag(_spec("fresh")),
        carry=src.flag(_spec("carry")),
        locale=_locale(src.value(_spec("locale")), src),
        paths_store=_store(src),
        **_store_options(src),
        model=src.value(_spec("model")),
        max_usd=_max_usd(src.value(_spec("max-usd")), src),
        each_device=src.flag(_spec("each-device")),
        frames="all" if step_frames else str(frames or "auto"),
        **_timing(src),
        retries=_count(src, "retries", 0, MAX_RETRIES),
        repeat=_count(src, "repeat", 1, MAX_REPEAT),
        alerts=_alerts(src.from_project("alerts")),
        video=_choice(src, "video", "off"),
        platform=_choice(src, "platform", "ios") if src.value(_spec("platform")) else None,
        env_file=env_file if isinstance(env_file := src.project.get("env-file"), Path) else None,
    )
    harness = Settings.from_values(values, prefix=PREFIX, given=given, secrets=_secrets(src), profile=src.profile)
    settings = PluginSettings(
        harness=harness,
        devices=_pool(harness),
        clock=ClockKind(_choice(src, "clock", "real")),
        step_frames=step_frames,
        sources=src.sources,
    )
    _check_clock(settings)
    return settings


def _read_project(src: _Source) -> None:
    """Rule 7: the project config's values, when there is a config (only then is it imported)."""
    from mobster_harness.config import ConfigError, find_config

    profile = src.value(_spec("profile")) if src.given(_spec("profile")) else None
    chosen = src.sources.get("profile", "--mobster-profile")
    if src.sources.get("profile", "").endswith("(ini)") and os.environ.get("MOBSTER_PROFILE", "").strip():
        profile = None  # Rule 7: $MOBSTER_PROFILE is above the ini's
    try:
        if profile is None and find_config(src.cli_dir) is None and not os.environ.get("MOBSTER_PROFILE", "").strip():
            return
        from mobster_harness.config import load_config

        project = load_config(src.cli_dir, profile=profile, profile_from=chosen)
    except ConfigError as exc:
        raise SettingsError(str(exc)) from None
    if any(src.given(_spec(kind)) for kind in KINDS):
        project = project.without_pool()
    src.project, src.project_sources = dict(project.values), dict(project.sources)
    src.profile = project.profile


def _secrets(src: _Source) -> dict[str, str] | None:
    """Rule 7: the environment with the keys of the config's ``env-file`` (None: no env file, read when needed)."""
    path = src.from_project("env-file")
    if not isinstance(path, Path):
        return None
    from mobster_harness.envfile import EnvFileError, read_env_file

    try:
        return {**os.environ, **read_env_file(path, spelled=src.sources["env-file"] + ":")}
    except EnvFileError as exc:
        raise SettingsError(str(exc)) from None


def _timing(src: _Source) -> dict[str, float | None]:
    """Rule 7: the waits the config names (the plugin has no option for them), by ``mobster test``'s names."""
    values = {name: src.from_project(name) for name in ("poll-interval", "drift-after", "give-up-after")}
    return {name.replace("-", "_"): float(v) if isinstance(v, int | float) else None for name, v in values.items()}


def _store(src: _Source) -> str:
    """``--mobster-paths``, the ini key or the config's ``paths``: a store's name or URL (docs/paths.md)."""
    from mobster_drivers.stores import check_setting

    value = src.value(_spec("paths")) or "local"
    try:
        return check_setting(value)
    except ValueError as exc:
        raise SettingsError(f"{src.sources.get('paths', _spec('paths').flag)}: {exc}") from None


#: Rule 8: a team key's variable, as ``${NAME}`` or a bare ``NAME`` (the harness reads ``NAME`` as ``${NAME}``).
_KEY_NAME = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*")


def _store_options(src: _Source) -> dict[str, object]:
    """Rule 8: ``--mobster-paths-write``, ``-key``, ``-lease``, ``-wait`` (or their ini keys, else the config's)."""
    write: object = src.from_project("paths-write")
    if src.given(_spec("paths-write")):
        write = _choice(src, "paths-write", "true") == "true"
    key: object = src.from_project("paths-key")
    if src.given(_spec("paths-key")):
        key = (src.value(_spec("paths-key")) or "").strip()
        if not _KEY_NAME.fullmatch(str(key)):  # never shown: it may be the key itself, written by mistake
            where = src.sources.get("paths-key", _spec("paths-key").flag)
            raise SettingsError(
                f"{where}: write the name of the environment variable that holds the team key, such as "
                "MOBSTER_TEAM_KEY or ${MOBSTER_TEAM_KEY} (the key itself is never an option)"
            )
    return {
        "paths_write": write,
        "paths_key": None if key is None else str(key),
        "paths_lease": _seconds(src, "paths-lease"),
        "paths_wait": _seconds(src, "paths-wait"),
    }


def _seconds(src: _Source, name: str) -> float | None:
    """Rule 8: a number of seconds in the config key ``name``'s range (its option's, else the config's, held there)."""
    if not src.given(_spec(name)):
        value = src.from_project(name)
        return None if value is None or isinstance(value, bool) else float(value)  # type: ignore[arg-type]
    from mobster_harness.config import KEYS

    key = next(k for k in KEYS if k.name == name)
    text = (src.value(_spec(name)) or "").strip()
    try:
        return float(key.check(float(text)))  # type: ignore[arg-type]
    except ValueError:
        where = src.sources.get(name, _spec(name).flag)
        above = f"above {key.low:g}" if key.low_open else f"from {key.low:g}"
        raise SettingsError(
            f"{where}: {text!r} is not a number of seconds {above} to {key.high:g}; write one such as {key.example}"
        ) from None


def _choice(src: _Source, name: str, default: str) -> str:
    spec = _spec(name)
    value = src.value(spec) or default
    if value not in spec.choices:
        where = src.sources.get(name, spec.flag)
        raise SettingsError(f"{where}: {value!r} is not one of {', '.join(spec.choices)}")
    return value


#: Rule 5: a locale as iOS writes it (``mobster_core.text.normal_locale``'s rule, without importing it).
_LOCALE = re.compile(r"([A-Za-z]{2,3})(-[A-Z][a-z]{3})?(?:[_-]([A-Z]{2}|[0-9]{3}))?")


def _locale(text: str | None, src: _Source) -> str | None:
    if text is None:
        return None
    m = _LOCALE.fullmatch(text.strip())
    if m is None:
        where = src.sources.get("locale", "--mobster-locale")
        raise SettingsError(f"{where}: {text!r} is not a locale; write one such as en_US or de_DE")
    language, script, region = m.groups()
    return language.lower() + (script or "") + (f"_{region}" if region else "")


def _count(src: _Source, name: str, least: int, most: int) -> int:
    """``--mobster-retries N`` and ``--mobster-repeat K``: a whole number from ``least`` to ``most``."""
    text = src.value(_spec(name))
    if text is None:
        return least
    where = src.sources.get(name, f"{PREFIX}{name}")
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not least <= value <= most:
        raise SettingsError(
            f"{where}: {text!r} is not a whole number from {least} to {most}; write one such as {least + 1}"
        )
    return value


def _max_usd(text: str | None, src: _Source) -> float | None:
    if text is None:
        return None
    where = src.sources.get("max-usd", "--mobster-max-usd")
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{where}: {text!r} is not a number of US dollars; write one such as 0.10") from None
    if not math.isfinite(value) or value <= 0:
        raise SettingsError(f"{where}: {text} must be more than 0 US dollars, such as 0.10")
    return value


def _alerts(value: object) -> str | Mapping[str, Sequence[str]] | None:
    """The project config's ``alerts`` (checked when it was read), as the harness takes it."""
    if isinstance(value, str) or value is None:
        return value
    assert isinstance(value, Mapping)
    return {str(k): tuple(str(v) for v in vs) for k, vs in value.items()}


def _read_pool(src: _Source) -> dict[str, object]:
    """Rule 3: the device options as given, by ``mobster test``'s names (the config's below the plugin's)."""
    values: dict[str, object] = {name: src.values(_spec(name), paths=name in _PATH_KINDS) for name in (*KINDS, "caps")}
    parallel, sessions = src.from_project("parallel"), src.from_project("sessions")
    values.update(
        parallel=parallel if isinstance(parallel, int) else None,
        sessions=sessions if isinstance(sessions, int) else None,
        session_per_check=bool(src.from_project("session-per-check")),
        session_wait=wait if isinstance(wait := src.from_project("session-wait"), float) else None,
    )
    return values


def _pool(harness: Settings) -> tuple[DeviceSpec, ...]:
    """Rule 3: the pool the harness makes of the device options (none named: none)."""
    try:
        return pool_specs(harness.devices, required=False)
    except PoolError as exc:
        raise SettingsError(str(exc)) from None


def allure_on(config: Any) -> bool:
    """allure-pytest is installed and writing results (``--alluredir``)."""
    # By the option, not the plugin's name: a plugin loaded with ``-p module`` has another name.
    return bool(getattr(config.option, "allure_report_dir", None))


def html_on(config: Any) -> bool:
    """pytest-html is installed and writing a report (``--html``)."""
    return bool(getattr(config.option, "htmlpath", None))


def _step_frames(config: Any, mode: str) -> bool:
    """Rule 5."""
    if mode == "auto":
        return allure_on(config) or html_on(config)
    return mode == "on"


def _check_clock(settings: PluginSettings) -> None:
    """Rule 4."""
    if settings.clock is not ClockKind.SIMULATED:
        return
    real = [d for d in settings.devices if d.kind != "scripted"]
    if real:
        raise SettingsError(
            f"--mobster-clock simulated runs the scripted phone only, not {real[0].option}: "
            "a real device lives on the real clock"
        )
    harness = settings.harness
    if harness.wants_model and harness.model not in (None, "scripted"):
        raise SettingsError(
            f"--mobster-clock simulated runs the scripted model only, not --mobster-model {harness.model}: "
            "a model's network calls live on the real clock"
        )
