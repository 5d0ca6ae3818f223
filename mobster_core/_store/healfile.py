"""The heal file beside a check, and the heal state in the cache.

Rule 1: every heal becomes an entry of ``<check stem>.heal.yaml`` beside the check, so it shows in
        the pull request: ``step`` (from 1), ``from``/``to`` (one line each; several actions are
        joined with ", then "), ``why`` (the matcher's reason), ``old`` and ``new`` (the actions).
Rule 2: re-healing a step updates its entry, never adds a duplicate. The file is written
        atomically with ruamel.yaml. The check file itself is never touched.
Rule 3: the heal state (``.mobster/cache/heals/<identity>-<env>.json``) keeps the recorded path as
        it was before its first pending heal (so ``--reject`` can bring it back) and the steps the
        user chose to keep failing.
Rule 4: accepting keeps the healed path (it is already the cached path) and removes the heal file;
        rejecting brings the recorded path back, marks the healed steps keep-failing, and removes
        the heal file.
Rule 5: the heal state is in format 2 (its steps' targets keep ``count`` and ``nth``, as the replay
        cache's do). A state in another format is renamed aside to ``<name>.format<N>`` with a
        warning and read as empty: its steps would replay under an older matcher rule.
Rule 6: the heal file is for people: an action shows ``count`` and ``nth`` only when its label was
        on the screen more than once. Nothing replays from it: the healed steps are the cached
        path, and ``--reject`` brings back the heal state's steps.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from mobster_core._log import get_logger
from mobster_core._rules.identity import Env
from mobster_core._rules.steps import Step, dump_path, load_path
from mobster_core._rules.text import utf8
from mobster_core._rules.yaml import YamlProblem, load_yaml
from mobster_core.exceptions import HealFileError, PathError

from .cache import ReplayCache
from .fsutil import MOBSTER_DIR, UnsafeFile, atomic_write, read_private

__all__ = [
    "HealEntry",
    "HealFileError",
    "HealState",
    "accept_heals",
    "compact",
    "heal_file_for",
    "load_heal_state",
    "merge_entries",
    "read_heal_file",
    "reject_heals",
    "save_heal_state",
    "write_heal_file",
]

log = get_logger(__name__)

_HEADER = """\
Mobster heal diff: steps of this check changed on screen and Smart healed them. Review them.
A heal never changes an expectation. The check file itself is untouched.
  Accept:        mobster test heal --accept {name}
  Keep failing:  mobster test heal --reject {name}"""
_MAX_STATE_BYTES = 8 * 1024 * 1024
#: The heal state's format (Rule 5): 2 since targets keep ``count`` and ``nth``.
STATE_FORMAT = 2


@attrs.frozen
class HealEntry:
    """One healed step (Rule 1)."""

    step: int
    from_: str
    to: str
    why: str
    old: tuple[dict[str, Any], ...]
    new: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """The entry as the heal file and results.json show it."""
        return {
            "step": self.step,
            "from": self.from_,
            "to": self.to,
            "why": self.why,
            "old": [dict(a) for a in self.old],
            "new": [dict(a) for a in self.new],
        }

    @classmethod
    def of(cls, step: int, why: str, old: Sequence[Step], new: Sequence[Step]) -> HealEntry:
        """An entry from the recorded steps a heal replaced and the steps the model took."""
        return cls(step, _line(old), _line(new), why, tuple(compact(s) for s in old), tuple(compact(s) for s in new))


def _line(steps: Sequence[Step]) -> str:
    return ", then ".join(s.describe() for s in steps) or "nothing"


def compact(step: Step) -> dict[str, Any]:
    """An action as the heal file shows it: op, label, role, id, frame (and text when typed).

    ``count`` and ``nth`` follow the frame when the label was on the screen more than once (Rule 6).
    """
    out: dict[str, Any] = {"op": step.op.value}
    if step.target is not None:
        t = step.target
        out.update(label=t.label, role=t.role, id=t.id, frame=list(t.frame))
        if t.count > 1:
            out.update(count=t.count, nth=t.nth)
    if step.text is not None:
        out["text"] = step.text
    return out


def heal_file_for(check_file: Path) -> Path:
    """``signup.yaml`` -> ``signup.heal.yaml``, beside it."""
    return check_file.with_name(f"{check_file.stem}.heal.yaml")


def merge_entries(existing: Iterable[HealEntry], new: Iterable[HealEntry]) -> list[HealEntry]:
    """Rule 2: a new entry for a step replaces the old one; sorted by step."""
    by_step = {e.step: e for e in existing}
    for e in new:
        by_step[e.step] = e
    return [by_step[k] for k in sorted(by_step)]


def write_heal_file(check_file: Path, entries: Sequence[HealEntry]) -> Path:
    """Write (or, with no entries, remove) the heal file beside ``check_file`` (Rules 1-2)."""
    target = heal_file_for(check_file)
    if not entries:
        target.unlink(missing_ok=True)
        return target
    doc = CommentedMap()
    doc["version"] = 1
    doc["check"] = check_file.name
    heals = CommentedSeq()
    for e in entries:
        item = CommentedMap()
        item["step"] = e.step
        item["from"] = e.from_
        item["to"] = e.to
        item["why"] = e.why
        for key, actions in (("old", e.old), ("new", e.new)):
            seq = CommentedSeq()
            for a in actions:
                m = CommentedMap(a)
                if "frame" in m:
                    frame = CommentedSeq(m["frame"])
                    frame.fa.set_flow_style()
                    m["frame"] = frame
                m.fa.set_flow_style()
                seq.append(m)
            item[key] = seq
        heals.append(item)
    doc["heals"] = heals
    doc.yaml_set_start_comment(_HEADER.format(name=check_file.name))
    yaml = YAML(typ="rt", pure=True)
    yaml.width = 200
    yaml.indent(mapping=2, sequence=2, offset=0)
    out = io.StringIO()
    yaml.dump(doc, out)
    atomic_write(target, utf8(out.getvalue()))
    return target


def read_heal_file(path: Path) -> list[HealEntry]:
    """Read a heal file strictly; a missing file has no entries."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        doc = load_yaml(raw, str(path))
    except YamlProblem as exc:
        raise HealFileError(str(exc)) from exc
    data = doc.data
    if not isinstance(data, dict) or set(data) != {"version", "check", "heals"} or data["version"] != 1:
        raise HealFileError(f"{path}: a heal file has version: 1, check and heals; delete it and run again")
    if not isinstance(data["heals"], list):
        raise HealFileError(f"{doc.where(['heals'])}: heals is a list")
    entries: list[HealEntry] = []
    for n, item in enumerate(data["heals"]):
        where = doc.where(["heals", n])
        if not isinstance(item, dict) or set(item) != {"step", "from", "to", "why", "old", "new"}:
            raise HealFileError(f"{where}: a heal has step, from, to, why, old and new")
        step = item["step"]
        if isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise HealFileError(f"{where}: step is a whole number from 1")
        texts = [item[k] for k in ("from", "to", "why")]
        if not all(isinstance(t, str) for t in texts):
            raise HealFileError(f"{where}: from, to and why are text")
        lists = [item[k] for k in ("old", "new")]
        if not all(isinstance(v, list) and all(isinstance(a, dict) for a in v) for v in lists):
            raise HealFileError(f"{where}: old and new are lists of actions")
        entries.append(HealEntry(step, texts[0], texts[1], texts[2], tuple(lists[0]), tuple(lists[1])))
    return entries


# -- the heal state in the cache ---------------------------------------------------------------


@attrs.frozen
class HealState:
    """Rule 3: the recorded path before its first pending heal, and the keep-failing steps."""

    original: tuple[Step, ...] | None = None
    keep_failing: frozenset[int] = frozenset()


def _state_file(root: Path, identity: str, env: Env) -> Path:
    return root / MOBSTER_DIR / "cache" / "heals" / f"{identity}-{env.digest}.json"


def load_heal_state(root: Path, identity: str, env: Env) -> HealState:
    """The heal state; an unreadable file is reported as :class:`HealFileError`."""
    file = _state_file(root, identity, env)
    try:
        raw = read_private(file, max_bytes=_MAX_STATE_BYTES)
    except FileNotFoundError:
        return HealState()
    except UnsafeFile as exc:
        raise HealFileError(str(exc)) from exc
    try:
        original, keep = _parse_state(raw)
    except _OtherFormat as exc:
        _set_aside(file, exc.format)
        return HealState()
    except (ValueError, PathError) as exc:
        raise HealFileError(f"{file}: {exc}; delete it (the next run replays the cached path)") from exc
    return HealState(original, frozenset(keep))


class _OtherFormat(ValueError):
    def __init__(self, number: int) -> None:
        super().__init__(f"format {number}")
        self.format = number


def _set_aside(file: Path, number: int) -> None:
    """Rule 5: rename a heal state of another format aside, and say so."""
    aside = file.with_name(f"{file.name}.format{number}")
    age = "an older" if number < STATE_FORMAT else "a newer"
    try:
        file.replace(aside)
    except OSError as exc:
        log.warning(
            "heal state of another format ignored",
            file=str(file),
            reason=f"it is in format {number} of {age} Mobster; it couldn't be moved aside ({exc.strerror}); delete it",
        )
        return
    log.warning(
        "heal state of another format set aside",
        file=str(file),
        reason=f"it is in format {number} of {age} Mobster (this one reads {STATE_FORMAT}); kept as {aside.name}",
    )


def _parse_state(raw: bytes) -> tuple[tuple[Step, ...] | None, list[int]]:
    data = json.loads(raw.decode("utf-8"))
    if isinstance(data, dict):
        number = data.get("format")
        if isinstance(number, int) and not isinstance(number, bool) and number != STATE_FORMAT and 1 <= number < 1000:
            raise _OtherFormat(number)
    if not isinstance(data, dict) or set(data) != {"format", "original", "keep_failing"}:
        raise ValueError("keys are format, original, keep_failing")
    if data["format"] != STATE_FORMAT or isinstance(data["format"], bool):
        raise ValueError(f"format is {STATE_FORMAT}")
    original = None if data["original"] is None else load_path(data["original"])
    keep = data["keep_failing"]
    if not isinstance(keep, list) or not all(isinstance(k, int) and not isinstance(k, bool) for k in keep):
        raise ValueError("keep_failing is a list of step numbers")
    return original, keep


def save_heal_state(root: Path, identity: str, env: Env, state: HealState) -> None:
    """Write the heal state atomically; an empty state removes the file."""
    file = _state_file(root, identity, env)
    if state.original is None and not state.keep_failing:
        file.unlink(missing_ok=True)
        return
    data = {
        "format": STATE_FORMAT,
        "original": None if state.original is None else dump_path(state.original),
        "keep_failing": sorted(state.keep_failing),
    }
    atomic_write(file, json.dumps(data, indent=1).encode("utf-8"))


def _envs_with_state(root: Path, identity: str) -> list[Env]:
    return [stored.env for stored in ReplayCache(root).envs(identity)]


def accept_heals(root: Path, check_file: Path, identity: str) -> int:
    """Rule 4, accept: the healed steps stay the recorded path. Returns how many heals."""
    entries = read_heal_file(heal_file_for(check_file))
    for env in _envs_with_state(root, identity):
        state = load_heal_state(root, identity, env)
        save_heal_state(root, identity, env, HealState(None, state.keep_failing))
    write_heal_file(check_file, [])
    return len(entries)


def reject_heals(root: Path, check_file: Path, identity: str, *, recorded_at: datetime) -> int:
    """Rule 4, reject: the recorded steps come back, marked keep-failing. Returns how many heals.

    ``recorded_at`` (timezone-aware) is when the steps come back, as the cache records it.
    """
    entries = read_heal_file(heal_file_for(check_file))
    cache = ReplayCache(root)
    for env in _envs_with_state(root, identity):
        state = load_heal_state(root, identity, env)
        if state.original is not None:
            cache.store(identity, env, state.original, recorded_at=recorded_at)
        keep = state.keep_failing | {e.step for e in entries}
        save_heal_state(root, identity, env, HealState(None, frozenset(keep)))
    write_heal_file(check_file, [])
    return len(entries)
