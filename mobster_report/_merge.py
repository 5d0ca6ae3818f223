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
        check and device, as each shard wrote them) and the counts summed.
Rule 4: the merged ``index.html`` links each check to its run's ``report.html`` where the shard
        left it (a relative link from the merged folder).
Rule 5: a shard that isn't a ``mobster.test/1`` document (a key of the wrong type included: the
        error names the file and the key), or the same run merged twice, is an error naming the
        file and what to do; nothing is written then.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mobster_core import SuiteResult
from mobster_core.exceptions import MobsterError, ResultsError
from mobster_core.files import atomic_write
from mobster_core.results import SCHEMA
from mobster_core.text import utf8

from ._evidence import write_index

__all__ = ["MergeError", "merge_documents", "merge_junit", "merge_suites", "suite_folder"]

#: The largest ``results.json`` or ``junit.xml`` read, in bytes.
MAX_FILE = 256 * 1024 * 1024


class MergeError(MobsterError):
    """Shards that can't be merged (Rule 5); the message names the file and the fix."""


def suite_folder(path: Path) -> Path:
    """Rule 1: the suite folder ``path`` names, or the newest one under its ``.mobster/test-results``."""
    if (path / "results.json").is_file():
        return path
    found = sorted((path / ".mobster" / "test-results").glob("*/results.json"), key=_mtime)
    if not found:
        raise MergeError(
            f"{path}: no results.json here or in .mobster/test-results/*/; "
            "pass the folder a suite wrote (.mobster/test-results/<suite_id>) or its project"
        )
    return found[-1].parent


def _mtime(path: Path) -> float:
    return path.stat().st_mtime


def _load(folder: Path) -> dict[str, Any]:
    file = folder / "results.json"
    try:
        if file.stat().st_size > MAX_FILE:
            raise MergeError(f"{file}: over {MAX_FILE // (1024 * 1024)} MiB; is it a results.json?")
        doc = json.loads(file.read_bytes())
    except (OSError, ValueError) as exc:
        raise MergeError(f"{file}: can't be read as JSON ({exc}); write it again with mobster test") from exc
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
        raise MergeError(f"{name}: {exc}; write it again with mobster test") from exc


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
    """Rule 3: one ``junit.xml`` from the shards' (a shard without one adds nothing)."""
    root = ET.Element("testsuites", name="mobster")
    suite = ET.SubElement(root, "testsuite", name="mobster test")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    stamps: list[str] = []
    for file in files:
        if not file.is_file():
            continue
        try:
            tree = ET.fromstring(file.read_bytes())  # noqa: S314 - our own junit.xml; expat refuses entity bombs
        except (OSError, ET.ParseError) as exc:
            raise MergeError(f"{file}: not well-formed XML ({exc}); write it again with mobster test") from exc
        for ts in tree.iter("testsuite"):
            for key in totals:
                totals[key] += int(ts.get(key, "0") or 0)
            seconds += float(ts.get("time", "0") or 0)
            if ts.get("timestamp"):
                stamps.append(ts.get("timestamp", ""))
            suite.extend(ts.findall("testcase"))
    for key, value in totals.items():
        suite.set(key, str(value))
    suite.set("time", f"{seconds:.3f}")
    if stamps:
        suite.set("timestamp", min(stamps))
    root.set("tests", str(totals["tests"]))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


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
    atomic_write(out / "results.json", utf8(json.dumps(merged, indent=2, ensure_ascii=False)))
    atomic_write(out / "junit.xml", merge_junit([f / "junit.xml" for f in folders]))
    write_index(out, {**merged, "checks": linked}, here=os.path.relpath(out, base))
    return merged
