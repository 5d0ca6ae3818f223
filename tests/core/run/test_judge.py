"""The check's own reads around its steps (the judge's rules): the baseline and the verdict settle on fast reads,
what is judged is one evidence read, and after a replay the verdict reads at the poll cadence until the screen
changes. On the scripted phone at a USB iPhone's latencies and the fake clock, every read's time is exact."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel

APP = "com.example.yourapp"
READ, TAP, TRANSITION, LAUNCH = 0.234, 0.478, 1.247, 2.6
TWO_STEPS = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
"""


class Judged(ScriptedPhone):
    """The scripted phone with an evidence read beside its fast one; it notes each read and action: (kind, start)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls: list[tuple[str, float]] = []

    async def read(self) -> mc.Screen:
        self.calls.append(("fast", self.clock.now()))
        return await super().read()

    async def read_evidence(self) -> mc.Screen:
        self.calls.append(("evidence", self.clock.now()))
        return await super().read()

    async def act(self, action: mc.Action) -> None:
        self.calls.append(("act", self.clock.now()))
        await super().act(action)


def project(tmp_path: Path, check: str = TWO_STEPS) -> Path:
    file = tmp_path / ".mobster" / "checks" / "check.yaml"
    file.parent.mkdir(parents=True)
    file.write_text(check)
    return file


def app(latency: str = "usb-iphone") -> str:
    return sample_path("yourapp").read_text().replace("latency: zero", f"latency: {latency}")


def replayed(tmp_path: Path, check: str = TWO_STEPS) -> tuple[mc.CheckResult, Judged]:
    """Record ``check`` with Smart (zero latency), then replay it on a USB iPhone's latencies."""
    file = project(tmp_path, check)
    clock = FakeClock()
    recorder = ScriptedPhone.from_text(app("zero"), clock=clock)
    options = mc.RunOptions(root=tmp_path, screenshots=False)
    recorded = clock.run(mc.run_check(mc.load_check(file), recorder, clock, model=ScriptedModel(clock=clock),
                                      options=options))  # fmt: skip
    assert recorded.verdict is mc.Verdict.PASSED, recorded.outcome
    clock = FakeClock()
    phone = Judged.from_text(app(), clock=clock)
    assert isinstance(phone, Judged)
    result = clock.run(mc.run_check(mc.load_check(file), phone, clock, options=options))
    return result, phone


def test_a_replay_is_judged_on_one_evidence_read_after_fast_reads_that_follow_the_last_tap(tmp_path: Path) -> None:
    result, phone = replayed(tmp_path)
    assert (result.verdict, result.mode) == (mc.Verdict.PASSED, "replay")
    kinds = [k for k, _ in phone.calls]
    # The baseline's one fast read (the app is in front and "Go Pro" isn't there yet), step 1 on it,
    # step 2 after its screen showed, the verdict's fast reads, then one evidence read.
    assert kinds[0] == "fast"
    assert kinds[1] == "act"
    assert kinds[-1] == "evidence"
    assert kinds.count("evidence") == 1
    assert kinds.count("act") == 2
    last_tap = max(t for k, t in phone.calls if k == "act")
    verdict = [t - last_tap - TAP for k, t in phone.calls if k == "fast" and t > last_tap]
    # Back to back (a read is longer than the 0.15 s poll) until one shows the paywall, which
    # appears 1.247 s after the tap returned: the sixth read; then 0.3 s later the one that agrees.
    assert verdict == pytest.approx([0.0, READ, 2 * READ, 3 * READ, 4 * READ, 5 * READ, 5 * READ + 0.3])
    evidence = phone.calls[-1][1] - last_tap - TAP
    assert evidence == pytest.approx(5 * READ + 0.3 + READ)
    launch_done = LAUNCH
    # launch, one baseline read, two steps of (tap, transition until seen), the verdict's settle and evidence read
    assert result.seconds == pytest.approx(launch_done + READ + TAP + 6 * READ + TAP + 5 * READ + 0.3 + 2 * READ)


def test_a_baseline_whose_expectations_all_hold_settles_and_is_judged_on_an_evidence_read(tmp_path: Path) -> None:
    held = TWO_STEPS.replace('  - Tap "Upgrade to Pro"\n', '  - Tap "Back"\n').replace("text: Go Pro", "text: Welcome")
    file = project(tmp_path, held)
    clock = FakeClock()
    phone = Judged.from_text(app(), clock=clock)
    assert isinstance(phone, Judged)
    options = mc.RunOptions(root=tmp_path, screenshots=False)
    result = clock.run(mc.run_check(mc.load_check(file), phone, clock, model=ScriptedModel(clock=clock),
                                    options=options))  # fmt: skip
    assert result.verdict is mc.Verdict.NEEDS_REVIEW  # "Welcome" was there before the first step
    first_tap = next(t for k, t in phone.calls if k == "act")
    before = [(k, round(t - LAUNCH, 3)) for k, t in phone.calls if t < first_tap]
    # two fast reads 0.3 s apart that agree, then the evidence read the baseline is judged on
    assert before[:3] == [("fast", 0.0), ("fast", 0.3), ("evidence", round(0.3 + READ, 3))]
    assert [k for k, _ in phone.calls].count("evidence") == 2  # the baseline's and the verdict's


def test_a_baseline_read_off_the_app_settles_as_before(tmp_path: Path) -> None:
    file = project(tmp_path)
    clock = FakeClock()
    phone = Judged.from_text(app("zero"), clock=clock)
    assert isinstance(phone, Judged)
    dispatch_reads: list[mc.Screen] = []

    async def go() -> mc.CheckResult:
        original = phone.read

        async def read() -> mc.Screen:
            screen = await original()
            if clock.now() < 0.2:  # the app comes to front 0.2 s after the launch returns (the home screen until then)
                screen = attrs.evolve(screen, app=mc.protocols.SPRINGBOARD, elements=())
            dispatch_reads.append(screen)
            return screen

        phone.read = read  # type: ignore[method-assign]
        return await mc.run_check(mc.load_check(file), phone, clock, model=ScriptedModel(clock=clock),
                                  options=mc.RunOptions(root=tmp_path, screenshots=False))  # fmt: skip

    result = clock.run(go())
    assert result.verdict is mc.Verdict.PASSED, (result.outcome, phone.calls)
    starts = [t for k, t in phone.calls if k == "fast"][:3]
    assert starts == pytest.approx([0.0, 0.3, 0.6])  # off the app: every 0.3 s until two reads agree
    assert dispatch_reads[0].app == mc.protocols.SPRINGBOARD
