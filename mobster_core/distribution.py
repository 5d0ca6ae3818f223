"""The distribution Mobster replay is installed as, and how to install more of it.

The registry's ``mobster`` is another project (an SBOM tool with its own ``mobster`` command), so
ours is :data:`DISTRIBUTION`, ``mobster-replay``; the import packages and the ``mobster`` command
keep their names.

Rule 1: :func:`installed_from` says where this copy was installed from, as its installer recorded
        it (PEP 610's ``direct_url.json``): a VCS URL at a commit, a folder (``editable`` or not),
        an archive's URL (a wheel), or None when it came from a package index.
Rule 2: :func:`install_hint` is the one line that adds an extra to *this* copy, from where it came:
        ``pip install 'mobster-replay[mcp] @ git+https://…@<commit>'``, ``pip install -e
        '/path/to/clone[mcp]'``, or ``pip install 'mobster-replay[mcp]==<version>'`` from an
        index. Every message that says to install an extra is made by it, so none names the
        registry's other ``mobster``.
Rule 3: :func:`ci_source` is what ``mobster init`` writes as the config's ``install`` (where CI
        installs Mobster replay from): the VCS URL at its commit, an archive's http(s) URL, or
        ``==<version>`` from an index; None for a folder or a file on this machine, which CI
        can't reach.
Rule 4: a URL's password or token never reaches an output (an installer may have kept it): an
        http(s) URL loses its userinfo (a token may stand as the user), another keeps only its user
        (``git+ssh://git@host/…``).
"""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import attrs

__all__ = ["DISTRIBUTION", "Source", "ci_source", "install_hint", "installed_from", "version"]

#: The distribution's name in a package index (``pip install 'mobster-replay[all]'`` once released).
DISTRIBUTION = "mobster-replay"


@attrs.frozen
class Source:
    """Where a copy was installed from (Rule 1).

    ``kind`` is ``vcs`` (``url`` is ``git+https://…@<commit>``), ``folder`` (``url`` is the
    folder's path; ``editable`` says ``pip install -e``), ``archive`` (``url`` is the archive's
    URL or, for a file, its path) or ``index``.
    """

    kind: str
    url: str = ""
    editable: bool = False


def version() -> str | None:
    """The installed distribution's version, or None when it isn't installed (a source tree on the path)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def installed_from(dist: Any = None) -> Source | None:
    """Rule 1: where ``dist`` (by default this distribution) was installed from; None when it isn't installed."""
    if dist is None:
        try:
            dist = metadata.distribution(DISTRIBUTION)
        except metadata.PackageNotFoundError:
            return None
    doc = _direct_url(dist)
    url = doc.get("url")
    if not isinstance(url, str) or not url:
        return Source("index")
    url = _without_userinfo(url)
    vcs = doc.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id") or vcs.get("requested_revision")
        at = f"@{commit}" if isinstance(commit, str) and commit else ""
        return Source("vcs", f"{vcs.get('vcs', 'git')}+{url}{at}")
    path = _file_path(url)
    if isinstance(doc.get("dir_info"), dict):
        editable = bool(doc["dir_info"].get("editable"))
        return Source("folder", path if path is not None else url, editable=editable)
    return Source("archive", path if path is not None else url)


def install_hint(extra: str, source: Source | None = None) -> str:
    """Rule 2: the command that adds ``extra`` to this copy (``source``: where it came from, by default looked up)."""
    where = installed_from() if source is None else source
    named = f"{DISTRIBUTION}[{extra}]"
    if where is None or where.kind == "index":
        release = version() if where is not None else None
        return f"pip install {shlex.quote(named + (f'=={release}' if release else ''))}"
    if where.kind == "folder":
        flag = "-e " if where.editable else ""
        return f"pip install {flag}{shlex.quote(f'{where.url}[{extra}]')}"
    if where.kind == "archive" and "://" not in where.url:
        return f"pip install {shlex.quote(f'{named} @ file://{where.url}')}"
    return f"pip install {shlex.quote(f'{named} @ {where.url}')}"


def ci_source(source: Source | None = None) -> str | None:
    """Rule 3: the config's ``install`` for CI, from where this copy came; None when CI can't reach it."""
    where = installed_from() if source is None else source
    if where is None:
        return None
    if where.kind == "index":
        release = version()
        return f"=={release}" if release else None
    if where.kind == "vcs" or (where.kind == "archive" and where.url.startswith(("https://", "http://"))):
        return where.url
    return None


def _direct_url(dist: Any) -> dict[str, Any]:
    """PEP 610's record of where ``dist`` came from; {} when there is none (an index) or it can't be read."""
    text = dist.read_text("direct_url.json")
    try:
        doc = json.loads(text) if text else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _file_path(url: str) -> str | None:
    """The local path a ``file://`` URL names, or None for another scheme."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return unquote(parts.path)


def _without_userinfo(url: str) -> str:
    """Rule 4: ``url`` without its secrets: an http(s) URL's userinfo (a token may be the user), another's password.

    ``git+ssh://git@host/…`` keeps its user: ``git`` is the account ssh logs in as, not a secret.
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    if parts.scheme.split("+")[-1] in ("http", "https"):
        return urlunsplit(parts._replace(netloc=host))
    return urlunsplit(parts._replace(netloc=f"{userinfo.split(':', 1)[0]}@{host}"))
