"""The differentially private map of the sound SSKM_DP: a batch SOM fitted through noisy counts and sums.

:func:`noisy_batch_som` starts from data-independent weights and takes a few batch steps,
each reading the rows only through noisy per-neuron counts and sums
(:func:`noisy_counts_sums`, exact discrete Laplace from :mod:`core.privacy.sampler`); the
weights are post-processing of those measurements. The same noisy vector is the sound
release of :class:`core.sskm.sound.SSKMDP`.
"""
from __future__ import annotations

import numpy as np

from core.privacy.sampler import laplace_on_grid
from core.runtime.randomness import RandomState, check_random_state
from core.runtime.threads import blas_limit
from core.sskm.grid import neighbourhood
from core.sskm.som import SelfOrganizingMap, bmu_distances, empty_history
from core.validation import check_matrix, check_positive_int

__all__ = ["noisy_batch_som", "noisy_counts_sums", "stratified_bmu"]


def noisy_counts_sums(X: np.ndarray, labels: np.ndarray, K: int, epsilon: float,
                      noise: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list]:
    """Per-neuron (counts, sums) of ``X`` (rows in [0, 1]^m) with exact discrete Laplace noise.

    Replacing one record moves it from one neuron to another: the counts change by 2 in L1
    (2 coordinates) and the sums by at most 2m (2m coordinates), so the whole vector has L1
    sensitivity 2(m + 1). ``epsilon`` is split in proportion, epsilon / (m + 1) to the counts
    and epsilon m / (m + 1) to the sums: every coordinate gets noise of about 2(m + 1) /
    epsilon. Returns the noisy counts (integers on the grid 1), the noisy sums (on a power of
    two grid) and [(epsilon_counts, GridNoise), (epsilon_sums, GridNoise)] for the ledger.
    """
    m = X.shape[1]
    counts = np.bincount(labels, minlength=K).astype(np.float64)
    # per column, the same additions in the same (row) order as np.add.at, at a tenth of its time
    sums = (np.column_stack([np.bincount(labels, weights=X[:, j], minlength=K) for j in range(m)]) if m
            else np.zeros((K, 0)))
    eps_c, eps_s = epsilon / (m + 1), epsilon * m / (m + 1)
    noisy_counts, g_c = laplace_on_grid(counts, sensitivity=2.0, epsilon=eps_c, grid=1.0, on_grid=True,
                                        coordinates=2, random_state=noise)
    noisy_sums, g_s = laplace_on_grid(sums, sensitivity=2.0 * m, epsilon=eps_s, coordinates=2 * m,
                                      random_state=noise)
    return noisy_counts, noisy_sums, [(eps_c, g_c), (eps_s, g_s)]


def _start_map(X, rows, cols, *, epsilon, iterations, sigma, topology) -> tuple[np.ndarray, SelfOrganizingMap, int]:
    """Check the arguments of :func:`noisy_batch_som`; returns (X clipped to [0, 1], the
    unfitted map with its grid set up, iterations)."""
    X = np.clip(check_matrix(X), 0.0, 1.0)
    rows = check_positive_int(rows, name="rows")
    cols = check_positive_int(cols, name="cols")
    iterations = check_positive_int(iterations, name="iterations")
    if rows * cols < 2:
        raise ValueError("the map needs at least 2 neurons (rows x cols >= 2).")
    if not (isinstance(epsilon, (int, float)) and np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number above 0, got {epsilon!r}.")
    som = SelfOrganizingMap(rows, cols, sigma=sigma, iterations=iterations, init="random",
                            topology=topology, random_state=None)
    som._check_params()
    som.n_features_in_ = X.shape[1]
    som._setup_grid()
    som.sfla_ = None
    return X, som, iterations


def stratified_bmu(X: np.ndarray, W: np.ndarray, strata: np.ndarray | None,
                   neuron_strata: np.ndarray | None) -> np.ndarray:
    """Each row's nearest neuron (row of ``W``), among the neurons of its own stratum when
    ``strata`` is given (``neuron_strata``: each neuron's stratum)."""
    if strata is None:
        return np.argmin(bmu_distances(X, W), axis=1)
    labels = np.empty(len(X), dtype=np.int64)
    for s in np.unique(strata):
        rows = np.flatnonzero(strata == s)
        mine = np.flatnonzero(neuron_strata == s)
        if len(mine) == 0:
            raise ValueError(f"stratum {int(s)} has records and no neuron.")
        labels[rows] = mine[np.argmin(bmu_distances(X[rows], W[mine]), axis=1)]
    return labels


def _check_strata(strata, neuron_strata, n: int, K: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    if strata is None and neuron_strata is None:
        return None, None
    if strata is None or neuron_strata is None:
        raise ValueError("give both strata (one per record) and neuron_strata (one per neuron), or neither.")
    strata = np.asarray(strata, dtype=np.int64).ravel()
    neuron_strata = np.asarray(neuron_strata, dtype=np.int64).ravel()
    if len(strata) != n or len(neuron_strata) != K:
        raise ValueError(f"strata needs one entry per record ({n}) and neuron_strata one per neuron ({K}).")
    return strata, neuron_strata


def _spends(t: int, iterations: int, K: int, m: int, parts: list) -> list:
    """The two ledger entries (epsilon, GridNoise, label) of noisy step ``t``."""
    (e_c, g_c), (e_s, g_s) = parts
    return [(e_c, g_c, (f"map iteration {t + 1} of {iterations}: noisy count of each of the {K} "
                        "neurons (L1 sensitivity 2 under replacement)")),
            (e_s, g_s, (f"map iteration {t + 1} of {iterations}: noisy sums of the {m} attributes "
                        f"in [0, 1] of each neuron (L1 sensitivity 2m = {2 * m})"))]


def noisy_batch_som(X, rows: int, cols: int, *, epsilon: float, iterations: int = 4,
                    sigma: float | None = None, topology: str = "rectangular",
                    random_state: RandomState = None, track: bool = True, strata=None,
                    neuron_strata=None) -> tuple[SelfOrganizingMap, list]:
    """A batch SOM fitted only through noisy per-neuron counts and sums (differentially private).

    The start is data-independent: weights drawn uniformly in [0, 1]^m from ``random_state``
    (no SFLA, which reads the rows). Each of the ``iterations`` steps assigns every record
    to its nearest neuron under the current (public) weights, measures the per-neuron counts
    and sums with exact discrete Laplace noise (:func:`noisy_counts_sums`, replace-one L1
    sensitivity 2(m + 1), ``epsilon / iterations`` each), and sets each neuron to the
    neighbourhood-weighted mean of the noisy measurements (Kohonen's batch map):
    W_k = sum_j h_kj S_j / sum_j h_kj N_j. The neighbourhood width shrinks geometrically from
    ``sigma`` (default max(rows, cols) / 2) to 0.5; a wide neighbourhood averages the noise
    of many neurons, which is what makes a few noisy steps useful. The weights are
    post-processing of the noisy measurements, so the map costs ``epsilon`` in all
    (sequential composition over the iterations).

    Parameters
    ----------
    X : array_like of shape (n, m)
        Records scaled to [0, 1] with public bounds (values are clipped to [0, 1]; the
        sensitivities assume it).
    rows, cols : int
        Map size.
    epsilon : float
        What the whole map costs.
    iterations : int
        Noisy batch steps (each costs epsilon / iterations).
    sigma : float, optional
        Initial neighbourhood width in grid units.
    topology : {"rectangular", "hexagonal"}
    random_state : int, Generator or None
        The start and the noise (one generator).
    track : bool
        Record quantisation and topographic error on ``X`` after each step (``history_``,
        for display; an evaluation on the private rows, never released). False skips it
        (a release's own map).
    strata, neuron_strata : array_like of int, optional
        A split of the map: each record's stratum (a function of that record alone, e.g.
        its label's category) and each neuron's. A record then goes to the nearest neuron
        of its own stratum and the neighbourhood never crosses strata (the map is one map
        per stratum, measured in one noisy vector). One replaced record still leaves one
        neuron and joins another: the sensitivity is unchanged.

    Returns
    -------
    som : SelfOrganizingMap
        With ``weights_`` set (``labels_``, ``history_`` computed on ``X``: they are
        evaluations on the private rows, not part of any release).
    spends : list of (epsilon, GridNoise, label)
        One pair of entries per iteration, for the ledger.
    """
    X, som, iterations = _start_map(X, rows, cols, epsilon=epsilon, iterations=iterations, sigma=sigma,
                                    topology=topology)
    rng = check_random_state(random_state)
    K, m = som.rows * som.cols, X.shape[1]
    strata, neuron_strata = _check_strata(strata, neuron_strata, len(X), K)
    same = None if neuron_strata is None else neuron_strata[:, None] == neuron_strata[None, :]
    W = rng.random((K, m))  # data-independent start
    end = min(0.5, som.sigma_)
    eps_t = float(epsilon) / iterations
    spends, history = [], empty_history()
    with blas_limit(1):  # the products are small
        for t in range(iterations):
            sig = som.sigma_ * (end / som.sigma_) ** (t / max(1, iterations - 1))
            labels = stratified_bmu(X, W, strata, neuron_strata)
            noisy_counts, noisy_sums, parts = noisy_counts_sums(X, labels, K, eps_t, rng)
            h = neighbourhood(som._sq, sig, None)  # (K, K), symmetric
            if same is not None:
                h = h * same
            num = h @ noisy_sums
            den = h @ noisy_counts
            ok = den >= 1.0  # too little (noisy) mass: the neuron keeps its weights
            W[ok] = np.clip(num[ok] / den[ok, None], 0.0, 1.0)
            spends.extend(_spends(t, iterations, K, m, parts))
            if track:
                qe, te = som._errors(X, W)
                for key, value in zip(history, (t + 1, qe, te, 1.0, float(sig))):
                    history[key].append(value)
        som.weights_ = W.reshape(som.rows, som.cols, m)
        som.history_ = history
        som.labels_ = som.predict(X) if strata is None else stratified_bmu(X, W, strata, neuron_strata)
    return som, spends
