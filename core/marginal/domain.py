"""The discrete domain of a marginal-based synthesizer, from the public schema only.

MST and AIM measure counts over a finite domain: every column must be a list of cells.
:func:`marginal_domain` builds that list from a :class:`~core.privacy.schema.PublicSchema`
and nothing else: a categorical column's cells are its declared categories then
:data:`~core.privacy.schema_columns.OTHER`; a numeric column's cells are the bins its schema
entry's public ``cuts`` start (:class:`~core.privacy.schema_columns.ColumnSchema`: a codebook's
tabulation groups, so that a skewed column such as a capital gain, zero for most records, is
not one bin), else ``bins`` equal-width bins of its declared range (one cell per whole number
when an integer column has ``bins`` values or fewer). :meth:`MarginalDomain.encode` maps each record on its own
(:meth:`PublicSchema.conform`: a value out of range is clipped into the first or last bin,
a category outside the list becomes OTHER), so that one replaced record moves one cell of
each marginal and never adds a cell or stretches a bin. :meth:`MarginalDomain.decode`
turns cells back into values (post-processing): a category, or a number drawn uniformly
inside its bin's public bounds.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["DEFAULT_BINS", "ColumnCells", "MarginalDomain", "check_bins", "marginal_domain"]

#: Bins of a numeric column unless the caller says otherwise: 16 keeps education levels
#: (1-16) whole, and each 2-way marginal of two numbers at 256 cells, small enough that its
#: noisy counts still say something at a few thousand records.
DEFAULT_BINS = 16


def check_bins(bins: Any) -> int:
    """``bins`` as the number of bins of a numeric column: an int of at least 2."""
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise TypeError(f"bins must be an int, got {type(bins).__name__}.")
    if bins < 2:
        raise ValueError(f"bins must be at least 2 (a numeric column needs two cells to say anything), got {bins}.")
    return int(bins)


@dataclass(frozen=True)
class ColumnCells:
    """The cells of one column.

    Attributes
    ----------
    name : str
    kind : {"categorical", "numeric"}
    values : tuple
        Categorical: the cell of each code (the declared categories, then OTHER).
        Numeric with one cell per whole number: those numbers. Empty otherwise.
    edges : tuple of float
        Numeric: the bin edges, from the lower to the upper bound (len = cells + 1). Each
        bin holds its lower edge, not its upper one; the last holds both.
    integer : bool
        Numeric column of whole numbers (decoded values are whole numbers of their bin).
    cuts : tuple of float
        Numeric: the schema's public cuts the bins come from (empty: equal-width bins).
    """

    name: str
    kind: str
    values: tuple = ()
    edges: tuple = ()
    integer: bool = False
    cuts: tuple = ()

    @property
    def size(self) -> int:
        """Number of cells."""
        return len(self.values) if self.values else len(self.edges) - 1

    @property
    def source(self) -> str:
        """Where the cells come from, in words."""
        if self.kind == "categorical":
            return "the schema's categories, then OTHER"
        if self.values:
            return "one cell per whole number of the schema's range"
        if self.cuts:
            return "the schema's public cuts"
        return f"{self.size} equal-width bins of the schema's range"

    def describe(self, *, limit: int = 12) -> str:
        """The cells in words: categories; bins of whole numbers as ``first-last`` (one number
        when it is alone); other bins as ``[lower, upper)`` (the last one closed). At most
        ``limit`` shown, then how many more."""
        if self.kind == "categorical" or self.values:
            shown = [str(v) for v in self.values]
        elif self.integer:
            e, last = self.edges, self.size - 1
            spans = [(math.ceil(e[i]), math.floor(e[i + 1]) if i == last else math.ceil(e[i + 1]) - 1)
                     for i in range(self.size)]
            shown = [_number(a) if a >= b else f"{_number(a)}-{_number(b)}" for a, b in spans]
        else:
            e = self.edges
            shown = [f"[{_number(e[i])}, {_number(e[i + 1])}{']' if i == self.size - 1 else ')'}"
                     for i in range(self.size)]
        more = len(shown) - limit
        return ", ".join(shown[:limit]) + (f" and {more} more" if more > 0 else "")

    def encode(self, conformed: pd.Series) -> np.ndarray:
        """Codes 0..size-1 of a column already mapped into the schema's domain."""
        if self.kind == "categorical":
            index = {str(v): i for i, v in enumerate(self.values)}
            other = index[str(OTHER)]
            return np.fromiter((index.get(str(v), other) for v in conformed.to_numpy()), dtype=np.int64,
                               count=len(conformed))
        v = conformed.to_numpy(dtype=np.float64)
        if self.values:
            return np.clip(np.rint(v) - self.values[0], 0, self.size - 1).astype(np.int64)
        if self.cuts:
            return np.clip(np.searchsorted(np.asarray(self.cuts), v, side="right"), 0, self.size - 1).astype(np.int64)
        lo, hi = self.edges[0], self.edges[-1]
        return np.clip(np.floor((v - lo) / (hi - lo) * self.size), 0, self.size - 1).astype(np.int64)

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Values of ``codes``; a code outside 0..size-1 (none comes from a model of this
        domain) becomes OTHER, or the middle of the range."""
        codes = np.asarray(codes, dtype=np.int64)
        bad = (codes < 0) | (codes >= self.size)
        safe = np.where(bad, 0, codes)
        if self.kind == "categorical":
            out = np.array(self.values, dtype=object)[safe]
            out[bad] = OTHER
            return out
        edges = np.asarray(self.edges, dtype=np.float64)
        if self.values:
            out = np.asarray(self.values, dtype=np.float64)[safe]
        elif self.integer:
            out = self._whole_numbers(safe, edges, rng)
        else:
            out = rng.uniform(edges[safe], edges[safe + 1])
        out[bad] = 0.5 * (self.edges[0] + self.edges[-1])
        if self.integer:
            out = np.clip(np.rint(out), math.ceil(self.edges[0]), math.floor(self.edges[-1]))
        return out

    def _whole_numbers(self, codes: np.ndarray, edges: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A whole number drawn uniformly among those each code's bin holds (its lower edge
        in, its upper edge out, both in for the last bin); the bin's middle where it holds none."""
        first = np.ceil(edges[codes])
        last = np.where(codes == self.size - 1, np.floor(edges[codes + 1]), np.ceil(edges[codes + 1]) - 1)
        empty = last < first
        draw = first + np.floor(rng.random(len(codes)) * (np.maximum(last - first, 0) + 1))
        return np.where(empty, 0.5 * (edges[codes] + edges[codes + 1]), np.minimum(draw, last))


def _number(x: float) -> str:
    """A bin edge as a person reads it: whole numbers with thousands separators."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _numeric_cells(spec: Any, bins: int) -> ColumnCells:
    lo, hi = float(spec.lower), float(spec.upper)
    if spec.cuts:
        return ColumnCells(spec.name, "numeric", edges=(lo, *map(float, spec.cuts), hi), integer=bool(spec.integer),
                           cuts=tuple(map(float, spec.cuts)))
    if spec.integer:
        first, last = math.ceil(lo), math.floor(hi)
        if last >= first and last - first + 1 <= bins:
            return ColumnCells(spec.name, "numeric", values=tuple(range(first, last + 1)), edges=(lo, hi),
                               integer=True)
    return ColumnCells(spec.name, "numeric", edges=tuple(np.linspace(lo, hi, bins + 1).tolist()),
                       integer=bool(spec.integer))


@dataclass(frozen=True)
class MarginalDomain:
    """Every column's cells, from the public schema (see the module's docstring).

    Attributes
    ----------
    schema : PublicSchema
    columns : tuple of ColumnCells
        One per released column, in the schema's order.
    bins : int
        Bins of a numeric column without public cuts (fewer for an integer column with fewer
        whole numbers).
    """

    schema: PublicSchema
    columns: tuple[ColumnCells, ...]
    bins: int

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def sizes(self) -> dict[str, int]:
        """Cells per column."""
        return {c.name: c.size for c in self.columns}

    def cell_rows(self) -> list[dict[str, Any]]:
        """One row per column (the Compare page's table): ``column``, ``cells`` (how many),
        ``from`` (:attr:`ColumnCells.source`) and ``bins`` (:meth:`ColumnCells.describe`)."""
        return [{"column": c.name, "cells": c.size, "from": c.source, "bins": c.describe()} for c in self.columns]

    def encode(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        """Each column's codes (int64, 0..size-1), record by record.

        Raises
        ------
        DataError
            ``frame`` lacks a column of the domain.
        """
        conformed = self.schema.conform(frame, self.names)
        return {c.name: c.encode(conformed[c.name]) for c in self.columns}

    def decode(self, codes: Any, *, random_state: RandomState = None) -> pd.DataFrame:
        """The table of ``codes`` (a frame of cell codes by column name): categories, and
        numbers drawn uniformly within their bin's public bounds (``random_state``)."""
        rng = check_random_state(random_state)
        return pd.DataFrame({c.name: c.decode(np.asarray(codes[c.name]), rng) for c in self.columns})


def marginal_domain(schema: PublicSchema, *, columns: Sequence[str] | None = None,
                    bins: int = DEFAULT_BINS) -> MarginalDomain:
    """The cells of ``columns`` (default every column of ``schema`` but its identifiers).

    Parameters
    ----------
    schema : PublicSchema
        The only source of categories and bounds: nothing is read from the records, so the
        domain (and each marginal's shape) is the same for any two neighbouring tables.
    columns : sequence of str, optional
        The released columns; identifiers are refused (they are never published).
    bins : int
        Equal-width bins of each numeric column's declared range (default
        :data:`DEFAULT_BINS`) where its schema entry has no public ``cuts`` (those decide
        its bins otherwise). More bins keep more detail of a number but spread the same
        noise over more cells.

    Raises
    ------
    TypeError
        ``schema`` is not a PublicSchema, ``bins`` not an int, ``columns`` not a sequence of str.
    ValueError
        An unknown or identifier column, a repeated one, no column at all, or ``bins`` below 2.
    """
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    bins = check_bins(bins)
    names = [c for c in schema.names if schema[c].kind != "identifier"] if columns is None else columns
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError("columns must be a sequence of column names.")
    cells = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"columns must hold str names, got {type(name).__name__}.")
        if name not in schema:
            raise ValueError(f"column {name!r} is not in the schema; a marginal domain comes from the schema only.")
        spec = schema[name]
        if spec.kind == "identifier":
            raise ValueError(f"{name!r} is an identifier in the schema: it is never released.")
        cells.append(ColumnCells(name, "categorical", values=tuple(spec.domain)) if spec.kind == "categorical"
                     else _numeric_cells(spec, bins))
    if not cells:
        raise ValueError("a marginal domain needs at least one column.")
    if len({c.name for c in cells}) != len(cells):
        raise ValueError("each column may appear only once in a marginal domain.")
    return MarginalDomain(schema, tuple(cells), bins)
