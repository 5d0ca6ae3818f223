"""The project's recorded paths for people and tools: list, show, forget, export and import.

Rule 1: a path belongs to the checks of the project whose identity it has (several checks may
        share one); a path no check of the project has is listed as such (its check was changed
        or removed) and can be forgotten by its identity.
Rule 2: when a path was last replayed is this machine's fact, kept in a private, git-ignored file
        (``.mobster/cache/replayed.json``), never in the path itself: a replay doesn't touch a
        committed path, so it never shows as a change in git.
Rule 3 (export): a bundle is one JSON document, ``{"schema": "mobster.paths/1", "exported_at",
        "store", "paths": [<path document>, …]}``, of every usable path of the store (a file that
        can't be used is dropped by the cache's rules, as a run would), in identity and ``seq``
        order. Its ``schema`` is versioned: a bundle of another schema is refused.
Rule 4 (import): a bundle is read as a user's file (regular, at most :data:`MAX_BUNDLE_BYTES`,
        strict JSON); one that isn't a bundle is a :class:`BundleError` and nothing is written.
        Each path in it is validated whole and strictly, as a path document is; one that fails, or
        whose identity no check of the project has, is refused with the reason. An existing path
        of the same identity and env recorded at the same time (the same path: ``same``) or later
        is kept, and so is the store when the imported path is older than its identity's four
        newest here (``older``); else the
        imported one is written, with this store's modes whatever the bundle's were, in the order
        it was recorded (the cache's Rule 11: a path recorded long ago never becomes the newest).
        It all happens under the project's lock.
Rule 5 (heals travel in a bundle): a bundle also holds the store's heal states (``"heals"``:
        ``[{"identity", "env", "check_key", "state"}, …]``, sorted by name; a heal state that
        can't be used is left out, as a path is), so a heal's healed path and a reject's
        keep-failing steps travel with the paths. The heal file beside the check travels with the
        checks (git). On import each is foreign input: its identity must be a check's of this
        project and its ``check_key`` that check file's (else it is refused, with the reason), and
        its state is validated whole, text included (the heal file's Rule 8), then written with
        this store's modes. A heal state already here is kept (this machine's heals and decisions
        win); a bundle without ``"heals"`` (an older Mobster's) imports its paths as before.
Rule 6 (prune): :func:`prune_paths` forgets the paths whose identity no check of the project has
        (a check whose steps changed records under a new identity: its old paths are no check's),
        with their heal states and recording leases; the identities checks have are never touched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.formats.text import utf8
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core.exceptions import HealFileError, MobsterError, PathError

from .cache import DocumentError, Origin, ReplayCache, StoredEnv, StoredPath, parse_document
from .checks import Check
from .fsutil import MOBSTER_DIR, UnsafeFile, atomic_write, project_lock, read_private, read_user_file
from .healfile import (
    HealState,
    check_key,
    load_heal_state,
    parse_state,
    parse_state_name,
    save_heal_state,
    state_document,
    state_name,
    state_text_problem,
)
from .pathstores import PathStore

__all__ = [
    "BUNDLE_SCHEMA",
    "MAX_BUNDLE_BYTES",
    "BundleError",
    "ImportReport",
    "PathEntry",
    "export_paths",
    "forget_paths",
    "import_paths",
    "list_paths",
    "note_replayed",
    "prune_paths",
    "read_bundle",
    "read_bundle_heals",
]

log = get_logger(__name__)

#: Rule 3: the bundle's schema.
BUNDLE_SCHEMA = "mobster.paths/1"
#: Rule 4: the largest bundle read, in bytes.
MAX_BUNDLE_BYTES = 256 * 1024 * 1024
_REPLAYED = Path(MOBSTER_DIR) / "cache" / "replayed.json"
_MAX_REPLAYED_BYTES = 4 * 1024 * 1024


class BundleError(MobsterError):
    """A file that isn't a paths bundle (Rule 4): the message names the file and what is wrong."""


@attrs.frozen
class PathEntry:
    """One recorded path, for a listing (Rules 1, 2).

    ``checks`` are the project's check files (relative to the project) that replay it (empty: no
    check has its identity now); ``env`` says where it was recorded in words; ``origin`` how it
    came to be (None for a path stored before that was written); ``last_replayed`` when this
    machine last replayed it (None: never here).
    """

    identity: str
    checks: tuple[str, ...]
    names: tuple[str, ...]
    stored: StoredEnv
    steps: tuple[str, ...]
    last_replayed: datetime | None

    @property
    def env(self) -> str:
        """Where it was recorded, in words: ``1.0 (1) on iOS 26 on a simulator in en_US``."""
        return self.stored.env.describe()


@attrs.frozen
class ImportReport:
    """What an import did (Rules 4, 5): paths ``added``, ``kept`` (the store's stayed), ``refused`` (and why).

    Of the ``kept``, ``same`` are those the store had already (the same env, recorded at the same
    moment: a bundle imported twice, or exported from here) and ``older`` those older than the
    four newest paths of their identity here; the rest were kept because a newer one is here.

    ``heals_added`` and ``heals_kept`` are the heal states written and those kept because one was
    here; a refused heal state is in ``refused`` as ``heal state N (…)``.
    """

    added: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    heals_added: tuple[str, ...] = ()
    heals_kept: tuple[str, ...] = ()
    same: tuple[str, ...] = ()
    older: tuple[str, ...] = ()

    @property
    def newer_here(self) -> tuple[str, ...]:
        """The paths kept out because this store has a newer one of their env."""
        return tuple(k for k in self.kept if k not in self.same and k not in self.older)


def _by_identity(checks: Iterable[Check]) -> dict[str, list[Check]]:
    found: dict[str, list[Check]] = {}
    for check in checks:
        found.setdefault(check.identity, []).append(check)
    return found


def _shown(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(file)


def list_paths(root: Path, checks: Sequence[Check], *, paths: str | PathStore = "local") -> tuple[PathEntry, ...]:
    """Every usable path of the store, with the ``checks`` that replay it (Rules 1, 2), by check then env."""
    cache = ReplayCache(root, paths)
    owners = _by_identity(checks)
    replayed = _replayed(root)
    entries = [
        PathEntry(
            identity=identity,
            checks=tuple(_shown(c.file, root) for c in owners.get(identity, [])),
            names=tuple(c.name for c in owners.get(identity, [])),
            stored=record.stored,
            steps=tuple(step.describe() for step in record.steps),
            last_replayed=replayed.get(f"{identity}-{record.stored.env.digest}"),
        )
        for identity in cache.identities()
        for record in cache.paths(identity)
    ]
    return tuple(sorted(entries, key=lambda e: (e.checks or ("~",), e.identity, -e.stored.seq)))


def forget_paths(
    root: Path, check: Check | str, *, env: str | None = None, paths: str | PathStore = "local"
) -> tuple[StoredEnv, ...]:
    """Remove ``check``'s recorded paths (of the env digest ``env`` only, when given), under the project's lock.

    ``check`` is a check, or an identity (16 hex digits): Rule 1's path of a check that was
    changed or removed has no check to name it by. ``ValueError`` for a string that isn't one.
    """
    identity = check if isinstance(check, str) else check.identity
    with project_lock(root):
        return tuple(ReplayCache(root, paths).forget(identity, env))


def prune_paths(
    root: Path, checks: Sequence[Check], *, paths: str | PathStore = "local", dry_run: bool = False
) -> tuple[tuple[StoredEnv, str], ...]:
    """Rule 6: forget every path whose identity no check of ``checks`` has, with its heal states and leases.

    Returns each path forgotten (or, with ``dry_run``, that would be) with its identity. A path
    another run stores meanwhile under an identity a check has is never touched: only identities
    no check has are pruned, under the project's lock.
    """
    owned = {c.identity for c in checks}
    with project_lock(root):
        cache = ReplayCache(root, paths)
        gone = [(s, i) for i in cache.identities() if i not in owned for s in cache.envs(i)]
        if dry_run:
            return tuple(gone)
        store = cache.backend
        for identity in sorted({i for _s, i in gone}):
            cache.forget(identity)
            for kind in ("heals", "leases"):
                for name in store.documents(f"{kind}/{identity}-"):
                    store.remove_document(name)
    return tuple(gone)


def note_replayed(root: Path, identity: str, env: Env, when: datetime) -> None:
    """Rule 2: this machine replayed ``identity``'s path for ``env`` at ``when`` (the caller holds the lock)."""
    seen = {k: v.isoformat(timespec="seconds") for k, v in _replayed(root).items()}
    seen[f"{identity}-{env.digest}"] = when.astimezone(UTC).isoformat(timespec="seconds")
    atomic_write(root / _REPLAYED, utf8(json.dumps(dict(sorted(seen.items())), indent=1) + "\n"))


def _replayed(root: Path) -> dict[str, datetime]:
    """Rule 2's file; anything that can't be read counts as "never replayed here" (it is only a fact for people)."""
    try:
        data = json.loads(read_private(root / _REPLAYED, max_bytes=_MAX_REPLAYED_BYTES))
    except (OSError, UnsafeFile, ValueError, RecursionError):
        return {}
    out: dict[str, datetime] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            try:
                out[str(key)] = datetime.fromisoformat(value)
            except (TypeError, ValueError):
                continue
    return out


# -- export and import (Rules 3, 4) -------------------------------------------------------------


def export_paths(root: Path, *, paths: str | PathStore = "local", now: datetime) -> bytes:
    """Rule 3: the bundle of every usable path of the store."""
    cache = ReplayCache(root, paths)
    documents = [
        _as_document(identity, record)
        for identity in cache.identities()
        for record in sorted(cache.paths(identity), key=lambda r: r.stored.seq)
    ]
    bundle = {
        "schema": BUNDLE_SCHEMA,
        "exported_at": now.astimezone(UTC).isoformat(timespec="seconds"),
        "store": cache.backend.name,
        "paths": documents,
        "heals": _heal_documents(cache),
    }
    return utf8(json.dumps(bundle, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def _heal_documents(cache: ReplayCache) -> list[dict[str, Any]]:
    """Rule 5: the store's usable heal states, sorted by name (one that can't be used is logged and left out)."""
    store = cache.backend
    found: list[dict[str, Any]] = []
    for identity in cache.identities():
        for name in store.documents(f"heals/{identity}-"):
            parts = parse_state_name(name)
            if parts is None:
                continue  # a state kept aside (another format), or a name that isn't one
            _identity, env, key = parts
            try:
                state = load_heal_state(store, name, provenance=None)
            except HealFileError as exc:
                log.warning("a heal state was left out of the bundle", reason=str(exc))
                continue
            if state == HealState():
                continue
            document = json.loads(state_document(state, shared=True))
            found.append({"identity": identity, "env": env, "check_key": key, "state": document})
    return found


def _as_document(identity: str, record: StoredPath) -> dict[str, Any]:
    from mobster_core._rules.vocabulary.steps import dump_path

    stored = record.stored
    document: dict[str, Any] = {
        "format": 2,
        "identity": identity,
        "env": stored.env.to_dict(),
        "recorded_at": stored.recorded_at.isoformat(timespec="microseconds"),
        "seq": stored.seq,
        "steps": dump_path(record.steps),
    }
    if stored.origin is not None:
        document["origin"] = stored.origin.to_dict()
    return document


def read_bundle(file: Path) -> list[Any]:
    """Rule 4: the bundle's paths as parsed JSON, each still to be validated; :class:`BundleError` otherwise."""
    data = _read_bundle(file)
    found = data.get("paths")
    if not isinstance(found, list):
        raise BundleError(f"{file}: key 'paths': expected a list of paths, got {type(found).__name__}")
    return found


def _read_bundle(file: Path) -> dict[str, Any]:
    """Rule 4: the bundle as parsed JSON, its schema checked; :class:`BundleError` otherwise."""
    try:
        raw = read_user_file(file, max_bytes=MAX_BUNDLE_BYTES)
    except UnsafeFile as exc:
        raise BundleError(f"{file}: {exc.reason}; give the file `mobster paths export` wrote") from exc
    except OSError as exc:
        raise BundleError(f"{file}: can't be read ({exc.strerror or exc}); check the path") from exc
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise BundleError(f"{file}: byte {exc.start + 1} is not UTF-8: it is not a paths bundle") from exc
    except (ValueError, RecursionError) as exc:
        raise BundleError(f"{file}: not JSON ({exc}): it is not a paths bundle") from exc
    if not isinstance(data, dict) or data.get("schema") != BUNDLE_SCHEMA:
        said = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise BundleError(
            f"{file}: not a paths bundle (schema {said!r}, expected {BUNDLE_SCHEMA!r}); "
            "give the file `mobster paths export` wrote"
        )
    return data


def read_bundle_heals(file: Path) -> list[Any]:
    """Rule 5: the bundle's heal states as parsed JSON, each still to be validated (none in an older bundle)."""
    data = _read_bundle(file)
    heals = data.get("heals", [])
    if not isinstance(heals, list):
        raise BundleError(f"{file}: key 'heals': expected a list of heal states, got {type(heals).__name__}")
    return heals


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def import_paths(root: Path, file: Path, checks: Sequence[Check], *, paths: str | PathStore = "local") -> ImportReport:
    """Rules 4, 5: write the bundle's valid paths and heal states into the store; what was added, kept and refused."""
    documents = read_bundle(file)
    heals = read_bundle_heals(file)
    owners = _by_identity(checks)
    cache = ReplayCache(root, paths)
    added: list[str] = []
    kept: list[str] = []
    same: list[str] = []
    older: list[str] = []
    refused: list[tuple[str, str]] = []
    with project_lock(root):
        for n, data in enumerate(documents, 1):
            what = f"path {n}"
            try:
                doc = parse_document(utf8(json.dumps(data, ensure_ascii=False)))
            except (DocumentError, TypeError, ValueError) as exc:
                refused.append((what, str(exc)))
                continue
            what = f"path {n} ({doc.identity}, {doc.env.describe()})"
            mine = owners.get(doc.identity)
            if not mine:
                refused.append((what, "no check of this project has its steps (it was changed or removed)"))
                continue
            origin = doc.origin or Origin("recorded", None, _shown(mine[0].file, root))
            origin = attrs.evolve(origin, provenance=_provenance(mine))
            here = [s.recorded_at for s in cache.envs(doc.identity) if s.env == doc.env]
            try:
                merged = cache.merge(doc, origin)
            except PathError as exc:
                refused.append((what, str(exc)))
                continue
            (added if merged else kept).append(what)
            if not merged and doc.recorded_at in here:
                same.append(what)
            elif not merged and not any(t > doc.recorded_at for t in here):
                older.append(what)
        heals_added, heals_kept = _import_heals(root, cache.backend, heals, owners, refused)
    return ImportReport(
        tuple(added), tuple(kept), tuple(refused), tuple(heals_added), tuple(heals_kept), tuple(same), tuple(older)
    )


#: Rule 5: the keys of one heal state in a bundle.
_HEAL_KEYS = frozenset({"identity", "env", "check_key", "state"})


def _import_heals(
    root: Path, store: PathStore, heals: Sequence[Any], owners: dict[str, list[Check]], refused: list[tuple[str, str]]
) -> tuple[list[str], list[str]]:
    """Rule 5: write each valid heal state of the bundle that isn't here; refusals go to ``refused``."""
    added: list[str] = []
    kept: list[str] = []
    for n, item in enumerate(heals, 1):
        what = f"heal state {n}"
        if not isinstance(item, dict) or set(item) != _HEAL_KEYS:
            refused.append((what, f"expected an object with {', '.join(sorted(_HEAL_KEYS))}"))
            continue
        try:
            name = state_name(item["identity"], item["env"], item["check_key"])
        except (TypeError, ValueError) as exc:
            refused.append((what, str(exc)))
            continue
        mine = [c for c in owners.get(item["identity"], []) if check_key(root, c.file) == item["check_key"]]
        if not mine:
            refused.append(
                (what, "no check file of this project has its steps and its place (changed, moved or removed)")
            )
            continue
        check = mine[0]
        what = f"heal state {n} ({_shown(check.file, root)}, env {item['env']})"
        try:
            state = parse_state(utf8(json.dumps(item["state"], ensure_ascii=False)))
        except (ValueError, RecursionError, PathError, TypeError, KeyError) as exc:
            refused.append((what, f"key 'state': {exc}"))
            continue
        problem = state_text_problem(state, check.provenance)
        if problem is not None:
            refused.append((what, problem))
            continue
        if name in store.documents(name):
            kept.append(what)  # this machine's heals and decisions win: never overwritten
            continue
        try:
            save_heal_state(store, name, state, provenance=check.provenance, expect=None)
        except HealFileError:
            kept.append(what)  # another run wrote it meanwhile (the store's Rule 7): theirs wins
            continue
        added.append(what)
    return added, kept


def _provenance(checks: Sequence[Check]) -> Provenance:
    """The words of every check that shares the identity (they have the same steps and launch values)."""
    return Provenance(tuple(s for c in checks for s in c.provenance.sources))
