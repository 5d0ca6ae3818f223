"""Without the shared WDA trees, their tests skip as one line of pytest's summary, saying how many and why."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_the_missing_shared_trees_are_one_skipped_line_with_how_many(pytester: pytest.Pytester) -> None:
    # `make test` printed one SKIPPED line per missing tree: eight lines saying one thing.
    pytester.makepyfile(
        test_trees="""
        import pytest

        from tests import wda_trees


        @pytest.fixture(autouse=True)
        def no_shared_folder(monkeypatch, tmp_path):
            monkeypatch.setattr(wda_trees, "TREES", tmp_path / "not-here")


        @pytest.mark.parametrize("name", wda_trees.NAMES)
        def test_each(name):
            wda_trees.tree_path(name)


        def test_other():
            wda_trees.truth("tab-view.xml")
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-ra", "test_trees.py")
    result.assert_outcomes(skipped=9)
    skipped = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert skipped[0].startswith("SKIPPED [9] ")
    assert "the shared WDA trees aren't at " in skipped[0]
    assert "read in place, never copied" in skipped[0]
