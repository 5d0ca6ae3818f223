"""Recorded paths for people, tools and CI: where they live, list, show, forget, export and import.

A project keeps its paths in one store (``RunOptions(paths=…)``, ``mobster test --paths``):
``"local"`` (:class:`LocalPaths`: ``.mobster/cache/replay/``, private, git-ignored, the default)
or ``"committed"`` (:class:`CommittedPaths`: ``.mobster/paths/``, tracked in git and reviewed in
pull requests, readable on a CI checkout whatever its modes), or a harness's own
:class:`~mobster_core.protocols.PathStore`. ``mobster paths`` is these functions; see
``docs/ci.md``. :func:`env_key` says which env a device and an app make, to find a path for them
(``mobster test --list``).
"""

from ._rules.device.device import AppInfo, DeviceInfo
from ._rules.replay.identity import Env
from ._store.cache import Origin, StoredEnv, path_store
from ._store.pathbook import (
    BUNDLE_SCHEMA,
    MAX_BUNDLE_BYTES,
    BundleError,
    ImportReport,
    PathEntry,
    export_paths,
    forget_paths,
    import_paths,
    list_paths,
    read_bundle,
)
from ._store.pathstores import COMMITTED_DIR, LOCAL_DIR, STORE_NAMES, CommittedPaths, LocalPaths

__all__ = [
    "BUNDLE_SCHEMA",
    "COMMITTED_DIR",
    "LOCAL_DIR",
    "MAX_BUNDLE_BYTES",
    "STORE_NAMES",
    "BundleError",
    "CommittedPaths",
    "ImportReport",
    "LocalPaths",
    "Origin",
    "PathEntry",
    "StoredEnv",
    "env_key",
    "export_paths",
    "forget_paths",
    "import_paths",
    "list_paths",
    "path_store",
    "read_bundle",
]


def env_key(device: DeviceInfo, app: AppInfo, *, locale: str | None = None) -> tuple[str, str]:
    """The env a run of ``app`` on ``device`` records its path for: in words, and its digest.

    The digest is :attr:`RecordedPath.env_digest`'s (``mobster_core.recorded_paths``): a path is
    recorded for this device when one of the check's paths has it. ``locale`` is the one a run
    asks for (``--locale``), else the device's own.
    """
    env = Env.of(device, app, locale=locale)
    return env.describe(), env.digest
