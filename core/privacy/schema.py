"""The public schema: what a release may know about a table without reading its rows.

A differentially private release may depend on the private records only through noisy
measurements its ledger pays for (docs/design.md section 2.1). Everything else it needs --
the category list of a column, the bounds that clip and scale a number, which columns are
the label, the sensitive attribute or an identifier, a bound on paper 000's correlated
group -- must come from somewhere else. :class:`PublicSchema` holds those facts, one
:class:`ColumnSchema` per column, each with its ``source``:

* ``"declared"`` -- the user said it is public knowledge (a codebook, a questionnaire);
* ``"built-in"`` -- shipped with a built-in dataset, from its generator or its published
  documentation, never from its rows;
* ``"private estimate"`` -- estimated from the rows with part of the budget (private
  quantiles, thresholded category discovery); the schema's :attr:`PublicSchema.estimate`
  ledger says what it cost;
* ``"read from data"`` -- drafted from the rows for exploration
  (:func:`~core.privacy.schema_draft.draft_schema`). A release that uses such an entry is
  **not differentially private**, and
  :meth:`PublicSchema.charge` says so in its ledger, in one sentence.

Encoders, scalers, bins and query ranges are built from the schema
(:meth:`PublicSchema.conform` maps any record into the declared domain, record by record:
numbers clipped to their bounds, missing numbers to a declared fill, categories outside the
list to :data:`OTHER`), so that a record can never add a category or stretch a range.

Where the parts live: one column's entry in :mod:`core.privacy.schema_columns`, the JSON
form in :mod:`core.privacy.schema_io`, the editable table in :mod:`core.privacy.schema_table`,
drafts from the rows in :mod:`core.privacy.schema_draft`, the built-in datasets' schemas and
:func:`~core.privacy.schema_builtin.schema_for` in :mod:`core.privacy.schema_builtin`,
private estimates in :mod:`core.privacy.schema_estimate`.
"""
from __future__ import annotations

import json
import numbers
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from core.data.dataset import Dataset
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema_columns import SOURCES, ColumnSchema, match_categories
from core.privacy.schema_io import schema_fields, schema_to_dict
from core.privacy.schema_table import edited_columns, schema_frame
from core.validation import DataError, check_choice

__all__ = ["PublicSchema"]


@dataclass(frozen=True)
class PublicSchema:
    """The public facts about a table that every release may use for free.

    Parameters
    ----------
    columns : tuple of ColumnSchema
        One entry per column of the table, in its order.
    label : str or None
        The column a model predicts.
    sensitive : tuple of str
        The columns whose values must not be learnable.
    max_group_size : int or None
        Paper 000: a declared bound on how many records one record is correlated with
        (itself included). The DP readings of CDP-LR and count publishing take the
        correlated sensitivity from it instead of from the rows. None: not declared.
    max_group_source : str
        Where ``max_group_size`` came from (one of :data:`SOURCES`).
    name : str
        Which table the schema describes (display only).
    estimate : PrivacyLedger or None
        What estimating the "private estimate" entries cost; charged to every release that
        uses them.
    """

    columns: tuple[ColumnSchema, ...]
    label: str | None = None
    sensitive: tuple[str, ...] = ()
    max_group_size: int | None = None
    max_group_source: str = "declared"
    name: str = ""
    estimate: PrivacyLedger | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        cols = tuple(self.columns)
        for c in cols:
            if not isinstance(c, ColumnSchema):
                raise TypeError(f"columns must hold ColumnSchema entries, got {type(c).__name__}.")
        names = [c.name for c in cols]
        if len(set(names)) != len(names):
            raise ValueError("each column may appear only once in a schema.")
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        kinds = {c.name: c.kind for c in cols}
        for role, col in [("label", self.label), *[("sensitive", s) for s in self.sensitive]]:
            if col is None:
                continue
            if col not in kinds:
                raise ValueError(f"the {role} column '{col}' is not in the schema.")
            if kinds[col] == "identifier":
                raise ValueError(f"the {role} column '{col}' cannot be an identifier.")
        if self.label is not None and self.label in self.sensitive:
            raise ValueError(f"'{self.label}' cannot be both the label and sensitive.")
        if self.max_group_size is not None:
            if isinstance(self.max_group_size, bool) or not isinstance(self.max_group_size, numbers.Integral):
                raise TypeError("max_group_size must be an int (records per correlated group).")
            if self.max_group_size < 1:
                raise ValueError("max_group_size must be at least 1 (a record is in its own group).")
        check_choice(self.max_group_source, SOURCES, name="max_group_source", kind=str)
        if self.estimate is not None and not isinstance(self.estimate, PrivacyLedger):
            raise TypeError("estimate must be a PrivacyLedger or None.")

    # ------------------------------------------------------------------ lookups
    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __getitem__(self, name: str) -> ColumnSchema:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"'{name}' is not in the schema.")

    @property
    def features(self) -> list[str]:
        """Every column a model or a release may use: not the label, not an identifier."""
        return [c.name for c in self.columns if c.kind != "identifier" and c.name != self.label]

    @property
    def identifiers(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "identifier"]

    @property
    def numeric(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "numeric"]

    @property
    def categorical(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "categorical"]

    def bounds(self, columns: Iterable[str] | None = None) -> dict[str, tuple[float, float]]:
        """Public (lower, upper) of the numeric columns among ``columns`` (default all)."""
        wanted = self.names if columns is None else list(columns)
        return {c: (self[c].lower, self[c].upper) for c in wanted if self[c].kind == "numeric"}

    def read_from_data(self, columns: Iterable[str] | None = None) -> list[str]:
        """The columns among ``columns`` (default all) whose entry was read from the rows."""
        wanted = self.names if columns is None else list(columns)
        return [c for c in wanted if c in self and not self[c].public]

    def is_public(self, columns: Iterable[str] | None = None) -> bool:
        """True when no entry among ``columns`` (default all) was read from the rows."""
        return not self.read_from_data(columns)

    # ------------------------------------------------------------------ privacy
    def not_dp_reason(self, columns: Iterable[str] | None = None) -> str | None:
        """One sentence when an entry among ``columns`` was read from the rows, else None."""
        read = self.read_from_data(columns)
        if not read:
            return None
        shown = ", ".join(f"'{c}'" for c in read[:6]) + (f" and {len(read) - 6} more" if len(read) > 6 else "")
        return (f"Bounds or categories read from your data ({shown}): confirm them as public "
                "knowledge or let the app estimate them with part of epsilon.")

    def charge(self, ledger: PrivacyLedger, columns: Iterable[str] | None = None, *,
               group_size: bool = False) -> PrivacyLedger:
        """Put what using this schema means into ``ledger`` (returned, for chaining).

        Entries read from the rows mark the release not DP; private estimates add the
        estimate's spends; declared and built-in entries are listed as assumptions (what the
        user vouches for). ``group_size=True`` does the same for ``max_group_size``.
        """
        cols = self.names if columns is None else [c for c in columns if c in self]
        reason = self.not_dp_reason(cols)
        if reason:
            ledger.mark_not_dp(reason)
        # Which columns a release leaves out as identifiers decides what it holds: a role
        # found by reading the rows (every value distinct) is itself a read of the data.
        found = [c for c in self.identifiers if c not in cols and not self[c].public]
        if found:
            ledger.mark_not_dp(
                "Which columns are identifiers (left out: " + ", ".join(f"'{c}'" for c in found[:6])
                + ") was read from your data: confirm it on the Data page.")
        if any(self[c].source == "private estimate" for c in cols) and self.estimate is not None:
            ledger.extend(self.estimate, prefix="public schema estimate")
        declared = [c for c in cols if self[c].source in ("declared", "built-in")]
        if declared:
            where = "shipped with the dataset" if all(self[c].source == "built-in" for c in declared) \
                else "declared public by the user"
            ledger.assume(f"The bounds and category lists of {len(declared)} column(s) are {where}, "
                          "not read from the records.")
        if group_size:
            if self.max_group_size is None:
                ledger.mark_not_dp("No bound on the correlated group size is declared, so the "
                                   "correlated sensitivity would have to be read from the records.")
            elif self.max_group_source == "read from data":
                ledger.mark_not_dp("The correlated group size bound was read from your data.")
            else:
                ledger.assume(f"One record is correlated with at most {self.max_group_size} records "
                              "(itself included), as declared.")
        return ledger

    # ------------------------------------------------------------------ records into the domain
    def conform(self, frame: pd.DataFrame, columns: Iterable[str] | None = None) -> pd.DataFrame:
        """``frame``'s ``columns`` mapped into the public domain, one record at a time.

        Numbers are clipped to their bounds and a missing number becomes the middle of the
        range; a category outside the list (or missing) becomes :data:`OTHER`, matched by its
        canonical form (:func:`~core.privacy.schema_columns.canonical`: whitespace stripped,
        numbers as numbers, case kept). Nothing
        depends on other records, so one replaced record changes one row of the result.
        Identifier columns are dropped.
        """
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a DataFrame, got {type(frame).__name__}.")
        wanted = [c for c in (self.names if columns is None else list(columns))
                  if self[c].kind != "identifier"]
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            raise DataError(f"The table has no column {missing[0]!r}, which the schema lists.")
        out = {}
        for name in wanted:
            spec = self[name]
            s = frame[name]
            if spec.kind == "numeric":
                v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
                v = np.where(np.isnan(v), spec.fill, v)
                out[name] = np.clip(v, spec.lower, spec.upper)
            else:  # the canonical match, cell by cell (schema_columns.canonical)
                out[name] = match_categories(s.to_numpy(dtype=object), spec.categories)
        return pd.DataFrame(out, index=frame.index)

    def codes(self, frame: pd.DataFrame, column: str) -> np.ndarray:
        """Integer codes of a categorical column over :attr:`ColumnSchema.domain`."""
        domain = self[column].domain
        index = {str(c): i for i, c in enumerate(domain)}
        matched = match_categories(frame[column].to_numpy(dtype=object), self[column].categories)
        return np.fromiter((index[str(v)] for v in matched), dtype=np.int64, count=len(matched))

    # ------------------------------------------------------------------ checks and edits
    def check(self, dataset: Dataset) -> list[str]:
        """Problems matching ``dataset`` against this schema, one sentence each (empty: fits).

        Only the column names and types are compared (values never: a value outside the
        schema is clipped or becomes :data:`OTHER`, it is not an error).
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
        problems = []
        cols = list(dataset.frame.columns)
        for c in self.names:
            if c not in cols:
                problems.append(f"The schema lists '{c}', which the table does not have.")
        for c in cols:
            if c not in self:
                problems.append(f"The table's column '{c}' is not in the schema.")
            elif self[c].kind == "numeric" and c not in dataset.numeric:
                problems.append(f"The schema says '{c}' is numeric, but the table holds text in it.")
        return problems

    def replace_column(self, column: ColumnSchema) -> "PublicSchema":
        """A copy with ``column`` in place of the entry of the same name."""
        if not isinstance(column, ColumnSchema):
            raise TypeError(f"column must be a ColumnSchema, got {type(column).__name__}.")
        if column.name not in self:
            raise ValueError(f"'{column.name}' is not in the schema.")
        return replace(self, columns=tuple(column if c.name == column.name else c for c in self.columns))

    def confirm(self, columns: Iterable[str] | None = None) -> "PublicSchema":
        """A copy where the entries of ``columns`` (default: all read from data) are declared public.

        The user vouches that the listed bounds and categories are public knowledge (a
        codebook, a published range): a statement about the world, not about the rows.
        """
        names = set(self.read_from_data() if columns is None else columns)
        cols = tuple(replace(c, source="declared") if c.name in names else c for c in self.columns)
        return replace(self, columns=cols)

    def with_roles(self, *, label: str | None, sensitive: Iterable[str]) -> "PublicSchema":
        return replace(self, label=label, sensitive=tuple(sensitive))

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """The schema as a JSON object (:func:`core.privacy.schema_io.schema_to_dict`)."""
        return schema_to_dict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), indent=kwargs.pop("indent", 2), **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PublicSchema":
        """The schema of a JSON object (:func:`core.privacy.schema_io.schema_fields` checks it)."""
        return cls(**schema_fields(data))

    @classmethod
    def from_json(cls, text: str | bytes) -> "PublicSchema":
        """The schema of a JSON text, its size and nesting depth checked before it is parsed
        (:func:`core.limits.load_json`: a file of 100,000 nested brackets is one sentence, not
        a RecursionError)."""
        from core.limits import MAX_SCHEMA_BYTES, load_json

        try:
            data = load_json(text, what="the schema", max_bytes=MAX_SCHEMA_BYTES)
        except ValueError as exc:
            raise ValueError(str(exc)[:1].lower() + str(exc)[1:]) from None
        return cls.from_dict(data)

    # ------------------------------------------------------------------ a table to edit
    def to_frame(self) -> pd.DataFrame:
        """One row per column, for review and editing: column, kind, lower, upper,
        categories (joined by ", "), source, note (:func:`core.privacy.schema_table.schema_frame`)."""
        return schema_frame(self)

    def with_edits(self, frame: pd.DataFrame) -> "PublicSchema":
        """A copy with the entries the user changed in :meth:`to_frame`'s table, declared.

        A row whose kind, bounds or categories differ from this schema's becomes a new
        entry with source "declared" (the user typed it and vouches that it is public
        knowledge); unchanged rows keep their entry and source. Categories are split on
        commas; a text that names an existing category keeps that category's value (so 0/1
        flags stay numbers). Rows are matched by the "column" cell, which cannot change.

        Raises
        ------
        TypeError
            ``frame`` is not a DataFrame.
        ValueError
            A row names no column of the schema, or an edited entry breaks a rule (bounds
            not ordered, no categories...), in one sentence naming the column.
        """
        changed = edited_columns(self, frame)
        if not changed:
            return self
        cols = tuple(changed.get(c.name, c) for c in self.columns)
        return replace(self, columns=cols)

    def describe(self) -> str:
        """One sentence: how much of the schema is public."""
        read = self.read_from_data()
        if not read:
            return f"All {len(self.columns)} columns have public bounds or categories."
        return (f"{len(read)} of {len(self.columns)} columns have bounds or categories read from your "
                "data: releases that use them are not differentially private until you confirm "
                "them or let the app estimate them with part of epsilon.")

