"""The project config: ``mobster.toml`` or ``[tool.mobster]`` in ``pyproject.toml``, with named profiles.

Standard library only when imported (like :mod:`.settings`): the pytest plugin looks for a config
when pytest starts; ``mobster_core`` is imported only once a config file is there to read, and the
file is read by :mod:`._config_reader` (the core's strict reader base, for TOML).

Rule 1: the project root is the nearest folder at or above the start that holds ``.mobster/``;
        its config is ``mobster.toml`` there, else ``[tool.mobster]`` of its ``pyproject.toml``.
        With no ``.mobster/`` above, the nearest folder holding either is the root. Both files
        holding settings is an error (keep one). No file: no config (every value its default).
Rule 2: :data:`KEYS` is the one table of settings a config may hold, each named as its
        ``mobster test`` option (``poll-interval`` is ``--poll-interval``) and mapped onto the
        option's destination (``field``: the name in click's options, and the
        :class:`~mobster_harness.settings.Settings` field it fills). A new option that
        the config must carry is one row here. Each value is checked as the option checks it
        (the same types, ranges and choices: a test keeps them in step with the CLI).
Rule 3: a profile (``[profiles.NAME]`` in ``mobster.toml``, ``[tool.mobster.profiles.NAME]`` in
        ``pyproject.toml``) lays its keys over the base keys. The profile used: the front end's
        option (``--profile``, ``--mobster-profile``), else ``$MOBSTER_PROFILE``, else the file's
        ``profile`` key, else none. A layer that names a device (``scripted``, ``sim``, ``device``,
        ``wda``, ``appium``) replaces the whole pool of the layers below it (:data:`POOL_KEYS`: the
        devices, ``caps``, ``parallel``, ``sessions``, ``session-per-check``, ``session-wait``), so
        a ``grid`` profile's ``appium`` never meets the base's ``scripted``. The front ends lay their own options over
        the result the same way (the command line, and the plugin's ini keys).
Rule 4: a relative path (an app script, a caps file, an env file) is relative to the config file's
        folder, so a config works from any sub-folder.
Rule 5: ``install`` (a base key, not a setting of a run) is where CI installs Mobster replay from,
        read by the workflow ``mobster init`` writes (``docs/ci.md``): a URL (``git+https://…@REF``,
        a wheel's ``https://`` URL), a path in the repository (a wheel, a folder), or a version
        specifier once it is released (``==0.2.0``). It is one word (no spaces, no control
        characters: the workflow passes it on whole) and holds no password or token: the config is
        committed, so an http(s) URL's userinfo (a token may stand as the user) and any URL's
        password are refused; ``git+ssh://git@host/…`` names the ssh account and is kept.
Rule 6: every bad input is a :class:`ConfigError` whose one line names the file, the line, the key
        and the fix: an unknown key (with the nearest known one), a wrong type or range, an unknown
        profile (with the known ones), TOML that doesn't parse (its line), a file that isn't a
        regular file or is larger than :data:`MAX_BYTES` (read with ``read_user_file``), a file that
        isn't UTF-8. tomllib gives no line per key: :func:`line_of` finds it in the text (a line
        ends at a newline only, as TOML's do; a quoted key's escapes are read as TOML reads them).
        A table's unknown keys are said before its values, as every strict reader says them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CONFIG_FILE",
    "KEYS",
    "MAX_BYTES",
    "POOL_KEYS",
    "ConfigError",
    "Key",
    "ProjectConfig",
    "find_config",
    "line_of",
    "load_config",
    "toml_value",
]

#: The config file of its own (the other home is ``[tool.mobster]`` in ``pyproject.toml``).
CONFIG_FILE = "mobster.toml"
#: The largest config file read (Rule 6).
MAX_BYTES = 256 * 1024
_PYPROJECT = "pyproject.toml"
_TOOL_TABLE = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?mobster[\"']?\s*[\].]", re.MULTILINE)


class ConfigError(ValueError):
    """A config that can't be used; the message names the file, the line and the fix (Rule 6)."""


@dataclass(frozen=True)
class Key:
    """One setting of the config (Rule 2): its name, the option's destination, and its check.

    ``kind`` is ``flag``, ``text``, ``list`` (a text or a list of texts), ``int``, ``float``,
    ``choice``, ``locale``, ``alerts``, ``store`` (``paths``: a store's name or URL, no password),
    ``reference`` (``${NAME}``); ``path`` says its values are files (Rule 4); ``low``/``high`` bound a
    number (``low_open``: strictly above ``low``).
    """

    name: str
    field: str
    kind: str
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    path: bool = False
    example: str = ""

    def check(self, value: object) -> object:
        """``value`` as the option's destination holds it, or a ``ValueError`` saying what to write."""
        return _CHECKS[self.kind](self, value)


def _flag(key: Key, value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError(f"write true or false, such as {key.name} = true")
    return value


def _text(key: Key, value: object) -> object:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"write a text in quotes, such as {key.name} = {toml_value(key.example or 'NAME')}")
    return value.strip()


def _list(key: Key, value: object) -> object:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) and v.strip() for v in items):
        example = key.example or "NAME"
        raise ValueError(
            f"write a text or a list of texts, such as {key.name} = {toml_value(example)} "
            f"or {key.name} = [{toml_value(example)}]"
        )
    return tuple(v.strip() for v in items)


def _range_text(key: Key) -> str:
    low = "above" if key.low_open else "from"
    return f"{low} {key.low:g} to {key.high:g}" if key.high is not None else f"{low} {key.low:g}"


def _int(key: Key, value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, int) or not _in_range(key, value):
        raise ValueError(f"write a whole number {_range_text(key)}, such as {key.name} = {key.example or '2'}")
    return value


def _float(key: Key, value: object) -> object:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not _in_range(key, float(value)):  # type: ignore[arg-type]
        raise ValueError(f"write a number {_range_text(key)}, such as {key.name} = {key.example or '1.0'}")
    return float(value)  # type: ignore[arg-type]


def _in_range(key: Key, value: float) -> bool:
    if key.low is not None and (value <= key.low if key.low_open else value < key.low):
        return False
    return key.high is None or value <= key.high


def _choice(key: Key, value: object) -> object:
    if not isinstance(value, str) or value not in key.choices:
        choices = " or ".join(f'"{c}"' for c in key.choices)
        raise ValueError(f'write one of {choices}, such as {key.name} = "{key.choices[0]}"')
    return value


def _locale(key: Key, value: object) -> object:
    from mobster_core.text import normal_locale

    try:
        return normal_locale(value) if isinstance(value, str) else normal_locale(str(value))
    except ValueError as exc:
        raise ValueError(f'{exc}; such as {key.name} = "de_DE"') from None


def _alerts(key: Key, value: object) -> object:
    """A system-alert policy as a check writes it: ``"accept"``, or a table of ``allow``/``deny`` lists."""
    from mobster_core.checks import parse_alert_policy

    if isinstance(value, str) and value not in key.choices:
        _choice(key, value)
    if not isinstance(value, str | dict):
        raise ValueError(
            f'write one of "fail", "accept" or "dismiss", or a table such as {key.name} = {{allow = ["location"]}}'
        )
    try:
        parse_alert_policy(value, key.name)
    except ValueError as exc:
        raise ValueError(str(exc).removeprefix(f"{key.name}: ").removeprefix(f"{key.name}.")) from None
    if isinstance(value, dict):  # a frozen copy: the lists become tuples
        return {k: tuple(v) if isinstance(v, list) else v for k, v in value.items()}
    return value


def _store(key: Key, value: object) -> object:
    """Where paths live: ``local``, ``committed``, an ``s3://`` or ``postgresql://`` URL, or ``${NAME}``."""
    from mobster_drivers.stores import check_setting

    try:
        return check_setting(value, committed=True)
    except ValueError as exc:
        raise ValueError(f'{exc}; such as {key.name} = "{key.example}"') from None


def _reference(key: Key, value: object) -> object:
    """The name of the variable that holds a secret, as ``${NAME}`` (never the secret itself)."""
    if not isinstance(value, str) or re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", value.strip()) is None:
        raise ValueError(
            f'write the name of the environment variable that holds it, such as {key.name} = "${{MOBSTER_TEAM_KEY}}" '
            "(the config is committed: the key itself never is)"
        )
    return value.strip()


_CHECKS: dict[str, Callable[[Key, object], object]] = {
    "flag": _flag,
    "text": _text,
    "list": _list,
    "int": _int,
    "float": _float,
    "choice": _choice,
    "locale": _locale,
    "alerts": _alerts,
    "store": _store,
    "reference": _reference,
}

#: Rule 2: every setting of the config, as ``mobster test``'s options name and check it; a later
#: option the config must carry is one more row, its ``field`` the option's destination and the
#: ``Settings`` field it fills.
KEYS: tuple[Key, ...] = (
    Key("scripted", "scripted", "list", "the scripted phone's app script(s)", path=True, example="apps/yourapp.yaml"),
    Key("sim", "sim", "list", "iOS simulators, NAME or UDID, NAME@PORT for its WDA", example="iPhone 17 Pro"),
    Key("device", "device", "list", "USB iPhones, NAME or UDID", example="Ada's iPhone"),
    Key("wda", "wda", "list", "WebDriverAgents already listening", example="http://127.0.0.1:8100"),
    Key("appium", "appium", "list", "Appium servers, Selenium Grids or device clouds", example="http://grid:4444"),
    Key("android", "android", "list", 'Android devices and emulators by serial ("": the only one)',
        example="emulator-5554"),
    Key("caps", "caps", "list", "the Appium sessions' caps files, one for all or one each", path=True,
        example="caps/grid.json"),
    Key("parallel", "parallel", "int", "devices at once", low=1, high=64),
    Key("sessions", "sessions", "int", "Appium sessions per URL", low=1, high=64),
    Key("session-per-check", "session_per_check", "flag", "end each Appium session after its check"),
    Key("session-wait", "session_wait", "float", "seconds a new Appium session may take (a Grid's queue)", low=0,
        low_open=True, high=3600.0, example="300"),
    Key("each-device", "each_device", "flag", "run every check on every device"),
    Key("model", "model", "text", "claude-..., gpt-... or scripted", example="scripted"),
    Key("env-file", "env_file", "text", "read API keys from this file", path=True, example=".env"),
    Key("no-heal", "no_heal", "flag", "strict CI: fail a check whose screen changed; no model"),
    Key("fresh", "fresh", "flag", "run every step with Smart and record again"),
    Key("carry", "carry", "flag", "on a new build, replay the newest earlier build's path before recording"),
    Key("max-usd", "max_usd", "float", "cap each check's model spend (USD)", low=0, low_open=True, example="0.25"),
    Key("locale", "locale", "locale", "run the app in this locale", example="de_DE"),
    Key("poll-interval", "poll_interval", "float", "seconds between two reads while a step waits", low=0.01,
        high=10.0, example="0.15"),
    Key("drift-after", "drift_after", "float", "a settled screen without a match drifts after this long", low=0.0,
        high=600.0, example="1.0"),
    Key("give-up-after", "give_up_after", "float", "a screen that keeps changing drifts after this long", low=0.0,
        high=600.0, example="3.0"),
    Key("frames", "frames", "choice", "which screens each run keeps", choices=("auto", "all", "failed", "none")),
    Key("paths", "paths_store", "store", "where recorded paths live: local, committed, s3://…, postgresql://…",
        example="s3://team-paths/yourapp"),
    Key("paths-write", "paths_write", "flag", "write to the path store (false: a pull request's job replays only)"),
    Key("paths-key", "paths_key", "reference", "the team key that signs the store's documents, as ${NAME}",
        example="${MOBSTER_TEAM_KEY}"),
    Key("paths-lease", "paths_lease", "float", "seconds a recording lease lives without renewal", low=1.0,
        high=3600.0, example="60"),
    Key("paths-wait", "paths_wait", "float", "seconds a run waits for another machine's recording", low=0,
        low_open=True, high=86400.0, example="900"),
    Key("retries", "retries", "int", "run a check that couldn't run because of the machine up to N times more",
        low=0, high=10, example="2"),
    Key("repeat", "repeat", "int", "run each check K times and report its pass rate", low=1, high=1000, example="3"),
    Key("alerts", "alerts", "alerts", "how every check answers system alerts (docs/alerts.md)",
        choices=("fail", "accept", "dismiss"), example="accept"),
    Key("video", "video", "choice", "record the screen into each run folder (retain-on-failure: kept when not passed)",
        choices=("off", "on", "retain-on-failure")),
    Key("platform", "platform", "choice", "run the checks on this platform's devices of the pool only",
        choices=("ios", "android")),
)  # fmt: skip
_BY_NAME = {k.name: k for k in KEYS}
#: Rule 3: the keys of a device pool; a layer naming a device replaces all of them below it.
DEVICE_KEYS = ("scripted", "sim", "device", "wda", "appium", "android")
POOL_KEYS = (*DEVICE_KEYS, "caps", "parallel", "sessions", "session-per-check", "session-wait")
#: The keys of the file that are not settings: the default profile, the profiles, and where CI installs from.
_META = ("profile", "profiles", "install")


@dataclass(frozen=True)
class ProjectConfig:
    """The config a run uses (the module rules): the values by key name and where each came from.

    ``values`` holds each key's value as the option's destination holds it (a tuple for a list,
    a path made absolute, Rule 4); ``sources`` says where: ``mobster.toml`` or
    ``mobster.toml [profiles.grid]``. ``profile`` is the profile used and ``profile_from`` what
    chose it (``--profile``, ``MOBSTER_PROFILE``, ``mobster.toml``'s ``profile`` key).
    """

    file: Path | None = None
    profile: str | None = None
    profile_from: str | None = None
    profiles: tuple[str, ...] = ()
    values: Mapping[str, object] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    #: Rule 5: where CI installs Mobster replay from, as written (None: the file doesn't say).
    install: str | None = None

    @property
    def shown(self) -> str:
        """The file as messages name it (its name; ``pyproject.toml [tool.mobster]``)."""
        return _shown(self.file) if self.file is not None else "no config"

    def without_pool(self) -> ProjectConfig:
        """These values without the pool (Rule 3): what stays under a front end's own device option."""
        values = {k: v for k, v in self.values.items() if k not in POOL_KEYS}
        sources = {k: v for k, v in self.sources.items() if k not in POOL_KEYS}
        return ProjectConfig(self.file, self.profile, self.profile_from, self.profiles, values, sources, self.install)


def _shown(file: Path) -> str:
    return f"{file.name} [tool.mobster]" if file.name == _PYPROJECT else file.name


def _named(file: Path) -> str:
    """The file as an error names it: its path (and the table, in ``pyproject.toml``)."""
    return f"{file} [tool.mobster]" if file.name == _PYPROJECT else str(file)


# -- where (Rule 1) --------------------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The config file of the project at or above ``start`` (Rule 1), or None."""
    here = start.absolute()
    folders = (here, *here.parents)
    root = next((f for f in folders if (f / ".mobster").is_dir()), None)
    for folder in (root,) if root is not None else folders:
        found = _config_in(folder)
        if found is not None:
            return found
    return None


def _config_in(folder: Path) -> Path | None:
    own, pyproject = folder / CONFIG_FILE, folder / _PYPROJECT
    has_own = own.exists() or own.is_symlink()
    has_tool = pyproject.is_file() and _has_tool_table(pyproject)
    if has_own and has_tool:
        raise ConfigError(
            f"{own} and {pyproject} [tool.mobster] both hold Mobster settings: keep one of them (docs/config.md)"
        )
    if has_own:
        return own
    return pyproject if has_tool else None


def _has_tool_table(pyproject: Path) -> bool:
    """Rule 1: whether ``pyproject.toml`` holds ``tool.mobster``, decided from its parsed document.

    Any form TOML allows counts (a ``[tool.mobster]`` header, a quoted ``[tool."mobster"]``, an
    inline ``mobster = {…}`` under ``[tool]``, dotted ``tool.mobster.x`` keys, an array of tables):
    the load then says what is wrong with it, if anything. A file that doesn't parse (or starts
    with a byte order mark, or isn't UTF-8) holds it when a line looks like its header, so the
    load names its fault rather than the config being silently absent. This first look stays in
    the standard library (the plugin makes it when pytest starts): it opens the file as
    ``read_user_file`` does (non-blocking, a regular file only, bounded); the load reads it
    through ``read_user_file``.
    """
    import stat
    import tomllib

    try:
        fd = os.open(pyproject, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    body = head.removeprefix(b"\xef\xbb\xbf")  # the load says the mark; the decision reads past it
    if len(head) <= MAX_BYTES:
        try:
            doc = tomllib.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            pass
        else:
            tool = doc.get("tool")
            return isinstance(tool, dict) and "mobster" in tool
    return bool(_TOOL_TABLE.search(body.decode("utf-8", errors="replace")))


# -- reading (Rules 2-6) ---------------------------------------------------------------------------


def load_config(
    start: Path,
    *,
    profile: str | None = None,
    profile_from: str = "--profile",
    env: Mapping[str, str] | None = None,
    file: Path | None = None,
) -> ProjectConfig:
    """The config at or above ``start`` (or ``file``) with its profile laid over (the module rules).

    ``profile`` is the front end's option (``profile_from`` spells it); else ``$MOBSTER_PROFILE``
    of ``env`` (the process's environment by default), else the file's ``profile`` key.
    """
    environ = os.environ if env is None else env
    if profile is None and environ.get("MOBSTER_PROFILE", "").strip():
        profile, profile_from = environ["MOBSTER_PROFILE"].strip(), "MOBSTER_PROFILE"
    path = file if file is not None else find_config(start)
    if path is None:
        if profile is not None:
            raise ConfigError(
                f"{profile_from} {profile}: there is no project config ({CONFIG_FILE}, or [tool.mobster] in "
                f"{_PYPROJECT}) at or above {start.absolute()}: run `mobster init`, or leave the profile out"
            )
        return ProjectConfig()
    text = _read(path)
    table = _parse(path, text)
    from ._config_reader import ConfigReader  # the core's strict reader, now that there is a file to read

    reader = ConfigReader(path, text)
    reader.top(table)
    profiles = reader.profiles(table.get("profiles"))
    if profile is None and "profile" in table:
        profile = reader.profile_of(table["profile"])
        profile_from = f"{_shown(path)}'s profile key"
    values, sources = reader.layered(profile, profile_from, profiles)
    install = reader.install_of(table["install"]) if "install" in table else None
    return ProjectConfig(path, profile, profile_from if profile else None, tuple(profiles), values, sources, install)


def _read(path: Path) -> str:
    from mobster_core.checks import read_user_file
    from mobster_core.exceptions import UnsafeFile

    try:
        data = read_user_file(path, max_bytes=MAX_BYTES)
    except UnsafeFile as exc:
        raise ConfigError(f"{path}: {exc.reason}; the project config is a regular TOML file") from None
    except OSError as exc:
        raise ConfigError(
            f"{path}: can't read it ({exc.strerror or type(exc).__name__}); check its permissions"
        ) from None
    from mobster_core.text import bom_problem

    bom = bom_problem(data)
    if bom is not None:  # tomllib would say "Invalid statement (at line 1, column 1)"
        raise ConfigError(f"{path}: {bom}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}: line {line}: byte {exc.start + 1} is not UTF-8; save the file as UTF-8") from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc)) or "not TOML"
        where = f"line {m.group(1)}, column {m.group(2)}: " if m else ""
        raise ConfigError(f"{path}: {where}not valid TOML ({what}); fix it (https://toml.io)") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables by recursion
        raise ConfigError(
            f"{path}: its arrays or inline tables nest too deeply to read; a config nests a few levels at most"
        ) from None
    if path.name != _PYPROJECT:
        return doc
    tool = doc.get("tool", {}).get("mobster") if isinstance(doc.get("tool"), dict) else None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: line {line_of(text, ('tool',), 'mobster')}: tool.mobster should be a table")
    return tool


# -- lines (Rule 6) --------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_PART = r"(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*')"  # bare, "basic" (with escapes), 'literal'
_ASSIGN = re.compile(rf"^\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_PART = re.compile(r"[A-Za-z0-9_-]+|\"((?:[^\"\\]|\\.)*)\"|'([^']*)'")


def _dotted(text: str) -> tuple[str, ...]:
    return tuple(_part(m) for m in _PART.finditer(text))


def _part(match: re.Match[str]) -> str:
    """One part of a dotted key as TOML reads it: a basic string's escapes decoded, an empty one kept."""
    basic, literal = match.group(1), match.group(2)
    if literal is not None:
        return literal
    if basic is None:
        return match.group(0)
    if "\\" not in basic:
        return basic
    import tomllib

    try:
        return str(tomllib.loads(f'k = "{basic}"')["k"])
    except tomllib.TOMLDecodeError:
        return basic


def line_of(text: str, table: tuple[str, ...], name: str) -> int | None:
    """The line (from 1) where ``name`` of ``table`` is written: ``key =``, a dotted key, or its header."""
    wanted = (*table, name)
    current: tuple[str, ...] = ()
    for n, line in enumerate(text.split("\n"), 1):  # TOML ends a line at \n only (not at U+2028)
        header = _HEADER.match(line)
        if header:
            current = _dotted(header.group(1))
            if current == wanted:
                return n
            continue
        assign = _ASSIGN.match(line)
        if assign:
            full = (*current, *_dotted(assign.group(1)))
            if full[: len(wanted)] == wanted:
                return n
    return None


def toml_value(value: object) -> str:
    """``value`` as TOML writes it (a tuple as a list), for messages and ``mobster config``: one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, int | float):
        return repr(value)
    if value is None:
        return "(none)"
    return '"' + "".join(_TOML_ESCAPES.get(c) or (c if c.isprintable() else _escaped(c)) for c in str(value)) + '"'


#: How a TOML string writes the characters that would end it or break its line (the rest: ``\\uXXXX``).
_TOML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"
