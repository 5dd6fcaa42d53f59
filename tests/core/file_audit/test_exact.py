"""The exact file-level audit: every entry point, every kind of neighbouring file."""
from __future__ import annotations

import pytest

from core.file_audit import ENTRY_POINTS, KINDS, exact_check, file_pair, file_pairs, run_entry


def test_every_kind_of_pair_is_built(table, schema):
    pairs = file_pairs(table, schema, line=3, distinct="code")
    assert [p.kind for p in pairs] == list(KINDS)
    for p in pairs:
        assert p.d0 == table and p.d0.count(b"\n") == p.d1.count(b"\n") and p.line == 3


def test_a_replaced_line_cannot_hold_a_line_break(table):
    with pytest.raises(ValueError, match="line break"):
        file_pair(table, 0, b"a\nb", kind="junk cell", description="two records")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_only_the_changed_record_moves(entry, table, schema):
    for pair in file_pairs(table, schema, line=5, distinct="code"):
        check = exact_check(entry, pair, schema)
        assert check.ok and check.refused is None, (entry, pair.kind, check.problems, check.refused)
        assert check.changed <= 1


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_declared_column_of_distinct_values_is_kept(entry, table, schema):
    view = run_entry(entry, table, schema)
    assert "code" in view.columns and "id" not in view.columns
    assert view.identifiers == ("id",)


def test_the_view_holds_every_record_of_the_file(table, schema):
    view = run_entry("pux compare", table, schema)
    assert view.n == 60 and len(view.train) + len(view.holdout) == 60
