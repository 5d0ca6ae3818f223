"""Issue 4's promise: a Smart run through each real SDK (against its fake API server) records the
same path as the scripted model, and a password typed while recording is written nowhere."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._rules.vocabulary.steps import dump_path
from mobster_core._run.agent import Agent, Brief, ModelCalls, Recorded
from mobster_core._run.dispatch import Dispatcher
from mobster_core._store.cache import ReplayCache
from mobster_core._store.journal import Journal
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models import AnthropicModel, OpenAIModel
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.llm import FakeAnthropic, FakeOpenAI
from tests.core.helpers import NOW

APP = "com.example.yourapp"
STEPS = ('Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Type "hunter22" into "Password"', 'Tap "Continue"')
KEY = "sk-test-DO-NOT-LEAK-0123456789"
# What a model answers on the sample app: rows are e<index in the read> (see screen_rows).
REPLIES: list[dict[str, Any]] = [
    {"status": "act", "actions": [{"op": "TAP", "target": "e1"}], "reason": "sign up"},
    {"status": "act", "actions": [{"op": "TYPE", "target": "e1", "text": "ada@example.com"}]},
    {"status": "act", "actions": [{"op": "TYPE", "target": "e2", "text": "hunter22"}]},
    {"status": "act", "actions": [{"op": "TAP", "target": "e3"}]},
    {"status": "done", "reason": "every step is done"},
]


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


def record(
    model: Any, clock: mc.Clock, run: Callable[[Any], Any], journal: Journal | None = None
) -> tuple[Recorded, ModelCalls]:
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    calls = ModelCalls(model)
    brief = Brief(
        request="Check: a new user signs up\n" + "\n".join(STEPS),
        kind=mc.DeviceKind.SIMULATOR,
        provenance=Provenance.of(steps=STEPS),
        steps=STEPS,
    )
    agent = Agent(calls, Dispatcher(phone, clock, MemoryJournal() if journal is None else journal), brief)

    async def go() -> Recorded:
        await phone.launch(APP, mc.LaunchOptions())
        return await agent.run()

    recorded: Recorded = run(go())
    return recorded, calls


def scripted_path() -> tuple[mc.Step, ...]:
    clock = FakeClock()
    recorded, _ = record(ScriptedModel(), clock, clock.run)
    assert (recorded.failure, recorded.blocked) == (None, None)
    return recorded.path


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_each_real_sdk_records_the_same_path_as_the_scripted_model(
    provider: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake: FakeAnthropic | FakeOpenAI = (
        FakeAnthropic(lifetime=60) if provider == "anthropic" else FakeOpenAI(lifetime=60)
    )
    with fake:
        for reply in REPLIES:
            fake.reply_tool(reply)
        model: AnthropicModel | OpenAIModel
        if provider == "anthropic":
            model = AnthropicModel("claude-test-1", api_key=KEY, base_url=fake.url)
        else:
            model = OpenAIModel("gpt-test-1", api_key=KEY, base_url=fake.url)
        journal = Journal(tmp_path / ".mobster" / "runs" / "r1")
        result, calls = record(model, mc.SystemClock(), asyncio.run, journal)
        journal.close()
        assert len(fake.requests) == 5
    assert (result.failure, result.blocked) == (None, None)
    assert calls.count == 5
    assert not calls.usage.estimated
    assert calls.usage.input_tokens > 0
    assert dump_path(result.path) == dump_path(scripted_path())
    mc.load_path(dump_path(result.path))
    cache = ReplayCache(tmp_path)
    cache.store("0123456789abcdef", Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR), result.path, recorded_at=NOW)
    for f in (tmp_path / ".mobster").rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert b"hunter22" not in data, f
            assert KEY.encode() not in data, f
    assert KEY not in caplog.text  # nor in any log line, the SDKs' own debug logs included
    # The password is in the check's own steps, so the SDK's debug log of the request echoes it
    # (the CLI never turns those logs on); Mobster's own logs never carry it.
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("mobster")]
    assert not any("hunter22" in line for line in ours)
