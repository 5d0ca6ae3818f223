"""Issue 35, item 4, through each real SDK (against its fake API server): a heal that taps the
renamed password field instead of typing into it fails the step, and one that types the
reference into it heals; the model is only ever shown the reference, never the value."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core._store.healfile import heal_file_for, read_heal_file
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models import AnthropicModel, OpenAIModel
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.llm import FakeAnthropic, FakeOpenAI

PASSWORD = "s3cr3t-Value-42"
CHECK = """\
version: 1
name: A user logs in
app: {bundle: com.example.yourapp}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Type "${LOGIN_PASSWORD}" into "Password"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
APP = sample_path("yourapp").read_text()
PASSCODE = APP.replace("label: Password}", "label: Passcode}")
#: The heal's screen as the model is shown it: e2 is the renamed field.
FIELD = "e2"
#: Quick waits on the real clock: the replay drifts 0.1 s after the screen settles.
QUICK = mc.PollPolicy(interval=0.02, drift_after=0.1, give_up_after=0.5)


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


def options(root: Path) -> mc.RunOptions:
    return mc.RunOptions(root=root, secrets={"LOGIN_PASSWORD": PASSWORD}, policy=QUICK)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_heal_through_the_sdk_keeps_typing_the_reference(provider: str, tmp_path: Path) -> None:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "login.yaml").write_text(CHECK)
    check = mc.load_check(checks / "login.yaml")
    fake_clock = FakeClock()
    first = fake_clock.run(
        mc.run_check(check, ScriptedPhone.from_text(APP, clock=fake_clock), fake_clock, model=ScriptedModel(),
                     options=options(tmp_path))
    )  # fmt: skip
    assert first.verdict is mc.Verdict.PASSED, first.outcome

    clock = mc.SystemClock()
    fake: FakeAnthropic | FakeOpenAI = (
        FakeAnthropic(lifetime=60) if provider == "anthropic" else FakeOpenAI(lifetime=60)
    )
    with fake:

        def heal() -> mc.CheckResult:
            model: AnthropicModel | OpenAIModel
            if provider == "anthropic":
                model = AnthropicModel("claude-test-1", api_key="sk-test-key", base_url=fake.url)
            else:
                model = OpenAIModel("gpt-test-1", api_key="sk-test-key", base_url=fake.url)
            phone = ScriptedPhone.from_text(PASSCODE, clock=clock)
            return asyncio.run(mc.run_check(check, phone, clock, model=model, options=options(tmp_path)))

        fake.reply_tool({"status": "act", "actions": [{"op": "TAP", "target": FIELD}], "reason": "the field"})
        tapped = heal()
        fake.reply_tool({"status": "act", "actions": [{"op": "TYPE", "target": FIELD, "text": "${LOGIN_PASSWORD}"}]})
        typed = heal()
        requests = list(fake.requests)
    assert (tapped.verdict, tapped.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert tapped.outcome.message.endswith(
        '; the healed step no longer types ${LOGIN_PASSWORD} (healed as Tap "Passcode")'
    )
    assert typed.verdict is mc.Verdict.PASSED, typed.outcome
    (entry,) = read_heal_file(heal_file_for(checks / "login.yaml"))
    assert entry.to == 'Type "${LOGIN_PASSWORD}" into "Passcode"'
    assert len(requests) == 2  # one model call a heal
    assert all(b"${LOGIN_PASSWORD}" in r.raw and PASSWORD.encode() not in r.raw for r in requests)
    assert [f for f in tmp_path.rglob("*") if f.is_file() and PASSWORD.encode() in f.read_bytes()] == []
