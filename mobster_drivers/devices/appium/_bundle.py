"""An app's bundle id, version and build from the ``.app`` or ``.ipa`` the user points at.

Rule 1: a ``.app`` is a folder with ``Info.plist`` at its top; an ``.ipa`` is a zip with
        ``Payload/<Name>.app/Info.plist`` (exactly one app in ``Payload``). Both plist formats
        (XML and binary) are read with :mod:`plistlib`.
Rule 2: ``CFBundleIdentifier`` is the bundle id, ``CFBundleShortVersionString`` the version and
        ``CFBundleVersion`` the build, as the simulator driver reads them.
Rule 3: a file that can't be read is a ``ValueError`` naming it and what is wrong; an
        ``Info.plist`` over 4 MiB is not read (a real one is a few KiB). Both are opened as every
        user's file is (``read_user_file``, ``open_user_file``): a FIFO or a device is refused at
        once, never waited on or read.
"""

from __future__ import annotations

import os
import plistlib
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import attrs

from mobster_core.exceptions import Problem, UnsafeFile
from mobster_core.files import open_user_file, read_user_file

__all__ = ["BundleInfo", "read_bundle_info"]

_MAX_PLIST = 4 << 20


@attrs.frozen
class BundleInfo:
    """What an app's ``Info.plist`` says about it (Rule 2)."""

    bundle: str
    version: str | None
    build: str | None
    path: str


def read_bundle_info(path: str | os.PathLike[str]) -> BundleInfo:
    """The bundle id, version and build of a ``.app`` folder or an ``.ipa`` file (module rules)."""
    file = Path(path)
    if file.is_dir():
        plist = file / "Info.plist"
        try:
            data = read_user_file(plist, max_bytes=_MAX_PLIST)
        except UnsafeFile as exc:
            if exc.problem is Problem.TOO_LARGE:
                raise ValueError(f"{plist} is larger than 4 MiB: not an app's Info.plist") from exc
            raise ValueError(f"can't read {plist}: {exc.reason}") from exc
        except OSError as exc:
            raise ValueError(f"can't read {plist}: {exc.strerror or exc}") from exc
        return _info(data, str(plist), str(file))
    return _from_ipa(file)


def _from_ipa(file: Path) -> BundleInfo:
    neither = f"{file} is neither a .app folder nor an .ipa file"
    named = file.suffix.lower() == ".ipa"
    try:
        with open_user_file(file) as opened:  # a FIFO or a device is refused at once, never read
            if not named and not zipfile.is_zipfile(opened):
                raise ValueError(neither)
            return _from_archive(file, opened)
    except (UnsafeFile, OSError) as exc:
        why = exc.reason if isinstance(exc, UnsafeFile) else (exc.strerror or str(exc))
        raise ValueError(f"can't read the .ipa {file}: {why}" if named else f"{neither} ({why})") from exc


def _from_archive(file: Path, opened: BinaryIO) -> BundleInfo:
    try:
        with zipfile.ZipFile(opened) as archive:
            names = [
                n
                for n in archive.namelist()
                if n.startswith("Payload/")
                and n.count("/") == 2
                and n.split("/")[1].endswith(".app")
                and n.endswith("/Info.plist")
            ]
            if len(names) != 1:
                found = "no app" if not names else f"{len(names)} apps"
                raise ValueError(f"{file}: an .ipa holds one Payload/<Name>.app/Info.plist; found {found}")
            entry = archive.getinfo(names[0])
            if entry.file_size > _MAX_PLIST:
                raise ValueError(f"{file}: {names[0]} is larger than 4 MiB: not an app's Info.plist")
            data = archive.read(entry)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"can't read the .ipa {file}: {exc}") from exc
    return _info(data, f"{file}!{names[0]}", str(file))


def _info(data: bytes, where: str, path: str) -> BundleInfo:
    try:
        info: Any = plistlib.loads(data)
    except (plistlib.InvalidFileException, ValueError, TypeError) as exc:
        raise ValueError(f"{where} is not a property list: {exc}") from exc
    if not isinstance(info, dict):
        raise ValueError(f"{where} is not a dictionary")
    bundle = info.get("CFBundleIdentifier")
    if not isinstance(bundle, str) or not bundle:
        raise ValueError(f"{where} has no CFBundleIdentifier")
    return BundleInfo(
        bundle=bundle,
        version=_text(info.get("CFBundleShortVersionString")),
        build=_text(info.get("CFBundleVersion")),
        path=path,
    )


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
