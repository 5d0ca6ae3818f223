r"""The fake device's shell: what ``adb shell`` runs on it, as a device prints it.

Each command is a function of the device's state, run on the phone's loop; it returns what the
device prints and its exit status. The outputs are the formats appium-adb 16.0.5 and Mobster's
driver parse (android-facts.md §3-4, with the source lines cited there), and AOSP's where they
quote it.

Rule 1 (one line, many commands): the line ``adb shell`` sends is split on ``;`` outside quotes
        (appium-adb sends ``settings put …;settings put …`` as one argument), each command by the
        shell's words (``shlex``); the last command's status is the line's.
Rule 2 (what is modelled): ``getprop``; ``settings put|get|delete``; ``am start``/``start-activity``
        (``-W``, ``-S``, ``-n``, ``-a``, ``-c``, ``-d``, ``-f``, extras skipped; a link with a
        package starts that app on its screen with no chooser, one without goes to whoever opens
        it), ``am force-stop`` (of the server's packages: the server stops); ``pm grant|revoke``
        (a permission the app doesn't request, or an unknown package: ``Exception occurred while
        executing 'grant':`` and a ``SecurityException``/``IllegalArgumentException``, status 255
        [inferred from AOSP's ``PackageManagerShellCommand``, not run]), ``pm clear`` (``Success``;
        the app stops and its permission answers are forgotten), ``pm list packages|instrumentation``,
        ``cmd package list packages --show-versioncode``, ``cmd package resolve-activity --brief``;
        ``dumpsys package|window|input_method|activity processes|activity services|power``;
        ``input keyevent`` (3 home, 4 back, 66 enter, 111 escape) and ``input tap``; ``ps -A`` and
        ``ps --help``; ``cmd uimode night``; ``cmd locale set-app-locales``; ``screencap -p``;
        ``echo``. Anything else: ``/system/bin/sh: <name>: inaccessible or not found``, status 127.
Rule 3 (errors as a device prints them): ``am start`` of what isn't installed prints ``Error:`` on
        stdout with status 0, as ``ActivityManagerShellCommand`` does.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable

from mobster_core import Action, DeviceError, LaunchOptions, Op
from mobster_drivers._uiautomator.permissions import PERMISSIONS, service_of_permission

from .routes import tap_at
from .state import SERVER_PACKAGE, TEST_PACKAGE, AndroidState

__all__ = ["Printed", "run_line"]

Printed = tuple[bytes, str, int]  # stdout, stderr, exit status
_ACTIVITY = ".MainActivity"
_LAUNCHER_ACTIVITY = "com.android.launcher3/.uioverrides.QuickstepLauncher"
_GRANT_ACTIVITY = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"


def _out(text: str, code: int = 0) -> Printed:
    return (text.encode("utf-8"), "", code)


def _split(line: str) -> list[str]:
    """Rule 1: the commands of a line, split on ``;`` outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    for ch in line:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ";":
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


async def run_line(state: AndroidState, line: str) -> Printed:
    """Rule 1: run each command of ``line``; what they printed, and the last one's status."""
    out, err, code = b"", "", 0
    for command in _split(line):
        try:
            words = shlex.split(command)
        except ValueError:
            return (out, err + "/system/bin/sh: syntax error: unterminated quoted string\n", 2)
        if not words:
            continue
        state.commands.append(words)
        printed = await _run(state, words)
        out, err, code = out + printed[0], err + printed[1], printed[2]
    return out, err, code


async def _run(state: AndroidState, words: list[str]) -> Printed:
    name = words[0]
    handler = _COMMANDS.get(name)
    if handler is None:
        return (b"", f"/system/bin/sh: {name}: inaccessible or not found\n", 127)
    return await handler(state, words[1:])


# -- properties and settings ---------------------------------------------------------------------


async def _getprop(state: AndroidState, args: list[str]) -> Printed:
    props = state.props()
    if not args:
        return _out("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))
    return _out(props.get(args[0], "") + "\n")


async def _settings(state: AndroidState, args: list[str]) -> Printed:
    if len(args) >= 3 and args[0] in ("put", "get", "delete"):
        key = (args[1], args[2])
        if args[0] == "put" and len(args) >= 4:
            state.settings_db[key] = args[3]
            return _out("")
        if args[0] == "delete":
            state.settings_db.pop(key, None)
            return _out("Deleted 1 rows\n")
        return _out(state.settings_db.get(key, "null") + "\n")
    return (b"", "usage: settings [--user <USER_ID> | current] get namespace key\n", 1)


# -- activities ----------------------------------------------------------------------------------


def _options(args: list[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-W", "-S", "--activity-clear-task"):
            opts[arg] = "1"
        elif arg in ("-n", "-a", "-c", "-d", "-f", "--user"):
            opts[arg] = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        elif arg in ("--es", "--ei", "--ez", "--el", "--ef", "--eu", "--esa"):
            i += 2
        elif not arg.startswith("-"):
            opts["package"] = arg
        i += 1
    return opts


def _started(component: str, opts: dict[str, str], *, cold: bool) -> str:
    intent = [f"act={opts['-a']}"] if "-a" in opts else []
    intent += [f"cat=[{opts['-c']}]"] if "-c" in opts else []
    intent += [f"dat={opts['-d']}"] if "-d" in opts else []
    intent += [f"flg={opts['-f']}"] if "-f" in opts else []
    intent.append(f"cmp={component}")
    text = f"Starting: Intent {{ {' '.join(intent)} }}\n"
    if "-W" in opts:
        kind = "COLD" if cold else "HOT"
        text += f"Status: ok\nLaunchState: {kind}\nActivity: {component}\nTotalTime: 412\nWaitTime: 415\nComplete\n"
    return text


async def _am(state: AndroidState, args: list[str]) -> Printed:
    if not args:
        return (b"", "usage: am [subcommand] [options]\n", 1)
    if args[0] == "force-stop" and len(args) > 1:
        package = args[1]
        if package in (SERVER_PACKAGE, TEST_PACKAGE):
            state.stop_server()
        else:
            state.phone.terminate(package)
        return _out("")
    if args[0] in ("start", "start-activity"):
        return await _start(state, _options(args[1:]))
    return (b"", f"Error: unknown command '{args[0]}'\n", 255)


async def _start(state: AndroidState, opts: dict[str, str]) -> Printed:
    """Rule 2, Rule 3: start an activity, a link's, or bring one to front."""
    component = opts.get("-n", "")
    package = component.split("/", 1)[0] if component else opts.get("package", "")
    phone = state.phone
    url = opts.get("-d")
    if url is not None:
        return await _start_link(state, url, package, opts)
    if package not in state.script.apps:
        missing = component or f"{package}/{_ACTIVITY}"
        said = f"Error type 3\nError: Activity class {{{missing}}} does not exist.\n"
        return _out(f"Starting: Intent {{ cmp={missing} }}\n" + said)
    if "-S" in opts:
        phone.terminate(package)
    running = phone.screen_name(package) is not None
    try:
        if running:
            await phone.act(Action(Op.LAUNCH_APP, text=package))
        else:
            await phone.launch(package, _launch_options(state, package))
    except DeviceError as exc:
        return _out(f"Error: {exc}\n")
    return _out(_started(component or f"{package}/{_ACTIVITY}", opts, cold=not running))


async def _start_link(state: AndroidState, url: str, package: str, opts: dict[str, str]) -> Printed:
    found = state.script.link(url)
    if found is None or (package and found[0].bundle != package):
        pkg = f" pkg={package}" if package else ""
        return _out(
            f"Starting: Intent {{ act=android.intent.action.VIEW dat={url}{pkg} }}\n"
            f"Error: Activity not started, unable to resolve Intent {{ act=android.intent.action.VIEW dat={url} "
            f"flg=0x10000000{pkg} }}\n"
        )
    app = found[0]
    phone = state.phone
    try:
        if package and phone.screen_name(package) is None:  # a cold start on the link: no chooser
            await phone.launch(package, _launch_options(state, package, url))
        else:
            await phone.act(Action(Op.OPEN_URL, text=url))
    except DeviceError as exc:
        return _out(f"Error: {exc}\n")
    return _out(_started(f"{app.bundle}/{_ACTIVITY}", opts, cold=True))


def _launch_options(state: AndroidState, package: str, url: str | None = None) -> LaunchOptions:
    granted = state.grants.get(package, set())
    services = {s for p in granted for s in service_of_permission(p)}
    return LaunchOptions(url=url, locale=state.app_locales.get(package), permissions=dict.fromkeys(services, True))


# -- packages and permissions --------------------------------------------------------------------


def _requested(state: AndroidState, package: str) -> set[str]:
    """The runtime permissions an app requests: those of the services its prompts ask for."""
    app = state.script.apps[package]
    return {name for prompt in app.prompts for name, _ in PERMISSIONS.get(prompt.service, ())}


async def _pm(state: AndroidState, args: list[str]) -> Printed:
    verb = args[0] if args else ""
    if verb in ("grant", "revoke") and len(args) >= 3:
        return _grant(state, verb, args[1], args[2])
    if verb == "clear" and len(args) >= 2:
        return _clear(state, args[-1])
    if verb == "list" and args[1:2] == ["packages"]:
        return _list_packages(state, "--show-versioncode" in args)
    if verb == "list" and args[1:2] == ["instrumentation"]:
        runner = f"{TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner"
        return _out(f"instrumentation:{runner} (target={SERVER_PACKAGE})\n" if state.installed_server else "")
    return (b"", f"Unknown command: {verb}\n", 255)


def _clear(state: AndroidState, package: str) -> Printed:
    """``pm clear``: the app stops, its data and its permission answers go."""
    if package not in state.script.apps:
        return _out("Failed\n")
    state.phone.terminate(package)
    state.phone.set_permission(package, None, allow=None)
    state.grants[package] = set()
    return _out("Success\n")


def _grant(state: AndroidState, verb: str, package: str, permission: str) -> Printed:
    head = f"Exception occurred while executing '{verb}':\n"
    if package not in state.script.apps:
        return (b"", head + f"java.lang.IllegalArgumentException: Unknown package: {package}\n", 255)
    if permission not in _requested(state, package):
        said = f"java.lang.SecurityException: Package {package} has not requested permission {permission}\n"
        return (b"", head + said, 255)
    granted = state.grants.setdefault(package, set())
    for service in service_of_permission(permission):
        state.phone.set_permission(package, service, allow=True if verb == "grant" else None)
    if verb == "grant":
        granted.add(permission)
    else:
        granted.discard(permission)
    return _out("")


def _list_packages(state: AndroidState, codes: bool) -> Printed:
    rows = [f"package:{p}" + (f" versionCode:{c}" if codes else "") for p, (_, c) in sorted(state.packages().items())]
    return _out("".join(r + "\n" for r in rows))


async def _cmd(state: AndroidState, args: list[str]) -> Printed:
    if args[:3] == ["package", "list", "packages"]:
        return _list_packages(state, "--show-versioncode" in args)
    if args[:2] == ["package", "resolve-activity"]:
        package = args[-1]
        if package not in state.script.apps:
            return _out("No activity found\n")
        return _out(
            f"priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n{package}/{_ACTIVITY}\n"
        )
    if args[:2] == ["uimode", "night"]:
        if len(args) > 2:
            state.night = args[2] == "yes"
        return _out(f"Night mode: {'yes' if state.night else 'no'}\n")
    if args[:2] == ["locale", "set-app-locales"] and "--locales" in args:
        state.app_locales[args[2]] = args[args.index("--locales") + 1].replace("-", "_")
        return _out("")
    return (b"", f"cmd: Can't find service: {args[0] if args else ''}\n", 20)


# -- what is in front ------------------------------------------------------------------------------


def _focus(state: AndroidState) -> str:
    front = state.screen().app
    if front == state.script.home:
        return _LAUNCHER_ACTIVITY
    if front == "com.google.android.permissioncontroller":
        return f"{front}/{_GRANT_ACTIVITY}"
    return f"{front}/{front}{_ACTIVITY}"


def _dump_package(state: AndroidState, args: list[str]) -> str:
    version = state.packages().get(args[1]) if len(args) > 1 else None
    if version is None:
        return f"Unable to find package: {args[1] if len(args) > 1 else ''}\n"
    name, code = version
    return (
        f"Packages:\n  Package [{args[1]}] (4f1d2a7):\n    userId=10123\n    versionCode={code} minSdk=26 "
        f"targetSdk=34\n    versionName={name}\n    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n"
    )


def _dump_window(state: AndroidState, _args: list[str]) -> str:
    focus = _focus(state)
    package, activity = focus.split("/", 1)
    short = activity.removeprefix(package)
    current = f"  mCurrentFocus=Window{{3c9c1a4 u0 {focus}}}\n"
    return current + f"  mFocusedApp=ActivityRecord{{8f2a1b3 u0 {package}/{short} t12}}\n"


def _dump_input_method(state: AndroidState, _args: list[str]) -> str:
    shown = "true" if state.phone.keyboard_shown() else "false"
    ime = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
    return f"  mCurId={ime}\n  mInputShown={shown}\n  mIsInputViewShown={shown}\n"


def _dump_activity(state: AndroidState, args: list[str]) -> str:
    if args[1:2] != ["processes"]:
        return ""
    running = [p for p in state.script.apps if state.phone.screen_name(p) is not None]
    rows = [f"  *APP* UID 10123 ProcessRecord{{9b2c{i:03x} {4100 + i}:{p}/u0a123}}\n" for i, p in enumerate(running)]
    return "ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n" + "".join(rows)


def _dump_power(_state: AndroidState, _args: list[str]) -> str:
    return "  mWakefulness=Awake\n  mScreenOnFully=true\n"


_DUMPS: dict[str, Callable[[AndroidState, list[str]], str]] = {
    "package": _dump_package,
    "window": _dump_window,
    "input_method": _dump_input_method,
    "activity": _dump_activity,
    "power": _dump_power,
}


async def _dumpsys(state: AndroidState, args: list[str]) -> Printed:
    dump = _DUMPS.get(args[0] if args else "")
    return _out("" if dump is None else dump(state, args))


async def _ps(state: AndroidState, args: list[str]) -> Printed:
    if "--help" in args:
        return _out(
            "usage: ps [-AadefLlnwZ] [-gG GROUP,] [-k FIELD,] [-o FIELD,] [-p PID,] [-t TTY,] [-uU USER,]\n\n"
            "-A  All\n-a  Has terminal not session leader\n"
        )
    head = "USER            PID   PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
    rows = []
    names = [p for p in state.script.apps if state.phone.screen_name(p) is not None]
    if state.instrumented:
        names.append(SERVER_PACKAGE)
    for i, name in enumerate(names):
        rows.append(f"u0_a123       {4100 + i}    312 1234567  98765 0                   0 S {name}\n")
    return _out(head + "".join(rows))


# -- input and the screen --------------------------------------------------------------------------


async def _input(state: AndroidState, args: list[str]) -> Printed:
    phone = state.phone
    if args[:1] == ["keyevent"]:
        for code in args[1:]:
            op = {"3": Op.HOME, "4": Op.BACK, "66": Op.SUBMIT, "KEYCODE_BACK": Op.BACK, "KEYCODE_HOME": Op.HOME}.get(
                code
            )
            if code in ("111", "KEYCODE_ESCAPE"):
                op = Op.DISMISS_KEYBOARD if phone.keyboard_shown() else None
            if op is not None:
                await phone.act(Action(op))
        return _out("")
    if args[:1] == ["tap"] and len(args) == 3:
        await tap_at(state, float(args[1]), float(args[2]))
        return _out("")
    return (b"", "Error: Unknown command\n", 1)


async def _screencap(state: AndroidState, args: list[str]) -> Printed:
    if "-p" not in args:
        return (b"", "screencap: only -p (PNG) is modelled by the fake\n", 1)
    return (await state.phone.screenshot(), "", 0)


async def _echo(_state: AndroidState, args: list[str]) -> Printed:
    return _out(" ".join(args) + "\n")


_COMMANDS: dict[str, Callable[[AndroidState, list[str]], Awaitable[Printed]]] = {
    "getprop": _getprop,
    "settings": _settings,
    "am": _am,
    "pm": _pm,
    "cmd": _cmd,
    "dumpsys": _dumpsys,
    "ps": _ps,
    "input": _input,
    "screencap": _screencap,
    "echo": _echo,
}
