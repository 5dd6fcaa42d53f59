"""Marginal fidelity of a synthetic table: total variation of its one- and two-way marginals
against the real table's (:func:`marginal_tv`), shown beside paper 002's leak."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.data import Dataset
from core.data.dataset import is_quantity
from core.validation import DataError

__all__ = ["marginal_tv"]


def _frame(data) -> pd.DataFrame:
    if isinstance(data, Dataset):
        return data.frame
    if isinstance(data, pd.DataFrame):
        return data
    raise TypeError(f"expected a Dataset or DataFrame, got {type(data).__name__}.")


def _tv_codes(real: pd.Series, syn: pd.Series, bins: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Both columns as integer codes on the real column's bins (quantile edges of the real
    values for a quantity with more than ``bins`` distinct values; its own values, missing
    as one more, for anything else). Values the real column lacks get codes of their own."""
    if is_quantity(real) and is_quantity(syn) and real.nunique(dropna=True) > bins:
        r = pd.to_numeric(real, errors="coerce").to_numpy(dtype=float)
        y = pd.to_numeric(syn, errors="coerce").to_numpy(dtype=float)
        edges = np.unique(np.nanquantile(r, np.linspace(0, 1, bins + 1)))
        inner = edges[1:-1]
        n_bins = len(inner) + 1

        def code(v):
            c = np.searchsorted(inner, v, side="right")
            return np.where(np.isnan(v), n_bins, c)

        return code(r), code(y), n_bins + 1
    r = real.astype(object).where(real.notna(), "__missing__").astype(str)
    y = syn.astype(object).where(syn.notna(), "__missing__").astype(str)
    cats = {c: i for i, c in enumerate(sorted(set(r.unique()) | set(y.unique())))}
    return r.map(cats).to_numpy(dtype=np.int64), y.map(cats).to_numpy(dtype=np.int64), len(cats)


def _tv(a: np.ndarray, b: np.ndarray, size: int) -> float:
    p = np.bincount(a, minlength=size) / max(len(a), 1)
    q = np.bincount(b, minlength=size) / max(len(b), 1)
    return float(0.5 * np.abs(p - q).sum())


def marginal_tv(real: pd.DataFrame | Dataset, synthetic: pd.DataFrame | Dataset, *,
                bins: int = 10) -> dict[str, Any]:
    """Marginal fidelity of a synthetic table: total variation distances to the real one.

    Every column of ``real`` (all must be in ``synthetic``) is discretised: a numeric
    column with more than ``bins`` distinct values into ``bins`` quantile bins of the real
    values (edges shared by both tables; ties merge bins, so a point mass such as the zeros
    of a zero-inflated column keeps a bin of its own), any other column by its values
    (missing is a value). The TV distance of two distributions is half the L1 distance of
    their probability vectors: 0 for equal ones, 1 for disjoint ones.

    Returns
    -------
    dict
        ``one_way``: mean TV over the columns; ``two_way``: mean TV over the pairs of
        columns (their joint distributions); ``per_column``: each column's TV;
        ``worst_pair``: the pair with the largest TV and its value; ``bins``.
    """
    real_f, syn_f = _frame(real), _frame(synthetic)
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or bins < 2:
        raise ValueError(f"bins must be an integer of 2 or more, got {bins!r}.")
    missing = [c for c in real_f.columns if c not in syn_f.columns]
    if missing:
        raise DataError(f"The synthetic table lacks the columns {missing}.")
    if len(real_f) == 0 or len(syn_f) == 0:
        raise DataError("Both tables need rows to compare their marginals.")
    columns = list(real_f.columns)
    coded = {c: _tv_codes(real_f[c], syn_f[c], int(bins)) for c in columns}
    per_column = {c: _tv(*coded[c]) for c in columns}
    pairs: dict[tuple[str, str], float] = {}
    for i, a in enumerate(columns):
        ra, sa, ka = coded[a]
        for b in columns[i + 1:]:
            rb, sb, kb = coded[b]
            pairs[(a, b)] = _tv(ra * kb + rb, sa * kb + sb, ka * kb)
    worst = max(pairs.items(), key=lambda kv: kv[1]) if pairs else None
    return {
        "one_way": float(np.mean(list(per_column.values()))) if per_column else 0.0,
        "two_way": float(np.mean(list(pairs.values()))) if pairs else float("nan"),
        "per_column": per_column,
        "worst_pair": {"columns": list(worst[0]), "tv": worst[1]} if worst else None,
        "bins": int(bins),
    }
