"""SPEC §10 with a real SDK: a screen that comes right while the model is thinking wins at once,
and the call in flight is cancelled (the fake Anthropic server sees the connection closed)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_drivers.devices.scripted import ScriptedPhone
from mobster_drivers.models import AnthropicModel
from mobster_drivers.testing.llm import FakeAnthropic
from tests.samples import APP_SCRIPT_HEAD

APP = (
    APP_SCRIPT_HEAD
    + """\
    launch: signup
    screens:
      signup:
        - {role: StaticText, label: Create your account}
        - {role: Button, label: CONTINUE, tap: plan}
      plan:
        - {role: StaticText, label: Pick a plan}
        - {role: Button, label: FREE, tap: done}
      done:
        - {role: StaticText, label: Welcome aboard}
"""
)
CHECK = """\
version: 1
name: Pick the free plan
app: {bundle: com.example.yourapp}
reset: data
steps:
  - Tap "CONTINUE"
  - Tap "FREE"
expect:
  - text: Welcome aboard
"""


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


def test_the_heal_cancels_the_anthropic_call_in_flight(tmp_path: Path) -> None:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "plan.yaml").write_text(CHECK)
    check = mc.load_check(checks / "plan.yaml")
    clock = mc.SystemClock()
    options = mc.RunOptions(root=tmp_path)
    with FakeAnthropic(lifetime=60) as api:
        # Record with the model: tap CONTINUE, tap FREE, done.
        api.reply_tool({"status": "act", "actions": [{"op": "TAP", "target": "e1"}]})
        api.reply_tool({"status": "act", "actions": [{"op": "TAP", "target": "e1"}]})
        api.reply_tool({"status": "done"})
        model = AnthropicModel("claude-test-1", api_key="sk-test-key", base_url=api.url)
        first = asyncio.run(
            mc.run_check(check, ScriptedPhone.from_text(APP, clock=clock), clock, model=model, options=options)
        )
        assert first.verdict is mc.Verdict.PASSED, first.outcome

        # The rebuild renames CONTINUE to NEXT: the heal's first call taps NEXT; its second call
        # (5 s) is in flight when FREE shows up 0.5 s later, and is cancelled.
        api.reply_tool({"status": "act", "actions": [{"op": "TAP", "target": "e1"}]})
        api.reply_slow(5.0)
        renamed = APP.replace("label: CONTINUE,", "label: NEXT,").replace("tap: done}", "tap: done, after: 0.5}")
        model = AnthropicModel("claude-test-1", api_key="sk-test-key", base_url=api.url)
        began = time.monotonic()
        healed = asyncio.run(
            mc.run_check(check, ScriptedPhone.from_text(renamed, clock=clock), clock, model=model, options=options)
        )
        took = time.monotonic() - began
        deadline = time.monotonic() + 5
        while api.disconnects < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert healed.verdict is mc.Verdict.PASSED, healed.outcome
    assert [h.to for h in healed.heals] == ['Tap "NEXT"']
    assert healed.model_calls == 2
    assert api.disconnects == 1  # the server saw the connection closed
    assert took < 5.0  # it did not wait for the slow reply
