"""The exact file-level audit: two neighbouring files through one entry point, compared step by step.

A release may depend on the private rows only through noisy measurements its ledger pays
for. Everything the entry point decides before the noise -- the schema, the identifiers
left out, the kept columns, n, which records train and which are held out, the public
domain each record is mapped into -- must then be the same for two files that differ in one
data line, and the tables the release is made from may differ in that one record only.
:func:`exact_check` checks exactly that, in milliseconds, with no statistics: a step that
reads the rows (a type inferred across rows, a column dropped because of its values, a
split stratified on the label, a line skipped) shows up as a second changed row, a changed
column list or a changed n.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from core.file_audit.entries import PipelineView, run_entry
from core.file_audit.pairs import FilePair
from core.privacy.schema import PublicSchema

__all__ = ["ExactCheck", "exact_check", "changed_rows"]


@dataclass(frozen=True)
class ExactCheck:
    """The outcome of :func:`exact_check`.

    Attributes
    ----------
    entry, kind : str
        The entry point and the pair's kind.
    problems : list of str
        What differs beyond the one record, one sentence each (empty: the check passes).
    changed : int
        How many records of the release's tables differ (at most 1 when it passes).
    refused : str or None
        Both files were refused with this sentence (the same refusal: it depends on no record,
        but then nothing past the refusal was checked).
    """

    entry: str
    kind: str
    problems: list[str] = field(default_factory=list)
    changed: int = 0
    refused: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def _same(a: pd.DataFrame, b: pd.DataFrame) -> pd.Series:
    """Row by row: equal, missing counted equal to missing."""
    both = a.isna() & b.isna()
    return ((a == b) | both).all(axis=1)


def changed_rows(a: pd.DataFrame, b: pd.DataFrame) -> list[int]:
    """The positions whose rows differ between two tables of one shape and one column list."""
    same = _same(a.reset_index(drop=True), b.reset_index(drop=True))
    return [int(i) for i in same.index[~same.to_numpy()]]


def _compare(v0: PipelineView, v1: PipelineView) -> tuple[list[str], int]:
    problems = []
    for what in ("schema", "identifiers", "columns", "n"):
        if getattr(v0, what) != getattr(v1, what):
            problems.append(f"the {what} differ: {getattr(v0, what)!r} vs {getattr(v1, what)!r}")
    if problems:
        return problems, -1
    changed = 0
    for part in ("train", "holdout"):
        a, b = getattr(v0, part), getattr(v1, part)
        if a.shape != b.shape:
            problems.append(f"the {part} part has {len(a)} records on one side and {len(b)} on the other")
            continue
        changed += len(changed_rows(a, b))
    if changed > 1:
        problems.append(f"{changed} records of the release's tables differ where one record changed")
    return problems, changed


def exact_check(entry: str, pair: FilePair, schema: PublicSchema) -> ExactCheck:
    """Run both files of ``pair`` through entry point ``entry`` and compare what the release sees.

    Passes when both sides give the same schema, identifiers, kept columns and n, and their
    training part and holdout (each mapped into the public domain) differ in at most one
    record, the changed line's. A refusal of one side but not the other is a problem too (an
    output that depends on one record).
    """
    outcomes = []
    for raw in (pair.d0, pair.d1):
        try:
            outcomes.append(run_entry(entry, raw, schema))
        except (ValueError, TypeError) as exc:  # DataError is a ValueError
            outcomes.append(f"{type(exc).__name__}: {exc}")
    v0, v1 = outcomes
    if isinstance(v0, str) or isinstance(v1, str):
        if v0 == v1:
            return ExactCheck(entry, pair.kind, refused=v0)
        return ExactCheck(entry, pair.kind, [f"one side is refused and the other not: {v0!s:.200} / {v1!s:.200}"])
    problems, changed = _compare(v0, v1)
    if changed == 1 and not problems:
        problems += _at_the_line(v0, v1, pair, schema)
    return ExactCheck(entry, pair.kind, problems, max(changed, 0))


def _at_the_line(v0: PipelineView, v1: PipelineView, pair: FilePair, schema: PublicSchema) -> list[str]:
    """The one changed record must be the changed line's: its row on the first side equals
    that line's record read on its own (the Data page's reading, in file order)."""
    own = run_entry("data page", pair.d0, schema).train
    for part in ("train", "holdout"):
        a, b = getattr(v0, part), getattr(v1, part)
        rows = changed_rows(a, b)
        if rows:
            record = own.iloc[[pair.line]][list(a.columns)].reset_index(drop=True)
            if not _same(a.iloc[[rows[0]]].reset_index(drop=True), record).all():
                return [f"the one changed record of the {part} part is not line {pair.line}'s"]
    return []
