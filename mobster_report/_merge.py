"""Joining shards: several suites' ``results.json``, ``junit.xml`` and ``index.html`` into one.

Rule 1: a shard is a suite's folder (the one holding ``results.json``) or a project (or a CI
        artifact holding one) whose newest ``.mobster/test-results/<suite_id>/`` is taken.
Rule 2: the merged ``results.json`` is a ``mobster.test/1`` document with every check entry of
        every shard unchanged (its device included: a check run on two devices stays two
        entries), sorted by file, then device, then run folder; its ``summary`` and ``exit_code``
        are those of one suite of the entries read back (``SuiteResult.from_dict``): the same
        properties compute them, so merging the halves of ``--shard 1/2`` and ``--shard 2/2``
        gives the summary of one unsharded run. ``seconds`` is
        the sum of the shards' (the device time one unsharded run would take), ``started_at`` the
        earliest, and ``merged_from`` lists the shards' suite ids.
Rule 3: the merged ``junit.xml`` holds one ``testsuite`` with every shard's testcases (one per
        check and device, as each shard wrote them) and the counts summed; its properties
        ``mobster.flaky`` and ``mobster.retried`` count the testcases with Surefire's flaky
        elements and with any of its rerun or flaky elements. It is valid against Jenkins'
        ``junit-10.xsd`` as each shard's is: a testcase's ``<properties>``, which the schema
        refuses and earlier versions of Mobster wrote for a retried check (its facts are in the
        elements beside it), is left out.
Rule 4: the merged ``index.html`` links each check to its run's ``report.html`` where the shard
        left it (a relative link from the merged folder).
Rule 5: a shard that isn't a ``mobster.test/1`` document (a key of the wrong type included: the
        error names the file and the key), or the same run merged twice, is an error naming the
        file and what to do; nothing is written then.
Rule 6: a shard's files are read as a careful server reads a user's files: regular files only
        (a FIFO is refused without waiting for a writer, ``/dev/zero`` is never read), at most
        :data:`MAX_FILE` bytes (a 4 GB sparse ``junit.xml`` is refused by its size, before a byte
        is read), at most :data:`MAX_DEPTH` levels of nesting in JSON and XML. A ``junit.xml``'s
        counts must be whole numbers of zero or more and its times numbers, named by attribute.
Rule 7: everything is read and made before anything is written, and the three files go in as
        a whole: a folder that can't be written (``/proc/x``, a file, a symlinked
        ``.mobster/test-results``) is an error naming it, and a write that fails half-way takes
        back what it wrote, so a refused merge leaves no ``results.json`` behind.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from mobster_core import SuiteResult
from mobster_core.exceptions import MobsterError, ResultsError, UnsafeFile
from mobster_core.files import atomic_write, read_user_file
from mobster_core.results import SCHEMA
from mobster_core.text import utf8

from ._suite_page import render_suite

__all__ = ["MergeError", "merge_documents", "merge_junit", "merge_suites", "suite_folder"]

#: The largest ``results.json`` or ``junit.xml`` read, in bytes.
MAX_FILE = 256 * 1024 * 1024
#: Rule 6: the deepest nesting read in a shard's JSON or XML (ours is at most 6 deep).
MAX_DEPTH = 64
_AGAIN = "write it again with mobster test"
#: Surefire's elements for the earlier attempts of a check that passed on a retry, and of one that never did.
_FLAKY = frozenset({"flakyError", "flakyFailure"})
_RERUN = frozenset({"rerunError", "rerunFailure"})


class MergeError(MobsterError):
    """Shards that can't be merged (Rule 5); the message names the file and the fix."""


def suite_folder(path: Path) -> Path:
    """Rule 1: the suite folder ``path`` names, or the newest one under its ``.mobster/test-results``."""
    if os.path.lexists(path / "results.json"):
        return path  # whatever it is: reading it says what is wrong with it (Rule 6)
    found = sorted((f for f in (path / ".mobster" / "test-results").glob("*/results.json") if _regular(f)), key=_mtime)
    if not found:
        raise MergeError(
            f"{path}: no results.json here or in .mobster/test-results/*/; "
            "pass the folder a suite wrote (.mobster/test-results/<suite_id>) or its project"
        )
    return found[-1].parent


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _read(file: Path) -> bytes:
    """Rule 6: a shard's file, read carefully; anything else is a :class:`MergeError` naming it."""
    try:
        return read_user_file(file, max_bytes=MAX_FILE)
    except UnsafeFile as exc:
        raise MergeError(f"{file}: {exc.reason}; pass the files a suite wrote") from exc
    except OSError as exc:
        raise MergeError(f"{file}: can't be read ({exc.strerror or exc}); {_AGAIN}") from exc


def _json_depth(raw: bytes) -> int:
    """How deep ``raw``'s arrays and objects nest, without recursing (brackets in strings skipped)."""
    depth = deepest = 0
    # Strings hold no structure: drop each escaped character, then everything between quotes.
    outside = re.sub(rb'"(?:[^"\\]|\\.)*"', b"", re.sub(rb"\\.", b"", raw) if b"\\" in raw else raw)
    for byte in outside:
        if byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _load(folder: Path) -> dict[str, Any]:
    file = folder / "results.json"
    raw = _read(file)
    if _json_depth(raw) > MAX_DEPTH:
        raise MergeError(f"{file}: nested more than {MAX_DEPTH} levels deep; is it a results.json? {_AGAIN}")
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise MergeError(f"{file}: can't be read as JSON ({exc}); {_AGAIN}") from exc
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("checks"), list):
        raise MergeError(f"{file}: not a {SCHEMA} document (key 'schema' and a list 'checks'); is it a results.json?")
    if not all(isinstance(c, dict) for c in doc["checks"]):
        raise MergeError(f"{file}: key 'checks' holds something that isn't a check's entry")
    return doc  # read typed by merge_documents, which names the file


def _typed(doc: Mapping[str, Any], name: str) -> SuiteResult:
    """Rule 5: the document read back, typed; a value of the wrong type names the shard and its key."""
    try:
        return SuiteResult.from_dict(doc, Path())
    except ResultsError as exc:
        raise MergeError(f"{name}: {exc}; {_AGAIN}") from exc


def _device_key(check: Mapping[str, Any]) -> str:
    device = check.get("device")
    return json.dumps(device, sort_keys=True) if isinstance(device, dict) else ""


def merge_documents(docs: Sequence[Mapping[str, Any]], names: Sequence[str] = ()) -> dict[str, Any]:
    """Rule 2: one ``mobster.test/1`` document from several (``names`` name them in errors)."""
    checks: list[dict[str, Any]] = []
    typed: list[SuiteResult] = []
    seen: dict[str, str] = {}
    for n, doc in enumerate(docs):
        name = names[n] if n < len(names) else f"shard {n + 1}"
        typed.append(_typed(doc, name))
        for c in doc.get("checks", []):
            run_dir = c.get("run_dir")
            if isinstance(run_dir, str) and run_dir:
                if run_dir in seen:
                    raise MergeError(f"{name}: the run {run_dir} is also in {seen[run_dir]}; merge each shard once")
                seen[run_dir] = name
            checks.append(dict(c))
    checks.sort(key=lambda c: (str(c.get("file", "")), _device_key(c), str(c.get("run_dir", ""))))
    started = sorted(s.started_at for s in typed if s.started_at)
    merged = SuiteResult(
        suite_id="merged-" + "+".join(s.suite_id for s in typed),
        started_at=started[0] if started else "",
        seconds=sum(s.seconds for s in typed),
        checks=tuple(c for s in typed for c in s.checks),
        folder=Path(),
    ).to_dict()
    # Rule 2: the entries as the shards wrote them (keys a later version added included).
    return {**merged, "checks": checks, "merged_from": [s.suite_id for s in typed]}


def merge_junit(files: Sequence[Path]) -> bytes:
    """Rule 3: one ``junit.xml`` from the shards' (a shard without one adds nothing); Rule 6 for each."""
    root = ET.Element("testsuites", name="mobster")
    suite = ET.SubElement(root, "testsuite", name="mobster test")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    stamps: list[str] = []
    for file in files:
        if not os.path.lexists(file):
            continue
        tree = _junit(file)
        for ts in tree.iter("testsuite"):
            for key in totals:
                totals[key] += _count(ts, key, file)
            seconds += _seconds(ts, file)
            if ts.get("timestamp"):
                stamps.append(ts.get("timestamp", ""))
            for case in ts.findall("testcase"):
                for props in case.findall("properties"):
                    case.remove(props)
                suite.append(case)
    cases = suite.findall("testcase")
    props = ET.Element("properties")
    flaky = sum(1 for c in cases if any(e.tag in _FLAKY for e in c))
    retried = sum(1 for c in cases if any(e.tag in _FLAKY or e.tag in _RERUN for e in c))
    ET.SubElement(props, "property", name="mobster.flaky", value=str(flaky))
    ET.SubElement(props, "property", name="mobster.retried", value=str(retried))
    suite.insert(0, props)
    for key, value in totals.items():
        suite.set(key, str(value))
    suite.set("time", f"{seconds:.3f}")
    if stamps:
        suite.set("timestamp", min(stamps))
    root.set("tests", str(totals["tests"]))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _junit(file: Path) -> ET.Element:
    raw = _read(file)
    try:
        tree = ET.fromstring(raw)  # noqa: S314 - expat refuses entity bombs; depth is checked next
    except ET.ParseError as exc:
        raise MergeError(f"{file}: not well-formed XML ({exc}); {_AGAIN}") from exc
    # Writing a tree recurses once per level: a deep one is refused here, not as a RecursionError.
    level = [tree]
    for _ in range(MAX_DEPTH):
        level = [child for element in level for child in element]
        if not level:
            return tree
    raise MergeError(f"{file}: nested more than {MAX_DEPTH} levels deep; is it a junit.xml? {_AGAIN}")


def _count(ts: ET.Element, key: str, file: Path) -> int:
    text = (ts.get(key) or "0").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        problem = f"testsuite's {key}={text[:40]!r} is not a count (a whole number, 0 or more)"
        raise MergeError(f"{file}: {problem}; {_AGAIN}")
    return int(text)


def _seconds(ts: ET.Element, file: Path) -> float:
    text = (ts.get("time") or "0").strip()
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise MergeError(f"{file}: testsuite's time={text[:40]!r} is not a number of seconds, 0 or more; {_AGAIN}")
    return value


def _project_of(folder: Path) -> Path:
    """The project a suite folder belongs to (``<project>/.mobster/test-results/<id>``), else the folder."""
    if folder.parent.name == "test-results" and folder.parent.parent.name == ".mobster":
        return folder.parents[2]
    return folder


def merge_suites(paths: Sequence[Path], out: Path) -> dict[str, Any]:
    """Rules 1-5: merge the shards at ``paths`` into ``out`` (``results.json``, ``junit.xml``, ``index.html``).

    Returns the merged document.
    """
    if not paths:
        raise MergeError("merge needs at least one shard: mobster report merge DIR…")
    folders = [suite_folder(p).resolve() for p in paths]
    docs = [_load(f) for f in folders]
    merged = merge_documents(docs, [str(f / "results.json") for f in folders])
    where = Path(os.path.abspath(out))  # noqa: PTH100 - written by name: a symlinked folder is refused (Rule 7)
    out = out.resolve()
    # Rule 4: index.html links from ``out`` to each run where its shard keeps it.
    base = Path(os.path.commonpath([out, *(_project_of(f) for f in folders)]))
    linked = []
    for folder, doc in zip(folders, docs, strict=True):
        project = _project_of(folder)
        for c in doc["checks"]:
            run_dir = c.get("run_dir")
            moved = dict(c)
            if isinstance(run_dir, str) and run_dir and not Path(run_dir).is_absolute():
                moved["run_dir"] = os.path.relpath(project / run_dir, base)
            linked.append(moved)
    linked.sort(key=lambda c: (str(c.get("file", "")), _device_key(c), str(c.get("run_dir", ""))))
    files = {  # Rule 7: all of it made before a byte is written
        "results.json": utf8(json.dumps(merged, indent=2, ensure_ascii=False)),
        "junit.xml": merge_junit([f / "junit.xml" for f in folders]),
        "index.html": utf8(render_suite({**merged, "checks": linked}, here=os.path.relpath(out, base))),
    }
    _write_all(where, files)
    return merged


def _write_all(out: Path, files: Mapping[str, bytes]) -> None:
    """Rule 7: the files in ``out``, all or none (a failed write takes back the ones written)."""
    written: list[Path] = []
    try:
        for name, data in files.items():
            target = out / name
            existed = os.path.lexists(target)
            atomic_write(target, data)
            if not existed:
                written.append(target)
    except (OSError, UnsafeFile) as exc:
        for target in written:
            with suppress(OSError):
                target.unlink()
        reason = exc.reason if isinstance(exc, UnsafeFile) else (exc.strerror or str(exc))
        where = exc.path if isinstance(exc, UnsafeFile) else Path(exc.filename or out)
        problem = f"the merged files can't be written there ({reason})"
        raise MergeError(f"{where}: {problem}; merge into another folder") from exc
