r"""The project config's reader: the strict reader base (``mobster_core.yaml.StrictReader``) for TOML.

:func:`~mobster_harness.config.load_config` imports it once a config file is there to read: the
config module itself is the standard library only (the pytest plugin imports it when pytest
starts), and this module stands on the core.

Rule 1: it is a :class:`~mobster_core.yaml.StrictReader`: every problem goes through its
        :meth:`~ConfigReader.fail`, whose one line reads ``file: line N: name [table]: problem;
        fix`` (the config's Rule 6). The line is :meth:`~ConfigReader.line`'s, found in the text
        (:func:`~mobster_harness.config.line_of`: tomllib gives none; no line is said where it
        finds none, as in an inline table), and the table is said without ``tool.mobster`` in a
        ``pyproject.toml``. A key, a table and a profile's name are said as TOML writes them:
        bare (``poll-interval``), else quoted with TOML's escapes (``"ci run"``, ``"a\nb"``), so
        the line stays one whatever the file's keys or the chosen profile hold.
Rule 2: its fixes are its own, in TOML's words (``such as parallel = 2``): it doesn't advise, and
        the fixes the base says where the value shows them are spelled as TOML writes a key
        (``assigns``: ``write it without quotes: parallel = 2``).
Rule 3: a table's keys are read as the base reads a mapping's: every key first (an unknown key
        named with the nearest allowed one, or where the keys are listed; in a profile, a key of
        the file's own, ``profile``, ``profiles`` or ``install``, said to belong to the base),
        then each value in the file's order, checked as its option checks it (the config's
        Rule 2, :meth:`~mobster_harness.config.Key.check`), its paths made the file's (Rule 4).
Rule 4: the layers are the config's Rule 3: the base keys, the profile's laid over them (a layer
        naming a device replaces the whole pool below it).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from mobster_core.yaml import Keys, StrictReader, YamlDoc

from .config import (
    _BY_NAME,
    _META,
    _PYPROJECT,
    DEVICE_KEYS,
    POOL_KEYS,
    ConfigError,
    _named,
    _shown,
    line_of,
    toml_value,
)

__all__ = ["ConfigReader"]

#: Rule 3: the keys a profile may hold (every setting); the base table also holds the file's own.
SETTINGS = tuple(_BY_NAME)
#: The config's Rule 5: how a version specifier starts (``==0.2.0``, ``~=0.2``, ``>=0.2,<0.3``).
_SPECIFIER = re.compile(r"(===?|~=|!=|<=?|>=?)\s*[0-9]")
#: A key TOML writes without quotes.
_BARE = re.compile(r"[A-Za-z0-9_-]+")


class ConfigReader(StrictReader):
    """Reads the keys of one config file's tables (the module rules), naming the line of a bad one."""

    #: Rule 2: the config's fixes are its own (TOML's); the base says one only where the value shows it.
    advises = False
    assigns = " = "

    def __init__(self, path: Path, text: str) -> None:
        # The base's document is the file's name and no YAML nodes: the lines are found in the text.
        super().__init__(YamlDoc(str(path), None, None))
        self.path = path
        self.toml = text  # the file as written, where the lines are found (the base has `text`: a shape)
        #: The table the settings are in: ``tool.mobster`` in a ``pyproject.toml``, else the top.
        self.base: tuple[str, ...] = ("tool", "mobster") if path.name == _PYPROJECT else ()
        self.values: dict[tuple[str, ...], dict[str, object]] = {}

    # -- Rule 1: the one line ------------------------------------------------------------------

    def line(self, keys: Keys) -> int | None:
        """Rule 1: the line where the key at ``keys`` is written (its ``key =``, a dotted key, or its header)."""
        if not keys:
            return None
        *table, name = (str(k) for k in keys)
        return line_of(self.toml, tuple(table), name)

    def fail(self, keys: Keys, problem: str, fix: str = "") -> NoReturn:
        """Rule 1: refuse the value at ``keys``: ``file: line N: name [table]: problem; fix``."""
        said = f"{problem}; {fix}" if fix else problem
        if not keys:
            raise ConfigError(f"{_named(self.path)}: {said}")
        line = self.line(keys)
        where = f"line {line}: " if line else ""
        *table, name = (str(k) for k in keys)
        in_table = table[len(self.base) :] if tuple(table[: len(self.base)]) == self.base else table
        header = f" [{'.'.join(_toml_key(k) for k in in_table)}]" if in_table else ""
        raise ConfigError(f"{_named(self.path)}: {where}{_toml_key(name)}{header}: {said}")

    def unknown_key(self, keys: Keys, name: str, allowed: Sequence[str]) -> NoReturn:
        """Rule 3: a key that is no setting, with the nearest allowed one; the file's own keys in a profile."""
        if name in _META:  # allowed in the base table: this table is a profile
            self.fail((*keys, name), "a profile can't hold profiles or choose one", "move it to the base")
        near = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        hint = f'did you mean "{near[0]}"?' if near else "the keys are listed in docs/config.md"
        self.fail((*keys, name), "not a setting", hint)

    # -- Rule 3: the tables ----------------------------------------------------------------------

    def settings(self, table: tuple[str, ...], body: Mapping[str, Any], allowed: Sequence[str]) -> None:
        """Rule 3: the keys of one table, each a setting (or ``allowed``'s other keys), then each value checked."""
        self.mapping(body, table, allowed)
        layer = self.values.setdefault(table, {})
        for name, value in body.items():
            key = _BY_NAME.get(name)
            if key is None:  # the file's own keys (profile, profiles, install): read by their own methods
                continue
            try:
                checked = key.check(value)
            except ValueError as exc:
                self.fail((*table, name), str(exc))
            if key.path:
                folder = self.path.parent.absolute()
                if isinstance(checked, tuple):
                    checked = tuple(_resolved(v, folder) for v in checked)
                else:
                    checked = Path(_resolved(str(checked), folder))
            layer[name] = checked

    def top(self, body: Mapping[str, Any]) -> None:
        """Rule 3: the base table: the settings and the file's own keys."""
        self.settings(self.base, body, (*SETTINGS, *_META))

    def profiles(self, value: object) -> list[str]:
        """Rule 3: the profiles' names, each profile's settings read."""
        base = self.base
        self.values.setdefault(base, {})
        if value is None:
            return []
        if not isinstance(value, dict):
            self.fail(
                (*base, "profiles"), f"should be tables of settings, such as [{_profile_header(self.path, 'grid')}]"
            )
        names = []
        for name, body in value.items():
            if not isinstance(body, dict):
                header = _profile_header(self.path, name)
                self.fail((*base, "profiles", name), f"a profile is a table of settings: [{header}]")
            self.settings((*base, "profiles", name), body, SETTINGS)
            names.append(name)
        return names

    def profile_of(self, value: object) -> str:
        """The file's ``profile`` key: the name of a profile."""
        if not isinstance(value, str) or not value.strip():
            self.fail((*self.base, "profile"), 'write the name of a profile in quotes, such as profile = "scripted"')
        return value.strip()

    def install_of(self, value: object) -> str:
        """The config's Rule 5: the ``install`` key, one word that CI can pass to pip."""
        keys = (*self.base, "install")
        example = 'install = "git+https://github.com/OWNER/REPO@v0.1.0"'
        if not isinstance(value, str) or not value.strip():
            self.fail(keys, f"write where CI installs Mobster replay from, such as {example}")
        text = value.strip()
        if any(c.isspace() or not c.isprintable() for c in text):
            self.fail(keys, f"write one URL, path or version without spaces, such as {example}")
        if "://" in text:
            from urllib.parse import urlsplit

            parts = urlsplit(text)
            userinfo = parts.netloc.rpartition("@")[0]
            web = parts.scheme.split("+")[-1] in ("http", "https")
            if (userinfo and web) or ":" in userinfo:  # git+ssh://git@host/… names the ssh account, no secret
                self.fail(
                    keys,
                    "the URL holds a user or token, and this file is committed: write the URL without it "
                    "(a private repository: give the job a deploy key or a token in its secrets)",
                )
        elif text[0] in "=<>!~" and not _SPECIFIER.match(text):
            self.fail(keys, 'write a version specifier such as install = "==0.2.0"')
        return text

    # -- Rule 4: the layers ----------------------------------------------------------------------

    def layered(
        self, profile: str | None, profile_from: str, profiles: list[str]
    ) -> tuple[dict[str, object], dict[str, str]]:
        """Rule 4: the base keys with the profile's laid over (its devices replacing the base's pool)."""
        values = dict(self.values[self.base])
        sources = dict.fromkeys(values, _shown(self.path))
        if profile is None:
            return values, sources
        if profile not in profiles:
            known = ", ".join(_toml_key(p) for p in sorted(profiles)) or "none"
            line = self.line((*self.base, "profile")) if profile_from.endswith("profile key") else None
            where = f"line {line}: " if line else ""
            chosen = f"{profile_from} {_toml_key(profile)}"
            raise ConfigError(
                f"{_named(self.path)}: {where}{chosen}: no such profile (profiles: {known}); "
                f"add [{_profile_header(self.path, profile)}] or choose one of them"
            )
        layer = self.values[(*self.base, "profiles", profile)]
        if any(k in layer for k in DEVICE_KEYS):
            for k in POOL_KEYS:
                values.pop(k, None)
                sources.pop(k, None)
        values.update(layer)
        sources.update(dict.fromkeys(layer, f"{_shown(self.path)} [{_profile_header(self.path, profile)}]"))
        return values, sources


def _profile_header(path: Path, profile: str) -> str:
    """The header of the profile ``profile`` as the file writes it (``tool.mobster.profiles.NAME`` in a pyproject)."""
    name = _toml_key(profile)
    return f"tool.mobster.profiles.{name}" if path.name == _PYPROJECT else f"profiles.{name}"


def _toml_key(name: str) -> str:
    r"""Rule 1: a key as TOML writes it, on one line: bare (``poll-interval``) or quoted (``"ci run"``, ``"a\nb"``)."""
    return name if _BARE.fullmatch(name) else toml_value(name)


def _resolved(value: str, folder: Path) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else folder / path)
