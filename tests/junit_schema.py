"""Jenkins' JUnit schema, and the sweep that holds every JUnit file Mobster writes in the tests to it.

The schema is ``junit-10.xsd``, the file pytest's own tests validate against, taken from pytest's
sdist on PyPI by ``scripts/install-validators.sh`` (``make test`` runs it) into ``.validators/``:
a third-party file fetched as a package, never kept in the repository. Where it could not be had,
:func:`unavailable` says why, the schema tests skip with that, and the sweep is off.

Rule 1: a file is Mobster's JUnit when its root element is ``<testsuites name="mobster">``: what
        ``junit_xml`` writes, what ``mobster report merge`` writes and what ``--junit`` copies.
        A file is pytest's JUnit when its root is ``<testsuites name="pytest tests">``: what
        ``--junitxml`` writes in the plugin's tests, with the plugin's facts in it (``mobster_pytest
        ._reports``' Rule 4). Both are swept.
Rule 2: the sweep (``tests/conftest.py``) runs after each test that used a temporary folder: every
        ``*.xml`` file under the folders made since the last test's sweep that is Mobster's or
        pytest's JUnit must validate. A test marked ``hand_made_junit`` writes invalid JUnit on
        purpose (an input it refuses) and is not swept.
"""

from __future__ import annotations

import functools
import importlib.util
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a file is validated: a venv without the dev group still runs the tests
    import xmlschema

#: What ``scripts/install-validators.sh`` installs into.
HOME = Path(__file__).resolve().parents[1] / ".validators"
#: Jenkins' JUnit schema.
SCHEMA = HOME / "junit-10.xsd"


def unavailable() -> str | None:
    """None when the schema and its validator are installed, else why not (what a test skips with)."""
    if importlib.util.find_spec("xmlschema") is None:
        return "xmlschema isn't installed: install the dev group (make test, or scripts/install.sh --group dev)"
    if SCHEMA.is_file():
        return None
    reason = HOME / "junit-10.xsd.unavailable"
    if reason.is_file():
        return f"Jenkins' junit-10.xsd isn't installed here: {reason.read_text('utf-8').strip()}"
    return f"Jenkins' junit-10.xsd isn't in {HOME}: run `make test` (or bash scripts/install-validators.sh)"


@functools.cache
def schema() -> xmlschema.XMLSchema10:
    """The schema, read once a process (about 0.2 s)."""
    import xmlschema

    return xmlschema.XMLSchema10(str(SCHEMA))


def problems(source: Path | bytes) -> list[str]:
    """Each way a file (or a document's bytes) breaks the schema, as ``file: /testsuites/testsuite: reason``.

    Empty when it is valid.
    """
    import xmlschema

    name = source if isinstance(source, Path) else "the document"
    try:
        document = str(source) if isinstance(source, Path) else ET.fromstring(source)
        errors = list(schema().iter_errors(document))
    except (ET.ParseError, xmlschema.XMLSchemaException) as exc:
        return [f"{name}: {exc}"]
    return [f"{name}: {e.path}: {e.reason}" for e in errors]


#: Rule 1: the names of the roots swept: Mobster's own JUnit, and pytest's with the plugin's facts.
SWEPT_ROOTS = frozenset({"mobster", "pytest tests"})


def _root_name(path: Path) -> str | None:
    """The ``name`` of ``path``'s root when it is ``<testsuites>`` (only the root is read), else None."""
    try:
        for _, element in ET.iterparse(path, events=("start",)):
            return element.get("name") if element.tag == "testsuites" else None
    except (ET.ParseError, OSError):
        return None
    return None


def is_mobster_junit(path: Path) -> bool:
    """Rule 1: the root of ``path`` is ``<testsuites name="mobster">``."""
    return _root_name(path) == "mobster"


def is_swept_junit(path: Path) -> bool:
    """Rule 1: ``path`` is Mobster's JUnit or pytest's (``<testsuites name="pytest tests">``)."""
    return _root_name(path) in SWEPT_ROOTS


def mobster_junit_files(folders: Iterable[Path]) -> list[Path]:
    """Rule 2: Mobster's and pytest's JUnit files anywhere under ``folders`` (symlinks are not followed)."""
    found = []
    for folder in folders:
        files = sorted(folder.rglob("*.xml"))
        found += [p for p in files if p.is_file() and not p.is_symlink() and is_swept_junit(p)]
    return found
