"""A cluster release that keeps each column's distribution and the label's relation.

Emitting every row of a cluster at its (noisy) centre, the former release of the sound
SSKM_DP and of IDP-KMeans, loses what a classifier learns from: a category column decoded
from the mean of its codes names a category few of the cluster's records hold, the label is
rounded to the cluster's majority, and the released table holds as many distinct rows as
clusters, so a model trained on it splits between a hundred points. On Adult
(``benchmarks/bench_cluster_utility.py``, Compare's utility) the sound SSKM_DP released that
way scores 0.72-0.76 accuracy at epsilon 0.5-4 against a constant guess of 0.757, and
0.815-0.832 released as below (real rows: 0.870). Even without noise the centres are the
loss: on exact k-means clusters of Adult (measured once for issue 37) rows at the centres
gave 0.77, rows drawn from the clusters' cells 0.84.

This module releases, for every cluster, a noisy count and the noisy counts of the cells of
every column: a category column's cells are its schema domain (the declared list plus
OTHER), a number's cells are :data:`NUMERIC_BINS` equal bins of its declared range (one cell
per value when a whole-number column has at most that many). Replacing one record moves it
out of one cluster and into another: the count changes by 2 in L1 and each column's cells by
2, so the whole vector has L1 sensitivity 2(1 + m) for m counted columns, as the former
(counts, sums) vector did. Every entry is an integer count, so the exact discrete Laplace of
:func:`core.privacy.sampler.laplace_on_grid` noises it on the integer grid with no rounding.

When the schema names a categorical label that the table holds, the clusters are split by
its categories (:func:`cell_layout` with ``stratify``): each cluster holds records of one
label category, the label needs no cells of its own (m is one less) and every row a cluster
emits carries its category. A record's stratum is a function of that record alone, so the
split costs nothing and one replaced record still touches two clusters.

Rows are post-processing (:func:`emit_rows`). The release holds exactly n rows, as many as
the table has records: under the project's neighbouring relation (one record replaced by
another) n is public, so :func:`apportion_rows` shares n among the clusters whose noisy count
clears :data:`EMIT_THRESHOLD` noise scales, in proportion to their noisy counts (largest
remainders), a function of the noisy counts and n alone. Each row draws every
column from the cluster's noisy cells, projected onto the counts that sum to the noisy
count (the Euclidean projection onto the simplex, which removes the mass the noise adds to
empty cells); a number is drawn uniformly within its bin. :func:`cluster_count` sizes the
clusters from n, m and epsilon alone, so that an average cluster holds
:data:`RECORDS_PER_NOISE` noise scales of records.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.privacy.sampler import laplace_on_grid
from core.runtime.randomness import RandomState, check_random_state
from core.sskm.scaled_table import ScaledTable
from core.validation import check_epsilon, check_positive_int

__all__ = [
    "EMIT_THRESHOLD",
    "NUMERIC_BINS",
    "RECORDS_PER_NOISE",
    "CellLayout",
    "apportion_rows",
    "EmittedRows",
    "cell_layout",
    "cluster_count",
    "emit_rows",
    "exact_cells",
    "noisy_cells",
    "project_simplex",
    "record_cells",
    "record_strata",
    "stratum_clusters",
]

#: equal bins of a numeric column's declared range (a whole-number column with at most this
#: many values gets one cell per value)
NUMERIC_BINS = 8
#: clusters are sized so that an average one holds this many noise scales of records
RECORDS_PER_NOISE = 10.0
#: a cluster emits rows only when its noisy count reaches this many noise scales: an empty
#: cluster then emits with probability about exp(-2) / 2 (7 %) (:func:`apportion_rows`)
EMIT_THRESHOLD = 2.0


@dataclass(frozen=True)
class CellLayout:
    """Which cells a cluster release counts, column by column (all public: from the schema).

    Attributes
    ----------
    columns : tuple of str
        The table's columns, in order.
    cells : tuple of int
        Cells of each column (0 for the label that splits the clusters: it is not counted).
    kinds : tuple of str
        Per column: "category" (codes over the domain), "value" (a whole number, one cell
        per value), "bin" (equal bins of the range) or "label" (the stratifying label).
    label : int or None
        Index of the label column that splits the clusters, or None.
    strata : int
        Categories of that label (its domain, OTHER included); 1 without one.
    integers : tuple
        Per column: (lo, hi) of a whole-number column counted in bins (its rows are drawn
        among the whole numbers of their bin, so that decoding keeps them in it), else None.
    """

    columns: tuple[str, ...]
    cells: tuple[int, ...]
    kinds: tuple[str, ...]
    label: int | None
    strata: int
    integers: tuple = ()

    @property
    def counted(self) -> tuple[int, ...]:
        """Indices of the columns whose cells are counted."""
        return tuple(j for j, k in enumerate(self.kinds) if k != "label")

    @property
    def offsets(self) -> np.ndarray:
        """Where each column's cells start in a cluster's row of cells."""
        return np.concatenate([[0], np.cumsum(self.cells)[:-1]]).astype(np.int64)

    @property
    def width(self) -> int:
        """Cells per cluster, all columns together."""
        return int(sum(self.cells))

    @property
    def sensitivity(self) -> float:
        """L1 sensitivity of one cluster release's (counts, cells) vector under replacement:
        2 for the counts and 2 for each counted column."""
        return 2.0 * (1 + len(self.counted))


def _small_integer(table: ScaledTable, j: int) -> bool:
    span = table.hi[j] - table.lo[j]
    return table.columns[j] in table.integer and 0 < span < NUMERIC_BINS and float(span).is_integer()


def cell_layout(table: ScaledTable, *, stratify: bool = True) -> CellLayout:
    """The cells of ``table``'s columns; with ``stratify``, split by the schema's label.

    Parameters
    ----------
    table : ScaledTable
        The scaled table (its categories and bounds are the schema's when it has one).
    stratify : bool
        Split the clusters by the label's categories when the table's schema names a label
        that is one of its categorical columns (the label's role is public).
    """
    if not isinstance(table, ScaledTable):
        raise TypeError(f"table must be a ScaledTable, got {type(table).__name__}.")
    label = None
    if stratify and table.schema is not None:
        name = table.schema.label
        if name in table.categories and len(table.categories[name]) >= 2 and len(table.columns) >= 2:
            label = table.columns.index(name)
    cells, kinds = [], []
    for j, col in enumerate(table.columns):
        if j == label:
            cells.append(0)
            kinds.append("label")
        elif col in table.categories:
            cells.append(len(table.categories[col]))
            kinds.append("category")
        elif _small_integer(table, j):
            cells.append(int(table.hi[j] - table.lo[j]) + 1)
            kinds.append("value")
        else:
            cells.append(NUMERIC_BINS)
            kinds.append("bin")
    strata = 1 if label is None else len(table.categories[table.columns[label]])
    integers = tuple((float(table.lo[j]), float(table.hi[j]))
                     if kinds[j] == "bin" and col in table.integer and table.hi[j] > table.lo[j] else None
                     for j, col in enumerate(table.columns))
    return CellLayout(tuple(table.columns), tuple(cells), tuple(kinds), label, strata, integers)


def _codes(x: np.ndarray, kind: str, cells: int) -> np.ndarray:
    if kind == "bin":
        return np.minimum((x * cells).astype(np.int64), cells - 1)
    return np.rint(x * max(cells - 1, 1)).astype(np.int64)


def record_cells(table: ScaledTable, layout: CellLayout) -> np.ndarray:
    """Each record's cell in each counted column, as an index into a cluster's row of
    cells, shape (n, counted columns); a function of the record alone."""
    X = table.X
    offsets = layout.offsets
    out = [offsets[j] + _codes(X[:, j], layout.kinds[j], layout.cells[j]) for j in layout.counted]
    return np.column_stack(out) if out else np.zeros((len(X), 0), dtype=np.int64)


def record_strata(table: ScaledTable, layout: CellLayout) -> np.ndarray:
    """Each record's stratum: its label's code over the label's domain (0 without a label)."""
    if layout.label is None:
        return np.zeros(len(table.X), dtype=np.int64)
    return np.rint(table.X[:, layout.label] * (layout.strata - 1)).astype(np.int64)


def exact_cells(cells: np.ndarray, labels: np.ndarray, n_clusters: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact (private) counts (K,) and cell counts (K, width) of a partition."""
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    flat = (labels[:, None] * width + cells).ravel()
    table = np.bincount(flat, minlength=n_clusters * width).astype(np.float64).reshape(n_clusters, width)
    return counts, table


def noisy_cells(cells: np.ndarray, labels: np.ndarray, n_clusters: int, layout: CellLayout, epsilon: float,
                noise: RandomState) -> tuple[np.ndarray, np.ndarray, list]:
    """Every cluster's count and cell counts with exact discrete Laplace noise (epsilon-DP).

    Parameters
    ----------
    cells : ndarray of shape (n, counted columns)
        :func:`record_cells`.
    labels : ndarray of shape (n,)
        Each record's cluster (from a public map or public centres).
    n_clusters : int
        K; every cluster is released, empty ones included (which are empty is private).
    layout : CellLayout
    epsilon : float
        What the release spends: epsilon / (m + 1) on the counts (L1 sensitivity 2) and
        epsilon m / (m + 1) on the cells (L1 sensitivity 2m), so every entry gets noise of
        scale 2(m + 1) / epsilon (:attr:`CellLayout.sensitivity` / epsilon).
    noise : int, Generator or None
        The noise's generator.

    Returns
    -------
    noisy_counts : ndarray of shape (K,)
    noisy_cells : ndarray of shape (K, width)
    parts : list of (epsilon, GridNoise)
        The counts' and the cells' spends, for the ledger.
    """
    eps = check_epsilon(epsilon)
    m = len(layout.counted)
    counts, table = exact_cells(cells, labels, n_clusters, layout.width)
    eps_c, eps_s = eps / (m + 1), eps * m / (m + 1)
    noisy_counts, g_c = laplace_on_grid(counts, sensitivity=2.0, epsilon=eps_c, grid=1.0, on_grid=True,
                                        coordinates=2, random_state=noise)
    parts = [(eps_c, g_c)]
    if m:
        noisy_table, g_s = laplace_on_grid(table, sensitivity=2.0 * m, epsilon=eps_s, grid=1.0, on_grid=True,
                                           coordinates=2 * m, random_state=noise)
        parts.append((eps_s, g_s))
    else:
        noisy_table = table
    return noisy_counts, noisy_table, parts


def cluster_count(n: int, layout: CellLayout, epsilon: float, *, max_clusters: int) -> int:
    """Clusters of a release of ``n`` records at ``epsilon``: n over :data:`RECORDS_PER_NOISE`
    noise scales (2(m + 1) / epsilon), between 1 and ``max_clusters``. Public: n, the layout
    (from the schema) and epsilon."""
    check_positive_int(n, name="n")
    check_positive_int(max_clusters, name="max_clusters")
    scale = layout.sensitivity / check_epsilon(epsilon)
    return int(min(max_clusters, max(1, math.floor(n / (RECORDS_PER_NOISE * scale)))))


def stratum_clusters(total: int, layout: CellLayout) -> np.ndarray:
    """Clusters per stratum for ``total`` clusters: the declared label categories share them
    evenly (at least one each) and OTHER, the last, gets one; all of them without a label."""
    total = check_positive_int(total, name="total")
    if layout.label is None:
        return np.array([total], dtype=np.int64)
    declared = layout.strata - 1
    per = max(1, total // declared)
    return np.array([per] * declared + [1], dtype=np.int64)


def project_simplex(H: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Each row of ``H`` projected (Euclidean) onto {h >= 0, sum h = total}: the nearest
    non-negative counts with the row's total (post-processing of noisy counts)."""
    H = np.asarray(H, dtype=np.float64)
    totals = np.maximum(np.asarray(totals, dtype=np.float64), 0.0)
    K, k = H.shape
    if k == 0:
        return H.copy()
    U = -np.sort(-H, axis=1)
    css = np.cumsum(U, axis=1) - totals[:, None]
    ok = U - css / np.arange(1, k + 1) > 0
    rho = np.where(ok.any(axis=1), k - 1 - np.argmax(ok[:, ::-1], axis=1), 0)  # a zero total: all zero
    theta = css[np.arange(K), rho] / (rho + 1)
    return np.maximum(H - theta[:, None], 0.0)


def apportion_rows(noisy_counts: np.ndarray, n: int, *, threshold: float) -> np.ndarray:
    """Rows per cluster, exactly ``n`` in all: n shared in proportion to the noisy counts.

    Post-processing: a function of the noisy counts and of n, which is public under the
    project's neighbouring relation (one record replaced by another keeps n), so it costs no
    epsilon and reads no record. The rule:

    1. The clusters whose noisy count reaches ``threshold`` share the rows, each in
       proportion to its noisy count; every other cluster gets none.
    2. When no cluster reaches it, every cluster shares them in proportion to its noisy count
       clipped at 0, and equally when all of those are 0 (n rows must come from somewhere).
    3. Each cluster gets the whole part of its share n w_k / sum(w); the rows left over go one
       each to the largest fractional parts, ties to the lower cluster index (Hamilton's
       largest-remainder method: deterministic, no draw).

    Parameters
    ----------
    noisy_counts : array_like of shape (K,)
        The clusters' noisy counts (K >= 1).
    n : int
        Rows to release: the table's number of records (public), at least 1.
    threshold : float
        The noisy count from which a cluster emits rows (:data:`EMIT_THRESHOLD` noise scales).

    Returns
    -------
    ndarray of int64, shape (K,)
        Rows per cluster, non-negative, summing to ``n``.

    Raises
    ------
    ValueError
        When ``noisy_counts`` is empty or not finite, or ``threshold`` is not finite.
    """
    n = check_positive_int(n, name="n")
    counts = np.asarray(noisy_counts, dtype=np.float64).ravel()
    if counts.size == 0 or not np.all(np.isfinite(counts)):
        raise ValueError("noisy_counts must hold one finite noisy count per cluster, at least one cluster.")
    if not np.isfinite(float(threshold)):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}.")
    keep = counts >= float(threshold)
    weights = np.where(keep, counts, 0.0) if keep.any() else np.maximum(counts, 0.0)
    if weights.sum() <= 0:
        weights = np.ones_like(counts)
    quota = n * weights / weights.sum()
    rows = np.floor(quota).astype(np.int64)
    left = n - int(rows.sum())
    order = np.argsort(-(quota - rows), kind="stable")  # largest remainder first, ties by index
    rows[order[:left]] += 1
    return rows


@dataclass
class EmittedRows:
    """Rows drawn from a cluster release (post-processing).

    Attributes
    ----------
    rows : ndarray of shape (r, m)
        The rows in the table's [0, 1] units, shuffled (decode with ``ScaledTable.decode``).
    row_cluster : ndarray of shape (r,)
        The cluster each row was drawn from.
    row_counts : ndarray of int, shape (K,)
        Rows per cluster.
    centres : ndarray of shape (K, m)
        The mean of each cluster's released distribution, in [0, 1] units: what its rows
        are drawn around.
    """

    rows: np.ndarray
    row_cluster: np.ndarray
    row_counts: np.ndarray
    centres: np.ndarray


def _column_distributions(noisy_table: np.ndarray, totals: np.ndarray, layout: CellLayout) -> list:
    out = []
    for j, start in zip(range(len(layout.columns)), layout.offsets):
        k = layout.cells[j]
        if k == 0:
            out.append(None)
            continue
        P = project_simplex(noisy_table[:, start:start + k], totals)
        s = P.sum(axis=1, keepdims=True)
        out.append(np.where(s > 0, P / np.where(s > 0, s, 1.0), 1.0 / k))
    return out


def _cell_values(kind: str, k: int) -> np.ndarray:
    """Where each cell sits in [0, 1] units (a bin's middle)."""
    if kind == "bin":
        return (np.arange(k) + 0.5) / k
    return np.arange(k) / max(k - 1, 1)


def _in_bin(cell: np.ndarray, k: int, integer: tuple | None, rng: np.random.Generator) -> np.ndarray:
    """A value drawn uniformly in each row's bin, in [0, 1] units; for a whole-number column
    (``integer`` its (lo, hi)) among the whole numbers of the bin."""
    u = rng.random(len(cell))
    if integer is None:
        return (cell + u) / k
    lo, hi = integer
    span = hi - lo
    edges = lo + np.arange(k + 1) * span / k
    first = np.ceil(edges[:-1] - 1e-9)
    last = np.ceil(edges[1:] - 1e-9) - 1
    last[-1] = np.floor(hi + 1e-9)
    size = last - first + 1
    value = np.where(size[cell] >= 1, first[cell] + np.floor(u * np.maximum(size[cell], 1)), edges[cell] + u * span / k)
    return (value - lo) / span


def emit_rows(layout: CellLayout, noisy_counts: np.ndarray, noisy_table: np.ndarray, cluster_strata: np.ndarray, *,
              n: int, scale: float, random_state: RandomState = None) -> EmittedRows:
    """Rows drawn from a cluster release; post-processing of the noisy vector (no cost).

    Exactly ``n`` rows, the table's number of records (public under the project's
    neighbouring relation): :func:`apportion_rows` shares them among the clusters whose noisy
    count reaches :data:`EMIT_THRESHOLD` x ``scale``, in proportion to their noisy counts
    (every cluster when none reaches it). Each row draws each column on its
    own from the cluster's noisy cells projected onto the simplex of the noisy count
    (:func:`project_simplex`); a bin's number is drawn uniformly within the bin. The label
    that splits the clusters is the cluster's stratum.

    Parameters
    ----------
    layout : CellLayout
    noisy_counts, noisy_table : ndarray
        :func:`noisy_cells`.
    cluster_strata : ndarray of int, shape (K,)
        Each cluster's label category (zeros without a label).
    n : int
        Rows to emit: the table's number of records (public), at least 1.
    scale : float
        The noise scale of the counts (public).
    random_state : int, Generator or None
        The draws (post-processing: they read only the noisy vector).

    Returns
    -------
    EmittedRows
        ``n`` rows; ``row_counts`` sums to ``n``.
    """
    rng = check_random_state(random_state)
    noisy_counts = np.asarray(noisy_counts, dtype=np.float64)
    K, m = len(noisy_counts), len(layout.columns)
    row_counts = apportion_rows(noisy_counts, n, threshold=EMIT_THRESHOLD * float(scale))
    row_cluster = np.repeat(np.arange(K), row_counts)
    rows = np.zeros((len(row_cluster), m))
    centres = np.zeros((K, m))
    dists = _column_distributions(noisy_table, np.maximum(noisy_counts, 1.0), layout)
    for j, (kind, k, P) in enumerate(zip(layout.kinds, layout.cells, dists)):
        if kind == "label":
            value = np.asarray(cluster_strata, dtype=np.float64) / max(layout.strata - 1, 1)
            centres[:, j] = value
            rows[:, j] = value[row_cluster]
            continue
        values = _cell_values(kind, k)
        centres[:, j] = P @ values
        cum = np.cumsum(P, axis=1)
        cum[:, -1] = 1.0
        u = rng.random(len(row_cluster))
        cell = np.minimum((u[:, None] > cum[row_cluster]).sum(axis=1), k - 1)
        if kind == "bin":
            rows[:, j] = _in_bin(cell, k, layout.integers[j] if layout.integers else None, rng)
        else:
            rows[:, j] = values[cell]
    order = rng.permutation(len(row_cluster))
    return EmittedRows(np.clip(rows[order], 0.0, 1.0), row_cluster[order], row_counts, centres)
