"""What the fake Appium's XCUITest driver makes of a new session's capabilities: its checks, and what it fills in.

Read from the installed sources of appium 3.8.0 (``@appium/base-driver``: ``capabilities.ts``'s
``STANDARD_CAPS``, ``findNonPrefixedCaps`` and ``validateCaps``, ``validation.ts``,
``helpers/capabilities.ts``'s ``fixCaps``; ``@appium/types``' ``BASE_DESIRED_CAP_CONSTRAINTS``) and
appium-xcuitest-driver 12.13.1 (``desired-caps.ts``, ``driver.ts``'s ``createSession``,
``validateDesiredCaps`` and ``preparePlatformEnvironment``, ``device/device-discovery.ts``,
``utils/platform.ts``'s ``normalizePlatformVersion``, node-semver 7's ``coerce``), and measured
against the real server in front of the fake WDA and usbmuxd (``tests/drivers/devices/
test_appium_real.py``: every rule below is one of its compared points, except what only a Mac
shows, said in Rule 4).

Rule 1 (names): a capability whose name has no vendor prefix (no ``:``) and is not one of W3C's
        (:data:`STANDARD_CAPS`) is refused before anything else: 400 ``invalid argument`` "All
        non-standard capabilities should have a vendor prefix. The following capabilities did
        not have one: deviceName,foo" (every such name of ``alwaysMatch`` and each
        ``firstMatch``, once each, in order).
Rule 2 (types): the base driver's and XCUITest's constraints (:data:`CONSTRAINTS`, in their
        order): a value of another type is 500 ``session not created`` "A new session could not
        be created. Details: 'platformVersion' must be of type string; 'udid' must be of type
        string" (every problem, in the table's order; ``null`` is as if absent). A number given
        as text that JavaScript's ``Number`` reads (``"90"``) is a number, and ``"true"`` or
        ``"false"`` a boolean: both are kept, and echoed, converted (``fixCaps``); a text a
        boolean can't be (``"TRUE"``, ``"maybe"``) is refused.
Rule 3 (platformVersion, webDriverAgentUrl): a platformVersion given as non-empty text must read
        as a version as node-semver's ``coerce`` reads one (the first run of one to three
        dot-separated numbers of at most 16 digits each, not inside a longer run of digits): else
        500 ``unknown error`` "'platformVersion' must be a valid version number. 'abc' is given
        instead." It is kept as MAJOR.MINOR (``"26"`` → ``"26.0"``, ``"17.2.1.7"`` → ``"17.2"``,
        ``" v26.4.1 beta"`` → ``"26.4"``). A ``webDriverAgentUrl`` must parse as a URL (a scheme;
        a host for ``http``/``https``, as WHATWG's ``new URL`` wants): else 500 ``unknown error``
        "'webDriverAgentUrl' capability is expected to contain a valid WebDriverAgent server URL.
        '…' is given instead".
Rule 4a (the host, ``wda-host-ops.ts``): on a Linux host (``host="linux"``: XCUITest runs as a
        host utility in front of a WDA that is already running) a session needs
        ``appium:webDriverAgentUrl`` or ``appium:usePreinstalledWDA`` (else 500 ``unknown error``
        "The selected XCUITest session strategy requires macOS with Xcode. …") and an explicit
        ``appium:udid`` (none, ``""`` or ``auto``: 500 ``unknown error`` "Running XCUITest from
        'linux' without macOS/Xcode requires an explicit real-device 'appium:udid'. …"), checked
        after Rules 2 and 3 and before the device is asked anything; it serves no simulator. A Mac
        (``host="mac"``, the default) needs neither.
Rule 4 (what the device fills in): a platformVersion that is absent, ``null`` or ``""`` is the
        device's, as MAJOR.MINOR: an iPhone's is lockdown's ``ProductVersion``, asked through
        usbmuxd (without it the session is refused: 500 ``unknown error`` "The usbmuxd socket path
        '/var/run/usbmuxd' does not exist or is not accessible"); a simulator's is its runtime's
        (the iOS SDK's on a Mac, read from the source: real XCUITest on Linux serves no
        simulator, so this half is not compared). The session's capabilities (``GET
        /session/{id}``, ``GET /appium/sessions``) are the request's without the ``appium:``
        prefix, with platformVersion set where it stood (last when it wasn't there); the new
        session's reply is XCUITest's eight legacy keys, then those, then ``udid`` set to the
        device's (where it stood, else last): the one asked for, or the phone's when none is
        (``""``, ``"auto"``: a Mac's automatic choice; a Linux host refuses those, Rule 4a). Not
        modelled: that a Mac given no UDID looks for a simulator even when an iPhone is plugged
        in (the fake's Mac takes its one phone, whichever it is).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from mobster_core import DeviceKind

from ._appium_mobile import NO_USBMUXD, Failure

__all__ = [
    "CONSTRAINTS",
    "HOSTS",
    "LEGACY_CAPS",
    "STANDARD_CAPS",
    "Device",
    "SessionCaps",
    "check_host",
    "check_names",
    "coerce_version",
    "session_caps",
    "validate",
]

#: The hosts the fake can be (Rule 4a).
HOSTS = ("mac", "linux")

#: W3C's standard capabilities, the names that need no vendor prefix (Rule 1; ``capabilities.ts``).
STANDARD_CAPS = (
    "browserName", "browserVersion", "platformName", "acceptInsecureCerts", "pageLoadStrategy", "proxy",
    "setWindowRect", "timeouts", "strictFileInteractability", "unhandledPromptBehavior", "userAgent", "webSocketUrl",
)  # fmt: skip
_STANDARD_LOWER = frozenset(name.lower() for name in STANDARD_CAPS)
#: What XCUITest 12.13 puts before the capabilities it echoes (Rule 4).
LEGACY_CAPS: Mapping[str, Any] = {
    "webStorageEnabled": False,
    "locationContextEnabled": False,
    "browserName": "",
    "platform": "MAC",
    "javascriptEnabled": True,
    "databaseEnabled": False,
    "takesScreenshot": True,
    "networkConnectionEnabled": False,
}
_APPIUM = "appium:"

# Rule 2's table: ``{...BASE_DESIRED_CAP_CONSTRAINTS, ...desiredCapConstraints}`` as Node merges
# them (the base's order, then XCUITest's own names), printed from the installed packages. ``s``
# string, ``b`` boolean, ``n`` number, ``o`` plain object, ``-`` no type; ``inclusion`` and
# ``presence`` are in :data:`_INCLUSION` (``platformName``'s presence and list are the driver
# match's, checked before: ``appium._invalid``).
_TABLE = """
platformName:s app:s platformVersion:s webSocketUrl:b newCommandTimeout:n automationName:s autoLaunch:b udid:s
orientation:- autoWebview:b noReset:b fullReset:b language:s locale:s eventTimings:b printPageSourceOnFindFailure:b
browserName:s calendarFormat:s bundleId:s autoAcceptAlerts:b autoDismissAlerts:b nativeWebTap:b safariInitialUrl:s
initialDeeplinkUrl:s safariAllowPopups:b safariIgnoreFraudWarning:b safariOpenLinksInBackground:b
safariShowFullResponse:b keepKeyChains:b resetLocationService:b localizableStringsDir:s processArguments:-
webviewConnectRetries:n clearSystemFiles:b customSSLCert:s remoteDebugProxy:s enablePerformanceLogging:b
enableAsyncExecuteFromHttps:b fullContextList:b ignoreAboutBlankUrl:b skipLogCapture:b deviceName:s showXcodeLog:b
wdaLocalPort:n wdaRemotePort:n wdaBindingIP:s wdaBaseUrl:s iosInstallPause:n xcodeConfigFile:s xcodeOrgId:s
xcodeSigningId:s keychainPath:s keychainPassword:s bootstrapPath:s agentPath:s scaleFactor:s usePrebuiltWDA:b
prebuiltWDAPath:s usePreinstalledWDA:b updatedWDABundleIdSuffix:s webDriverAgentUrl:s derivedDataPath:s useNewWDA:b
wdaLaunchTimeout:n wdaConnectionTimeout:n updatedWDABundleId:s resetOnSessionStartOnly:b commandTimeouts:-
wdaStartupRetries:n wdaStartupRetryInterval:n prebuildWDA:b connectHardwareKeyboard:b
forceTurnOnSoftwareKeyboardSimulator:b simulatorPasteboardAutomaticSync:s simulatorDevicesSetPath:s
maxTypingFrequency:n nativeTyping:b shouldUseSingletonTestManager:b isHeadless:b useXctestrunFile:b
absoluteWebLocations:b simulatorWindowCenter:s simulatorStartupTimeout:n simulatorTracePointer:b useJSONSource:b
enforceFreshSimulatorCreation:b shutdownOtherSimulators:b keychainsExcludePatterns:s showSafariConsoleLog:b
showSafariNetworkLog:b safariGarbageCollect:b safariGlobalPreferences:o safariLogAllCommunication:b
safariLogAllCommunicationHexDump:b safariSocketChunkSize:n mjpegServerPort:n reduceMotion:b reduceTransparency:b
autoFillPasswords:b mjpegScreenshotUrl:s permissions:s screenshotQuality:n wdaEventloopIdleDelay:n otherApps:s
includeSafariInWebviews:b additionalWebviewBundleIds:- ignoredWebviewBundleIds:- webviewConnectTimeout:n
webviewAtomWaitTimeout:n showIOSLog:b iosSimulatorLogsPredicate:s iosSyslogFile:s simulatorLogLevel:s
appPushTimeout:n nativeWebTapStrict:b safariWebInspectorMaxFrameLength:n allowProvisioningDeviceRegistration:b
waitForIdleTimeout:n resultBundlePath:s resultBundleVersion:n safariIgnoreWebHostnames:s
disableAutomaticScreenshots:b shouldTerminateApp:b forceAppLaunch:b useNativeCachingStrategy:b enforceAppInstall:b
skipTriggerInputEventAfterSendkeys:b sendKeyStrategy:s skipSyncUiDialogTranslation:b
forceSimulatorSoftwareKeyboardPresence:b appLaunchStateTimeoutSec:n appTimeZone:s pageLoadStrategy:s
"""
_KINDS = {"s": "string", "b": "boolean", "n": "number", "o": "object", "-": None}
#: Rule 2: each capability the drivers constrain, in their order, and the type it must have (None: any).
CONSTRAINTS: tuple[tuple[str, str | None], ...] = tuple(
    (name, _KINDS[kind]) for name, _, kind in (item.rpartition(":") for item in _TABLE.split())
)
#: Rule 2: the values a capability must be one of (``inclusion``; ``pageLoadStrategy`` in any case).
_INCLUSION: Mapping[str, tuple[tuple[str, ...], bool]] = {
    "orientation": (("LANDSCAPE", "PORTRAIT"), False),
    "pageLoadStrategy": (("none", "eager", "normal"), True),
}
# node-semver's COERCE (MAX_SAFE_COMPONENT_LENGTH 16), with JavaScript's \d: ASCII digits only.
_COERCE = re.compile(r"(?:^|[^0-9])([0-9]{1,16})(?:\.([0-9]{1,16}))?(?:\.([0-9]{1,16}))?(?:$|[^0-9])")
_MAX_SAFE_INTEGER = 2**53 - 1
_JS_NUMBER = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_JS_RADIX = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")
_JS_BLANKS = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # noqa: E501


@attrs.frozen
class Device:
    """What the phone behind a new session is, as XCUITest's device discovery finds it (Rule 4)."""

    kind: DeviceKind
    ios: str  # what lockdown's ProductVersion says (an iPhone), or the simulator's runtime
    udid: str
    usbmuxd: bool  # whether the host reaches the phone's lockdown


@attrs.frozen
class SessionCaps:
    """A new session's capabilities as XCUITest keeps them (``session``) and answers them (``reply``)."""

    session: Mapping[str, Any]  # GET /session/{id}, GET /appium/sessions
    reply: Mapping[str, Any]  # POST /session's ``capabilities``


def check_names(always: Mapping[str, Any], first: Sequence[Mapping[str, Any]]) -> None:
    """Rule 1: refuse capability names that need a vendor prefix and have none."""
    bare: list[str] = []
    for caps in (always, *first):
        for name in caps:
            if ":" not in name and name.lower() not in _STANDARD_LOWER and name not in bare:
                bare.append(name)
    if bare:
        raise Failure(
            400,
            "invalid argument",
            "All non-standard capabilities should have a vendor prefix. The following capabilities did not have "
            f"one: {','.join(bare)}",
        )


def validate(caps: Mapping[str, Any]) -> dict[str, Any]:
    """Rules 2 and 3: the capabilities with text numbers and booleans converted; a :class:`Failure` if refused."""
    problems: list[str] = []
    fixed = dict(caps)
    for name, kind in CONSTRAINTS:
        key = name if name.lower() in _STANDARD_LOWER else _APPIUM + name
        value = caps.get(key)
        if value is None:
            continue
        problem = _type_problem(value, kind) or _inclusion_problem(name, value)
        if problem is not None:
            problems.append(f"'{name}' {problem}")
        elif kind == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            fixed[key] = value.lower() == "true"
        elif kind == "number" and isinstance(value, str):
            number = _js_parse_number(value)
            if number is not None:
                fixed[key] = number
    if problems:
        raise Failure(500, "session not created", f"A new session could not be created. Details: {'; '.join(problems)}")
    url = fixed.get(_APPIUM + "webDriverAgentUrl")
    if isinstance(url, str) and not _is_url(url):
        raise Failure(
            500,
            "unknown error",
            f"'webDriverAgentUrl' capability is expected to contain a valid WebDriverAgent server URL. '{url}' is "
            "given instead",
        )
    version = fixed.get(_APPIUM + "platformVersion")
    if isinstance(version, str) and version and coerce_version(version) is None:
        raise Failure(
            500, "unknown error", f"'platformVersion' must be a valid version number. '{version}' is given instead."
        )
    return fixed


def check_host(caps: Mapping[str, Any], host: str) -> None:
    """Rule 4a: what a Linux host refuses before it asks the device anything."""
    if host != "linux":
        return
    if not caps.get(_APPIUM + "webDriverAgentUrl") and not caps.get(_APPIUM + "usePreinstalledWDA"):
        raise Failure(
            500,
            "unknown error",
            "The selected XCUITest session strategy requires macOS with Xcode. Use 'appium:usePreinstalledWDA' with "
            "a signed prebuilt WebDriverAgent or provide 'appium:webDriverAgentUrl' to run from 'linux'.",
        )
    udid = caps.get(_APPIUM + "udid")
    if not udid or str(udid).lower() == "auto":
        raise Failure(
            500,
            "unknown error",
            "Running XCUITest from 'linux' without macOS/Xcode requires an explicit real-device 'appium:udid'. "
            "Simulator discovery and automatic device selection require macOS.",
        )


def session_caps(caps: Mapping[str, Any], device: Device) -> SessionCaps:
    """Rule 4: what the session keeps and answers, the device filling what the caps leave out."""
    given = caps.get(_APPIUM + "platformVersion")
    version = given if isinstance(given, str) and given else None
    if version is None:
        if device.kind is not DeviceKind.SIMULATOR and not device.usbmuxd:
            raise Failure(500, "unknown error", NO_USBMUXD)  # lockdown's ProductVersion, through usbmuxd
        version = device.ios
    kept = {key.removeprefix(_APPIUM): value for key, value in caps.items()}
    kept["platformVersion"] = _major_minor(version)
    asked = caps.get(_APPIUM + "udid")
    udid = asked if isinstance(asked, str) and asked and asked.lower() != "auto" else device.udid
    return SessionCaps(session=kept, reply={**LEGACY_CAPS, **kept, "udid": udid})


def coerce_version(text: str) -> tuple[int, int, int] | None:
    """node-semver's ``coerce``: the first version in ``text`` as (major, minor, patch), None for none (Rule 3)."""
    found = _COERCE.search(text)
    if found is None:
        return None
    parts = tuple(int(part) if part is not None else 0 for part in found.groups())
    if any(part > _MAX_SAFE_INTEGER for part in parts):
        return None
    major, minor, patch = parts
    return major, minor, patch


def _major_minor(version: str) -> str:
    """``normalizePlatformVersion``: MAJOR.MINOR of a version Rule 3 took (or the device's own)."""
    coerced = coerce_version(version)
    if coerced is None:  # the device's own version is always one; a caps file's was checked
        raise Failure(500, "unknown error", f"The platform version '{version}' should be a valid version number")
    return f"{coerced[0]}.{coerced[1]}"


def _is_url(text: str) -> bool:
    """Whether WHATWG's URL parser takes ``text`` (near enough: a scheme, and a host where the scheme needs one)."""
    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", text.strip(_JS_BLANKS), re.DOTALL)
    if found is None:
        return False
    scheme, rest = found.group(1).lower(), found.group(2)
    if scheme in ("http", "https", "ws", "wss", "ftp"):
        host = rest.lstrip("/\\").split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
        return bool(host.split(":", 1)[0] if not host.startswith("[") else host)
    return True


def _type_problem(value: Any, kind: str | None) -> str | None:
    """``validation.ts``'s words for a value of the wrong type (Rule 2), None when it has the type."""
    if kind == "string" and not isinstance(value, str):
        return "must be of type string"
    if kind == "boolean" and not isinstance(value, bool) and value not in ("true", "false", ""):
        return "must be of type boolean"
    if kind == "number" and not (_is_number(value) or (isinstance(value, str) and _js_number(value) is not None)):
        return "must be of type number"
    if kind == "object" and not isinstance(value, dict):
        return "must be a plain object"
    return None


def _inclusion_problem(name: str, value: Any) -> str | None:
    allowed = _INCLUSION.get(name)
    if allowed is None:
        return None
    values, any_case = allowed
    if any(v.lower() == str(value).lower() if any_case else v == value for v in values):
        return None
    return "must be contained by [" + ",".join(f'"{v}"' for v in values) + "]"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _js_number(text: str) -> float | None:
    """JavaScript's ``Number(text)`` for text, None where it is NaN."""
    stripped = text.strip(_JS_BLANKS)
    if not stripped:
        return 0.0
    if _JS_RADIX.fullmatch(stripped):
        return float(int(stripped, 0))
    if _JS_NUMBER.fullmatch(stripped):
        return float(stripped.replace("Infinity", "inf"))
    return None


def _js_parse_number(text: str) -> int | float | None:
    """``fixCaps``' ``parseFloat`` (``parseInt`` when they agree), None where it is NaN (the text is kept)."""
    found = re.match(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text.lstrip(_JS_BLANKS))
    if found is None:
        return None
    number = float(found.group().replace("Infinity", "inf"))
    if math.isfinite(number) and number == int(number):
        return int(number)
    return number
