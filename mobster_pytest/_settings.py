"""The plugin's settings: command-line options and ini keys, read and checked once per process.

Rule 1: every option is also an ini key (``--mobster-no-heal`` is ``mobster_no_heal``); a value given
        on the command line wins over the ini's. A flag set in the ini can't be unset on the
        command line (pytest's flags only turn things on).
Rule 2: a path on the command line is relative to the folder pytest was started in; a path in the
        ini is relative to the ini file's folder (the root folder when there is no ini file), so
        ``mobster_scripted = apps/yourapp.yaml`` works from any sub-folder.
Rule 3: the device options name a pool: ``--mobster-scripted``, ``--mobster-sim``,
        ``--mobster-device``, ``--mobster-wda`` and ``--mobster-appium`` are repeatable, in the
        order given. One kind of device per session, as ``mobster test`` (mixing is an error).
        ``--mobster-caps`` pairs with ``--mobster-appium`` by position; a single one is used for
        every Appium device.
Rule 4: ``--mobster-clock simulated`` runs on a clock that jumps (``FakeClock``): only the scripted
        phone and the scripted model (or none) live on it; anything else is an error that says so.
Rule 5: reading settings imports nothing of Mobster (the plugin is loaded by every pytest run in a
        project where mobster is installed): only the standard library, so frozen dataclasses here
        rather than attrs.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DEVICE_KINDS",
    "ClockKind",
    "DeviceSpec",
    "FramesMode",
    "OptionSpec",
    "Settings",
    "SettingsError",
    "read_settings",
]


class SettingsError(ValueError):
    """An option or ini key can't be used; the message names it and says what to write."""


class ClockKind(enum.StrEnum):
    """The clock runs wait on: the real one, or a simulated one that jumps (Rule 4)."""

    REAL = "real"
    SIMULATED = "simulated"


class FramesMode(enum.StrEnum):
    """When a frame is kept per step: with Allure or pytest-html on (``auto``), always, or never."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


#: The device options, in the order ``mobster test`` names them, and what their value is.
DEVICE_KINDS: dict[str, str] = {
    "scripted": "APP.yaml",
    "sim": "NAME",
    "device": "NAME",
    "wda": "URL",
    "appium": "URL",
}
_PATH_KINDS = frozenset({"scripted"})
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")


@dataclass(frozen=True)
class DeviceSpec:
    """One device of the pool, as the options name it.

    ``kind`` is the option's name without its prefix (``scripted``, ``sim``, ``device``, ``wda``,
    ``appium``); ``value`` what was given (an absolute path for ``scripted``); ``caps`` the caps
    file of an Appium device (absolute, or None: ``$MOBSTER_APPIUM_CAPS`` or none); ``label`` a
    short name for test ids (``yourapp``, ``iPhone-17-Pro``), unique in the pool.
    """

    kind: str
    value: str
    label: str
    caps: str | None = None

    @property
    def option(self) -> str:
        """The option that names it, as a user writes it: ``--mobster-sim "iPhone 17 Pro"``."""
        return f"--mobster-{self.kind} {self.value}"

    @property
    def exclusive(self) -> bool:
        """True for a device one holder at a time may drive: a simulator, a USB iPhone, a WDA.

        A scripted phone can be made again and again; an Appium URL hands out a session per
        client (a grid or a cloud: as many as it has phones), so a worker beyond an Appium pool
        opens another session of URL ``k mod N``.
        """
        return self.kind in ("sim", "device", "wda")


@dataclass(frozen=True)
class Settings:
    """Everything the options and ini keys say (see the module rules)."""

    devices: tuple[DeviceSpec, ...] = ()
    no_heal: bool = False
    fresh: bool = False
    carry: bool = False
    locale: str | None = None
    paths: str = "local"
    model: str | None = None
    max_usd: float | None = None
    each_device: bool = False
    clock: ClockKind = ClockKind.REAL
    step_frames: FramesMode = FramesMode.AUTO
    #: Where each value came from, for messages: ``{"model": "--mobster-model"}``.
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def wants_model(self) -> bool:
        """Whether a model may be made: not under ``--mobster-no-heal``, unless ``--mobster-fresh``."""
        return self.fresh or not self.no_heal

    def describe_pool(self) -> str:
        """``2 scripted phones (a.yaml, b.yaml)`` for the report header and messages."""
        if not self.devices:
            return "no device"
        kind = self.devices[0].kind
        noun = {"scripted": "scripted phone", "sim": "simulator", "device": "USB iPhone"}.get(kind, f"{kind} device")
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
    OptionSpec("sim", "run on the iOS simulator NAME or UDID (repeat: a pool)", "list", "NAME"),
    OptionSpec("device", "run on the USB iPhone NAME or UDID (repeat: a pool)", "list", "NAME"),
    OptionSpec("wda", "drive a WebDriverAgent already listening at URL (repeat: a pool)", "list", "URL"),
    OptionSpec("appium", "run on a phone behind the Appium server at URL (repeat: a pool)", "list", "URL"),
    OptionSpec("caps", "the caps file of the Appium devices: one for all, or one per --mobster-appium", "list", "FILE"),
    OptionSpec("no-heal", "strict CI: fail a check whose screen changed; no model, no key", "flag"),
    OptionSpec("fresh", "run every step with Smart and record again", "flag"),
    OptionSpec("carry", "on a new build, replay the newest earlier build's path before recording", "flag"),
    OptionSpec("locale", "run the app in this locale (de_DE): a simulator launches it so", "value", "LOCALE"),
    OptionSpec(
        "paths",
        "where recorded paths live: local (default, private) or committed (.mobster/paths, in git)",
        "value",
        "STORE",
        ("local", "committed"),
    ),
    OptionSpec(
        "model", "claude-…, gpt-… or scripted; default: from ANTHROPIC_API_KEY / OPENAI_API_KEY", "value", "NAME"
    ),
    OptionSpec("max-usd", "cap each check's model spend (US dollars)", "value", "X"),
    OptionSpec("each-device", "run every check on every device of the pool (one item per device)", "flag"),
    OptionSpec(
        "clock", "real (default), or simulated: the scripted phone's time jumps", "value", "KIND", ("real", "simulated")
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
    """Reads one option: the command line's value, else the ini's (Rule 1), with where it came from."""

    def __init__(self, config: Any) -> None:
        self._config = config
        inipath = getattr(config, "inipath", None)
        self.ini_dir = Path(inipath).parent if inipath else Path(config.rootpath)
        self.cli_dir = Path(config.invocation_params.dir)
        self.sources: dict[str, str] = {}

    def flag(self, spec: OptionSpec) -> bool:
        if self._config.getoption(spec.dest, default=None):
            self.sources[spec.name] = spec.flag
            return True
        if bool(self._config.getini(spec.ini)):
            self.sources[spec.name] = f"{spec.ini} (ini)"
            return True
        return False

    def value(self, spec: OptionSpec) -> str | None:
        given = self._config.getoption(spec.dest, default=None)
        if given is not None:
            self.sources[spec.name] = spec.flag
            return str(given)
        raw = str(self._config.getini(spec.ini) or "").strip()
        if raw:
            self.sources[spec.name] = f"{spec.ini} (ini)"
            return raw
        return None

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


def _resolve(value: str, base: Path) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (base / path))


def _spec(name: str) -> OptionSpec:
    return next(s for s in OPTIONS if s.name == name)


def read_settings(config: Any) -> Settings:
    """The settings of this pytest run (the module rules); :class:`SettingsError` says what's wrong."""
    src = _Source(config)
    devices = _read_pool(src)
    settings = Settings(
        devices=devices,
        no_heal=src.flag(_spec("no-heal")),
        fresh=src.flag(_spec("fresh")),
        carry=src.flag(_spec("carry")),
        locale=_locale(src.value(_spec("locale")), src),
        paths=_choice(src, "paths", "local"),
        model=src.value(_spec("model")),
        max_usd=_max_usd(src.value(_spec("max-usd")), src),
        each_device=src.flag(_spec("each-device")),
        clock=ClockKind(_choice(src, "clock", "real")),
        step_frames=FramesMode(_choice(src, "step-frames", "auto")),
        sources=src.sources,
    )
    _check_clock(settings)
    return settings


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


def _read_pool(src: _Source) -> tuple[DeviceSpec, ...]:
    given = {kind: src.values(_spec(kind), paths=kind in _PATH_KINDS) for kind in DEVICE_KINDS}
    caps = src.values(_spec("caps"), paths=True)
    chosen = [kind for kind, values in given.items() if values]
    if len(chosen) > 1:
        names = " and ".join(src.sources.get(k, f"--mobster-{k}") for k in chosen)
        raise SettingsError(f"choose one kind of device, not {names}: a pool holds devices of one kind")
    if caps and chosen != ["appium"]:
        raise SettingsError(f"{src.sources['caps']} goes with --mobster-appium URL")
    if not chosen:
        return ()
    kind = chosen[0]
    values = given[kind]
    if kind == "appium" and len(caps) not in (0, 1, len(values)):
        raise SettingsError(
            f"{len(caps)} caps files for {len(values)} Appium devices: give one for all of them, or one each"
        )
    labels = _labels(kind, values)
    return tuple(
        DeviceSpec(kind, value, label, caps=_caps_for(caps, n))
        for n, (value, label) in enumerate(zip(values, labels, strict=True))
    )


def _caps_for(caps: Sequence[str], n: int) -> str | None:
    if not caps:
        return None
    return caps[0] if len(caps) == 1 else caps[n]


def _labels(kind: str, values: Sequence[str]) -> list[str]:
    """Short, unique names for test ids: a script's stem, a device's name, a URL's host and port."""
    raw = []
    for value in values:
        if kind == "scripted":
            base = Path(value).stem
        elif kind in ("wda", "appium"):
            base = re.sub(r"^[a-z]+://", "", value).split("/", 1)[0].rpartition("@")[2]
        else:
            base = value
        raw.append(_LABEL_UNSAFE.sub("-", base).strip("-") or kind)
    seen: dict[str, int] = {}
    out = []
    for label in raw:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 and raw.count(label) == 1 else f"{label}-{seen[label]}")
    return out


def _check_clock(settings: Settings) -> None:
    """Rule 4."""
    if settings.clock is not ClockKind.SIMULATED:
        return
    real = [d for d in settings.devices if d.kind != "scripted"]
    if real:
        raise SettingsError(
            f"--mobster-clock simulated runs the scripted phone only, not {real[0].option}: "
            "a real device lives on the real clock"
        )
    if settings.wants_model and settings.model not in (None, "scripted"):
        raise SettingsError(
            f"--mobster-clock simulated runs the scripted model only, not --mobster-model {settings.model}: "
            "a model's network calls live on the real clock"
        )
