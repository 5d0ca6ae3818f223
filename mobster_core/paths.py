"""Recorded paths for people, tools and CI: where they live, list, show, forget, export and import.

A project keeps its paths in one store (``RunOptions(paths=…)``, ``mobster test --paths``):
``"local"`` (:class:`LocalPaths`: ``.mobster/cache/replay/``, private, git-ignored, the default)
or ``"committed"`` (:class:`CommittedPaths`: ``.mobster/paths/``, tracked in git and reviewed in
pull requests, readable on a CI checkout whatever its modes), or a harness's own
:class:`~mobster_core.protocols.PathStore`. ``mobster paths`` is these functions; see
``docs/ci.md``. :func:`env_key` says which env a device and an app make, to find a path for them
(``mobster test --list``).

A store a team shares (S3, PostgreSQL: ``mobster_drivers.stores``; docs/paths.md) is a
:class:`~mobster_core.protocols.PathStore` whose writes are conditional (:class:`Versioned`
reads, ``expect`` on writes); :class:`SignedPaths` signs and verifies its documents with a
:class:`TeamKey`; :class:`ReadOnlyPaths` reads it and writes into a :class:`BundlePaths` folder
(a pull request's jobs); :class:`LeasePolicy` (``RunOptions(lease=…)``) makes one machine of many
record an identity and env while the others wait and replay; :class:`RecordedBy`
(``RunOptions(recorder=…)``) names the machine and build in each path recorded.
"""

from ._rules.device.device import AppInfo, DeviceInfo
from ._rules.replay.identity import Env
from ._store.cache import Origin, RecordedBy, StoredEnv, path_store
from ._store.lease import LeasePolicy
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
    prune_paths,
    read_bundle,
)
from ._store.pathstores import (
    BUNDLE_DIR,
    COMMITTED_DIR,
    DOCUMENT_KINDS,
    LOCAL_DIR,
    STORE_NAMES,
    BundlePaths,
    CommittedPaths,
    LocalPaths,
    Versioned,
    check_document_name,
)
from ._store.readonly import ReadOnlyPaths
from ._store.signing import SignedPaths, TeamKey

__all__ = [
    "BUNDLE_DIR",
    "BUNDLE_SCHEMA",
    "COMMITTED_DIR",
    "DOCUMENT_KINDS",
    "LOCAL_DIR",
    "MAX_BUNDLE_BYTES",
    "STORE_NAMES",
    "BundleError",
    "BundlePaths",
    "CommittedPaths",
    "ImportReport",
    "LeasePolicy",
    "LocalPaths",
    "Origin",
    "PathEntry",
    "ReadOnlyPaths",
    "RecordedBy",
    "SignedPaths",
    "StoredEnv",
    "TeamKey",
    "Versioned",
    "check_document_name",
    "env_key",
    "export_paths",
    "forget_paths",
    "import_paths",
    "list_paths",
    "path_store",
    "prune_paths",
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
