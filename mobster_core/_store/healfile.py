"""The heal file beside a check, and the heal state beside the paths it heals.

Rule 1: every heal becomes an entry of the check's own heal file beside it (``signup.yaml`` ->
        ``signup.heal.yaml``, ``signup.yml`` -> ``signup.heal.yml``: the stem, ``.heal``, the
        check's suffix, so two check files never share one), so it shows in the pull request:
        ``step`` (from 1), ``from``/``to`` (one line each; several actions are joined with
        ", then "), ``why`` (the matcher's reason), ``old`` and ``new`` (the actions). It is read
        strictly, like a path: never through a symlink, a regular file of at most 1 MiB, every key
        and type checked, each problem naming ``file:line`` and the fix. ``from`` and ``to`` never
        read the same: when the actions' lines are alike, ``to`` says what changed (which of the
        elements with that label, its place in the tree, the screen it is on); a heal that changed
        nothing at all is no heal (``HealEntry.changed`` is False) and is never written.
Rule 2: re-healing a step updates its entry, never adds a duplicate. The file is written
        atomically with ruamel.yaml. The check file itself is never touched.
Rule 3: a heal is a transaction of two files. The healed path is never written over the recorded
        path: it is kept in the heal state of its check file, a document of the project's path
        store beside the paths (``heals/<identity>-<env>-<check key>.json``: the ``local`` store's
        ``.mobster/cache/heals/``, the ``committed`` store's ``.mobster/paths/heals/``, a
        harness's own store's documents), together with the heal entries it holds. The healed path is
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
        another format is kept aside as ``<name>.format<N>`` with a warning and read as empty;
        in a shared store (committed) it is left as it is, with the warning.
Rule 6: the heal file is for people: an action shows ``count`` and ``nth`` only when its label was
        on the screen more than once. Nothing replays from it: the healed steps are the cached
        path, and rejecting brings back the heal state's steps.
Rule 7: a heal names the run that made it: ``run_dir``, its run folder relative to the project
        (``.mobster/runs/<run_id>``), so a review or a report finds its frames without searching.
        A heal file or heal state written before has none, and is read as it is. Nothing requires
        it: a clone where that run isn't (it was made on another machine) reads the heal the same.
Rule 8: heals travel with the paths. In a shared store (committed, reviewed in git) a heal state
        is written deterministically (sorted keys, two-space indentation, a final newline) and
        holds no machine's own facts beyond the informative ``run_dir``; it never holds text the
        typing rules would not replay (the committed paths' rule, the cache's Rule 10: checked
        against the check's own words when it is written, and again when it is read, since another
        clone wrote it). It is read as strictly as a path (a regular file, never through a
        symlink, at most 8 MiB, strict JSON, every key and type), and a state that fails is
        ``HealFileError`` naming the file. An entry no heal state holds says why
        (:func:`not_kept_reason`): a heal made on another machine with ``paths = local`` (its run
        folder isn't here) is said to be one, with what to do.
Rule 9: a heal waiting for review (an entry an adopted heal state holds, of any env) is never
        replaced by another heal of the same step (:func:`waiting`): the runner fails that step
        instead (``_run/steps`` Rule 10), and keeping refuses a heal that would replace or overlap
        one (``_run/keep`` Rule 7).
Rule 10: the check key is a hash of the check file's path relative to the project, with POSIX
        separators (:func:`check_key`): the same on every clone, so a committed heal state is found.
Rule 11: a heal state is written over the version that was read (the store's conditional write,
        ``pathstores`` Rule 7): a run's keep expects the state its plan read (``HealState.tag``),
        a review the one it reads under the lock. When another machine wrote the state since,
        nothing is written and the keep says so (:class:`HealFileError`: run again); a heal state
        of another format is copied aside whatever copy was there before.
Rule 12: a heal state a signed store refuses (``signing`` Rule 2: unsigned, forged) is no heal
        state: it is logged and the recorded path replays as if there were none. A shared store's
        (a team's remote store, committed) is left byte for byte, as the replay cache's Rule 12
        leaves a path: a heal this run keeps replaces that version (Rule 11); a private store's
        is moved aside (``<name>.unsigned`` / ``.forged``). A heal state of another format left
        in a shared store (Rule 5) is replaced the same way.
Rule 13: a reject is undone (:func:`unreject_heals`, under the project lock) by taking its steps'
        keep-failing marks and rejected entries out of every env's heal state, all of them or one
        step's; nothing else of the state changes. The recorded step is then healed again on its
        next drift by a run with a model (the heal file is written afresh then), as if it had
        never been rejected.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, cast

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from mobster_core._log import get_logger
from mobster_core._rules.formats.text import utf8
from mobster_core._rules.formats.yaml import MAX_YAML_BYTES, YamlProblem, load_yaml
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import SEARCH_ROLES, Provenance
from mobster_core._rules.vocabulary.steps import Step, Target, dump_path, load_path
from mobster_core.exceptions import HealFileError, PathError, Problem

from .cache import LATEST, Latest, Origin, ReplayCache, check_name, shared_text_problem
from .fsutil import MOBSTER_DIR, UnsafeFile, atomic_write, project_lock, read_user_file
from .pathstores import PathStore, current_tag, put_document

__all__ = [
    "HealEntry",
    "HealFileError",
    "HealState",
    "accept_heals",
    "adopted",
    "check_key",
    "compact",
    "heal_file_for",
    "heal_states",
    "load_heal_state",
    "merge_entries",
    "moved",
    "not_kept_reason",
    "parse_state",
    "parse_state_name",
    "read_heal_file",
    "reject_heals",
    "rejected_steps",
    "replaced",
    "retire",
    "save_heal_state",
    "state_document",
    "state_name",
    "state_text_problem",
    "unreject_heals",
    "waiting",
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

    @property
    def changed(self) -> bool:
        """Rule 1: ``from`` and ``to`` differ; an entry that reads the same changed nothing and is never written."""
        return self.from_ != self.to

    @classmethod
    def of(
        cls, step: int, why: str, old: Sequence[Step], new: Sequence[Step], *, run_dir: str | None = None
    ) -> HealEntry:
        """An entry from the recorded steps a heal replaced and the steps the model took, in the run ``run_dir``.

        Rule 1: when the two lines read the same, ``to`` says what changed; they stay the same only
        when the steps are the same (the entry is then not :attr:`changed`).
        """
        olds, news = tuple(compact(s) for s in old), tuple(compact(s) for s in new)
        before, after = _line(old), _line(new)
        if before == after:
            change = _what_changed(old, new)
            after = after if change is None else f"{after} ({change})"
        return cls(step, before, after, why, olds, news, run_dir)


def _line(steps: Sequence[Step]) -> str:
    return ", then ".join(s.describe() for s in steps) or "nothing"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _what_changed(old: Sequence[Step], new: Sequence[Step]) -> str | None:
    """Rule 1: what differs between steps that read alike (the first difference), or None when nothing does."""
    if len(old) != len(new):
        return "recorded again"
    differ = next(((a, b) for a, b in zip(old, new, strict=True) if a != b), None)
    if differ is None:
        return None
    a, b = differ
    change = None if a.target is None or b.target is None else _target_change(a.target, b.target)
    if change is not None:
        return change
    return "on a changed screen" if a.screen != b.screen else "recorded again"


def _target_change(t: Target, u: Target) -> str | None:
    """Rule 1: how the element acted on differs when its label and role don't (None: it doesn't)."""
    if (t.count, t.nth) != (u.count, u.nth):
        return f"the {_ordinal(u.nth + 1)} of {u.count} on the screen" if u.count > 1 else "the only one now"
    if t.id != u.id:
        return f"at {u.id}, was {t.id}"
    return "moved on the screen" if t.frame != u.frame else None


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


# -- the heal state, a document of the path store (Rules 3-5, 8-10) ----------------------------


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
    #: Rule 11: the store's version tag of the state as it was read (None: none was there).
    tag: str | None = attrs.field(default=None, eq=False, repr=False)


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
    """Rule 10: the check file's key in heal state names, a hash of its path in the project.

    The path is relative to the project, with POSIX separators (``.mobster/checks/signup.yaml``),
    so every clone of the project names a committed heal state the same. A check outside the
    project is keyed by its absolute path (it can't be on another clone anyway).
    """
    return hashlib.sha256(utf8(check_name(root, check_file))).hexdigest()[:12]


#: Rule 3: a heal state's document name in the path store.
_STATE_NAME = re.compile(r"heals/([0-9a-f]{16})-([0-9a-f]{12})-([0-9a-f]{12})\.json")


def state_name(identity: str, env: Env | str, key: str) -> str:
    """Rule 3: the store's document name of one check file's heal state for ``identity`` and ``env``."""
    digest = env if isinstance(env, str) else env.digest
    name = f"heals/{identity}-{digest}-{key}.json"
    if _STATE_NAME.fullmatch(name) is None:
        raise ValueError(f"a heal state is named by an identity, an env digest and a check key in hex, not {name!r}")
    return name


def parse_state_name(name: str) -> tuple[str, str, str] | None:
    """``(identity, env digest, check key)`` of a heal state's document name; None for any other name."""
    m = _STATE_NAME.fullmatch(name)
    return None if m is None else (m.group(1), m.group(2), m.group(3))


def _store_of(place: Path | ReplayCache | PathStore) -> PathStore:
    if isinstance(place, ReplayCache):
        return place.backend
    if isinstance(place, Path):
        return ReplayCache(place).backend
    return place


def load_heal_state(place: Path | ReplayCache | PathStore, name: str, *, provenance: Provenance | None) -> HealState:
    """The heal state ``name`` (:func:`state_name`) in a path store (Rule 3); raises :class:`HealFileError`.

    ``place`` is the store (a project's root is its local store). Rule 8: a state of a shared
    store is another clone's word: with ``provenance`` (the check's own words) its text is held to
    the typing rules; None checks its shape only (an export, which knows no check).
    """
    store = _store_of(place)
    where = store.where_document(name)
    try:
        got = store.read_document(name, max_bytes=_MAX_STATE_BYTES)
        raw, tag = got.data, got.tag
    except FileNotFoundError:
        return HealState()
    except UnsafeFile as exc:
        if exc.problem in (Problem.UNSIGNED, Problem.FORGED):
            # Rule 12: a signed store's refusal is no heal state (the recorded path replays); one
            # left in a shared store is the version a heal of this run replaces.
            return HealState(tag=_refused(store, name, exc))
        raise HealFileError(f"{exc}") from exc
    except OSError as exc:
        raise HealFileError(f"{where}: can't read it ({exc.strerror}); check its permissions, or delete it") from exc
    try:
        state = parse_state(raw)
    except _OtherFormat as exc:
        left = _set_aside(store, name, raw, exc.format)
        return HealState(tag=tag if left else None)  # Rule 5: one left in place is what a new heal replaces
    except (ValueError, RecursionError, PathError, TypeError, KeyError) as exc:
        raise HealFileError(f"{where}: {exc}; delete it (the next run replays the recorded path)") from exc
    problem = None if provenance is None or not store.shared else state_text_problem(state, provenance)
    if problem is not None:
        raise HealFileError(f"{where}: {problem}; delete it (the next run replays the recorded path)")
    return attrs.evolve(state, tag=tag)


def _refused(store: PathStore, name: str, exc: UnsafeFile) -> str | None:
    """Rule 12: say a heal state a signed store refused; move a private store's aside (``<name>.<problem>``).

    The version left where it was (a shared store's, or one that couldn't be moved), None when none is.
    """
    where = store.where_document(name)
    if store.shared:
        log.warning(
            "heal state refused",
            file=where,
            reason=f"{exc.reason}; it is left as it is: a run that heals writes a new one in its place",
        )
        return exc.tag
    own: PathStore = getattr(store, "inner", store)  # the signed store's own store keeps it as it is
    try:
        raw = own.read_document(name, max_bytes=_MAX_STATE_BYTES).data
        put_document(own, f"{name}.{exc.problem}", raw, max_bytes=_MAX_STATE_BYTES)
        own.remove_document(name)
    except (OSError, UnsafeFile, ValueError) as why:
        log.warning("heal state refused", file=where, reason=f"{exc.reason}; it couldn't be moved aside ({why})")
        return exc.tag
    log.warning("heal state refused and set aside", file=where, reason=exc.reason)
    return None


class _OtherFormat(ValueError):
    def __init__(self, number: int) -> None:
        super().__init__(f"format {number}")
        self.format = number


def _set_aside(store: PathStore, name: str, raw: bytes, number: int) -> bool:
    """Rule 5: keep a heal state of another format under ``<name>.format<N>``, out of the way, and say so.

    A shared store's (committed, reviewed in git; a team's remote store) is left as it is, and
    said: a reader never changes a shared document (the replay cache's Rule 12). True when it is
    still where it was.
    """
    file = store.where_document(name)
    aside = f"{name}.format{number}"
    age = "an older" if number < STATE_FORMAT else "a newer"
    if store.shared:
        log.warning(
            "heal state of another format ignored",
            file=file,
            reason=f"it is in format {number} of {age} Mobster (this one reads {STATE_FORMAT}); it is left as it "
            "is: delete it, or let a run that heals write a new one",
        )
        return True
    try:
        put_document(store, aside, raw, max_bytes=_MAX_STATE_BYTES)
        store.remove_document(name)
    except (OSError, UnsafeFile) as exc:
        why = exc.strerror if isinstance(exc, OSError) else exc.reason
        log.warning(
            "heal state of another format ignored",
            file=file,
            reason=f"it is in format {number} of {age} Mobster; it couldn't be moved aside ({why}); delete it",
        )
        return True
    log.warning(
        "heal state of another format set aside",
        file=file,
        reason=f"it is in format {number} of {age} Mobster (this one reads {STATE_FORMAT}); "
        f"kept as {aside.rsplit('/', 1)[-1]}",
    )
    return False


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


#: Rule 8: a keep-failing step past this is no step of a check (a forged file).
_MAX_STEP = 100_000


def parse_state(raw: bytes) -> HealState:
    """Rule 8: a heal state's bytes, validated whole (strict JSON, every key and type); raises ``ValueError``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"it is not UTF-8 text (byte {exc.start})") from exc
    data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
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
    extra = {"rejected", "signature"}  # signature: a signed store's (``signing``), checked there
    if not isinstance(data, dict) or set(data) - extra != keys or (data["format"] == 3 and "rejected" in data):
        raise ValueError("keys are format, healed, adopts, keep_failing, rejected")
    if isinstance(data["format"], bool):
        raise ValueError(f"format is {STATE_FORMAT}")
    healed = None if data["healed"] is None else load_path(data["healed"])
    adopts = data["adopts"]
    if not isinstance(adopts, list) or not all(_is_entry(e) for e in adopts):
        raise ValueError("adopts is a list of heal entries")
    keep = data["keep_failing"]
    if not isinstance(keep, list) or not all(_is_step_number(k) for k in keep):
        raise ValueError("keep_failing is a list of step numbers")
    rejected = data.get("rejected", [])
    if not isinstance(rejected, list) or not all(_is_entry(e) for e in rejected):
        raise ValueError("rejected is a list of heal entries")
    return HealState(healed, tuple(_entry(e) for e in adopts), frozenset(keep), tuple(_entry(e) for e in rejected))


def _is_step_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= _MAX_STEP


def _is_entry(item: object) -> bool:
    if not isinstance(item, dict) or not _has_entry_keys(item):
        return False
    step = item["step"]
    texts_ok = all(isinstance(item[k], str) for k in ("from", "to", "why")) and isinstance(item.get("run_dir", ""), str)
    actions_ok = all(isinstance(item[k], list) and all(_is_action(a) for a in item[k]) for k in ("old", "new"))
    return _is_step_number(step) and texts_ok and actions_ok


def state_text_problem(state: HealState, provenance: Provenance) -> str | None:
    """Rule 8: what of ``state`` holds text the typing rules would not replay, in words; None when nothing does.

    The healed path is held to the committed paths' rule (the cache's Rule 10), and so are the
    typed actions its entries show (a ``TYPE`` with text into anything but a search field must
    type the check's own words).
    """
    if state.healed is not None:
        problem = shared_text_problem(state.healed, provenance)
        if problem is not None:
            return f"its healed path's {problem}"
    for entry in (*state.adopts, *state.rejected):
        for action in (*entry.old, *entry.new):
            text = action.get("text")
            if action.get("op") != "TYPE" or text is None or action.get("role") in SEARCH_ROLES:
                continue
            if not provenance.allows(text):
                return (
                    f"its heal of step {entry.step} shows typed text the check never gives (a heal state never "
                    "holds text the replay wouldn't type)"
                )
    return None


def save_heal_state(
    place: Path | ReplayCache | PathStore,
    name: str,
    state: HealState,
    *,
    provenance: Provenance | None = None,
    expect: str | Latest | None = LATEST,
) -> None:
    """Write the heal state ``name`` (:func:`state_name`) into the path store, atomically; an empty one removes it.

    Rules 3, 8: a shared store (committed) gets it deterministically (sorted keys, two-space
    indentation, a final newline), and never with text the typing rules would not replay, checked
    against ``provenance`` (:class:`PathError`, nothing written). Rule 11: it replaces only the
    version ``expect`` (None: none is there; :data:`~.cache.LATEST`: the one there now);
    :class:`HealFileError` when another writer's is.
    """
    store = _store_of(place)
    if state.healed is None and not state.keep_failing and not state.rejected:
        store.remove_document(name)
        return
    if store.shared:
        problem = state_text_problem(state, provenance or Provenance())
        if problem is not None:
            raise PathError(f"{store.where_document(name)}: {problem}; it is not written")
    if isinstance(expect, Latest):
        expect = current_tag(store, name, max_bytes=_MAX_STATE_BYTES)
    if store.write_document(name, state_document(state, shared=store.shared), expect=expect) is not True:
        raise HealFileError(
            f"{store.where_document(name)}: another run changed this heal state since this one read it; nothing "
            "was written over it: run the check again"
        )


def state_document(state: HealState, *, shared: bool) -> bytes:
    """A heal state's bytes (Rule 8: sorted keys, two-space indentation and a final newline for a shared store)."""
    data = {
        "format": STATE_FORMAT,
        "healed": None if state.healed is None else dump_path(state.healed),
        "adopts": [e.to_dict() for e in state.adopts],
        "keep_failing": sorted(state.keep_failing),
        "rejected": [e.to_dict() for e in state.rejected],
    }
    if shared:
        return utf8(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")
    return utf8(json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False))


def heal_states(
    cache: ReplayCache, identity: str, key: str, *, provenance: Provenance | None
) -> list[tuple[Env, HealState]]:
    """The heal states of one check file, one for each env its identity has a path for, newest first."""
    return [
        (stored.env, load_heal_state(cache.backend, state_name(identity, stored.env, key), provenance=provenance))
        for stored in cache.envs(identity)
    ]


def waiting(states: Iterable[tuple[Env, HealState]], entries: Sequence[HealEntry]) -> list[tuple[Env, HealEntry]]:
    """Rule 9: the heals waiting for review, by env: the entries of the heal file an adopted state holds."""
    return [(env, e) for env, state in states if adopted(state, entries) for e in state.adopts]


def moved(entries: Sequence[HealEntry], heals: Sequence[HealEntry]) -> list[tuple[HealEntry, int]]:
    """Rule 9: where each of ``entries`` starts after ``heals`` (in the order a run made them) added or took steps.

    A heal at step ``s`` that replaced ``k`` actions with ``n`` moves every step after ``s`` by ``n - k``.
    """
    starts = [(e, e.step) for e in entries]
    for heal in heals:
        delta = len(heal.new) - len(heal.old)
        starts = [(e, start + delta if start > heal.step else start) for e, start in starts]
    return starts


def replaced(
    states: Iterable[tuple[Env, HealState]],
    entries: Sequence[HealEntry],
    env: Env,
    own: Sequence[HealEntry],
    heals: Sequence[HealEntry],
) -> tuple[HealEntry, HealEntry] | None:
    """Rule 9: the first of ``heals`` that would replace or overlap a heal waiting for review, and that heal.

    ``own`` are the waiting heals of ``env`` the run replayed (its heals came after them: one that
    covers their actions overlaps them); any other waiting heal is replaced by a heal of its step
    (the heal file keeps one entry a step).
    """
    mine = {_canon(e) for e in own}
    found = waiting(states, entries)
    for n, heal in enumerate(heals):
        span = range(heal.step, heal.step + max(1, len(heal.old)))
        starts = {_canon(e): start for e, start in moved(own, heals[:n])}
        for other, entry in found:
            if other.digest == env.digest and _canon(entry) in mine:
                start = starts[_canon(entry)]
                hit = any(start <= s < start + max(1, len(entry.new)) for s in span)
            else:
                hit = entry.step == heal.step
            if hit:
                return heal, entry
    return None


def not_kept_reason(root: Path, store: PathStore, entry: HealEntry) -> str:
    """Rule 8: why no healed path is kept with ``entry`` of the heal file, and what to do about it.

    A heal's ``run_dir`` says where it was made: a run folder that isn't in this project was on
    another machine, whose heal state stayed where that machine kept its paths. Else the file
    was edited, or a run stopped between its two writes.
    """
    settle = "run the check here with a model so it heals again, or reject it"
    if entry.run_dir is None:
        return (
            "no healed path is kept with it here (the file was edited, a run stopped while writing it, or it "
            f"was made on another machine with `paths = local`, where its healed path stayed); {settle}"
        )
    if _made_here(root, entry.run_dir):
        return (
            "no healed path is kept with it (the file was edited, or a run stopped while writing it); "
            "reject it, or run the check again so it heals again"
        )
    if store.name == "local":
        return (
            "made on another machine with `paths = local`: its healed path stayed in that machine's git-ignored "
            f".mobster/cache/heals (its run {entry.run_dir} isn't here); set `paths = 'committed'` in the "
            f"project's config so heals travel with the paths, and {settle}"
        )
    return (
        f"no healed path is kept with it in the {store.name} store: it was made on another machine (its run "
        f"{entry.run_dir} isn't here) with `paths = local`, or its heal state wasn't kept with the heal file "
        f"(a committed one is in .mobster/paths/heals/); {settle}"
    )


def _made_here(root: Path, run_dir: str) -> bool:
    """Whether ``run_dir`` (a heal's, from a file) names a run folder of this project: ``.mobster/runs/<id>``."""
    parts = PurePosixPath(run_dir).parts
    if len(parts) != 3 or parts[:2] != (MOBSTER_DIR, "runs") or parts[2] in (".", ".."):
        return False
    return (root / MOBSTER_DIR / "runs" / parts[2]).is_dir()


def retire(
    cache: ReplayCache, check_file: Path, identity: str, env: Env, *, provenance: Provenance | None = None
) -> int:
    """Rule 4: a check recorded afresh on ``env`` retires that env's heals; returns how many.

    The heal file keeps only the entries other envs' healed paths of this identity hold (a
    heal of an older app version still waits for review); it is written first and the state
    removed second, so a crash between leaves a state that adopts nothing (Rule 3).
    """
    root = cache.root
    heal = heal_file_for(check_file)
    entries = read_heal_file(heal)
    key = check_key(root, check_file)
    held: list[HealEntry] = []
    for other in cache.envs(identity):
        if other.env.digest != env.digest:
            state = load_heal_state(cache.backend, state_name(identity, other.env, key), provenance=provenance)
            if adopted(state, entries):
                held.extend(state.adopts)
    kept = merge_entries(held, [])
    if len(kept) != len(entries):
        write_heal_file(check_file, kept)
    cache.backend.remove_document(state_name(identity, env, key))
    return len(entries) - len(kept)


def _cache_of(project: Path | ReplayCache, paths: str | PathStore) -> ReplayCache:
    return project if isinstance(project, ReplayCache) else ReplayCache(project, paths)


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
    edited by hand, a run stopped while writing it, or it was made where the paths are local):
    nothing is changed then, and the message says which.
    """
    cache = _cache_of(project, "local")
    root, store = cache.root, cache.backend
    words = provenance or Provenance()
    with project_lock(root):
        heal = heal_file_for(check_file)
        entries = read_heal_file(heal)
        key = check_key(root, check_file)
        states = heal_states(cache, identity, key, provenance=words)
        chosen = [(env, state) for env, state in states if adopted(state, entries)]
        held = {_canon(e) for _, state in chosen for e in state.adopts}
        missing = [e for e in entries if _canon(e) not in held]
        if missing:
            raise HealFileError(
                f"{heal}: it holds heals no healed path is kept with (step {missing[0].step}: "
                f"{not_kept_reason(root, store, missing[0])})"
            )
        for env, state in chosen:
            assert state.healed is not None  # adopted() says so
            origin = Origin("healed", None, check_name(root, check_file), words)
            cache.store_path(identity, env, state.healed, recorded_at=recorded_at, origin=origin)
        write_heal_file(check_file, [])
        for env, state in states:
            left = HealState(None, (), state.keep_failing, state.rejected)
            save_heal_state(store, state_name(identity, env, key), left, provenance=words, expect=state.tag)
    return len(entries)


def reject_heals(
    project: Path | ReplayCache,
    check_file: Path,
    identity: str,
    paths: str | PathStore = "local",
    *,
    provenance: Provenance | None = None,
) -> int:
    """Rule 4, reject: the healed paths go; the recorded steps stay, marked keep-failing (in every env's state)."""
    cache = _cache_of(project, paths)
    root, store = cache.root, cache.backend
    words = provenance or Provenance()
    with project_lock(root):
        entries = read_heal_file(heal_file_for(check_file))
        key = check_key(root, check_file)
        for env, state in heal_states(cache, identity, key, provenance=words):
            keep = state.keep_failing | {e.step for e in entries}
            rejected = merge_entries(list(state.rejected), entries)
            left = HealState(None, (), frozenset(keep), tuple(rejected))
            save_heal_state(store, state_name(identity, env, key), left, provenance=words, expect=state.tag)
        write_heal_file(check_file, [])
    return len(entries)


def rejected_steps(
    cache: ReplayCache, check_file: Path, identity: str, *, provenance: Provenance | None = None
) -> tuple[int, ...]:
    """Rule 13: the steps this check's review rejected (kept failing in some env's heal state), in order."""
    key = check_key(cache.root, check_file)
    found: set[int] = set()
    for _env, state in heal_states(cache, identity, key, provenance=provenance):
        found |= state.keep_failing | {e.step for e in state.rejected}
    return tuple(sorted(found))


def unreject_heals(
    project: Path | ReplayCache,
    check_file: Path,
    identity: str,
    *,
    step: int | None = None,
    provenance: Provenance | None = None,
) -> tuple[int, ...]:
    """Rule 13, undo a reject: the rejected steps (``step`` only, when given) may heal again. Returns them.

    Under the project lock, every env's heal state loses those steps' keep-failing marks and their
    rejected entries; nothing else changes (a heal waiting for review, the healed path it adopts).
    """
    cache = _cache_of(project, "local")
    root, store = cache.root, cache.backend
    words = provenance or Provenance()
    with project_lock(root):
        key = check_key(root, check_file)
        undone: set[int] = set()
        for env, state in heal_states(cache, identity, key, provenance=words):
            marked = state.keep_failing | {e.step for e in state.rejected}
            chosen = marked if step is None else marked & {step}
            if not chosen:
                continue
            left = attrs.evolve(
                state,
                keep_failing=frozenset(state.keep_failing - chosen),
                rejected=tuple(e for e in state.rejected if e.step not in chosen),
            )
            save_heal_state(store, state_name(identity, env, key), left, provenance=words, expect=state.tag)
            undone |= chosen
    return tuple(sorted(undone))
