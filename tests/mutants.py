"""The registry of hand-written privacy mutants: each puts one leak back, and one test catches it.

A mutant is a named change that re-introduces a leak (a step that reads the private rows, a
noise too small, an audit of a stand-in); the test named beside it must fail on the leak, and
does, because it applies the mutant itself (monkeypatch) and asserts that the check sees it.
Counting this registry before and after a change to the suite shows that no leak went
uncaught (``tests/test_mutants.py`` checks that every named test exists).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mutant", "MUTANTS"]


@dataclass(frozen=True)
class Mutant:
    """One mutant: its name, the leak it puts back, and the test (a pytest node id) that catches it."""

    name: str
    leak: str
    test: str


_FILE = "tests/core/file_audit/test_mutants.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant("type inference", "a CSV column's type inferred from all its rows: one record's text turns "
           "a column numeric and every other text cell of it missing",
           f"{_FILE}::test_mutant_type_inference_across_rows_is_caught"),
    Mutant("identifier detection", "a declared column dropped as an identifier because its values "
           "happen to be all distinct", f"{_FILE}::test_mutant_detection_drops_a_declared_column_is_caught"),
    Mutant("stratified split", "Compare's split stratified on the label: one label flip moves other "
           "records between the training part and the holdout", f"{_FILE}::test_mutant_stratified_split_is_caught"),
    Mutant("skipped line", "an empty line skipped: one record changes n and shifts every later row",
           f"{_FILE}::test_mutant_skipped_line_is_caught"),
    Mutant("bulk confirm of exact extremes", "confirming a draft declares the rows' exact minimum and "
           "maximum public", "tests/core/privacy/test_schema_draft.py::"
           "test_mutant_bulk_confirm_of_exact_extremes_is_caught"),
    Mutant("stand-in audit", "Compare's audit beside an MST point runs a stand-in, not the release's own "
           "measurement: a release that raises still reads 'no violation found'",
           "tests/core/compare/test_audit_real_release.py::test_mutant_stand_in_audit_is_caught"),
    Mutant("no spare grid step", "grid rounding pays ceil(Delta / g) steps: floating-point slack moves a "
           "value 1,025 steps where 1,024 are paid",
           "tests/core/privacy/test_grid_slack.py::test_mutant_no_spare_grid_step_is_caught"),
)
