"""Appium capabilities: the caps file, ``${ENV}`` references, what a check needs, and secrets.

Pure, except :func:`load_caps`, which reads one file (or one environment variable).

Rule 1: a caps file is one JSON object of capabilities (UTF-8, at most 1 MiB), written as a user
        would give them to any Appium client: ``{"platformName": "iOS", "appium:deviceName":
        "iPhone 15", "bstack:options": {...}}``; a file named ``*.yaml`` or ``*.yml`` may hold the
        same mapping in YAML. Both are read by the core's one strict reader (JSON is YAML, held
        to JSON's grammar): a key written twice, an anchor or a tag is refused, and every
        message names the file, the line and the key. A value must be one
        JSON has (text, a number, true/false, null, a list, a mapping with text keys). A W3C
        envelope (``capabilities``, ``alwaysMatch``, ``firstMatch``) is refused with a hint: the
        file holds the capabilities themselves.
Rule 2: every ``${NAME}`` in a string value, at any depth, is replaced by the environment
        variable ``NAME`` (``[A-Za-z_][A-Za-z0-9_]*``); ``$${`` writes a literal ``${``. A
        variable that is unset or empty is an error naming the file, the key path and the
        variable. Keys are never expanded.
Rule 3: keys are spelled as the client sends them: the W3C capability names stay as they are,
        any other name without a vendor prefix gets ``appium:`` (``deviceName`` is
        ``appium:deviceName``). One capability written twice (``udid`` and ``appium:udid``) is
        an error naming both.
Rule 4: Mobster's own capabilities (:data:`REQUIRED_CAPABILITIES`; on Android, a file whose
        ``platformName`` is ``Android`` or a device made for Android, :data:`ANDROID_CAPABILITIES`:
        UiAutomator2, no reset, no launch at session start) are merged over the file. A
        file that sets one of them to another value is an error naming the key and the value
        Mobster needs; nothing is overridden silently. ``appium:newCommandTimeout`` may be
        raised, never lowered below :data:`NEW_COMMAND_TIMEOUT`. ``appium:bundleId`` is sent only
        when the file asks for it (then it must name the check's app): the XCUITest driver looks
        the app up through the phone's installation proxy before the session exists, which a
        Linux Appium in front of a networked WebDriverAgent has no usbmuxd for, so every session
        would be refused; Mobster launches the app itself (``mobile: launchApp``). On Android the
        same holds for ``appium:appPackage`` (the driver would start it at session start).
Rule 5: secrets are the string values of keys whose name ends in ``key``, ``secret``,
        ``password``, ``passwd``, ``pass`` or ``token`` (``accessKey``, ``apiKey``), at any depth;
        the values of ``${VAR}`` references whose variable name says the same
        (``BROWSERSTACK_ACCESS_KEY``); the password of a URL's user info, and the URL's path
        segments that look like tokens (20 or more letters, digits and ``-_.~%+=``: a cloud's
        per-session endpoint carries one, and is a credential). :func:`scrub`
        replaces each (and its JSON-escaped and URL-quoted forms) with ``***``. Every message and
        log line the driver writes goes through it.
Rule 6: the provider (who to tell the verdict, and how) is read from the URL's host first
        (``*.browserstack.com``, ``*.saucelabs.com``, ``*.lambdatest.com``), else from the
        vendor option blocks in the capabilities (``bstack:options``, ``sauce:options``,
        ``lt:options``, any case). A URL on another host with no such block has no provider.
"""

from __future__ import annotations

import enum
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import attrs

from mobster_core.checks import read_user_file
from mobster_core.exceptions import Problem, UnsafeFile
from mobster_core.yaml import MAX_YAML_BYTES, Keys, YamlDoc, YamlProblem, dotted, kind_of, load_json, load_yaml

__all__ = [
    "ANDROID_CAPABILITIES",
    "CAPS_ENV",
    "NEW_COMMAND_TIMEOUT",
    "REQUIRED_CAPABILITIES",
    "AppiumCaps",
    "CapsError",
    "Provider",
    "detect_provider",
    "load_caps",
    "scrub",
    "session_capabilities",
    "split_url",
    "url_secrets",
]

#: The environment variable that names the caps file (or holds its JSON) when no file is given.
CAPS_ENV = "MOBSTER_APPIUM_CAPS"
#: ``appium:newCommandTimeout``, in seconds. Appium ends a session that gets no command for this
#: long (its default is 60 s). The longest quiet spell in a run is one Smart or heal run waiting
#: on its model, bounded by the check's ``budget.max_seconds`` (default 180, at most 600): at
#: 600 s no check, even one with the largest budget, loses its session to a thinking model.
NEW_COMMAND_TIMEOUT = 600
#: What every Mobster session needs (Rule 4): an iOS device driven by XCUITest, the app left as
#: it is (Mobster launches and resets it itself) and not launched at session start.
REQUIRED_CAPABILITIES: Mapping[str, Any] = {
    "platformName": "iOS",
    "appium:automationName": "XCUITest",
    "appium:noReset": True,
    "appium:autoLaunch": False,
}
#: What every Android session needs (Rule 4): UiAutomator2, the app left as it is, not started at
#: session start.
ANDROID_CAPABILITIES: Mapping[str, Any] = {
    "platformName": "Android",
    "appium:automationName": "UiAutomator2",
    "appium:noReset": True,
    "appium:autoLaunch": False,
}
_PLATFORMS = {"ios": REQUIRED_CAPABILITIES, "android": ANDROID_CAPABILITIES}
#: The W3C capability names, sent without a prefix (the Appium client's list).
W3C_NAMES = frozenset(
    {
        "acceptInsecureCerts",
        "browserName",
        "browserVersion",
        "platformName",
        "pageLoadStrategy",
        "proxy",
        "setWindowRect",
        "timeouts",
        "unhandledPromptBehavior",
        "strictFileInteractability",
        "userAgent",
        "webSocketUrl",
    }
)
_OLD_NAMES = {"acceptSslCerts": "acceptInsecureCerts", "version": "browserVersion", "platform": "platformName"}
_MAX_BYTES = MAX_YAML_BYTES  # 1 MiB
_REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN_SEGMENT = re.compile(r"[A-Za-z0-9\-_.~%+=]{20,}")
_SECRET_NAME = re.compile(r"(key|secret|password|passwd|pass|token)$", re.IGNORECASE)
_MASK = "***"


class CapsError(ValueError):
    """A caps file (or the capabilities given) can't be used; the message names the file and key."""


class Provider(enum.StrEnum):
    """A device cloud whose convention for a session's name and verdict the driver follows."""

    BROWSERSTACK = "browserstack"
    SAUCE = "sauce"
    LAMBDATEST = "lambdatest"


_HOSTS = {
    "browserstack.com": Provider.BROWSERSTACK,
    "saucelabs.com": Provider.SAUCE,
    "lambdatest.com": Provider.LAMBDATEST,
}
_OPTION_BLOCKS = {
    "bstack:options": Provider.BROWSERSTACK,
    "sauce:options": Provider.SAUCE,
    "lt:options": Provider.LAMBDATEST,
}


@attrs.frozen
class AppiumCaps:
    """Capabilities with their ``${ENV}`` references expanded, keys normalized (Rules 1-3).

    ``source`` names where they came from (a file, ``$MOBSTER_APPIUM_CAPS``) for messages;
    ``secrets`` are the values :func:`scrub` hides (Rule 5).
    """

    capabilities: Mapping[str, Any] = attrs.field(factory=dict)
    secrets: frozenset[str] = frozenset()
    source: str = "the capabilities given"

    @classmethod
    def from_mapping(
        cls,
        capabilities: Mapping[str, Any],
        *,
        source: str = "the capabilities given",
        environ: Mapping[str, str] | None = None,
    ) -> AppiumCaps:
        """Expand, normalize and check capabilities given in code (Rules 1-3, 5)."""
        return _build(capabilities, _Where(source), os.environ if environ is None else environ)

    @classmethod
    def from_text(
        cls, text: str | bytes, *, source: str, environ: Mapping[str, str] | None = None, yaml: bool = False
    ) -> AppiumCaps:
        """Parse a caps file's text (Rule 1), JSON (YAML with ``yaml``), and expand it."""
        try:
            doc = load_yaml(text, source) if yaml else load_json(text, source)
        except YamlProblem as exc:  # the text may hold a key: not chained
            raise CapsError(str(exc)) from None
        data = doc.data
        if data is None:
            raise CapsError(f"{source}: the file is empty; {_ONE_OBJECT}")
        if not isinstance(data, dict):
            raise CapsError(f"{source}: a caps file is one JSON object of capabilities, got {type(data).__name__}")
        return _build(data, _Where(source, doc), os.environ if environ is None else environ)

    @classmethod
    def from_json(cls, text: str, *, source: str, environ: Mapping[str, str] | None = None) -> AppiumCaps:
        """Parse a caps file's JSON text (Rule 1) and expand it: :meth:`from_text`, which reads YAML too."""
        return cls.from_text(text, source=source, environ=environ)

    def scrub(self, text: str) -> str:
        """``text`` with every secret replaced by ``***`` (Rule 5)."""
        return scrub(text, self.secrets)


def load_caps(path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> AppiumCaps:
    """The capabilities of a caps file; without ``path``, of ``$MOBSTER_APPIUM_CAPS``.

    ``$MOBSTER_APPIUM_CAPS`` holds a file's path, or the JSON itself when it starts with ``{``
    (handy as one CI secret). With neither, the capabilities are empty: a local Appium needs
    nothing more than Mobster's own. Raises :class:`CapsError` naming the file and what is wrong.
    """
    env = os.environ if environ is None else environ
    if path is None:
        value = env.get(CAPS_ENV, "").strip()
        if not value:
            return AppiumCaps(source="no caps file")
        if value.startswith("{"):
            return AppiumCaps.from_text(value, source=f"${CAPS_ENV}", environ=env)
        path = value
    file = Path(path)
    try:
        raw = read_user_file(file, max_bytes=_MAX_BYTES)  # a FIFO or a device is refused without waiting
    except UnsafeFile as exc:
        too_large = exc.problem is Problem.TOO_LARGE
        why = "a caps file is at most 1 MiB" if too_large else f"{exc.reason}; give a regular JSON file"
        raise CapsError(f"{file}: {why}") from None
    except OSError as exc:
        raise CapsError(f"can't read the caps file {file}: {exc.strerror or exc}") from exc
    return AppiumCaps.from_text(raw, source=str(file), environ=env, yaml=file.suffix.lower() in (".yaml", ".yml"))


def normalize_key(key: str) -> str:
    """A capability's name as sent (Rule 3): ``deviceName`` → ``appium:deviceName``."""
    name = _OLD_NAMES.get(key, key)
    if name in W3C_NAMES or ":" in name:
        return name
    return f"appium:{name}"


def caps_platform(caps: AppiumCaps, platform: str | None = None) -> str:
    """``ios`` or ``android``: the caps' ``platformName``, else ``platform``, else iOS (Rule 4).

    A ``platformName`` that is neither, or that contradicts ``platform``, is a :class:`CapsError`.
    """
    given = caps.capabilities.get("platformName")
    if given is None:
        return (platform or "ios").lower()
    said = given.strip().lower() if isinstance(given, str) else None
    if said not in _PLATFORMS:
        raise CapsError(
            caps.scrub(
                f"{caps.source}: platformName is {given!r}; Mobster runs iOS (XCUITest) or Android (UiAutomator2): "
                "write one of the two"
            )
        )
    if platform is not None and said != platform.lower():
        raise CapsError(
            caps.scrub(
                f"{caps.source}: platformName is {given!r}, but this device is for {platform}; "
                "remove platformName or use a caps file for that platform"
            )
        )
    return said


def session_capabilities(caps: AppiumCaps, *, bundle: str | None = None, platform: str | None = None) -> dict[str, Any]:
    """The capabilities a session is created with: the file's, with Mobster's merged over (Rule 4).

    ``bundle`` is the check's app: a file's ``appium:bundleId`` (``appium:appPackage`` on Android)
    must name it; none is added. ``platform`` (``ios``, ``android``) is the one a caps file
    without ``platformName`` is for.
    """
    merged = dict(caps.capabilities)
    android = caps_platform(caps, platform) == "android"
    required = dict(ANDROID_CAPABILITIES if android else REQUIRED_CAPABILITIES)
    app_key = "appium:appPackage" if android else "appium:bundleId"
    if bundle and app_key in merged:
        required[app_key] = bundle
    for key, value in required.items():
        if key not in merged:
            merged[key] = value
            continue
        given = merged[key]
        same = given.lower() == value.lower() if isinstance(given, str) and isinstance(value, str) else given == value
        if not same or type(given) is not type(value):
            raise CapsError(
                caps.scrub(
                    f"{caps.source}: {key} is {given!r}, but Mobster needs {value!r} "
                    f"({(_WHY_ANDROID if android else _WHY).get(key, 'the check depends on it')}); "
                    "remove it from the caps file"
                )
            )
        merged[key] = value
    timeout = merged.get("appium:newCommandTimeout", NEW_COMMAND_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise CapsError(caps.scrub(f"{caps.source}: appium:newCommandTimeout is a number of seconds, got {timeout!r}"))
    if timeout != 0 and timeout < NEW_COMMAND_TIMEOUT:  # 0 disables Appium's timeout: fine
        raise CapsError(
            f"{caps.source}: appium:newCommandTimeout is {timeout:g} s; Mobster needs at least "
            f"{NEW_COMMAND_TIMEOUT} s so a session outlives a model's thinking (remove it or raise it)"
        )
    merged["appium:newCommandTimeout"] = timeout
    return merged


_WHY = {
    "platformName": "the checks run on iOS",
    "appium:automationName": "the driver speaks the XCUITest driver's mobile: commands",
    "appium:noReset": "Mobster launches and resets the app itself",
    "appium:autoLaunch": "Mobster launches the app itself, with the check's arguments",
    "appium:bundleId": "the check's app; Mobster launches it itself, so the file needs no bundleId",
}
_WHY_ANDROID = {
    "appium:automationName": "the driver speaks the UiAutomator2 driver's mobile: commands",
    "appium:noReset": "Mobster launches and resets the app itself",
    "appium:autoLaunch": "Mobster launches the app itself, with the check's extras",
    "appium:appPackage": "the check's app; Mobster launches it itself, so the file needs no appPackage",
}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret, and its JSON-escaped and URL-quoted forms, replaced by ``***``."""
    forms: set[str] = set()
    for secret in secrets:
        if not secret:
            continue
        forms.update({secret, json.dumps(secret)[1:-1], quote(secret, safe=""), quote(secret)})
    for form in sorted(forms, key=len, reverse=True):
        if form:
            text = text.replace(form, _MASK)
    return text


def split_url(url: str) -> tuple[str, str | None, str | None]:
    """``(url without user info, user, password)``; raises ``ValueError`` for a URL that isn't one.

    ``https://USER:KEY@hub.example.com/wd/hub`` → ``("https://hub.example.com/wd/hub", "USER",
    "KEY")``. The driver sends the user and password as HTTP basic auth instead of in the URL, so
    neither lands in a log line. A trailing slash is dropped.
    """
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(
            "expected an Appium server URL such as http://127.0.0.1:4723 or https://hub.example.com/wd/hub"
        )
    if parts.query or parts.fragment:
        raise ValueError("an Appium server URL has no query or fragment")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError("bad port in the Appium server URL") from exc
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    clean = urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return clean, user, password


def url_secrets(url: str) -> set[str]:
    """What of ``url`` is a credential (Rule 5): its password and its token-like path segments."""
    parts = urlsplit(url.strip())
    found = {unquote(parts.password)} if parts.password else set()
    found.update(segment for segment in parts.path.split("/") if _TOKEN_SEGMENT.fullmatch(segment))
    return found


def detect_provider(url: str, capabilities: Mapping[str, Any]) -> Provider | None:
    """The cloud behind ``url`` (Rule 6), or None for a local Appium, a Grid or another farm."""
    host = (urlsplit(url).hostname or "").lower()
    for domain, provider in _HOSTS.items():
        if host == domain or host.endswith(f".{domain}"):
            return provider
    for key in capabilities:
        block = _OPTION_BLOCKS.get(key.lower()) if isinstance(key, str) else None
        if block is not None:
            return block
    return None


_ONE_OBJECT = 'write one object of capabilities, e.g. {"appium:deviceName": "iPhone 15"}'


@attrs.frozen
class _Where:
    """Where capabilities came from: ``source``, and the parsed file that gives each key's line."""

    source: str
    doc: YamlDoc | None = None

    def at(self, keys: Keys) -> str:
        """``file:line`` of the value at ``keys`` (``source`` alone for capabilities given in code)."""
        return self.source if self.doc is None else self.doc.where(keys)


def _build(capabilities: Mapping[str, Any], where: _Where, env: Mapping[str, str]) -> AppiumCaps:
    """Rules 1-3 and 5 over capabilities read from ``where``."""
    if not isinstance(capabilities, Mapping):
        raise CapsError(f"{where.source}: capabilities are one JSON object, got {type(capabilities).__name__}")
    for envelope in ("capabilities", "alwaysMatch", "firstMatch", "desiredCapabilities"):
        if envelope in capabilities:
            raise CapsError(
                f"{where.at((envelope,))}: {envelope!r} is the W3C request envelope; write the capabilities "
                'themselves as one object, e.g. {"appium:deviceName": "iPhone 15", "bstack:options": {...}}'
            )
    secrets: set[str] = set()
    expanded = _Expander(where, env, secrets).value(dict(capabilities), ())
    normalized: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in expanded.items():
        if not isinstance(key, str) or not key:
            raise CapsError(f"{where.source}: capability names are non-empty strings, got {key!r}")
        name = normalize_key(key)
        if name in spelled:
            raise CapsError(f"{where.at((key,))}: {spelled[name]!r} and {key!r} are the same capability; keep one")
        spelled[name] = key
        normalized[name] = value
    _collect_secrets(normalized, secrets)
    return AppiumCaps(capabilities=normalized, secrets=frozenset(s for s in secrets if s), source=where.source)


@attrs.frozen
class _Expander:
    """Rule 2 over a caps file's values, at any depth; Rule 1's JSON values checked on the way."""

    where: _Where
    env: Mapping[str, str]
    secrets: set[str]

    def value(self, value: Any, keys: Keys) -> Any:
        if isinstance(value, str):
            return self.text(value, keys)
        if isinstance(value, dict):
            return {k: self.value(v, (*keys, self.key(k, keys))) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, (*keys, i)) for i, v in enumerate(value)]
        if value is None or isinstance(value, bool | int | float):
            return value
        raise CapsError(
            f"{self.where.at(keys)}: {dotted(keys)} is {kind_of(value)}, which JSON can't send; quote it if it is text"
        )

    def key(self, key: Any, keys: Keys) -> str:
        if isinstance(key, str):
            return key
        raise CapsError(f"{self.where.at(keys)}: {dotted(keys) or 'a key'}: the key {key!r} is not text; quote it")

    def text(self, text: str, keys: Keys) -> str:
        where = dotted(keys)
        return _REFERENCE.sub(lambda match: self.reference(match, where, keys), text)

    def reference(self, match: re.Match[str], where: str, keys: Keys) -> str:
        if match.group(0) == "$${":
            return "${"
        name = match.group(1)
        if not _NAME.fullmatch(name):
            raise CapsError(
                f"{self.where.at(keys)}: {where}: ${{{name}}} is not a variable name (letters, digits and _)"
            )
        value = self.env.get(name, "")
        if not value:
            raise CapsError(
                f"{self.where.at(keys)}: {where} refers to ${{{name}}}, which is not set in the environment; "
                f"export {name}=… (or put it in the CI's secrets)"
            )
        last = keys[-1] if keys and isinstance(keys[-1], str) else ""
        if _SECRET_NAME.search(name.replace("_", "")) or _SECRET_NAME.search(last):
            self.secrets.add(value)
        return value


def _collect_secrets(value: Any, secrets: set[str], key: str = "") -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _collect_secrets(v, secrets, str(k))
    elif isinstance(value, list):
        for v in value:
            _collect_secrets(v, secrets, key)
    elif isinstance(value, str) and _SECRET_NAME.search(key.rsplit(":", 1)[-1].replace("_", "")):
        secrets.add(value)
