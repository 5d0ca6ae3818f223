"""The settings both front ends share: one neutral value that the ``mobster`` command and the plugin build.

Standard library only when imported (no attrs, no ``mobster_core``): the pytest plugin builds it
when pytest starts. ``mobster_core`` is imported when :meth:`Settings.to_run_options` is called.

Rule 1: a front end parses its own options (click's for ``mobster test``, pytest's options and ini
        keys for the plugin) and says what they mean in one frozen :class:`Settings`: the device
        options (:class:`~mobster_harness.spec.DeviceOptions`: the pool), ``no_heal``,
        ``fresh``, ``carry``, the ``model`` named (None: chosen by key,
        :mod:`~mobster_harness.models`), ``max_usd``, ``each_device``, ``frames`` (the
        core's ``--frames`` mode), ``timing`` (a step's wait), ``shard``, the ``paths`` store and
        the ``locale``, ``video`` (``off``, ``on``, ``retain-on-failure``: the core's ``--video``
        mode), and ``secrets`` (where keys and ``${NAME}`` values are read: the
        environment with an env file's keys; None: the process's environment, read when needed).
        How an option is spelled in a message stays the front end's (``--sim``, ``--mobster-sim``,
        ``mobster_sim (ini)``). The project config (:mod:`~mobster_harness.config`) fills
        the options a front end's user left out, for both. ``retries`` and ``repeat`` are the suite's
        (``RunOptions``'s: a check that couldn't run for a class of the machine tried again, each
        check run K times). ``alerts`` is a system-alert policy for
        every check, as a check writes it (``"accept"``, ``{"allow": ["location"]}``;
        ``docs/alerts.md``); None leaves each check's own. ``profile`` (the config's profile the
        run used) and ``env_file`` (the env file it read) are for a report's "Run it again" line.
Rule 2: :meth:`Settings.to_run_options` is the one place settings become
        :class:`mobster_core.RunOptions`; what only a front end has (its reporter, its progress
        lines) it passes in. A timing left out is the core's default (0.15 s, 1.0 s, 3.0 s).
Rule 3: ``secrets`` never shows in a ``repr`` and takes no part in equality: it holds API keys.
Rule 4: :meth:`Settings.rerun_options` is the "Run it again" line's options, by device label: the
        device (spec Rule 7), then ``--profile NAME`` when a profile was used (whatever chose it:
        the line must run the same in a shell without ``$MOBSTER_PROFILE``) and ``--env-file
        FILE`` when one was read. Paths in it (an app script, a caps file, the env file) are
        relative to the project root the line runs in, when they are inside it.
Rule 5: :meth:`Settings.from_values` is the one mapper from options and config to settings: it
        takes the values by the name of their destination (:data:`NAMES`: ``mobster test``'s
        option destinations, which the config's keys fill, ``mobster_harness.config.KEYS``'
        ``field``), a name left out or None being its default. A front end's own names (``--json``,
        ``--tag``, ``--project``) are its own, and not read here. What is no value of an option is
        said beside them: the front end's ``prefix`` and spellings (spec Rule 3), the ``secrets``,
        and the config's ``profile`` the run used.
Rule 6 (the path store): ``paths`` is a store's name or URL (``mobster_drivers.stores``), opened
        by :meth:`Settings.to_run_options` with ``${NAME}`` from ``secrets`` (so every front end
        that comes through the door gets the same store, lease and recorder); ``paths_write``
        False wraps it read-only (a pull request's job), ``paths_key`` (``${NAME}``; a bare
        ``NAME`` is taken as ``${NAME}``) signs it; a remote store takes the recording lease
        (``paths_lease``, ``paths_wait`` seconds; None: the defaults). Each path recorded names
        this machine (its host name) and the CI build (:func:`build_id`). A setting that can't
        be opened (an unset ``${NAME}``, a team key too short) is a ``ValueError`` saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .spec import DeviceOptions

if TYPE_CHECKING:
    from mobster_core import CheckResult, RunOptions
    from mobster_core.protocols import PathStore, Reporter

__all__ = ["FRAMES", "MAX_REPEAT", "MAX_RETRIES", "NAMES", "PLATFORMS", "VIDEO", "Settings", "Timing"]

#: The core's ``--frames`` modes (``mobster_core.results.FramesMode``), by value.
FRAMES = ("auto", "all", "failed", "none")
#: The core's ``--video`` modes (``mobster_core.results.VideoMode``), by value.
VIDEO = ("off", "on", "retain-on-failure")
#: The most retries and repeats a front end takes (a typo of 1000 must not hold a pool for a day).
MAX_RETRIES = 10
MAX_REPEAT = 1000
#: Rule 5: the names :meth:`Settings.from_values` reads (the device options' first, then the run's).
NAMES = (
    *("scripted", "sim", "device", "wda", "appium", "android", "caps", "parallel", "sessions", "session_per_check"),
    *("session_wait", "no_heal", "fresh", "carry", "model", "max_usd", "each_device", "frames", "poll_interval"),
    *("drift_after", "give_up_after", "shard", "paths_store", "locale", "retries", "repeat", "video", "alerts"),
    *("env_file", "paths_write", "paths_key", "paths_lease", "paths_wait", "platform"),
)
#: The platforms a run may select (``mobster_core.protocols.Platform``), by value.
PLATFORMS = ("ios", "android")


@dataclass(frozen=True)
class Timing:
    """A step's wait in seconds (None: the default): ``--poll-interval``, ``--drift-after``, ``--give-up-after``.

    ``poll_interval`` is between the starts of two reads; a step drifts once its screen has
    settled ``drift_after`` without a match, or kept changing ``give_up_after``.
    """

    poll_interval: float | None = None
    drift_after: float | None = None
    give_up_after: float | None = None


@dataclass(frozen=True)
class Settings:
    """Everything the options both front ends share say (Rule 1)."""

    devices: DeviceOptions = field(default_factory=DeviceOptions)
    no_heal: bool = False
    fresh: bool = False
    carry: bool = False
    model: str | None = None
    max_usd: float | None = None
    each_device: bool = False
    frames: str = "auto"
    timing: Timing = field(default_factory=Timing)
    shard: str | None = None
    #: Where recorded paths live (``local``, ``committed``, a store's URL: Rule 6) and the locale a run asks for.
    paths: str = "local"
    #: Rule 6: write to the store (False: read-only), the team key's ``${NAME}``, the lease's seconds.
    paths_write: bool = True
    paths_key: str | None = None
    paths_lease: float | None = None
    paths_wait: float | None = None
    locale: str | None = None
    #: Tries of a check that couldn't run for a class of the machine, after its first; runs of each check.
    retries: int = 0
    repeat: int = 1
    #: The screen's video: ``off``, ``on`` or ``retain-on-failure`` (kept only when the check didn't pass).
    video: str = "off"
    #: Rule 3: the environment keys and ``${NAME}`` values are read from (None: ``os.environ``, when needed).
    secrets: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    #: The system-alert policy of every check, as a check file writes it (None: each check's own).
    alerts: str | Mapping[str, Sequence[str]] | None = field(default=None, hash=False)
    #: Rule 4: the config's profile the run used, and the env file it read (None: none).
    profile: str | None = None
    env_file: Path | None = None
    #: The one platform a run selects (``ios``, ``android``); None: each check on each platform of the pool.
    platform: str | None = None

    def __post_init__(self) -> None:
        if self.platform is not None and self.platform not in PLATFORMS:
            raise ValueError(f"platform {self.platform!r} is not one of {', '.join(PLATFORMS)}")
        if self.frames not in FRAMES:
            raise ValueError(f"frames {self.frames!r} is not one of {', '.join(FRAMES)}")
        if not 0 <= self.retries <= MAX_RETRIES:
            raise ValueError(f"retries {self.retries!r}: give a number of retries from 0 to {MAX_RETRIES}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise ValueError(f"repeat {self.repeat!r}: give a number of runs from 1 to {MAX_REPEAT}")
        if self.video not in VIDEO:
            raise ValueError(f"video {self.video!r} is not one of {', '.join(VIDEO)}")

    @classmethod
    def from_values(
        cls,
        values: Mapping[str, Any],
        *,
        prefix: str = "--",
        given: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        profile: str | None = None,
    ) -> Settings:
        """Rule 5: the settings ``values`` say, by their destination's name (:data:`NAMES`); the rest defaults.

        ``prefix`` and ``given`` are how the front end spells its device options (spec Rule 3),
        ``secrets`` the environment keys are read from, ``profile`` the config's profile used.
        """
        v = {name: value for name, value in values.items() if name in NAMES and value is not None}
        devices = DeviceOptions(
            sessions=v.get("sessions"),
            parallel=v.get("parallel"),
            session_per_check=bool(v.get("session_per_check")),
            session_wait=v.get("session_wait"),
            prefix=prefix,
            given=dict(given or {}),
        ).given_as(lambda name: tuple(str(x) for x in v.get(name) or ()))
        env_file = v.get("env_file")
        return cls(
            devices=devices,
            no_heal=bool(v.get("no_heal")),
            fresh=bool(v.get("fresh")),
            carry=bool(v.get("carry")),
            model=v.get("model"),
            max_usd=v.get("max_usd"),
            each_device=bool(v.get("each_device")),
            frames=v.get("frames") or "auto",
            timing=Timing(v.get("poll_interval"), v.get("drift_after"), v.get("give_up_after")),
            shard=v.get("shard"),
            paths=v.get("paths_store") or "local",
            paths_write=v.get("paths_write") is not False,
            paths_key=_reference(v.get("paths_key")),
            paths_lease=v.get("paths_lease"),
            paths_wait=v.get("paths_wait"),
            locale=v.get("locale"),
            retries=v.get("retries") or 0,
            repeat=v.get("repeat") or 1,
            video=v.get("video") or "off",
            secrets=secrets,
            alerts=v.get("alerts"),
            profile=profile,
            env_file=None if env_file is None else Path(env_file),
            platform=v.get("platform"),
        )

    @property
    def wants_model(self) -> bool:
        """Whether a model may be made: not under no-heal (strict CI), unless fresh asks Smart to record again."""
        return self.fresh or not self.no_heal

    def rerun_options(self, root: Path, driver: Sequence[str] = ()) -> dict[str, str]:
        """Rule 4: the options of a "Run it again" line, by device label (``""``: a pool of one, or ``--driver``)."""
        import shlex

        from .spec import relative_to, rerun_options

        words = []
        if self.profile:
            words += ["--profile", self.profile]
        if self.env_file is not None:
            words += ["--env-file", relative_to(str(self.env_file), root)]
        more = " ".join(shlex.quote(w) for w in words)
        named = rerun_options(self.devices, driver, root=root)
        return {label: f"{options} {more}".strip() for label, options in named.items()}

    def path_store(self, root: Path) -> str | PathStore:
        """Rule 6: the path store the settings name, opened for ``root`` (a built-in's name, or the store itself).

        ``ValueError`` says why it can't be (an unset ``${NAME}``, a team key too short).
        """
        import os

        from mobster_drivers.stores import open_store

        env = os.environ if self.secrets is None else self.secrets
        return open_store(self.paths, root, env=env, write=self.paths_write, key=self.paths_key)

    def to_run_options(
        self,
        root: Path,
        *,
        reporter: Reporter | None = None,
        on_sent: Callable[[str], None] | None = None,
        on_sending: Callable[[str | None], None] | None = None,
        on_result: Callable[[CheckResult], None] | None = None,
    ) -> RunOptions:
        """Rule 2: the run options of a check of the project at ``root``, with the front end's reporter and lines."""
        import os
        import platform

        from mobster_core import PollPolicy, RunOptions
        from mobster_core.checks import parse_alert_policy
        from mobster_core.paths import RecordedBy
        from mobster_drivers.stores import lease_policy

        env = os.environ if self.secrets is None else self.secrets
        t = self.timing
        timing = {"interval": t.poll_interval, "drift_after": t.drift_after, "give_up_after": t.give_up_after}
        return RunOptions(
            timing=PollPolicy(**{k: v for k, v in timing.items() if v is not None}),
            each_device=self.each_device,
            no_heal=self.no_heal,
            fresh=self.fresh,
            carry=self.carry,
            max_usd=self.max_usd,
            frames=self.frames,
            reporter=reporter,
            root=root,
            on_sent=on_sent,
            on_sending=on_sending,
            on_result=on_result,
            paths=self.path_store(root),
            lease=lease_policy(self.paths, lease_s=self.paths_lease, wait_s=self.paths_wait),
            recorder=RecordedBy(machine=platform.node()[:200] or None, build=build_id(env)),
            locale=self.locale,
            secrets=self.secrets,
            retries=self.retries,
            repeat=self.repeat,
            alerts=None if self.alerts is None else parse_alert_policy(_as_written(self.alerts), "alerts"),
            video=self.video,
            platform=self.platform,
        )


#: Rule 6: the variables CI services name their build with, first set first (MOBSTER_BUILD over all).
_BUILD_VARIABLES = (
    "MOBSTER_BUILD",
    "GITHUB_RUN_ID",
    "CI_PIPELINE_ID",
    "BUILDKITE_BUILD_NUMBER",
    "CIRCLE_BUILD_NUM",
    "BUILD_BUILDID",
    "BUILD_NUMBER",
)


def build_id(env: Mapping[str, str]) -> str | None:
    """Rule 6: the CI build this run is part of (``GITHUB_RUN_ID``, GitLab's pipeline, ...), or None."""
    for name in _BUILD_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            attempt = env.get("GITHUB_RUN_ATTEMPT", "").strip() if name == "GITHUB_RUN_ID" else ""
            return (f"{value}.{attempt}" if attempt and attempt != "1" else value)[:200]
    return None


def _reference(name: str | None) -> str | None:
    """Rule 6: ``paths_key`` as ``${NAME}``: so written, or a bare ``NAME`` (``--paths-key NAME``, for a shell)."""
    if name is None or name.startswith("${"):
        return name
    return f"${{{name}}}"


def _as_written(alerts: str | Mapping[str, Sequence[str]]) -> object:
    """A policy as a check file writes it (lists, not tuples), for the core's parser."""
    if isinstance(alerts, str):
        return alerts
    return {key: list(value) if isinstance(value, tuple | list) else value for key, value in alerts.items()}
