"""The one device spec both front ends share: what a device option names, and the pool the options make.

Standard library only (no attrs, no ``mobster_core`` when imported): the pytest plugin imports
this module when pytest starts, in every project where mobster is installed.

Rule 1: a :class:`DeviceSpec` names one device: ``kind`` (``scripted``, ``sim``, ``device``,
        ``wda``, ``appium``, ``android``), ``value`` (an app script's path, a simulator's or
        iPhone's name or UDID, a URL, an Android device's serial: "" is the only one attached),
        ``label`` (its short name in the pool, unique there: ``sim-2``; by default
        :func:`label_of` its value), ``caps`` (an Appium device's caps file; None:
        ``$MOBSTER_APPIUM_CAPS`` or none) and ``bundle`` (the app under test, the Appium
        session's ``appium:bundleId``; None: none asked for); ``session_per_check`` ends an Appium
        device's session after each check (one dashboard entry per check) instead of keeping one
        for the suite; ``session_wait`` is how long, in seconds, an Appium device waits for a new
        session (a Grid's queue, a cloud finding a phone; None: the driver's 300). ``prefix`` is
        how the options are spelled in messages (``--`` for
        ``mobster test``, ``--mobster-`` for the pytest plugin). A kind not in :data:`KINDS` is a
        ``ValueError``.
Rule 2: a label is a script's stem, a simulator's or iPhone's name (without its WDA port), or a
        URL's host and port (never its user or password), with anything but letters, digits and
        ``_.:-`` made ``-``; labels of one pool are unique (``host:4723-1``, ``host:4723-2``).
Rule 3: :class:`DeviceOptions` is what a front end's device options say, as given: the values of
        each kind in order, the caps files, ``sessions``, ``parallel``, ``session_per_check``,
        ``session_wait`` (seconds, more than 0 and at most 3600),
        the front end's ``prefix``, and ``given``: how it spells an option the user gave, when not
        ``prefix + name`` (the plugin names an ini key: ``mobster_sim (ini)``).
Rule 4: :func:`pool_specs` turns them into specs: one kind of device per pool, or Android devices
        (``android``) beside one kind of iOS device or Appium URLs (Rule 8); ``sessions`` N
        sessions per Appium URL; ``parallel`` N is how many devices run at once (the scripted
        phone and a single Appium URL make N; a named pool keeps its first N, and asking for more
        devices than it names is an error); a single caps file is every Appium URL's, else one
        per URL. Bad mixes are a :class:`PoolError` that says what to write instead, in the front
        end's spelling.
Rule 5: a simulator's WDA listens on its own port: ``NAME@PORT`` names it; in a pool of several
        simulators, one without a port gets ``$MOBSTER_WDA_PORT`` (else 8100) plus its place in the
        pool (8100, 8101, …), as each WDA must be started (``TEST_RUNNER_USE_PORT``). Two
        simulators on one port are a :class:`PoolError`. One simulator alone keeps
        ``$MOBSTER_WDA_PORT`` or 8100 (read when it opens). Only a pool of several simulators
        imports the simulator driver here (for the base port).
Rule 6: a URL's password, its token-like path segments (a per-session endpoint's token, 20 or more
        URL characters), its query and its fragment (where a token travels as ``?access_token=…``;
        the drivers refuse both, and the refusal names the URL) never reach a message:
        :attr:`DeviceSpec.option` and :meth:`DeviceSpec.scrub` show each as ``***``; labels are a
        URL's host and port only.
Rule 7: :func:`rerun_options` gives the options that name each device of a pool, by its label,
        for a report's "Run it again" line: always in ``mobster test``'s spelling (``--sim``,
        ``--caps``), whichever front end ran the check (the plugin's ``--mobster-sim`` is no
        option of the command the line runs), with Rule 6's scrubbing; an app script or caps file
        inside the project ``root`` is named relative to it (the line runs there).
Rule 8: a pool of two kinds (``android`` and one of ``sim``, ``device``, ``wda``, ``appium``) is
        each kind's specs as Rule 4 makes them alone, in :data:`KINDS`' order (the iOS kind's,
        then ``android``'s); ``parallel`` N keeps its first N and asking for more than it names is
        an error. Every other mix is refused: the scripted phone's pool mixes platforms by its app
        scripts (``platform: android``), and two kinds of iOS device would mix locking rules and
        WDA ports for nothing a shard can't do.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote, unquote, urlsplit

__all__ = [
    "KINDS",
    "DeviceOptions",
    "DeviceSpec",
    "PoolError",
    "label_of",
    "pool_specs",
    "relative_to",
    "rerun_options",
    "sim_port",
]

#: The kinds of device a spec names, in the order the options are listed, and what their value is.
KINDS: dict[str, str] = {
    "scripted": "APP.yaml", "sim": "NAME", "device": "NAME", "wda": "URL", "appium": "URL", "android": "[SERIAL]",
}  # fmt: skip
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")
#: A path segment that is a credential (a per-session endpoint's token), as the Appium driver's rule.
_TOKEN_SEGMENT = re.compile(r"[A-Za-z0-9\-_.~%+=]{20,}")
_NOUNS = {"sim": "simulator", "device": "iPhone", "wda": "WebDriverAgent", "android": "Android device"}


class PoolError(ValueError):
    """The options don't make a pool; the message says what to write instead (Rule 4)."""


@dataclass(frozen=True)
class DeviceSpec:
    """One device of a pool, as the options name it (Rule 1)."""

    kind: str
    value: str
    label: str = ""
    caps: str | None = field(default=None, kw_only=True)
    bundle: str | None = field(default=None, kw_only=True)
    prefix: str = field(default="--", kw_only=True)
    session_per_check: bool = field(default=False, kw_only=True)
    session_wait: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not self.label:
            object.__setattr__(self, "label", label_of(self.kind, self.value))

    @property
    def option(self) -> str:
        """The option that names it, as a user writes it: ``--sim "iPhone 17 Pro"`` (no secret, Rule 6)."""
        value = f'"{self.value}"' if " " in self.value else self.value
        return self.scrub(f"{self.prefix}{self.kind} {value}".rstrip())

    def scrub(self, text: str) -> str:
        """``text`` without the URL's password or token-like path segments (Rule 6)."""
        if self.kind not in ("wda", "appium"):
            return text
        parts = urlsplit(self.value.strip())
        try:
            secrets = {unquote(parts.password)} if parts.password else set()
        except ValueError:
            secrets = set()
        secrets.update(s for s in parts.path.split("/") if _TOKEN_SEGMENT.fullmatch(s))
        secrets.update((parts.query, parts.fragment))  # as given: the text shows them so
        for secret in sorted((s for s in secrets if s), key=len, reverse=True):
            text = text.replace(secret, "***").replace(quote(secret, safe=""), "***")
        return text

    @property
    def exclusive(self) -> bool:
        """True for a device one holder at a time may drive: a simulator, a USB iPhone, a WDA, an Android device.

        A scripted phone is made anew for each holder; an Appium URL hands out a session per
        client (a grid or a cloud: as many as it has phones).
        """
        return self.kind in ("sim", "device", "wda", "android")


def label_of(kind: str, value: str) -> str:
    """Rule 2: a short name for a device: a script's stem, a device's name, a URL's host and port."""
    if kind == "scripted":
        base = Path(value).stem
    elif kind == "sim":
        base = sim_port(value)[0]
    elif kind == "android":
        base = value or "android"
    elif kind in ("wda", "appium"):
        base = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://", "", value).split("/", 1)[0].rpartition("@")[2]
    else:
        base = value
    return _LABEL_UNSAFE.sub("-", base).strip("-") or kind


def sim_port(value: str) -> tuple[str, int | None]:
    """``"iPhone 17 Pro@8101"`` -> ``("iPhone 17 Pro", 8101)``: a simulator and its WDA's port (Rule 5)."""
    name, at, port = value.rpartition("@")
    if at and port.isdigit() and name.strip():
        number = int(port)
        if not 1 <= number <= 65535:
            raise ValueError(f"{value}: a WDA port is between 1 and 65535")
        return name, number
    return value, None


@dataclass(frozen=True)
class DeviceOptions:
    """What a front end's device options say, as given (Rule 3): ``pool_specs`` makes them a pool."""

    scripted: tuple[str, ...] = ()
    sim: tuple[str, ...] = ()
    device: tuple[str, ...] = ()
    wda: tuple[str, ...] = ()
    appium: tuple[str, ...] = ()
    android: tuple[str, ...] = ()
    caps: tuple[str, ...] = ()
    sessions: int | None = None
    parallel: int | None = None
    session_per_check: bool = False
    session_wait: float | None = None
    prefix: str = "--"
    #: How the front end spells an option the user gave, when not ``prefix + name`` (Rule 3).
    given: Mapping[str, str] = field(default_factory=dict, compare=False)

    def given_as(self, values: Callable[[str], Iterable[str]]) -> DeviceOptions:
        """These options with ``values(name)`` for each kind of device and for ``caps``, in order."""
        v = values
        return replace(
            self,
            scripted=tuple(v("scripted")),
            sim=tuple(v("sim")),
            device=tuple(v("device")),
            wda=tuple(v("wda")),
            appium=tuple(v("appium")),
            android=tuple(v("android")),
            caps=tuple(v("caps")),
        )

    def values(self, kind: str) -> tuple[str, ...]:
        """The values given for ``kind`` (``sim``: the simulators' names), in order."""
        values: tuple[str, ...] = getattr(self, kind)
        return values

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of device given, in :data:`KINDS`' order (one, for a pool)."""
        return tuple(kind for kind in KINDS if self.values(kind))

    def spelled(self, name: str, metavar: str = "") -> str:
        """How an option is named in a message: as the user gave it, else ``--name METAVAR``."""
        given = self.given.get(name)
        if given:
            return given
        return f"{self.prefix}{name}{' ' + metavar if metavar else ''}"


# -- the pool they make (Rule 4) -----------------------------------------------------------------


def pool_specs(options: DeviceOptions, *, bundle: str | None = None, required: bool = True) -> tuple[DeviceSpec, ...]:
    """The specs ``options`` name (Rule 4), the Appium sessions asking for ``bundle``; or a :class:`PoolError`.

    With ``required=False``, options that name no device are an empty pool rather than an error
    (the pytest plugin's checks then say which option to pass).
    """
    kinds = _kinds(options, required=required)
    if len(kinds) > 1:  # Rule 8
        alone = replace(options, parallel=None)
        specs = [spec for kind in kinds for spec in _kind_specs(alone, kind, bundle)]
        parallel = options.parallel
        if parallel is not None and parallel > len(specs):
            _too_few(options, kinds[0], parallel, count=len(specs))
        specs = specs[:parallel] if parallel is not None else specs
        labels = _unique([s.label for s in specs])
        return tuple(replace(s, label=label) for s, label in zip(specs, labels, strict=True))
    return _kind_specs(options, kinds[0], bundle) if kinds else ()


def _kind_specs(options: DeviceOptions, kind: str, bundle: str | None) -> tuple[DeviceSpec, ...]:
    """Rule 4: the specs of one kind of device."""
    values = list(options.values(kind))
    if kind == "appium":
        return _appium_specs(options, bundle)
    parallel = options.parallel
    if kind == "scripted":
        count = parallel or len(values)
        values = [values[n % len(values)] for n in range(count)]
    elif parallel is not None and parallel > len(values):
        _too_few(options, kind, parallel)
    elif parallel is not None:
        values = values[:parallel]
    if kind == "sim" and len(values) > 1:
        values = _sim_ports(values)
    labels = _labels(kind, values)
    return tuple(
        DeviceSpec(kind, value, label, prefix=options.prefix) for value, label in zip(values, labels, strict=True)
    )


def _kinds(options: DeviceOptions, *, required: bool) -> tuple[str, ...]:
    """The kinds of device the options name (one, or Rule 8's two), and options that go with another kind refused."""
    p = options.prefix
    chosen = options.kinds
    two = len(chosen) == 2 and "android" in chosen and "scripted" not in chosen  # Rule 8
    if len(chosen) > 1 and not two:
        names = " and ".join(options.spelled(k) for k in chosen)
        raise PoolError(
            f"choose one device option, not {names}: a pool holds devices of one kind, or Android devices "
            f"({p}android) beside one kind of iOS device or Appium URLs"
        )
    if "appium" not in chosen:
        for name, metavar, why in (
            ("caps", "FILE", " (the Appium session's capabilities)"),
            ("sessions", "N", " (N sessions on one server or cloud)"),
            ("session-per-check", "", ""),
            ("session-wait", "SECONDS", " (how long a new session may take)"),
        ):
            if _given(options, name):
                raise PoolError(f"{options.spelled(name, metavar)} goes with {p}appium URL{why}")
    wait = options.session_wait
    if wait is not None and not 0 < wait <= 3600:  # an hour: a longer queue is a hang
        raise PoolError(f"{p}session-wait takes seconds from more than 0 to 3600, not {wait:g}")
    for name, number in (("sessions", options.sessions), ("parallel", options.parallel)):
        if number is not None and number < 1:
            raise PoolError(f"{p}{name} takes a whole number from 1, not {number}")
    if not chosen and required:
        raise PoolError(f"choose a device: {', '.join(f'{p}{k} {v}' for k, v in KINDS.items())}")
    return chosen


def _given(options: DeviceOptions, name: str) -> bool:
    if name == "caps":
        return bool(options.caps)
    if name == "sessions":
        return options.sessions is not None
    if name == "session-wait":
        return options.session_wait is not None
    return options.session_per_check


def _sim_ports(values: Sequence[str]) -> list[str]:
    """Rule 5: each simulator of a pool on its own WDA port: the given one, else the base port + its place."""
    from mobster_core import DeviceError
    from mobster_drivers.devices.simulator import wda_port  # the base: $MOBSTER_WDA_PORT, else 8100

    try:
        base = wda_port()
    except DeviceError as exc:
        raise PoolError(str(exc)) from exc
    out = []
    for n, value in enumerate(values):
        name, port = sim_port(value)
        out.append(value if port is not None else f"{name}@{base + n}")
    ports = [sim_port(v)[1] for v in out]
    if len(set(ports)) != len(ports):
        raise PoolError(f"two simulators of the pool on one WDA port ({', '.join(out)}): give each its own NAME@PORT")
    return out


def _too_few(options: DeviceOptions, kind: str, parallel: int, *, count: int | None = None) -> NoReturn:
    p = options.prefix
    if count is not None:  # Rule 8: a pool of two kinds
        raise PoolError(
            f"{p}parallel {parallel} needs {parallel} devices, and the pool names {count}: name more devices, "
            "or run one mobster per device (each with its own --shard)"
        )
    count = len(options.values(kind))
    noun = _NOUNS[kind]
    raise PoolError(
        f"{p}parallel {parallel} needs {parallel} devices, and the pool names {count} "
        f"{noun}{'s' if count != 1 else ''}: add {p}{kind} {KINDS[kind]} once per {noun}, "
        "or run one mobster per device (each with its own --shard)"
    )


def _appium_specs(options: DeviceOptions, bundle: str | None) -> tuple[DeviceSpec, ...]:
    urls, caps, parallel = options.appium, options.caps, options.parallel
    if len(caps) not in (0, 1, len(urls)):
        raise PoolError(
            f"{len(caps)} caps files for {len(urls)} Appium servers: give one for all or one per {options.prefix}appium"
        )
    sessions = options.sessions
    if sessions is None:
        sessions = -(-parallel // len(urls)) if parallel else 1  # --parallel N on one URL: N sessions
    pairs = [(url, caps[0] if len(caps) == 1 else caps[n] if caps else None) for n, url in enumerate(urls)]
    slots = [pair for pair in pairs for _ in range(sessions)]
    if parallel is not None:
        slots = slots[:parallel]
    labels = _labels("appium", [url for url, _ in slots])
    return tuple(
        DeviceSpec(
            "appium", url, label, caps=file, bundle=bundle, prefix=options.prefix,
            session_per_check=options.session_per_check, session_wait=options.session_wait,
        )
        for (url, file), label in zip(slots, labels, strict=True)
    )  # fmt: skip


def _labels(kind: str, values: Sequence[str]) -> list[str]:
    """Rule 2: unique short names: ``host:4723-1``, ``host:4723-2`` when two devices share one."""
    return _unique([label_of(kind, v) for v in values])


def _unique(raw: Sequence[str]) -> list[str]:
    """Rule 2: labels made unique by their place among those they share a name with."""
    seen: dict[str, int] = {}
    out = []
    for label in raw:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if raw.count(label) == 1 else f"{label}-{seen[label]}")
    return out


def rerun_options(options: DeviceOptions, driver: Sequence[str] = (), *, root: Path | None = None) -> dict[str, str]:
    """The ``mobster test`` options that name each device of the pool, by its label (Rule 7).

    A pool of one device has results with no label: it is ``""`` too. ``--driver FACTORY ARG`` is
    one entry, ``""``. Options that make no pool (a usage problem the run says itself) give none.
    """
    if driver:
        return {"": " ".join(shlex.quote(v) for v in ("--driver", *driver))}
    try:
        specs = pool_specs(options, required=False)
    except PoolError:
        return {}
    named = {s.label: _rerun_words(s, root) for s in specs}
    if len(specs) == 1:
        named[""] = _rerun_words(specs[0], root)
    return named


def relative_to(path: str, root: Path | None) -> str:
    """``path`` as a command run in ``root`` names it: relative inside it (``apps/yourapp.yaml``), else as given."""
    if root is None:
        return path
    try:
        return Path(path).absolute().relative_to(root.absolute()).as_posix()
    except ValueError:
        return path


def _rerun_words(spec: DeviceSpec, root: Path | None) -> str:
    """``--sim 'iPhone 17 Pro'``: one device's option, its URL's secrets scrubbed, and its caps file."""
    value = relative_to(spec.value, root) if spec.kind == "scripted" else spec.scrub(spec.value)
    words = [f"--{spec.kind}", value]
    if spec.caps is not None:
        words += ["--caps", relative_to(spec.caps, root)]
    return " ".join(shlex.quote(w) for w in words)
