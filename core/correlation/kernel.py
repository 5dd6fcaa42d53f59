"""The thresholded record correlation delta_ij of paper 000, evaluated block by block.

delta_ij is |Pearson(x_i, x_j)| across the attributes of two records, or
1 / (1 + Mahalanobis(x_i, x_j)), set to 0 below a threshold delta0 (Eqs. 12-15 of paper
000; docs/design.md sections 3-4). :class:`_Kernel` prepares the rows once and gives the
correlated pairs of one block of rows x columns from a float32 BLAS product, recomputing
in float64 the entries near the cut, so the set of pairs is exactly the float64 one.
:func:`_prepare` checks the inputs of a pass and builds its kernel; the passes themselves
(sums, sensitivity, the sparse matrix) are in :mod:`core.correlation.records`.
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable, Iterator

import numpy as np

from core.validation import check_matrix, check_positive_int

_MEASURES = ("pearson", "mahalanobis")
_EPS32 = float(np.finfo(np.float32).eps)


def _check_measure(measure: Any) -> str:
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a string, got {type(measure).__name__}.")
    if measure not in _MEASURES:
        raise ValueError(f"measure must be 'pearson' or 'mahalanobis', got {measure!r}.")
    return measure


def _check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {type(threshold).__name__}.")
    value = float(threshold)
    if not (0.0 < value <= 1.0):  # false for NaN too
        raise ValueError(
            f"threshold (delta0) must lie in (0, 1]: correlations below it count as 0; got {value:g}."
        )
    return value


def _pearson_rows(X: np.ndarray) -> np.ndarray:
    """Rows centred across their features and scaled to unit norm: a_i . a_j = r_ij.

    A record whose features are all equal has no defined Pearson correlation; its row is
    left at 0, so it correlates with nothing but itself.
    """
    rows = X - X.mean(axis=1, keepdims=True)
    norm = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    ok = norm > 1e-12 * max(1.0, float(np.abs(X).max(initial=0.0)))
    rows[ok] /= norm[ok, None]
    rows[~ok] = 0.0
    return rows


def _whiten(X: np.ndarray) -> np.ndarray:
    """Coordinates in which Euclidean distance is the Mahalanobis distance of ``X``.

    Uses the feature covariance; directions of zero variance are dropped, which is the
    pseudo-inverse of a singular covariance.
    """
    centred = X - X.mean(axis=0)
    if len(X) < 2:
        return np.zeros((len(X), 0))
    covariance = np.atleast_2d(np.cov(centred, rowvar=False))
    variances, axes = np.linalg.eigh(covariance)
    keep = variances > max(variances.max(initial=0.0), 0.0) * 1e-10
    if not keep.any():
        return np.zeros((len(X), 0))
    return centred @ (axes[:, keep] / np.sqrt(variances[keep]))


class _Workspace:
    """Reusable buffers of one thread's or task's blocks: the float32 product and its mask."""

    def __init__(self, rows: int, cols: int) -> None:
        self.product = np.empty(rows * cols, dtype=np.float32)
        self.mask = np.empty(rows * cols, dtype=bool)


class _Kernel:
    """Blocked evaluation of the thresholded correlation delta_ij of all record pairs.

    Each block pair (I, J) with J >= I (symmetry) is one float32 BLAS product
    ``left[I] @ right[J].T``; entries that clear the cut by more than the float32 error
    bound (``margin``) are taken as they are, entries within the bound are recomputed in
    float64 from ``exact_rows``, so the set of correlated pairs is exactly the float64 one,
    and values agree to float32 rounding.
    """

    def __init__(self, X: np.ndarray, measure: str, threshold: float) -> None:
        self.measure = measure
        self.threshold = threshold
        self.n = len(X)
        if measure == "pearson":
            self.exact_rows = _pearson_rows(X)
            width = self.exact_rows.shape[1]
            self.left = self.right = np.ascontiguousarray(self.exact_rows, dtype=np.float32)
            self.cut = threshold
            self.margin = 8.0 * (width + 2) * _EPS32
        else:
            whitened = _whiten(X)
            self.exact_rows = whitened
            width = whitened.shape[1]
            sq_norms = np.einsum("ij,ij->i", whitened, whitened)
            half_norms, ones = -0.5 * sq_norms[:, None], np.ones((self.n, 1))
            # [z_i, -|z_i|^2/2, 1] . [z_j, 1, -|z_j|^2/2] = -d_ij^2 / 2
            self.left = np.ascontiguousarray(np.hstack([whitened, half_norms, ones]), dtype=np.float32)
            self.right = np.ascontiguousarray(np.hstack([whitened, ones, half_norms]), dtype=np.float32)
            max_distance = 1.0 / threshold - 1.0  # m_ij >= t  <=>  d_ij <= 1/t - 1
            self.cut = -0.5 * max_distance * max_distance
            self.margin = 8.0 * (width + 3) * _EPS32 * (float(sq_norms.max(initial=0.0)) + 1.0)

    def exact(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """delta_ij in float64 (unthresholded) for the record index arrays ``rows``, ``cols``."""
        a, b = self.exact_rows[rows], self.exact_rows[cols]
        if self.measure == "pearson":
            return np.abs(np.einsum("ij,ij->i", a, b))
        diff = a - b
        return 1.0 / (1.0 + np.sqrt(np.einsum("ij,ij->i", diff, diff)))

    def block(
        self, i0: int, i1: int, j0: int, j1: int, workspace: _Workspace | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs (i, j), i < j, of rows [i0, i1) x [j0, j1) with delta_ij >= threshold, and the values.

        ``workspace`` (of at least this block's size) holds the product and the mask, so
        a pass over many blocks allocates neither again: with Dask's worker default
        ``MALLOC_TRIM_THRESHOLD_`` every fresh 4 MB buffer would be a new mmap, twice as slow.
        """
        if workspace is None:
            workspace = _Workspace(i1 - i0, j1 - j0)
        shape = (i1 - i0, j1 - j0)
        product = workspace.product[:shape[0] * shape[1]].reshape(shape)
        np.matmul(self.left[i0:i1], self.right[j0:j1].T, out=product)
        if self.measure == "pearson":
            np.abs(product, out=product)
        mask = workspace.mask[:product.size].reshape(shape)
        candidates = np.flatnonzero(np.greater_equal(product, self.cut - self.margin, out=mask))
        rows, cols = np.divmod(candidates, j1 - j0)
        values = product.ravel()[candidates].astype(np.float64)
        if i0 == j0:
            upper = cols > rows
            rows, cols, values = rows[upper], cols[upper], values[upper]
        rows += i0
        cols += j0
        near = np.abs(values - self.cut) <= self.margin
        if self.measure == "mahalanobis":
            near[:] = True  # m_ij needs a square root anyway: recompute every candidate
        if near.any():
            exact = self.exact(rows[near], cols[near])
            values[near] = exact
            if self.measure == "mahalanobis":
                keep = values >= self.threshold
            else:
                keep = np.ones(len(values), dtype=bool)
                keep[near] = exact >= self.threshold
            rows, cols, values = rows[keep], cols[keep], values[keep]
        return rows, cols, values


def _default_block(n: int) -> int:
    # ~4 MB float32 product blocks: they stay in cache for the abs / compare passes
    return int(max(64, min(n, 1024)))


def _iter_blocks(n: int, block: int, row_starts: Iterable[int] | None = None) -> Iterator[tuple[int, int, int, int]]:
    """(i0, i1, j0, j1) of the blocks on or above the diagonal, for the given block rows."""
    for i0 in range(0, n, block) if row_starts is None else row_starts:
        i1 = min(n, i0 + block)
        for j0 in range(i0, n, block):
            yield i0, i1, j0, min(n, j0 + block)


def _prepare(X: Any, measure: Any, threshold: Any, block_rows: Any) -> tuple[_Kernel, int, int]:
    """Validate the inputs of a blocked pass; return its kernel, the row count and block size."""
    matrix = check_matrix(X)
    kernel = _Kernel(matrix, _check_measure(measure), _check_threshold(threshold))
    n = len(matrix)
    if block_rows is None:
        return kernel, n, _default_block(n)
    return kernel, n, check_positive_int(block_rows, name="block_rows")
