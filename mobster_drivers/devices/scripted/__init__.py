"""The scripted phone: a simulated iPhone (or Android phone) that runs an app script, on an injected clock.

It is the phone of the demo, of the SDK's own tests and of the benchmark, and a way for users to
test their harness without a device. It passes the same ``check_device`` conformance suite as the
real drivers. Its screenshots are pictures of the app as an iPhone shows it, drawn by
``ScreenRenderer`` (which draws any ``Screen``). See ``docs/scripted-phone.md``.

::

    from mobster_core.testing import FakeClock
    from mobster_drivers.devices.scripted import ScriptedPhone, sample_path

    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
"""

from __future__ import annotations

from pathlib import Path

from ._draw import DEFAULT_SCALE, ScreenRenderer, render_screen
from ._phone import AUDIT_SINCE_IOS, ScriptedPhone, audit_of
from ._script import (
    PROFILES,
    TEXT_ROLES,
    AppScript,
    AuditFinding,
    Latency,
    ScriptedApp,
    ScriptedElement,
    Tap,
    TapKind,
)

__all__ = [
    "AUDIT_SINCE_IOS",
    "DEFAULT_SCALE",
    "PROFILES",
    "SAMPLES",
    "TEXT_ROLES",
    "AppScript",
    "AuditFinding",
    "Latency",
    "ScreenRenderer",
    "ScriptedApp",
    "ScriptedElement",
    "ScriptedPhone",
    "Tap",
    "TapKind",
    "audit_of",
    "render_screen",
    "sample_path",
]

#: The folder of the sample app scripts that ship with the package.
SAMPLES: Path = Path(__file__).parent / "samples"


def sample_path(name: str) -> Path:
    """The path of a sample app script by name: ``sample_path("yourapp")``.

    The samples: ``yourapp`` (the sign-up app, with settings and a paywall),
    ``yourapp-renamed`` (the same build where ``Continue`` is called ``Next``), and their
    Android twins ``yourapp-android`` and ``yourapp-android-renamed`` (``platform: android``). Raises
    ``ValueError`` listing the samples for any other name.
    """
    path = SAMPLES / (name if name.endswith(".yaml") else f"{name}.yaml")
    if path.parent != SAMPLES or not path.is_file():
        names = ", ".join(sorted(p.stem for p in SAMPLES.glob("*.yaml")))
        raise ValueError(f"no sample app script {name!r} (samples: {names})")
    return path
