"""Test data more than one test module uses: the sample check, a recorded step, a prompt, paths.

A module that needs a variant says how it differs (``SIGNUP.replace(...)``) rather than writing
the whole check out again, so a reader sees the difference at a glance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mobster_core import Prompt
from mobster_core.prompts import ACTION_TOOL, SYSTEM_PROMPT

#: The repository, and the test data folder in it.
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

#: The sample app's bundle id (the scripted phone's ``yourapp`` script, ``sample_path("yourapp")``).
APP = "com.example.yourapp"

#: The head of an app script of the sample app alone, 1.0 (1), on a zero-latency simulator: a test
#: adds the app's ``launch`` and ``screens`` (indented four spaces) after it.
APP_SCRIPT_HEAD = """\
version: 1
device: {name: Scripted iPhone, ios: "26.4", kind: simulator}
latency: zero
apps:
  com.example.yourapp:
    name: YourApp
    version: "1.0"
    build: "1"
"""

#: The sample check: a new user signs up on the sample app (installed from ``YourApp.app``).
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
#: The same check, its app named by the bundle alone (nothing to install).
#: A plain check beside SIGNUP on the sample app (the demo's two checks before they shared a flow).
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
SIGNUP_BY_BUNDLE = SIGNUP.replace(", path: YourApp.app}", "}")
#: The same check with a password typed before it continues (a secret in a step).
SIGNUP_WITH_PASSWORD = SIGNUP.replace('  - Tap "Continue"', '  - Type "hunter22" into "Password"\n  - Tap "Continue"')

#: The checks of ``mobster_core.testing.check_device`` every device passes, in order; a device with
#: an optional ability passes that ability's check too.
DEVICE_CHECKS = [
    "info",
    "launch and read",
    "reads agree on a still screen",
    "app info",
    "unknown app is a DeviceError",
    "home and back",
    "tap changes the screen",
    "typing sets the field's value",
    "open a link",
    "screenshot",
]

#: A recorded TAP step, as a path file holds it.
TAP: dict[str, Any] = {
    "op": "TAP",
    "app": APP,
    "target": {
        "label": "Continue",
        "role": "Button",
        "id": "/0/3/1",
        "frame": [0.1, 0.8, 0.8, 0.06],
        "count": 1,
        "nth": 0,
    },
    "screen": {
        "hash": "9f2c1e04a7b35d68",
        "signature": [["Button", "Continue"], ["StaticText", "Create your account"]],
    },
    "text": None,
    "commit": None,
    "live": False,
}

#: A model's prompt in the middle of a sign-up: what the model adapters' tests send.
PROMPT = Prompt(
    system=SYSTEM_PROMPT,
    request="Sign up with a@b.c and check the welcome screen.",
    history=('TAP e3 "Sign up"',),
    screen='app in front: com.example.yourapp\ne12 Button "Continue" @10,80,80,6',
    tool_schema=ACTION_TOOL,
)

#: The key of an element reference in the W3C WebDriver protocol.
W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

#: What Appium 3.8 with XCUITest 12.13 puts before the capabilities it echoes for a new session
#: (measured against the real server): the fake Appium must answer the same.
XCUITEST_LEGACY_CAPS = {
    "webStorageEnabled": False,
    "locationContextEnabled": False,
    "browserName": "",
    "platform": "MAC",
    "javascriptEnabled": True,
    "databaseEnabled": False,
    "takesScreenshot": True,
    "networkConnectionEnabled": False,
}


#: The sign-up check of ``yourapp-location.yaml``: past its location prompt and its keyboard.
SIGNUP_PAST_THE_KEYBOARD = """\
version: 1
name: Sign up
app: {bundle: com.example.yourapp}
reset: data
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Dismiss the keyboard
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
#: The title of ``yourapp-location.yaml``'s location prompt.
LOCATION_TITLE = "Allow “YourApp” to use your location?"

#: An app whose sign-in asks for Face ID: a match leads home, a failure to "locked"; a push opens
#: its inbox (the scripted phone's device steps, ``docs/device.md``).
FACE_ID_APP = (
    APP_SCRIPT_HEAD
    + """\
    launch: signin
    biometric: {unlock: {match: account, fail: locked}}
    push: inbox
    screens:
      signin:
        - {role: StaticText, label: Sign in to YourApp}
        - {role: Button, label: Sign in, tap: unlock}
      unlock:
        - {role: StaticText, label: Face ID}
        - {role: StaticText, label: Look at your iPhone to sign in}
      account:
        - {role: StaticText, label: Welcome back}
        - {role: Button, label: Sign out, tap: signedout}
      locked:
        - {role: StaticText, label: Face ID didn't match}
        - {role: Button, label: Try again, tap: unlock}
      signedout:
        - {role: StaticText, label: You signed out}
      inbox:
        - {role: StaticText, label: Your order shipped}
"""
)

#: Sign in with Face ID on ``FACE_ID_APP``: the device step is the check's second.
FACE_ID_CHECK = """\
version: 1
name: Sign in with Face ID
app: {bundle: com.example.yourapp}
device: {biometrics: {enrolled: true}}
steps:
  - Tap "Sign in"
  - biometric: match
expect:
  - text: Welcome back
"""

#: A push payload ``simctl push`` takes: a JSON object with an ``aps`` object.
PUSH_PAYLOAD = '{"aps": {"alert": {"title": "YourApp", "body": "Parcel 42 is on its way"}}, "token": "parcel-token-42"}'
