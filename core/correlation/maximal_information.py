"""Maximal information coefficient (MIC) of two variables and of many column pairs.

The MIC primitive shared by paper 000 (attribute association) and paper 003 (connection
strength, :mod:`core.sskm.connection`); computed by minepy's approximate estimator.
"""
from __future__ import annotations

from functools import partial
from typing import Sequence

import numpy as np

from core.runtime.compute import map_tasks, scheduler_for
from core.runtime.progress import Progress, Stop, watch
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["mic", "mic_pairs"]


def mic(x: np.ndarray, y: np.ndarray, *, alpha: float = 0.6, c: float = 15) -> float:
    """Maximal information coefficient of two numeric vectors (minepy, the original approximate estimator of Reshef et al. 2011).

    Parameters
    ----------
    x, y : ndarray of shape (n,)
        The two variables (categoricals as codes).
    alpha : float
        Grid-size exponent: grids up to n**alpha cells (minepy's ``alpha``).
    c : float
        Clumps factor (minepy's ``c``).

    Returns
    -------
    float
        MIC in [0, 1]: 1 for a noiseless functional relation, near 0 for independence.
    """
    from minepy import MINE  # imported here: minepy is a compiled extra built at setup

    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length.")
    if len(x) < 4:
        raise ValueError("MIC needs at least 4 observations.")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    mine = MINE(alpha=alpha, c=c, est="mic_approx")
    mine.compute_score(x, y)
    return float(mine.mic())


def mic_pairs(
    X: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    *,
    alpha: float = 0.6,
    c: float = 15,
    max_rows: int | None = None,
    n_jobs: int = 1,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
    scheduler: str | None = None,
) -> np.ndarray:
    """MIC for each (i, j) column pair of ``X``, optionally on a row sample, in parallel.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        Numeric data.
    pairs : sequence of (int, int)
        Column index pairs.
    alpha, c : float
        minepy parameters, as in :func:`mic`.
    max_rows : int, optional
        Compute on at most this many rows drawn without replacement (MIC costs grow
        faster than linearly in n; the cap keeps pages interactive).
    n_jobs : int
        Local worker processes when no scheduler is configured; pairs are independent.
    random_state : int, Generator or None
        Draws the row sample.
    progress : callable(fraction, message), optional
        Told each pair done (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    scheduler : str, optional
        A Dask scheduler (:func:`core.runtime.compute.resolve_scheduler`; default
        ``$PUX_SCHEDULER``), which wins over ``n_jobs``; the data go to each worker once.
    """
    progress = watch(progress, stop)
    X = np.asarray(X, dtype=np.float64)
    if max_rows is not None and len(X) > max_rows:
        rng = check_random_state(random_state)
        X = X[np.sort(rng.choice(len(X), size=max_rows, replace=False))]
    target = scheduler_for(scheduler, n_jobs=n_jobs) if len(pairs) >= 2 else ""
    values = map_tasks(partial(_mic_pair, alpha=alpha, c=c), list(pairs), shared=(X,), scheduler=target,
                       progress=progress, label="pair")
    return np.asarray(values, dtype=float)


def _mic_pair(pair: tuple[int, int], X: np.ndarray, *, alpha: float, c: float) -> float:
    i, j = pair
    return mic(X[:, i], X[:, j], alpha=alpha, c=c)
