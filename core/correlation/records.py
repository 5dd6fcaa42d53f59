"""Record correlation and the correlated / group sensitivity of a count query (paper 000).

The correlation delta_ij of two records is |Pearson(x_i, x_j)| across their attributes or
1 / (1 + Mahalanobis(x_i, x_j)), set to 0 below a threshold delta0 (Eqs. 12-15 of paper
000; docs/design.md sections 3-4). The n x n matrix is evaluated in blocks and never held
whole, except by :func:`record_correlation` for small samples; the blocks themselves are
:mod:`core.correlation.kernel`'s.

:func:`correlated_sensitivity` runs its blocks on threads of this process, or as tasks on
a Dask cluster (:mod:`core.runtime.compute`). Its per-record sums are accumulated in exact integer
(fixed-point) arithmetic, so they are the same bit for bit however the blocks are split
among threads or workers and in whatever order the parts are added.
"""
from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from core.correlation.kernel import _iter_blocks, _Kernel, _prepare, _Workspace
from core.runtime import compute
from core.runtime.progress import Progress, Stop, watch
from core.runtime.threads import blas_limit
from core.validation import DataError

__all__ = [
    "SensitivityReport",
    "correlated_sensitivity",
    "record_correlation",
    "data_correlation",
]

#: Up to this many records the blocks run on one thread (in this process).
_SMALL_N = 8192
#: At most this many threads share the blocks in this process.
_MAX_THREADS = 4
#: Tasks per cluster worker thread (equal-cost stripes; a few each absorb a slow worker).
_TASKS_PER_WORKER = 2


@dataclass(frozen=True)
class SensitivityReport:
    """Sensitivities of a count query under record correlation.

    Attributes
    ----------
    correlated : float
        Correlated sensitivity CS = max_i sum_j delta_ij (Eq. 16 with a unit query change):
        the most that one record, through the records correlated with it, can move a count.
    group : float
        Group sensitivity GS = max_i #{j : delta_ij >= delta0} (the Group scheme of Chen et
        al. 2014): every correlated record counted as fully correlated. CS <= GS always.
    per_record : ndarray of shape (n,)
        sum_j delta_ij for every record i (its own 1 included).
    per_record_count : ndarray of shape (n,)
        #{j : delta_ij >= delta0} for every record i (itself included).
    measure : str
        "pearson" or "mahalanobis".
    threshold : float
        delta0: correlations below it count as 0.
    """

    correlated: float
    group: float
    per_record: np.ndarray
    per_record_count: np.ndarray
    measure: str
    threshold: float

    @property
    def data_correlation(self) -> float:
        """C(x) = sum over i < j of the thresholded delta_ij."""
        return float((self.per_record.sum() - len(self.per_record)) / 2.0)



def _fixed_point_scale(n: int) -> float:
    """2**s, the fixed-point scale of per-record sums over ``n`` records.

    A record's sum is at most about n (every delta_ij <= 1), so n * 2**s < 2**63 always
    fits an int64; s is as large as that allows (2**-s is at most 3e-11 up to 10**8 records,
    far under the float32 rounding of the values themselves). A function of n only.
    """
    return float(2.0 ** (62 - int(n).bit_length()))


def _stripe_sums(
    kernel: _Kernel, n: int, block: int, row_starts: Sequence[int],
    on_block: Callable[[], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-record sums and counts of delta_ij (i != j) over the blocks of ``row_starts``.

    The sums are fixed-point int64 (times :func:`_fixed_point_scale`): each block's
    per-record partial sum (float64, in the block's own fixed order) is rounded to the
    fixed-point grid and then added as an integer. Integer addition is exact, so the total
    of any split of the blocks, added in any order, is the same bit for bit; the rounding
    costs at most 2**-(s+1) per block and record. ``on_block()`` is called before each
    block: progress, and a chance to stop.
    """
    scale = _fixed_point_scale(n)
    sums = np.zeros(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    side = min(block, n)
    workspace = _Workspace(side, side)
    for i0, i1, j0, j1 in _iter_blocks(n, block, row_starts):
        if on_block is not None:
            on_block()
        rows, cols, values = kernel.block(i0, i1, j0, j1, workspace)
        if len(rows):
            sums[i0:i1] += _fixed(np.bincount(rows - i0, weights=values, minlength=i1 - i0), scale)
            sums[j0:j1] += _fixed(np.bincount(cols - j0, weights=values, minlength=j1 - j0), scale)
            counts[i0:i1] += np.bincount(rows - i0, minlength=i1 - i0)
            counts[j0:j1] += np.bincount(cols - j0, minlength=j1 - j0)
    return sums, counts


def _fixed(part: np.ndarray, scale: float) -> np.ndarray:
    """``part`` (float64 sums >= 0, overwritten) on the fixed-point grid of ``scale``, as int64."""
    part *= scale  # a power of two: exact
    np.rint(part, out=part)
    return part.astype(np.int64)


def _stripes(n_block_rows: int, parts: int) -> list[list[int]]:
    """Block-row indices cut into ``parts`` interleaved stripes (stripe k: rows k, k+parts, ...).

    Block row r of the upper triangle has ``n_block_rows - r`` blocks, so interleaving
    gives every stripe about the same work.
    """
    parts = max(1, min(parts, n_block_rows))
    return [list(range(k, n_block_rows, parts)) for k in range(parts)]


def _stripe_task(rows: Sequence[int], kernel: _Kernel, n: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """A cluster task: :func:`_stripe_sums` of the block rows ``rows`` (their indices).

    ``kernel`` is shared (sent to each worker once); the task holds one block product
    (block x block float32) and two length-n vectors, never n x n. One BLAS thread, as
    in this process, so the products are computed the same way.
    """
    with blas_limit(1):
        return _stripe_sums(kernel, n, block, [r * block for r in rows])


def _cluster_parts(n_block_rows: int, scheduler: str | None) -> int:
    """How many stripe tasks to send: about :data:`_TASKS_PER_WORKER` per worker thread
    (the client adds each task's sums as it arrives, so it holds one at a time)."""
    workers = compute.default_workers(scheduler)
    return max(1, min(n_block_rows, _TASKS_PER_WORKER * workers))


def _block_counter(n: int, block: int, progress: Progress | None) -> Callable[[], None] | None:
    """A thread-safe ``on_block`` that reports the share of the upper triangle's blocks done."""
    if progress is None:
        return None
    starts = len(range(0, n, block))
    total = starts * (starts + 1) // 2
    done = itertools.count()
    lock = threading.Lock()

    def on_block() -> None:
        with lock:
            k = next(done)
        if k % 8 == 0:  # often enough to stop quickly, rarely enough to cost nothing
            progress(k / total, f"block {k + 1} of {total}")

    return on_block


def correlated_sensitivity(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
    scheduler: str | None = None,
) -> SensitivityReport:
    """Correlated (CS) and group (GS) sensitivity of a count query on the records of ``X``.

    The record correlation delta_ij is |Pearson(x_i, x_j)| across the attributes of the
    two records, or m_ij = 1 / (1 + Mahalanobis(x_i, x_j)) with the feature covariance;
    values below ``threshold`` become 0 and the diagonal is 1 (Eqs. 12-15 of paper 000).
    The n x n matrix is never held: row blocks of ``block_rows`` are multiplied in
    float32 with BLAS (only blocks on or above the diagonal, by symmetry), and the row
    sums are accumulated.

    The blocks run on up to 4 threads of this process, or, when a scheduler is
    configured, as tasks on a Dask cluster: stripes of block rows (about two per worker),
    the prepared rows sent to each worker once, each task holding one block and two
    length-n vectors. The result is the same bit for bit on any machine's thread count and
    any cluster size (sums are accumulated in exact fixed point; see :func:`_stripe_sums`),
    as long as every machine computes float32 products the same way (same BLAS and CPU
    kind).

    Parameters
    ----------
    X : array_like of shape (n, m)
        One row per record (the unit of privacy), one column per original attribute,
        standardised (categoricals as ordinal codes; see
        :func:`core.cdp.sensitivity.record_matrix`).
    measure : {"pearson", "mahalanobis"}
        Correlated degree between two records.
    threshold : float
        delta0 in (0, 1]: weaker correlations are treated as none. A lower delta0 counts
        more records as correlated, so the sensitivity and the noise grow.
    block_rows : int, optional
        Rows per block (default 1024). Memory is about block_rows^2 * 4 bytes per thread
        or task.
    progress : callable(fraction, message), optional
        Told the share of the work done (:mod:`core.runtime.progress`): of blocks in this process,
        of stripe tasks on a cluster. Raising from it stops the pass (on a cluster, the
        unfinished tasks are cancelled) and the exception propagates.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    scheduler : str, optional
        Where the blocks run (:func:`core.runtime.compute.resolve_scheduler`): None reads
        ``$PUX_SCHEDULER``, ``""`` or ``"none"`` is this process, ``"local:N"`` a Dask
        cluster of N processes on this machine, ``"tcp://host:8786"`` a running one. The
        records are sent to the cluster's workers: use a cluster you trust with them.
        Inside a Dask task the pass always runs in that task's worker.

    Returns
    -------
    SensitivityReport
        ``correlated`` (CS), ``group`` (GS) and the per-record sums and counts.

    Raises
    ------
    core.runtime.compute.ComputeError
        The configured cluster cannot be reached.
    """
    progress = watch(progress, stop)
    kernel, n, block = _prepare(X, measure, threshold, block_rows)
    n_block_rows = len(range(0, n, block))
    address = None if compute.in_dask_task() else compute.resolve_scheduler(scheduler)
    total: list[np.ndarray] = []

    def add(index: int, part: tuple[np.ndarray, np.ndarray]) -> None:
        # integers: exact in any order, so each stripe is added as it arrives
        if not total:
            total.extend(part)
        else:
            total[0] += part[0]
            total[1] += part[1]

    if address is None:
        for i, part in enumerate(_local_sums(kernel, n, block, n_block_rows, progress)):
            add(i, part)
    else:
        stripes = _stripes(n_block_rows, _cluster_parts(n_block_rows, address))
        compute.map_tasks(
            partial(_stripe_task, n=n, block=block), stripes, shared=(kernel,), scheduler=address,
            progress=progress, weights=[sum(n_block_rows - r for r in rows) for rows in stripes],
            label="block-row stripe", on_result=add, keep_results=False,
        )
    fixed, counts = total
    sums = 1.0 + fixed.astype(np.float64) / _fixed_point_scale(n)
    counts = 1 + counts
    return SensitivityReport(
        correlated=float(sums.max()),
        group=float(counts.max()),
        per_record=sums,
        per_record_count=counts,
        measure=kernel.measure,
        threshold=kernel.threshold,
    )


def _local_sums(
    kernel: _Kernel, n: int, block: int, n_block_rows: int, progress: Progress | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The stripes' fixed-point sums and counts, on up to :data:`_MAX_THREADS` threads here."""
    threads = 1 if n <= _SMALL_N else max(1, min(os.cpu_count() or 1, _MAX_THREADS, n_block_rows))
    stripes = _stripes(n_block_rows, threads)
    on_block = _block_counter(n, block, progress)

    def stripe(rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
        return _stripe_sums(kernel, n, block, [r * block for r in rows], on_block)

    # one BLAS thread per stripe; numpy releases the GIL in the products and the passes
    with blas_limit(1):
        if len(stripes) == 1:
            return [stripe(stripes[0])]
        with ThreadPoolExecutor(max_workers=len(stripes)) as pool:
            return list(pool.map(stripe, stripes))


def record_correlation(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
    max_pairs: int = 5_000_000,
):
    """The thresholded record-correlation matrix Lambda (Eq. 14-15) as a sparse matrix.

    Meant for small n (the heatmap of a sample, tests); the sensitivity of large data uses
    :func:`correlated_sensitivity`, which never stores the pairs.

    Parameters
    ----------
    X, measure, threshold, block_rows
        As in :func:`correlated_sensitivity`.
    max_pairs : int
        Refuse (DataError) when more correlated pairs than this would be stored.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
        delta_ij where it is >= threshold, 1 on the diagonal, symmetric.
    """
    from scipy import sparse

    kernel, n, block = _prepare(X, measure, threshold, block_rows)
    all_rows, all_cols, all_values = [np.arange(n)], [np.arange(n)], [np.ones(n)]
    stored = 0
    for i0, i1, j0, j1 in _iter_blocks(n, block):
        rows, cols, values = kernel.block(i0, i1, j0, j1)
        stored += 2 * len(rows)
        if stored > max_pairs:
            raise DataError(
                f"More than {max_pairs:,} correlated record pairs; use a sample of the "
                "records or a higher threshold to draw the matrix."
            )
        all_rows += [rows, cols]
        all_cols += [cols, rows]
        all_values += [values, values]
    return sparse.csr_matrix(
        (np.concatenate(all_values), (np.concatenate(all_rows), np.concatenate(all_cols))),
        shape=(n, n),
    )


def data_correlation(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
    scheduler: str | None = None,
) -> float:
    """Data correlation C(x) = sum over record pairs i < j of the thresholded delta_ij.

    The more the records correlate, the more one record reveals about others; paper 000's
    DC-FBFS measures each attribute's share of it (Fig. 1-2).

    Parameters
    ----------
    X, measure, threshold, block_rows, scheduler
        As in :func:`correlated_sensitivity` (the same pass; the same value wherever it runs).

    Returns
    -------
    float
        C(x) >= 0.
    """
    return correlated_sensitivity(
        X, measure=measure, threshold=threshold, block_rows=block_rows, scheduler=scheduler
    ).data_correlation
