"""The heal file beside a check, and the heal state in the cache.

Rule 1: every heal becomes an entry of the check's own heal file beside it (``signup.yaml`` ->
        ``signup.heal.yaml``, ``signup.yml`` -> ``signup.heal.yml``: the stem, ``.heal``, the
        check's suffix, so two check files never share one), so it shows in the pull request:
        ``step`` (from 1), ``from``/``to`` (one line each; several actions are joined with
        ", then "), ``why`` (the matcher's reason), ``old`` and ``new`` (the actions). It is read
        strictly, like a path: never through a symlink, a regular file of at most 1 MiB, every key
        and type checked, each problem naming ``file:line`` and the fix.
Rule 2: re-healing a step updates its entry, never adds a duplicate. The file is written
        atomically with ruamel.yaml. The check file itself is never touched.
Rule 3: a heal is a transaction of two files. The healed path is never written to the shared
        replay cache: it is kept in the heal state of its check file
        (``.mobster/cache/heals/<identity>-<env>-<check key>.json``, the key a hash of the check
        file's path in the project) together with the heal entries it holds. The healed path is
        adopted (replayed) only while every one of those entries is in the heal file, as written:
        a heal file that is missing, unreadable, edited by hand or cut short by a crash adopts
        nothing, and the recorded path replays (and drifts, or heals again). The heal file is
        written first and the heal state second, so a crash between leaves the old state
        adopted, and an entry of the new heal file that no state holds is dropped by the next
        write. Two check files with the same steps share the recorded path, never a heal.
Rule 4: accepting (under the project lock) stores each adopted healed path as the recorded path,
        then removes the heal file, then the healed paths; rejecting (under the lock) drops the
        healed paths, marks the healed steps keep-failing and keeps the rejected entries, then
        removes the heal file. Each step is a whole-file atomic write, and a decision stopped
        half-way is finished by deciding again. Recording the check afresh retires its heal file
        and heal states. Two checks with the same steps share the recorded path: when one accepts
        a heal the other rejected, the shared path holds the healed step, and the check that
        rejected it fails there (class ``drift``) instead of replaying it.
Rule 5: the heal state is in format 4 (a healed path, the entries it holds, the keep-failing steps
        and the rejected entries); format 3 (no rejected entries) is read as it is. A state in
        another format is renamed aside to ``<name>.format<N>`` with a warning and read as empty.
Rule 6: the heal file is for people: an action shows ``count`` and ``nth`` only when its label was
        on the screen more than once. Nothing replays from it: the healed steps are the cached
        path, and rejecting brings back the heal state's steps.
Rule 7: a heal names the run that made it: ``run_dir``, its run folder relative to the project
        (``.mobster/runs/<run_id>``), so a review or a report finds its frames without searching.
        A heal file or heal state written before has none, and is read as it is.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from mobster_core._log import get_logger
from mobster_core._rules.identity import Env
from mobster_core._rules.steps import Step, dump_path, load_path
from mobster_core._rules.text import utf8
from mobster_core._rules.typing_rules import Provenance
from mobster_core._rules.yaml import MAX_YAML_BYTES, YamlProblem, load_yaml
from mobster_core.exceptions import HealFileError, PathError

from .cache import Origin, ReplayCache, check_name
from .fsutil import MOBSTER_DIR, UnsafeFile, atomic_write, project_lock, read_private, read_user_file
from .pathstores import PathStore

__all__ = [
    "HealEntry",
    "HealFileError",
    "HealState",
    "accept_heals",
    "adopted",
    "check_key",
    "compact",
    "heal_file_for",
    "load_heal_state",
    "merge_entries",
    "read_heal_file",
    "reject_heals",
    "retire",
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
#: The heal state's format (Rule 5): 3 since it holds the healed path and its entries.
STATE_FORMAT = 4


@attrs.frozen
class HealEntry:
    """One healed step (Rule 1); ``run_dir`` is the run that made it (Rule 7), None in an older file."""

    step: int
    from_: str
    to: str
    why: str
    old: tuple[dict[str, Any], ...]
    new: tuple[dict[str, Any], ...]
    run_dir: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The entry as the heal file and results.json show it (``run_dir`` only when known)."""
        out: dict[str, Any] = {
            "step": self.step,
            "from": self.from_,
            "to": self.to,
            "why": self.why,
            "old": [dict(a) for a in self.old],
            "new": [dict(a) for a in self.new],
        }
        if self.run_dir is not None:
            out["run_dir"] = self.run_dir
        return out

    @classmethod
    def of(
        cls, step: int, why: str, old: Sequence[Step], new: Sequence[Step], *, run_dir: str | None = None
    ) -> HealEntry:
        """An entry from the recorded steps a heal replaced and the steps the model took, in the run ``run_dir``."""
        olds, news = tuple(compact(s) for s in old), tuple(compact(s) for s in new)
        return cls(step, _line(old), _line(new), why, olds, news, run_dir)


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
    """``signup.yaml`` -> ``signup.heal.yaml``, ``signup.yml`` -> ``signup.heal.yml``, beside it.

    The stem, ``.heal``, then the check's own suffix: two check files never share a heal file.
    """
    return check_file.with_name(f"{check_file.stem}.heal{check_file.suffix}")


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
        if e.run_dir is not None:
            item["run_dir"] = e.run_dir
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
    """Read a heal file strictly (Rule 1); a missing file has no entries."""
    try:
        raw = read_user_file(path, max_bytes=MAX_YAML_BYTES, follow=False)
    except FileNotFoundError:
        return []
    except UnsafeFile as exc:  # the machine, not the file's text: class environment
        raise UnsafeFile(path, exc.reason, problem=exc.problem, fix="move it out of the way") from exc
    try:
        doc = load_yaml(raw, str(path))
    except YamlProblem as exc:
        raise HealFileError(str(exc)) from exc
    data = doc.data
    if not isinstance(data, dict) or set(data) != {"version", "check", "heals"} or data["version"] != 1:
        raise HealFileError(f"{path}: a heal file has version: 1, check and heals; delete it and run again")
    if not isinstance(data["heals"], list):
        raise HealFileError(f"{doc.where(['heals'])}: heals is a list")
    entries = []
    for n, item in enumerate(data["heals"]):
        problem = _entry_problem(item)
        if problem is not None:
            raise HealFileError(f"{doc.where(['heals', n])}: {problem}")
        entries.append(_entry(cast("dict[str, Any]", item)))
    return entries


#: Rule 1: the keys of a heal; ``run_dir`` (Rule 7) may be missing.
_ENTRY_KEYS = frozenset({"step", "from", "to", "why", "old", "new"})


def _has_entry_keys(item: object) -> bool:
    return isinstance(item, dict) and set(item) - {"run_dir"} == _ENTRY_KEYS


def _entry_problem(item: object) -> str | None:
    """What is wrong with one heal of a heal file, checked key by key, or None."""
    if not isinstance(item, dict) or not _has_entry_keys(item):
        return "a heal has step, from, to, why, old and new (and run_dir); delete the file and run again"
    step = item["step"]
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        return "step is a whole number from 1; delete the file and run again"
    if not all(isinstance(item[k], str) for k in ("from", "to", "why")):
        return "from, to and why are text; delete the file and run again"
    if not isinstance(item.get("run_dir", ""), str):
        return "run_dir is the run folder's path, as text; delete the file and run again"
    if not all(isinstance(v, list) and all(_is_action(a) for a in v) for v in (item["old"], item["new"])):
        return "old and new are lists of actions as mobster wrote them; delete the file"
    return None


def _entry(item: dict[str, Any]) -> HealEntry:
    """One heal :func:`_entry_problem` (or the state's :func:`_is_entry`) accepted."""
    texts = [item[k] for k in ("from", "to", "why")]
    lists = [item[k] for k in ("old", "new")]
    step = item["step"]
    return HealEntry(step, texts[0], texts[1], texts[2], tuple(lists[0]), tuple(lists[1]), item.get("run_dir"))


_ACTION_KEYS = {"op": str, "label": str, "role": str, "id": str, "frame": list, "count": int, "nth": int, "text": str}


def _is_action(action: object) -> bool:
    """An action as :func:`compact` writes it: known keys of the right types, an ``op``."""
    if not isinstance(action, dict) or not isinstance(action.get("op"), str):
        return False
    for key, value in action.items():
        kind = _ACTION_KEYS.get(key)
        if kind is None or isinstance(value, bool):
            return False
        if not isinstance(value, kind) and not (value is None and key in ("label", "role", "id")):
            return False
    frame = action.get("frame", [0, 0, 0, 0])
    return len(frame) == 4 and all(isinstance(v, int | float) and not isinstance(v, bool) for v in frame)


# -- the heal state in the cache (Rules 3-5) ---------------------------------------------------


@attrs.frozen
class HealState:
    """Rule 3: a check file's healed path, the heal entries it holds, its keep-failing steps and rejected heals.

    A path shared with another check may hold a rejected heal (that check's review accepted it):
    this check still fails there (Rule 4).
    """

    healed: tuple[Step, ...] | None = None
    adopts: tuple[HealEntry, ...] = ()
    keep_failing: frozenset[int] = frozenset()
    rejected: tuple[HealEntry, ...] = ()


def _canon(entry: HealEntry) -> bytes:
    """An entry as bytes that compare equal however YAML or JSON carried it (numbers, surrogates)."""
    data = entry.to_dict()
    for key in ("old", "new"):
        data[key] = [{**a, "frame": [float(v) for v in a["frame"]]} if "frame" in a else a for a in data[key]]
    return utf8(json.dumps(data, sort_keys=True, ensure_ascii=False))


def adopted(state: HealState, entries: Sequence[HealEntry]) -> bool:
    """Rule 3: the healed path is replayed only while every entry it holds is in the heal file."""
    if state.healed is None or not state.adopts:
        return False
    shown = {_canon(e) for e in entries}
    return all(_canon(e) in shown for e in state.adopts)


def check_key(root: Path, check_file: Path) -> str:
    """The check file's key in heal state names: a hash of its path in the project."""
    try:
        name = check_file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        name = check_file.resolve().as_posix()
    return hashlib.sha256(utf8(name)).hexdigest()[:12]


def _state_file(root: Path, identity: str, env: Env, key: str) -> Path:
    return root / MOBSTER_DIR / "cache" / "heals" / f"{identity}-{env.digest}-{key}.json"


def load_heal_state(root: Path, identity: str, env: Env, key: str) -> HealState:
    """The heal state of one check file; an unreadable file is reported as :class:`HealFileError`."""
    file = _state_file(root, identity, env, key)
    try:
        raw = read_private(file, max_bytes=_MAX_STATE_BYTES)
    except FileNotFoundError:
        return HealState()
    except UnsafeFile as exc:
        raise HealFileError(str(exc)) from exc
    except OSError as exc:
        raise HealFileError(f"{file}: can't read it ({exc.strerror}); check its permissions, or delete it") from exc
    try:
        return _parse_state(raw)
    except _OtherFormat as exc:
        _set_aside(file, exc.format)
        return HealState()
    except (ValueError, RecursionError, PathError, TypeError, KeyError) as exc:
        raise HealFileError(f"{file}: {exc}; delete it (the next run replays the recorded path)") from exc


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


def _parse_state(raw: bytes) -> HealState:
    data = json.loads(raw.decode("utf-8"))
    if isinstance(data, dict):
        number = data.get("format")
        if (
            isinstance(number, int)
            and not isinstance(number, bool)
            and number not in (3, STATE_FORMAT)
            and 1 <= number < 1000
        ):
            raise _OtherFormat(number)  # format 3 is this one without rejected heals: read as it is
    keys = {"format", "healed", "adopts", "keep_failing"}
    if not isinstance(data, dict) or set(data) - {"rejected"} != keys or (data["format"] == 3 and "rejected" in data):
        raise ValueError("keys are format, healed, adopts, keep_failing, rejected")
    healed = None if data["healed"] is None else load_path(data["healed"])
    adopts = data["adopts"]
    if not isinstance(adopts, list) or not all(_is_entry(e) for e in adopts):
        raise ValueError("adopts is a list of heal entries")
    keep = data["keep_failing"]
    if not isinstance(keep, list) or not all(isinstance(k, int) and not isinstance(k, bool) for k in keep):
        raise ValueError("keep_failing is a list of step numbers")
    rejected = data.get("rejected", [])
    if not isinstance(rejected, list) or not all(_is_entry(e) for e in rejected):
        raise ValueError("rejected is a list of heal entries")
    return HealState(healed, tuple(_entry(e) for e in adopts), frozenset(keep), tuple(_entry(e) for e in rejected))


def _is_entry(item: object) -> bool:
    if not isinstance(item, dict) or not _has_entry_keys(item):
        return False
    step = item["step"]
    texts_ok = all(isinstance(item[k], str) for k in ("from", "to", "why")) and isinstance(item.get("run_dir", ""), str)
    actions_ok = all(isinstance(item[k], list) and all(_is_action(a) for a in item[k]) for k in ("old", "new"))
    return isinstance(step, int) and not isinstance(step, bool) and step >= 1 and texts_ok and actions_ok


def save_heal_state(root: Path, identity: str, env: Env, key: str, state: HealState) -> None:
    """Write the heal state atomically; an empty state removes the file."""
    file = _state_file(root, identity, env, key)
    if state.healed is None and not state.keep_failing and not state.rejected:
        file.unlink(missing_ok=True)
        return
    data = {
        "format": STATE_FORMAT,
        "healed": None if state.healed is None else dump_path(state.healed),
        "adopts": [e.to_dict() for e in state.adopts],
        "keep_failing": sorted(state.keep_failing),
        "rejected": [e.to_dict() for e in state.rejected],
    }
    atomic_write(file, utf8(json.dumps(data, indent=1, ensure_ascii=False)))


def retire(root: Path, check_file: Path, identity: str, env: Env, paths: str | PathStore = "local") -> int:
    """Rule 4: a check recorded afresh on ``env`` retires that env's heals; returns how many.

    The heal file keeps only the entries other envs' healed paths of this identity hold (a
    heal of an older app version still waits for review); it is written first and the state
    removed second, so a crash between leaves a state that adopts nothing (Rule 3).
    """
    heal = heal_file_for(check_file)
    entries = read_heal_file(heal)
    key = check_key(root, check_file)
    held: list[HealEntry] = []
    for other in _envs(root, identity, paths):
        if other.digest != env.digest:
            state = load_heal_state(root, identity, other, key)
            if adopted(state, entries):
                held.extend(state.adopts)
    kept = merge_entries(held, [])
    if len(kept) != len(entries):
        write_heal_file(check_file, kept)
    _state_file(root, identity, env, key).unlink(missing_ok=True)
    return len(entries) - len(kept)


def _envs(root: Path, identity: str, paths: str | PathStore) -> list[Env]:
    return [stored.env for stored in ReplayCache(root, paths).envs(identity)]


def accept_heals(
    project: Path | ReplayCache,
    check_file: Path,
    identity: str,
    *,
    recorded_at: datetime,
    provenance: Provenance | None = None,
) -> int:
    """Rule 4, accept: the adopted healed paths become the recorded paths. Returns how many heals.

    ``project`` is the project's root (its local store) or the replay cache of its store;
    ``provenance`` is the check's own words, which a shared store's text is checked against.

    Raises :class:`HealFileError` when the heal file holds heals no healed path adopts (it was
    edited by hand, or a run stopped while writing it): nothing is changed then.
    """
    cache = project if isinstance(project, ReplayCache) else ReplayCache(project)
    root = cache.root
    with project_lock(root):
        entries = read_heal_file(heal_file_for(check_file))
        key = check_key(root, check_file)
        states = [(stored.env, load_heal_state(root, identity, stored.env, key)) for stored in cache.envs(identity)]
        chosen = [(env, state) for env, state in states if adopted(state, entries)]
        held = {_canon(e) for _, state in chosen for e in state.adopts}
        if any(_canon(e) not in held for e in entries):
            raise HealFileError(
                f"{heal_file_for(check_file)}: it holds heals no healed path is kept with (the file was edited, "
                "or a run stopped while writing it); reject them, or run the check again so it heals again"
            )
        for env, state in chosen:
            assert state.healed is not None  # adopted() says so
            origin = Origin("healed", None, check_name(root, check_file), provenance or Provenance())
            cache.store_path(identity, env, state.healed, recorded_at=recorded_at, origin=origin)
        write_heal_file(check_file, [])
        for env, state in states:
            save_heal_state(root, identity, env, key, HealState(None, (), state.keep_failing, state.rejected))
    return len(entries)


def reject_heals(root: Path, check_file: Path, identity: str, paths: str | PathStore = "local") -> int:
    """Rule 4, reject: the healed paths go; the recorded steps stay, marked keep-failing."""
    with project_lock(root):
        entries = read_heal_file(heal_file_for(check_file))
        key = check_key(root, check_file)
        for env in _envs(root, identity, paths):
            state = load_heal_state(root, identity, env, key)
            keep = state.keep_failing | {e.step for e in entries}
            rejected = merge_entries(list(state.rejected), entries)
            save_heal_state(root, identity, env, key, HealState(None, (), frozenset(keep), tuple(rejected)))
        write_heal_file(check_file, [])
    return len(entries)
