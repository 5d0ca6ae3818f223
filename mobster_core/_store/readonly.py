"""A read-only path store, for a pull request's jobs: it reads the team's store and writes nothing there.

Rule 1: reads see the team's store (``inner``) under what this run wrote itself (``overlay``, a
        private folder of this machine): a name the overlay has is read there, every other name
        in the team's store. Names are the union of both.
Rule 2: every write (a recorded path, a heal state, a lease) goes to the overlay, never to the
        team's store; it is conditional on the union's version (the store's Rule 7): a create
        loses when either has the document, a replace when the version read moved on.
Rule 3: removing and setting aside act on the overlay only. A document of the team's store that
        can't be used is left in place (a shared store's reader never moves it, the cache's Rule
        12; a private one's set-aside is ``OSError``: the store is read-only): the run records
        afresh into the overlay, and the team's store stays byte for byte as it was.
Rule 4: what the run recorded or healed is the overlay's: ``mobster paths export`` of it is the
        bundle a job uploads as its artifact, and ``mobster paths import`` brings it into the
        team's store once the pull request is merged.
"""

from __future__ import annotations

import errno

from mobster_core.exceptions import MobsterError, UnsafeFile

from .pathstores import PathStore, Versioned

__all__ = ["ReadOnlyPaths"]

_TAG_BYTES = 64 * 1024 * 1024


class ReadOnlyPaths:
    """Rules 1-4: ``inner`` read, ``overlay`` written."""

    def __init__(self, inner: PathStore, overlay: PathStore) -> None:
        self.inner = inner
        self.overlay = overlay
        self.name = inner.name
        self.shared = inner.shared

    # -- paths -------------------------------------------------------------------------------------

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """Rule 1: both stores' names."""
        return sorted({*self.inner.names(identity), *self.overlay.names(identity)})

    def _mine(self, identity: str, env: str) -> bool:
        return (identity, env) in self.overlay.names(identity)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """Rule 1: the overlay's when it has it, else the team's."""
        store = self.overlay if self._mine(identity, env) else self.inner
        return store.read(identity, env, max_bytes=max_bytes)

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2: into the overlay, when the version there (the overlay's, else the team's) is ``expect``."""
        mine = self._mine(identity, env)
        if mine:
            return self.overlay.write(identity, env, data, expect=expect)
        try:
            theirs: str | None = self.inner.read(identity, env, max_bytes=_TAG_BYTES).tag
        except UnsafeFile as exc:  # refused: a signed store's (unsigned, forged) has the version read
            theirs = exc.tag
        except (OSError, MobsterError):  # gone, unreadable, too large: no version of theirs
            theirs = None
        if theirs != expect:
            return False
        return self.overlay.write(identity, env, data, expect=None)

    def remove(self, identity: str, env: str) -> None:
        """Rule 3: the overlay's only."""
        self.overlay.remove(identity, env)

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Rule 3: the overlay's only; the team's store is read-only."""
        if self._mine(identity, env):
            return self.overlay.set_aside(identity, env, suffix)
        raise OSError(errno.EROFS, "the path store is read-only here (paths-write = false)")

    def where(self, identity: str, env: str) -> str:
        """Where the document read is kept."""
        return (self.overlay if self._mine(identity, env) else self.inner).where(identity, env)

    # -- documents ---------------------------------------------------------------------------------

    def documents(self, prefix: str) -> list[str]:
        """Rule 1: both stores' documents."""
        return sorted({*self.inner.documents(prefix), *self.overlay.documents(prefix)})

    def _mine_document(self, name: str) -> bool:
        return name in self.overlay.documents(name)

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """Rule 1."""
        store = self.overlay if self._mine_document(name) else self.inner
        return store.read_document(name, max_bytes=max_bytes)

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2."""
        if self._mine_document(name):
            return self.overlay.write_document(name, data, expect=expect)
        try:
            theirs: str | None = self.inner.read_document(name, max_bytes=_TAG_BYTES).tag
        except UnsafeFile as exc:  # refused: a signed store's (unsigned, forged) has the version read
            theirs = exc.tag
        except (OSError, MobsterError):  # gone, unreadable, too large: no version of theirs
            theirs = None
        if theirs != expect:
            return False
        return self.overlay.write_document(name, data, expect=None)

    def remove_document(self, name: str) -> None:
        """Rule 3."""
        self.overlay.remove_document(name)

    def where_document(self, name: str) -> str:
        """Where the document read is kept."""
        return (self.overlay if self._mine_document(name) else self.inner).where_document(name)
