"""One column of a public schema: :class:`ColumnSchema`, its kinds and its sources.

A :class:`ColumnSchema` says what is public about one column -- a numeric range, a list of
categories, or that the column is an identifier -- and where that fact came from
(:data:`SOURCES`; only "read from data" breaks a DP guarantee). Values outside a declared
list become :data:`OTHER`. The whole table's schema is :class:`core.privacy.schema.PublicSchema`.
"""
from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from core.data.categories import OTHER, canonical, match_categories
from core.validation import check_choice

__all__ = ["KINDS", "SOURCES", "OTHER", "ColumnSchema", "canonical", "match_categories"]

#: What a column is: a number with bounds, a category from a list, or an identifier
#: (a row number, a name, an ID: never a feature, never published).
KINDS = ("numeric", "categorical", "identifier")
#: Where an entry came from; only "read from data" breaks a DP guarantee.
SOURCES = ("declared", "built-in", "private estimate", "read from data")


def _check_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}.")
    return value



def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    return out


def _check_cuts(cuts: Any, name: str, lo: float, hi: float) -> tuple[float, ...]:
    """``cuts`` of numeric column ``name`` as a tuple of floats: at least one, strictly
    increasing, each above ``lo`` and at most ``hi``."""
    if isinstance(cuts, (str, bytes)) or not isinstance(cuts, (list, tuple, np.ndarray)):
        raise TypeError(f"cuts of '{name}' must be a list of numbers, got {type(cuts).__name__}.")
    out = tuple(_finite(c, f"a cut of '{name}'") for c in cuts)
    if not out:
        raise ValueError(f"cuts of '{name}' must hold at least one bin edge (or be left out for equal-width bins).")
    if any(b <= a for a, b in itertools.pairwise(out)):
        raise ValueError(f"cuts of '{name}' must be strictly increasing, got {list(out)}.")
    if not (lo < out[0] and out[-1] <= hi):
        raise ValueError(f"cuts of '{name}' must lie above its lower bound {lo:g} and at most its upper bound "
                         f"{hi:g}, got {list(out)}.")
    return out


def _plain(value: Any) -> Any:
    """A JSON-friendly scalar (numpy numbers to Python ones)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class ColumnSchema:
    """What is public about one column.

    Parameters
    ----------
    name : str
        The column's name in the table.
    kind : {"numeric", "categorical", "identifier"}
        An identifier is never used as a feature nor published.
    lower, upper : float or None
        For a numeric column: the public range. Values outside it are clipped to it
        before any computation, so one record cannot stretch a scale or a sensitivity.
    categories : tuple or None
        For a categorical column: the public list of values. A value outside it (and a
        missing one) becomes :data:`OTHER`, so one record cannot bring a new category.
    integer : bool
        A numeric column of whole numbers (releases round back to integers).
    source : {"declared", "built-in", "private estimate", "read from data"}
        Where the entry came from. "read from data" makes every release that uses it not
        differentially private.
    note : str
        Where a declared or built-in entry comes from, in words (a codebook, a top-code).
    cuts : tuple of float or None
        For a numeric column: optional public bin edges inside its range, strictly increasing,
        each above ``lower`` and at most ``upper``. Each cut starts a bin (a value equal to a
        cut falls in the bin above it), so ``k`` cuts make ``k + 1`` bins from ``lower`` to
        ``upper``. They come from the same public source as the bounds (a codebook's
        tabulation groups, a legal threshold), never from the rows, and let a release that
        bins the column (MST and AIM, :mod:`core.marginal.domain`) put a skewed column's mass
        in more than one bin. None: equal-width bins.
    """

    name: str
    kind: str
    lower: float | None = None
    upper: float | None = None
    categories: tuple | None = None
    integer: bool = False
    source: str = "declared"
    note: str = ""
    cuts: tuple | None = None

    def __post_init__(self) -> None:
        _check_str(self.name, "name")
        check_choice(self.kind, KINDS, name="kind", kind=str)
        check_choice(self.source, SOURCES, name="source", kind=str)
        _check_str(self.note, "note")
        if self.kind == "numeric":
            if self.lower is None or self.upper is None:
                raise ValueError(f"numeric column '{self.name}' needs a lower and an upper bound.")
            lo = _finite(self.lower, f"lower bound of '{self.name}'")
            hi = _finite(self.upper, f"upper bound of '{self.name}'")
            if not lo < hi:
                raise ValueError(
                    f"the lower bound of '{self.name}' must be below its upper bound "
                    f"(got {lo:g} and {hi:g})."
                )
            object.__setattr__(self, "lower", lo)
            object.__setattr__(self, "upper", hi)
            if self.categories is not None:
                raise ValueError(f"numeric column '{self.name}' cannot have categories.")
            if self.cuts is not None:
                object.__setattr__(self, "cuts", _check_cuts(self.cuts, self.name, lo, hi))
        elif self.kind == "categorical":
            if self.categories is None:
                raise ValueError(f"categorical column '{self.name}' needs its list of categories.")
            cats = tuple(_plain(c) for c in self.categories)
            if len(cats) < 1:
                raise ValueError(f"categorical column '{self.name}' needs at least one category.")
            if len(set(map(str, cats))) != len(cats) or len(set(map(canonical, cats))) != len(cats):
                raise ValueError(f"the categories of '{self.name}' must be distinct (as numbers, "
                                 "'1', 1 and 1.0 are the same category).")
            if any(isinstance(c, float) and math.isnan(c) for c in cats):
                raise ValueError(f"the categories of '{self.name}' cannot include a missing value.")
            object.__setattr__(self, "categories", cats)
            if self.lower is not None or self.upper is not None:
                raise ValueError(f"categorical column '{self.name}' cannot have bounds.")
            if self.cuts is not None:
                raise ValueError(f"categorical column '{self.name}' cannot have cuts (bin edges are for numbers).")
        else:
            if self.lower is not None or self.upper is not None or self.categories is not None:
                raise ValueError(f"identifier column '{self.name}' has no bounds or categories.")
            if self.cuts is not None:
                raise ValueError(f"identifier column '{self.name}' has no cuts (bin edges are for numbers).")
        object.__setattr__(self, "integer", bool(self.integer))

    @property
    def public(self) -> bool:
        """True unless the entry was read from the private rows."""
        return self.source != "read from data"

    @property
    def fill(self) -> float:
        """The value a missing number takes: the middle of the public range (never a median)."""
        if self.kind != "numeric":
            raise ValueError(f"'{self.name}' is not numeric.")
        mid = 0.5 * (self.lower + self.upper)
        return float(round(mid)) if self.integer else mid

    @property
    def domain(self) -> tuple:
        """The categories a release can contain: the declared list, then :data:`OTHER`."""
        if self.kind != "categorical":
            raise ValueError(f"'{self.name}' is not categorical.")
        return self.categories if OTHER in self.categories else self.categories + (OTHER,)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "source": self.source}
        if self.kind == "numeric":
            out.update(lower=self.lower, upper=self.upper, integer=self.integer)
            if self.cuts is not None:
                out["cuts"] = list(self.cuts)
        if self.kind == "categorical":
            out["categories"] = list(self.categories)
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ColumnSchema":
        if not isinstance(data, Mapping):
            raise TypeError(f"a column entry must be a JSON object, got {type(data).__name__}.")
        allowed = {"name", "kind", "lower", "upper", "categories", "integer", "source", "note", "cuts"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise ValueError(f"unknown key(s) {extra} in the entry of column {data.get('name')!r}; "
                             f"allowed: {sorted(allowed)}.")
        if "name" not in data or "kind" not in data:
            raise ValueError("every column entry needs 'name' and 'kind'.")
        cats = data.get("categories")
        if cats is not None and not isinstance(cats, (list, tuple)):
            raise TypeError(f"categories of {data['name']!r} must be a list.")
        cuts = data.get("cuts")
        if cuts is not None and not isinstance(cuts, (list, tuple)):
            raise TypeError(f"cuts of {data['name']!r} must be a list of numbers.")
        return cls(
            name=data["name"], kind=data["kind"], lower=data.get("lower"), upper=data.get("upper"),
            categories=None if cats is None else tuple(cats), integer=data.get("integer", False),
            source=data.get("source", "declared"), note=data.get("note", ""),
            cuts=None if cuts is None else tuple(cuts),
        )



def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False

