"""``mobster_harness.settings``: the one settings value, and the run options it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core.checks import AlertMode, AlertPolicy
from mobster_core.results import FramesMode, VideoMode
from mobster_harness.settings import FRAMES, VIDEO, Settings, Timing
from mobster_harness.spec import DeviceOptions


def test_every_setting_reaches_the_run_options(tmp_path: Path) -> None:
    settings = Settings(
        devices=DeviceOptions(scripted=("app.yaml",)),
        no_heal=True,
        fresh=True,
        carry=True,
        max_usd=0.25,
        each_device=True,
        frames="failed",
        timing=Timing(poll_interval=0.5, drift_after=2.5, give_up_after=6.0),
    )
    sent: list[str] = []
    reporter = object()
    options = settings.to_run_options(tmp_path, reporter=reporter, on_sent=sent.append)  # type: ignore[arg-type]
    assert (options.no_heal, options.fresh, options.carry, options.each_device) == (True, True, True, True)
    assert options.max_usd == 0.25
    assert options.frames is FramesMode.FAILED
    assert options.policy == mc.PollPolicy(interval=0.5, drift_after=2.5, give_up_after=6.0)
    assert options.root == tmp_path
    assert options.reporter is reporter
    options.on_sent("step 1 (Tap)")  # type: ignore[misc]
    assert sent == ["step 1 (Tap)"]
    assert (options.on_sending, options.on_result) == (None, None)


def test_no_setting_is_the_cores_defaults(tmp_path: Path) -> None:
    assert Settings().to_run_options(tmp_path) == mc.RunOptions(root=tmp_path)
    some = Settings(timing=Timing(drift_after=2.0)).to_run_options(tmp_path).policy
    assert some == mc.PollPolicy(drift_after=2.0)  # a timing left out keeps the core's default


def test_the_frames_are_the_cores_modes() -> None:
    assert tuple(m.value for m in FramesMode) == FRAMES
    with pytest.raises(ValueError, match="frames 'some' is not one of auto, all, failed, none"):
        Settings(frames="some")


def test_a_model_is_wanted_unless_no_heal_without_fresh() -> None:
    assert Settings().wants_model
    assert not Settings(no_heal=True).wants_model
    assert Settings(no_heal=True, fresh=True).wants_model


def test_the_secrets_never_show_and_take_no_part_in_equality() -> None:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-SECRET"}
    settings = Settings(secrets=keys)
    assert "SECRET" not in repr(settings)
    assert settings == Settings()
    assert settings.secrets == keys


def test_an_alert_policy_for_every_check_becomes_the_run_options(tmp_path: Path) -> None:
    assert Settings().to_run_options(tmp_path).alerts is None  # each check's own
    allowed = Settings(alerts={"allow": ["location"], "deny": ["tracking"]}).to_run_options(tmp_path).alerts
    assert allowed == AlertPolicy(AlertMode.SERVICES, frozenset({"location"}), frozenset({"tracking"}))
    assert Settings(alerts="accept").to_run_options(tmp_path).alerts == AlertPolicy(AlertMode.ACCEPT)
    with pytest.raises(ValueError, match=r"^alerts\.deny\[1\]: unknown service 'gps'; write one of location,"):
        Settings(alerts={"deny": ["tracking", "gps"]}).to_run_options(tmp_path)


def test_the_video_is_the_cores_modes(tmp_path: Path) -> None:
    assert tuple(m.value for m in VideoMode) == VIDEO
    for mode in VIDEO:
        assert Settings(video=mode).to_run_options(tmp_path).video is VideoMode(mode)
    assert Settings().to_run_options(tmp_path).video is VideoMode.OFF
    with pytest.raises(ValueError, match="video 'sometimes' is not one of off, on, retain-on-failure"):
        Settings(video="sometimes")
