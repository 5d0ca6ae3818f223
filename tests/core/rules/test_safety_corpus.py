"""Safety's corpus: real iOS labels (Apple's apps and common App Store flows) in English, Spanish,
German, Simplified Chinese and Japanese, each with what pressing it commits.

The labels live in ``tests/data/safety/labels.tsv``; a row says label, role, expected class,
language and where the label is seen. A label the classifier can't judge right is listed with the
class it gets and "(can't know)" in its last column, so docs/safety.md and the corpus agree.
"""

from __future__ import annotations

from collections import Counter

import pytest

from mobster_core import DeviceKind
from mobster_core._rules.safety.safety import check_commit, classify
from tests.samples import DATA

CORPUS = DATA / "safety" / "labels.tsv"
CLASSES = {"purchase", "send", "post", "delete", "none"}


def rows() -> list[tuple[str, str, str, str, str]]:
    out = []
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#")
    header_seen = False
    for number, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        cells = line.split("\t")
        assert len(cells) == 5, f"labels.tsv:{number}: expected 5 tab-separated cells, got {len(cells)}"
        if not header_seen:
            assert cells == ["label", "role", "expected", "lang", "where"]
            header_seen = True
            continue
        assert cells[2] in CLASSES, f"labels.tsv:{number}: unknown class {cells[2]!r}"
        out.append((cells[0], cells[1], cells[2], cells[3], cells[4]))
    return out


ROWS = rows()


def test_the_corpus_is_big_enough_and_covers_every_language_and_class() -> None:
    assert len(ROWS) >= 150
    languages = Counter(lang for _, _, _, lang, _ in ROWS)
    assert set(languages) == {"en", "es", "de", "zh", "ja"}
    assert min(languages.values()) >= 20
    for lang in languages:
        classes = {expected for _, _, expected, row_lang, _ in ROWS if row_lang == lang}
        assert classes == CLASSES, lang
    assert len({(label, role) for label, role, *_ in ROWS}) == len(ROWS), "a label and role listed twice"


@pytest.mark.parametrize(("label", "role", "expected", "lang", "where"), ROWS, ids=[f"{r[3]}:{r[0]}" for r in ROWS])
def test_each_label_gets_its_class(label: str, role: str, expected: str, lang: str, where: str) -> None:
    got = classify(label, role)
    assert (got.value if got is not None else "none") == expected, f"{label!r} ({role}, {lang}, {where})"


def test_an_iphone_refuses_every_commit_of_the_corpus_and_a_simulator_only_purchases() -> None:
    for label, role, expected, _, _ in ROWS:
        commit = classify(label, role)
        assert check_commit(commit, DeviceKind.IPHONE).allowed is (expected == "none"), label
        assert check_commit(commit, DeviceKind.SIMULATOR).allowed is (expected != "purchase"), label
