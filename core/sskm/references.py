"""What SSKM_DP's MSE and record linkage are read against: the raw table and a random release.

A release's information loss (MSE, Eq. 22 of paper 003) and its record-linkage risk (RL,
Eq. 23) say little alone. Two references bracket them:

- **the raw table** (no protection): every record published as it is. MSE 0; RL is the
  share of distinct records (a record with k identical copies is linked with chance 1/k),
  :func:`raw_linkage`. A release whose RL reaches it protects nothing.
- **a random release** (no information): as many rows as records, each drawn uniformly
  within the published columns' bounds and categories (the public schema's in the sound
  mode: a numeric column uniform on its declared range, a categorical one uniform over its
  declared categories and ``(other)``), paired with the records in order. Its MSE is what a
  release that knows nothing about the records loses; its RL is the chance an attacker
  links a record by luck. A release whose MSE reaches it keeps no utility; one whose RL
  sits at it leaves nothing to link.

Both are computed in the publisher's scaled units (:class:`core.sskm.scaled_table.ScaledTable`),
so they sit on the same axes as the releases: over the attributes the page publishes (never the
label nor an identifier) and every record. :func:`reference_scope` says so in words, for the
page to name beside its numbers. Every page draws its random release with
:func:`random_release` (Compare's MSE reference too), so one scope and one seed give one
number; another page's scope covers other columns or rows (Compare's MSE reference covers
every column of its training part, the label included) and is another number for the same
table. The random release is drawn ``repetitions``
times; its numbers carry a 95% t-interval over the draws (:func:`core.evaluation.metrics.mean_interval`).
RL of a random release is exact up to ``max_rows`` records and estimated on a seeded sample
of that many records (each against the whole random release) above it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.evaluation.metrics import below_reference, mean_interval, mse
from core.validation import check_matrix, check_positive_int
from core.runtime.randomness import check_random_state

__all__ = ["RAW", "RANDOM", "raw_linkage", "random_rows", "random_release", "linkage", "references",
           "reference_scope", "reference_sentences", "RANDOM_WORDS", "table_levels", "table_references"]

#: the references' names, as the charts' legends and the tables show them
RAW = "raw table (no protection)"
RANDOM = "random release (no information)"


def raw_linkage(X) -> float:
    """RL of publishing the records as they are: the share of distinct records.

    Each record is at distance 0 from its own row and from its identical copies only, so a
    record with k copies (itself included) is linked with chance 1/k; the mean over records
    is (number of distinct records) / n.
    """
    X = check_matrix(X, name="X", column_vector=True, min_columns=0)
    return float(len(np.unique(X, axis=0)) / len(X))


def random_rows(levels, n: int, *, random_state=None) -> np.ndarray:
    """``n`` rows drawn uniformly in the scaled domain: one column per entry of ``levels``.

    Parameters
    ----------
    levels : sequence of int or None
        Per column: None for a numeric column (uniform on [0, 1]), k >= 2 for a categorical
        one with k categories (codes 0..k-1 scaled to j / (k - 1), each with chance 1/k),
        0 or 1 for a constant column (always 0).
    n : int
        Rows.
    random_state : int, Generator or None
    """
    n = check_positive_int(n, name="n")
    rng = check_random_state(random_state)
    cols = []
    for k in levels:
        if k is None:
            cols.append(rng.uniform(0.0, 1.0, size=n))
        elif int(k) <= 1:
            cols.append(np.zeros(n))
        else:
            cols.append(rng.integers(0, int(k), size=n) / (int(k) - 1))
    return np.column_stack(cols) if cols else np.zeros((n, 0))


def random_release(X, levels, *, random_state=None) -> tuple[np.ndarray, float]:
    """One random release of the records ``X`` and its MSE: the one draw every page reads.

    SSKM_DP's references (:func:`references`) and Compare's MSE reference
    (:func:`core.compare.references.references`) both call it, so that one table, one
    scope and one generator give one number. The rows are :func:`random_rows` of ``levels``:
    each attribute uniform over its public domain, a category on one of its codes (the
    discrete grid), never between two.

    Parameters
    ----------
    X : array_like of shape (n, m)
        The records in scaled units (row i is paired with random row i).
    levels : sequence of int or None
        Per column of ``X``, as :func:`random_rows` (:func:`table_levels` of a ScaledTable).
    random_state : int, Generator or None
        The draws (a reference, not DP noise: a numpy Generator is fine).

    Returns
    -------
    rows : ndarray of shape (n, m)
        The random release.
    mse : float
        Its MSE against ``X`` (:func:`core.evaluation.metrics.mse`, Eq. 22 of paper 003).

    Raises
    ------
    ValueError
        When ``levels`` has not one entry per column of ``X``.
    """
    X = check_matrix(X, name="X", column_vector=True, min_columns=0)
    levels = list(levels)
    if len(levels) != X.shape[1]:
        raise ValueError(f"levels needs one entry per column ({X.shape[1]}), got {len(levels)}.")
    R = random_rows(levels, len(X), random_state=random_state)
    return R, mse(X, R)


def linkage(X, R, *, rows=None) -> float:
    """Record linkage (Eq. 23) of release ``R`` (row i = record i's version) over the
    records ``rows`` of ``X`` (default all): each record against every row of ``R``,
    ties split evenly, as :func:`core.evaluation.metrics.record_linkage`."""
    X = check_matrix(X, name="X", column_vector=True, min_columns=0)
    R = check_matrix(R, name="R", column_vector=True, min_columns=0)
    if X.shape != R.shape:
        raise ValueError(f"X and R must have one shape (record i released as row i), got {X.shape} and {R.shape}.")
    idx = np.arange(len(X)) if rows is None else np.asarray(rows, dtype=np.int64)
    r_sq = np.einsum("ij,ij->i", R, R)
    block = max(1, 4_000_000 // max(1, len(R)))
    total = 0.0
    for start in range(0, len(idx), block):
        part = idx[start:start + block]
        a = X[part]
        d = np.einsum("ij,ij->i", a, a)[:, None] - 2.0 * (a @ R.T) + r_sq[None, :]
        dmin = d.min(axis=1)
        own = d[np.arange(len(part)), part]
        tied = (d <= dmin[:, None]).sum(axis=1)
        total += float(np.sum(np.where(own <= dmin, 1.0 / tied, 0.0)))
    return total / len(idx)


def table_levels(table) -> list[int | None]:
    """Per column of a :class:`core.sskm.scaled_table.ScaledTable`: None (numeric) or its number
    of categories (with a schema: its declared list and '(other)'); 1 for a constant column.
    What :func:`random_rows` takes to draw a release within the table's public domain: a
    category on one of its codes, never between two."""
    out = []
    for j, col in enumerate(table.columns):
        if not table.unit_range[j]:
            out.append(1)
        elif col in table.categories:
            out.append(len(table.categories[col]))
        else:
            out.append(None)
    return out


def references(X, levels, *, repetitions: int = 5, max_rows: int = 2000, random_state=None) -> pd.DataFrame:
    """MSE and RL of the raw table and of a random release, with 95% intervals.

    Parameters
    ----------
    X : array_like of shape (n, m)
        The records in scaled units (what the releases are measured against).
    levels : sequence of int or None
        Per column, as :func:`random_rows`.
    repetitions : int
        Random releases drawn (the interval is over them).
    max_rows : int
        Records whose linkage is computed per random release (all when n is at most this;
        a seeded sample otherwise, each record against the whole release).
    random_state : int, Generator or None

    Returns
    -------
    pandas.DataFrame
        Two rows (``reference`` = :data:`RAW`, :data:`RANDOM`) with ``mse_mean, mse_lo,
        mse_hi, rl_mean, rl_lo, rl_hi`` (RL as a fraction) and ``repetitions``. The raw
        table's numbers are exact (its interval is the value itself).
    """
    X = check_matrix(X, name="X", column_vector=True, min_columns=0)
    levels = list(levels)
    if len(levels) != X.shape[1]:
        raise ValueError(f"levels needs one entry per column ({X.shape[1]}), got {len(levels)}.")
    repetitions = check_positive_int(repetitions, name="repetitions")
    max_rows = check_positive_int(max_rows, name="max_rows")
    rng = check_random_state(random_state)
    n = len(X)
    mses, rls = [], []
    for _ in range(repetitions):
        R, loss = random_release(X, levels, random_state=rng)
        mses.append(loss)
        rows = None if n <= max_rows else np.sort(rng.choice(n, size=max_rows, replace=False))
        rls.append(linkage(X, R, rows=rows))
    raw = raw_linkage(X)
    m, m_lo, m_hi = mean_interval(mses)
    r, r_lo, r_hi = mean_interval(rls)
    # an interval stays within what the measure can be (MSE >= 0, RL in [0, 1])
    m_lo, r_lo, r_hi = max(m_lo, 0.0), max(r_lo, 0.0), min(r_hi, 1.0)
    return pd.DataFrame([
        {"reference": RAW, "mse_mean": 0.0, "mse_lo": 0.0, "mse_hi": 0.0, "rl_mean": raw, "rl_lo": raw,
         "rl_hi": raw, "repetitions": 1},
        {"reference": RANDOM, "mse_mean": m, "mse_lo": m_lo, "mse_hi": m_hi, "rl_mean": r, "rl_lo": r_lo,
         "rl_hi": r_hi, "repetitions": repetitions},
    ])


def table_references(table, *, repetitions: int = 5, max_rows: int = 2000, random_state=None) -> pd.DataFrame:
    """:func:`references` for a :class:`core.sskm.scaled_table.ScaledTable` (its scaled records,
    a random release within its bounds and categories)."""
    return references(table.X, table_levels(table), repetitions=repetitions, max_rows=max_rows,
                      random_state=random_state)


def reference_scope(table) -> str:
    """What :func:`table_references` of ``table`` (and every release measured on it) is measured
    over, in words: "9 attributes of 3,000 records". A page names it beside its numbers, since
    another page measures another scope of the same table (see the module's docstring).

    Parameters
    ----------
    table : ScaledTable
        The publisher's scaled records (what its releases are measured against).
    """
    X = getattr(table, "X", None)
    if not isinstance(X, np.ndarray) or X.ndim != 2:
        raise TypeError(f"table must be a ScaledTable, got {type(table).__name__}.")
    n, m = X.shape
    return f"{m} attribute{'' if m == 1 else 's'} of {n:,} record{'' if n == 1 else 's'}"


#: how a random release draws its rows, in words (:func:`random_rows`)
RANDOM_WORDS = "each number drawn uniformly within its bounds, each category uniformly over its list"


def _row(refs: pd.DataFrame, name: str) -> pd.Series:
    if not isinstance(refs, pd.DataFrame) or "reference" not in refs.columns:
        raise TypeError("refs must be the DataFrame of references().")
    hit = refs[refs["reference"] == name]
    if hit.empty:
        raise ValueError(f"refs lack the reference {name!r}.")
    return hit.iloc[0]


def reference_sentences(mse: float, rl: float, refs: pd.DataFrame, *, what: str = "This release") -> list[str]:
    """Sentences for a release that is no better than a reference: on utility, MSE at or above
    a random release's (the low end of its interval); on privacy, RL at or above the raw
    table's. Empty when neither applies.

    Parameters
    ----------
    mse, rl : float
        The release's MSE and RL (RL as a fraction).
    refs : pandas.DataFrame
        :func:`references`.
    what : str
        How the sentences name the release.
    """
    rand, raw = _row(refs, RANDOM), _row(refs, RAW)
    out = []
    floor = float(rand["mse_lo"]) if np.isfinite(rand["mse_lo"]) else float(rand["mse_mean"])
    said = below_reference(float(mse), floor, what="a random release's MSE", higher_is_better=False)
    if said is not None:
        out.append(f"{what} is no better than a random release on utility: its MSE {float(mse):.3g} is at or above "
                   f"what rows drawn at random within the bounds lose ({float(rand['mse_mean']):.3g}, 95% interval "
                   f"{float(rand['mse_lo']):.3g}-{float(rand['mse_hi']):.3g}).")
    if np.isfinite(rl) and float(rl) >= float(raw["rl_mean"]) and float(raw["rl_mean"]) > 0:
        out.append(f"{what} is no more private than the raw table: its record linkage {100 * float(rl):.3g} % is at "
                   f"or above publishing the records as they are ({100 * float(raw['rl_mean']):.3g} %).")
    return out
