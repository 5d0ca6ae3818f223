from __future__ import annotations

import pytest

import mobster_core as mc
from mobster_core._rules.vocabulary.steps import describe_action


@pytest.mark.parametrize(
    ("op", "label", "text", "said"),
    [
        (mc.Op.TAP, "Continue", None, 'Tap "Continue"'),
        (mc.Op.LONG_PRESS, "Photo", None, 'Long press "Photo"'),
        (mc.Op.TYPE, "Email", "ada@example.com", 'Type "ada@example.com" into "Email"'),
        (mc.Op.TYPE, "Password", None, 'Type into "Password"'),
        (mc.Op.SUBMIT, None, None, "Submit"),
        (mc.Op.SWIPE_UP, None, None, "Swipe up"),
        (mc.Op.SWIPE_LEFT, "Row", None, 'Swipe left on "Row"'),
        (mc.Op.LAUNCH_APP, None, "com.example.app", "Open com.example.app"),
        (mc.Op.HOME, None, None, "Go home"),
        (mc.Op.OPEN_URL, None, "yourapp://signup", 'Open link "yourapp://signup"'),
    ],
)
def test_describe_every_op(op: mc.Op, label: str | None, text: str | None, said: str) -> None:
    assert describe_action(op, label, text) == said


def test_targets_built_in_python_are_validated_too() -> None:
    with pytest.raises(ValueError, match="four numbers"):
        mc.Target(label="x", role="Button", id="/0/1", frame=(0.0, 0.0, 1.0), count=1, nth=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"0\.\.1"):
        mc.Target(label="x", role="Button", id="/0/1", frame=(0.0, 0.0, 1.0, 2.0), count=1, nth=0)


@pytest.mark.parametrize(
    ("op", "element", "text", "message"),
    [
        (mc.Op.TAP, None, None, "needs an element"),
        (mc.Op.HOME, mc.Element(role="Button"), None, "takes no element"),
        (mc.Op.TYPE, mc.Element(role="TextField"), None, "needs text"),
        (mc.Op.TAP, mc.Element(role="Button"), "x", "takes no text"),
    ],
)
def test_actions_are_validated(op: mc.Op, element: mc.Element | None, text: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mc.Action(op, element=element, text=text)


def test_device_info() -> None:
    info = mc.DeviceInfo(name="iPhone", ios="26.4.1", kind=mc.DeviceKind.IPHONE)
    assert info.ios_major == 26
    with pytest.raises(ValueError, match="a version such as"):
        mc.DeviceInfo(name="iPhone", ios="twenty-six", kind=mc.DeviceKind.IPHONE)


def test_launch_options_copy_their_inputs() -> None:
    env = {"A": "1"}
    options = mc.LaunchOptions(args=["-x"], env=env)
    env["A"] = "2"
    assert options.args == ("-x",)
    assert options.env == {"A": "1"}
