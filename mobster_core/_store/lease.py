"""The recording lease: when several machines find no path for one identity and env, one records.

Rule 1 (the document): a lease is the path store's document ``leases/<identity>-<env>.json``:
        ``{"format": 1, "holder": "...", "state": "held" | "free", "lease_s": 60.0, "renewals": 0,
        "taken_at": "<ISO time>"}``. It is taken, renewed and released only by the store's
        conditional write (``pathstores`` Rule 7): taken by creating it (none there) or by
        replacing a free or expired version with the tag read; renewed and released over the
        holder's own version. Of machines racing for one version, exactly one takes it.
Rule 2 (expiry, on the waiter's own clock): a held lease has expired once its version (its tag)
        has stayed the same for its ``lease_s`` on the waiting machine's clock, counted from when
        that machine first saw the version: no two machines' clocks are ever compared. The holder
        renews it (a new version) every third of ``lease_s`` while it records, so a recorder that
        lives keeps it and a killed one loses it within ``lease_s`` of its last renewal.
Rule 3 (the wait, :class:`LeaseWait`, pure): a run that must record reads the store every
        ``poll_s``: a usable path of the env there is replayed (:class:`Replay`); no lease, a free
        one, one that is no lease (not this format: corrupt, forged) or an expired one is taken
        (:class:`Take`, expecting the version seen; a loss reads again); after ``wait_s`` from the
        wait's start the run records without the lease (:class:`GiveUp`, bounded). The wait never
        sleeps past the moment one of these rules decides; a stop (Ctrl+C) cancels its sleep.
Rule 4: a lease's ``lease_s`` is held to :data:`MIN_LEASE_S` .. :data:`MAX_LEASE_S` as it is read (a
        forged lease of a year blocks nobody past the waiter's ``wait_s`` anyway).
Rule 5: the holder releases its lease when its run ends, however it ended (passed, failed,
        stopped): it writes the lease ``free`` over its own version; a lease another machine took
        over meanwhile (this one's expired) is left to it.
Rule 6: a lease document over 4 KiB, or that is no lease of this format, is not held: it is taken
        over by its version; one that can't be read at all (over 1 MiB, refused) is removed first.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from datetime import datetime
from typing import Any, NoReturn

import attrs

from mobster_core._rules.formats.text import utf8
from mobster_core._rules.replay.settle import Done, Read, Sleep
from mobster_core.exceptions import StoreUnavailable, UnsafeFile

from .pathstores import PathStore

__all__ = [
    "LEASE_FORMAT",
    "MAX_LEASE_S",
    "MIN_LEASE_S",
    "Claimant",
    "GiveUp",
    "Lease",
    "LeasePolicy",
    "LeaseSight",
    "LeaseState",
    "LeaseWait",
    "Replay",
    "Take",
    "lease_name",
    "look",
    "new_holder",
    "release",
    "renew",
    "take",
]

LEASE_FORMAT = 1
#: Rule 4: the shortest and longest lease a document may say, in seconds.
MIN_LEASE_S = 1.0
MAX_LEASE_S = 3600.0
_MAX_LEASE_BYTES = 4096
#: Rule 6: a lease document is read up to this size (its tag, to take it over); a larger one is removed.
_MAX_READ_BYTES = 1024 * 1024
_HOLDER = re.compile(r"[\x21-\x7e]{1,200}")


def _positive(_instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{attribute.name} is a number of seconds above 0, not {value!r}")


@attrs.frozen
class LeasePolicy:
    """How a run takes and waits for a recording lease, in seconds (the module rules).

    ``lease_s``: how long a lease lives without a renewal (Rule 2); ``wait_s``: how long a run
    waits for another machine's recording before it records itself (Rule 3); ``poll_s``: how
    often a waiting run reads the store.
    """

    lease_s: float = attrs.field(default=60.0, validator=_positive)
    wait_s: float = attrs.field(default=900.0, validator=_positive)
    poll_s: float = attrs.field(default=1.0, validator=_positive)

    def __attrs_post_init__(self) -> None:
        if not MIN_LEASE_S <= self.lease_s <= MAX_LEASE_S:
            raise ValueError(f"lease_s is {MIN_LEASE_S:g} to {MAX_LEASE_S:g} seconds, not {self.lease_s!r}")

    @property
    def renew_every_s(self) -> float:
        """Rule 2: how often the holder renews its lease (a third of ``lease_s``)."""
        return self.lease_s / 3


def lease_name(identity: str, env: str) -> str:
    """Rule 1: the store's document name of the recording lease of ``identity`` and ``env``."""
    return f"leases/{identity}-{env}.json"


def new_holder(machine: str | None) -> str:
    """A holder's name: this machine (when known), this process, and a random part no other run shares."""
    where = re.sub(r"[^\x21-\x7e]", "_", machine or "machine")[:120]
    return f"{where}/{os.getpid()}/{os.urandom(6).hex()}"


@attrs.frozen
class Lease:
    """A lease this run holds: its document's name, the version it wrote, and what it says."""

    name: str
    tag: str
    holder: str
    lease_s: float
    renewals: int = 0


@attrs.frozen
class LeaseSight:
    """One read of the store (Rule 3): is a usable path there; the lease's version, and whether it is held.

    ``tag`` is None when no lease document is there; ``held`` is False for a free lease or one
    that is no lease (Rule 3); ``lease_s`` is what a held lease says (Rule 4's bounds).
    """

    path: bool
    tag: str | None = None
    held: bool = False
    lease_s: float = 0.0
    holder: str | None = None


@attrs.frozen
class Replay:
    """Rule 3: a path of the env is there now: replay it."""


@attrs.frozen
class Take:
    """Rule 3: take the lease, replacing the version ``expect`` (None: create it); ``expired`` names the holder."""

    expect: str | None
    expired: str | None = None


@attrs.frozen
class GiveUp:
    """Rule 3: ``wait_s`` passed with another machine's lease held: record without the lease."""

    holder: str | None
    waited_s: float


@attrs.frozen
class LeaseState:
    """The wait so far: when it began, the last read, when it started, and when its lease version was first seen."""

    began: float
    sight: LeaseSight | None = None
    read_at: float = -math.inf
    first_seen: float = 0.0


@attrs.frozen
class LeaseWait:
    """Rule 3's wait, driven by the one wait loop (``_run/wait.py``); ``began`` carries over a lost take."""

    policy: LeasePolicy
    began: float | None = None

    def start(self, now: float) -> LeaseState:
        """The wait's state at ``now`` (or at :attr:`began`, for a wait taken up again after a lost take)."""
        return LeaseState(now if self.began is None else self.began)

    def next(self, state: LeaseState, now: float) -> Read | Sleep | Done[Replay | Take | GiveUp]:
        """What to do at ``now``: read, sleep until a rule may decide, or the decision."""
        sight = state.sight
        if sight is None:
            return Read()
        if sight.path or not sight.held:
            return Done(Replay() if sight.path else Take(sight.tag))
        expires = state.first_seen + sight.lease_s
        if now >= expires - 1e-9:
            return Done(Take(sight.tag, expired=sight.holder))
        deadline = state.began + self.policy.wait_s
        if now >= deadline - 1e-9:
            return Done(GiveUp(sight.holder, now - state.began))
        due = state.read_at + self.policy.poll_s
        if now >= due - 1e-9:
            return Read()
        return Sleep(min(due, expires, deadline))

    def saw(self, state: LeaseState, started: float, sight: LeaseSight) -> LeaseState:
        """Fold in a read that started at ``started``: a new lease version restarts its expiry (Rule 2)."""
        same = state.sight is not None and state.sight.tag == sight.tag and sight.tag is not None
        first = state.first_seen if same else started
        return attrs.evolve(state, sight=sight, read_at=started, first_seen=first)

    def checked(self, _state: LeaseState, _shown: bool) -> NoReturn:
        """A lease's wait never asks whether a target is shown."""
        raise AssertionError("a lease's wait checks no target")


# -- the document and the store (Rules 1, 4, 5) ----------------------------------------------------


def _document(holder: str, state: str, lease_s: float, renewals: int, now: datetime) -> bytes:
    payload = {
        "format": LEASE_FORMAT,
        "holder": holder,
        "state": state,
        "lease_s": lease_s,
        "renewals": renewals,
        "taken_at": now.isoformat(timespec="seconds"),
    }
    return utf8(json.dumps(payload, sort_keys=True) + "\n")


def _parse(raw: bytes) -> tuple[bool, float, str | None]:
    """Rules 3, 4: ``(held, lease_s, holder)`` of a lease's bytes; anything that is no lease is not held."""
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, 0.0, None
    if not isinstance(data, dict) or data.get("format") != LEASE_FORMAT or data.get("state") != "held":
        return False, 0.0, None
    holder, lease_s = data.get("holder"), data.get("lease_s")
    if not isinstance(holder, str) or not _HOLDER.fullmatch(holder):
        return False, 0.0, None
    if isinstance(lease_s, bool) or not isinstance(lease_s, int | float) or not math.isfinite(lease_s):
        return False, 0.0, None
    return True, min(max(float(lease_s), MIN_LEASE_S), MAX_LEASE_S), holder


def look(store: PathStore, name: str, *, path: bool) -> LeaseSight:
    """Rule 3: what the store says of the lease ``name`` now (``path``: whether a usable path is there).

    Rule 6: a document there that can't be read at all (over :data:`_MAX_READ_BYTES`, refused) is
    no lease: it is removed, so a lease can be created in its place.
    """
    try:
        got = store.read_document(name, max_bytes=_MAX_READ_BYTES)
    except FileNotFoundError:
        return LeaseSight(path)
    except (OSError, UnsafeFile) as exc:
        if isinstance(exc, StoreUnavailable):
            raise
        with contextlib.suppress(OSError, UnsafeFile):
            store.remove_document(name)
        return LeaseSight(path)
    held, lease_s, holder = _parse(got.data) if len(got.data) <= _MAX_LEASE_BYTES else (False, 0.0, None)
    return LeaseSight(path, got.tag, held, lease_s, holder)


def _versioned_tag(store: PathStore, name: str) -> str | None:
    try:
        return store.read_document(name, max_bytes=_MAX_LEASE_BYTES).tag
    except FileNotFoundError:
        return None
    except UnsafeFile:
        return None


@attrs.frozen
class Claimant:
    """Who asks for which lease, for how long (``lease_s``, seconds)."""

    name: str
    holder: str
    lease_s: float


def take(store: PathStore, claimant: Claimant, *, expect: str | None, now: datetime) -> Lease | None:
    """Rule 1: take the lease over the version ``expect`` (None: create it); None when another machine won."""
    name, holder, lease_s = claimant.name, claimant.holder, claimant.lease_s
    if not store.write_document(name, _document(holder, "held", lease_s, 0, now), expect=expect):
        return None
    tag = _versioned_tag(store, name)
    return None if tag is None else Lease(name, tag, holder, lease_s)


def renew(store: PathStore, lease: Lease, *, now: datetime) -> Lease | None:
    """Rule 2: a new version of this run's lease over its own; None when another machine took it over."""
    renewals = lease.renewals + 1
    data = _document(lease.holder, "held", lease.lease_s, renewals, now)
    if not store.write_document(lease.name, data, expect=lease.tag):
        return None
    tag = _versioned_tag(store, lease.name)
    return None if tag is None else attrs.evolve(lease, tag=tag, renewals=renewals)


def release(store: PathStore, lease: Lease, *, now: datetime) -> bool:
    """Rule 5: write this run's lease free over its own version; False when another machine holds it now."""
    data = _document(lease.holder, "free", lease.lease_s, lease.renewals + 1, now)
    return store.write_document(lease.name, data, expect=lease.tag)
