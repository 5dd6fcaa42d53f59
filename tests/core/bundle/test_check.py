"""Number by number: equal trees match, any difference is named by its path."""
from __future__ import annotations

import math

import pytest

from core.bundle.check import compare_trees, report_lines


def test_equal_trees_match_everywhere():
    tree = {"a": [{"x": 1.0, "y": "s"}, {"x": math.nan, "y": None}], "b": True}
    checks = compare_trees(tree, tree)
    assert len(checks) == 5 and all(c.ok for c in checks)


def test_a_changed_number_is_a_mismatch_at_its_path():
    checks = compare_trees({"a": [{"x": 1.0}]}, {"a": [{"x": 1.001}]})
    assert [(c.path, c.ok) for c in checks] == [("a[0].x", False)]


def test_tolerance_absorbs_last_digits_only():
    assert compare_trees({"x": 1.0}, {"x": 1.0 + 1e-12})[0].ok
    assert not compare_trees({"x": 1.0}, {"x": 1.0 + 1e-12}, rtol=0, atol=0)[0].ok


def test_wall_times_are_not_compared():
    assert compare_trees({"seconds": {"a": 1.0}, "x": 1}, {"seconds": {"a": 9.0}, "x": 1})[0].ok


def test_paths_on_one_side_only_are_mismatches():
    checks = compare_trees({"x": 1}, {"y": 1})
    assert [(c.path, c.ok) for c in checks] == [("x", False), ("y", False)]


def test_a_bool_is_not_a_number():
    assert not compare_trees({"x": 1}, {"x": True})[0].ok


def test_report_says_how_many_match():
    lines = report_lines(compare_trees({"x": 1, "y": 2}, {"x": 1, "y": 3}))
    assert lines[0].startswith("MISMATCH y") and lines[-1] == "1 of 2 numbers match; 1 do not."


def test_negative_tolerance_is_refused():
    with pytest.raises(ValueError, match="rtol"):
        compare_trees({}, {}, rtol=-1)
