"""The Kohonen self-organising map of paper 003 (Algorithm 3), with an SFLA start.

Training draws ``iterations`` rows (epochs of a fresh permutation each). At step t the
learning rate is eta(t) = eta0 exp(-t / T) (Eq. 15) and the neighbourhood width shrinks the
same way, sigma(t) = sigma0 exp(-t / T); the neighbourhood is the Gaussian of Eq. 12, cut to
zero beyond ``cutoff`` x sigma(t) (never below the immediate neighbours, so that the map
keeps its order). ``method="online"`` is the paper's rule, one row per update (Eq. 14);
``method="batch"`` is the vectorised variant: rows come in mini-batches, each neuron moves by
eta(t) toward the neighbourhood-weighted mean of the batch rows (Kohonen's batch map blended
with the learning rate), which gives equal quality at a fraction of the time (see
``benchmarks/bench_sskm.py``). Clusters are the non-empty neurons.

The map is a scikit-learn estimator (``get_params``, ``clone``); the differentially private
map of the sound SSKM_DP is :func:`core.sskm.noisy_som.noisy_batch_som`.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from core.runtime.progress import Progress, Stop, report, watch
from core.sskm.grid import TOPOLOGIES, adjacency, grid_coordinates, grid_sq_distances, neighbourhood
from core.sskm.sfla import SFLAResult, sfla_initial_weights
from core.validation import check_choice, check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state
from core.runtime.threads import blas_limit

__all__ = ["SelfOrganizingMap", "bmu_distances", "empty_history"]

INITS = ("sfla", "random", "pca")
METHODS = ("batch", "online")
DECAYS = ("exponential", "asymptotic")


def bmu_distances(X: np.ndarray, W: np.ndarray, *, block_rows: int = 8192) -> np.ndarray:
    """Squared Euclidean distances between rows of ``X`` (n, d) and neurons ``W`` (K, d)."""
    w_sq = np.einsum("ij,ij->i", W, W)
    out = np.empty((len(X), len(W)))
    for start in range(0, len(X), block_rows):
        xb = X[start:start + block_rows]
        d2 = np.einsum("ij,ij->i", xb, xb)[:, None] - 2.0 * (xb @ W.T) + w_sq[None, :]
        np.maximum(d2, 0.0, out=d2)
        out[start:start + block_rows] = d2
    return out


class SelfOrganizingMap(BaseEstimator):
    """Kohonen map (SOFM) with SFLA, random or PCA initial weights.

    Parameters
    ----------
    rows, cols : int
        Size of the competition layer; the number of clusters is at most rows x cols
        (only non-empty neurons become clusters, so the SOM, not the user, sets it).
    sigma : float, optional
        Initial neighbourhood width sigma0 in grid units; default max(rows, cols) / 2.
    learning_rate : float
        eta0 in (0, 1].
    iterations : int
        T: rows drawn during training (one update each online; in mini-batches for batch).
    init : {"sfla", "random", "pca"}
        Initial weights: the best frog of :func:`core.sskm.sfla.sfla_initial_weights`
        (the paper), uniform draws in each column's range (the paper's "random number in
        (0, 1)" on scaled data), or the plane of the first two principal components.
    method : {"batch", "online"}
        Vectorised mini-batch training or the paper's one-row-at-a-time rule.
    decay : {"exponential", "asymptotic"}
        Schedule of eta(t) and sigma(t): the paper's exp(-t / T) (Eq. 15), or
        1 / (1 + 2t / T) (MiniSom's default, for like-for-like comparisons).
    topology : {"rectangular", "hexagonal"}
        Grid layout.
    cutoff : float or None
        Neighbourhood cut-off as a multiple of sigma(t) (Eq. 12 cuts at sigma, i.e. 1.0);
        None keeps the full Gaussian.
    batch_size : int
        Rows per update for ``method="batch"``.
    sfla_params : dict, optional
        Extra keyword arguments for :func:`sfla_initial_weights` (``n_frogs``,
        ``n_memeplexes``, ``iterations``, ``sample_size``, ...).
    track_every : int or None
        Record quantisation and topographic error on a fixed probe sample about this many
        times during training (``history_``); None records nothing.
    random_state : int, Generator or None
        Seeds the initial weights, the order of rows and the probe sample.

    Attributes
    ----------
    weights_ : ndarray of shape (rows, cols, d)
    labels_ : ndarray of shape (n,)
        Winning neuron (row-major index) of each training row.
    sfla_ : SFLAResult or None
    history_ : dict of lists
        ``step``, ``quantization_error``, ``topographic_error``, ``learning_rate``, ``sigma``.
    """

    def __init__(
        self,
        rows: int = 10,
        cols: int = 10,
        *,
        sigma: float | None = None,
        learning_rate: float = 0.5,
        iterations: int = 10_000,
        init: str = "sfla",
        method: str = "batch",
        decay: str = "exponential",
        topology: str = "rectangular",
        cutoff: float | None = 1.0,
        batch_size: int = 256,
        sfla_params: dict | None = None,
        track_every: int | None = 20,
        random_state: RandomState = None,
    ) -> None:
        self.rows = rows
        self.cols = cols
        self.sigma = sigma
        self.learning_rate = learning_rate
        self.iterations = iterations
        self.init = init
        self.method = method
        self.decay = decay
        self.topology = topology
        self.cutoff = cutoff
        self.batch_size = batch_size
        self.sfla_params = sfla_params
        self.track_every = track_every
        self.random_state = random_state

    # ----------------------------------------------------------------- checks
    def _check_params(self) -> None:
        check_positive_int(self.rows, name="rows")
        check_positive_int(self.cols, name="cols")
        check_positive_int(self.iterations, name="iterations")
        check_positive_int(self.batch_size, name="batch_size")
        if self.rows * self.cols < 2:
            raise ValueError("the map needs at least 2 neurons (rows x cols >= 2).")
        if self.sigma is not None and not (isinstance(self.sigma, (int, float)) and self.sigma > 0):
            raise ValueError(f"sigma must be a number greater than 0, got {self.sigma!r}.")
        if not (isinstance(self.learning_rate, (int, float)) and 0 < self.learning_rate <= 1):
            raise ValueError(f"learning_rate must lie in (0, 1], got {self.learning_rate!r}.")
        check_choice(self.init, INITS, name="init", kind=str)
        check_choice(self.method, METHODS, name="method", kind=str)
        check_choice(self.decay, DECAYS, name="decay", kind=str)
        check_choice(self.topology, TOPOLOGIES, name="topology", kind=str)
        if self.cutoff is not None and not self.cutoff > 0:
            raise ValueError(f"cutoff must be greater than 0 or None, got {self.cutoff!r}.")

    # ------------------------------------------------------------ init
    def _initial_weights(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        K, d = self.rows * self.cols, X.shape[1]
        self.sfla_ = None
        if self.init == "sfla":
            params = {"n_frogs": 20, "iterations": 30, "sample_size": 1000}
            params.update(self.sfla_params or {})
            res: SFLAResult = sfla_initial_weights(
                X, rows=self.rows, cols=self.cols, topology=self.topology, random_state=rng, **params
            )
            self.sfla_ = res
            return res.weights.reshape(K, d).copy()
        if self.init == "random":
            lo, hi = X.min(axis=0), X.max(axis=0)
            return lo + rng.random((K, d)) * (hi - lo)
        # PCA: span the plane of the two leading components around the mean
        mean = X.mean(axis=0)
        sample = X if len(X) <= 20_000 else X[rng.choice(len(X), 20_000, replace=False)]
        _, s, vt = np.linalg.svd(sample - mean, full_matrices=False)
        comps = vt[:2] * (s[:2, None] / np.sqrt(len(sample)))
        if len(comps) < 2:
            comps = np.vstack([comps, np.zeros((2 - len(comps), d))])
        r = np.linspace(-1, 1, self.rows) if self.rows > 1 else np.zeros(1)
        c = np.linspace(-1, 1, self.cols) if self.cols > 1 else np.zeros(1)
        rr, cc = np.meshgrid(r, c, indexing="ij")
        return mean + rr.reshape(-1, 1) * comps[0] * 2 + cc.reshape(-1, 1) * comps[1] * 2

    # ------------------------------------------------------------ training
    def _schedule(self, t: float) -> tuple[float, float]:
        if self.decay == "exponential":  # Eq. 15 of paper 003
            decay = np.exp(-t / self.iterations)
        else:  # MiniSom's default, 1 / (1 + t / (T / 2))
            decay = 1.0 / (1.0 + 2.0 * t / self.iterations)
        return self.learning_rate * decay, self.sigma_ * decay

    def _h(self, sigma_t: float, winners: np.ndarray) -> np.ndarray:
        """Neighbourhood weights from each winning neuron to every neuron, (len(winners), K)."""
        cut = None if self.cutoff is None else max(self.cutoff * sigma_t, self._min_cut)
        return neighbourhood(self._sq[winners], sigma_t, cut)

    def fit(self, X, y=None, *, progress: Progress | None = None,
            stop: Stop | None = None) -> "SelfOrganizingMap":
        """Train the map on ``X`` (n, d); ``y`` is ignored. ``progress``
        (:mod:`core.runtime.progress`) is told the share of training draws done; ``stop`` (a
        ``threading.Event``), once set, ends the training at its next report with
        :class:`core.runtime.progress.Stopped`."""
        progress = watch(progress, stop)
        # the products in a training step are small: one BLAS thread is faster than many
        with blas_limit(1):  # the process's one controller: no library scan per fit
            return self._fit(X, progress)

    def _setup_grid(self) -> None:
        """The grid of ``rows`` x ``cols`` neurons: ``sigma_``, ``coords_`` and the grid
        distances, neighbours and least cut-off that training reads."""
        self.sigma_ = float(self.sigma) if self.sigma is not None else max(self.rows, self.cols) / 2.0
        self.coords_ = grid_coordinates(self.rows, self.cols, self.topology)
        self._sq = grid_sq_distances(self.coords_)
        self._adj = adjacency(self.coords_, self.topology)
        self._min_cut = np.sqrt(2.0) if self.topology == "rectangular" else 1.0

    def _fit(self, X, progress: Progress | None = None) -> "SelfOrganizingMap":
        self._check_params()
        X = check_matrix(X)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        self.n_features_in_ = d
        self._setup_grid()
        W = self._initial_weights(X, rng)
        T = self.iterations
        order = np.concatenate([rng.permutation(n) for _ in range(-(-T // n))])[:T]
        probe = X if n <= 2000 else X[np.sort(rng.choice(n, 2000, replace=False))]
        record = _Recorder(self, probe)
        record(0, W)
        report(progress, 0.0, "initial weights chosen")
        if self.method == "online":
            self._train_online(X, W, order, record, progress)
        else:
            self._train_batch(X, W, order, record, progress)
        self.weights_ = W.reshape(self.rows, self.cols, d)
        self.history_ = record.history
        self.labels_ = self.predict(X)
        return self

    def _train_online(self, X: np.ndarray, W: np.ndarray, order: np.ndarray, record: "_Recorder",
                      progress: Progress | None) -> None:
        """The paper's rule (Eq. 14): one row per update, in ``order``; ``W`` changes in place."""
        T = self.iterations
        every = max(1, T // 100)
        for t in range(T):
            if t % every == 0:
                report(progress, t / T, f"draw {t:,} of {T:,}")
            x = X[order[t]]
            diff = x - W
            c = int(np.argmin(np.einsum("ij,ij->i", diff, diff)))
            eta, sig = self._schedule(t)
            W += (eta * self._h(sig, c))[:, None] * diff  # Eq. 14
            record(t + 1, W)

    def _train_batch(self, X: np.ndarray, W: np.ndarray, order: np.ndarray, record: "_Recorder",
                     progress: Progress | None) -> None:
        """Mini-batches of ``batch_size`` rows in ``order``: each neuron moves toward the
        neighbourhood-weighted mean of the batch; ``W`` changes in place."""
        T, B, d = self.iterations, self.batch_size, X.shape[1]
        every = max(1, T // 100)
        for start in range(0, T, B):
            if start // B % max(1, every // B) == 0:
                report(progress, start / T, f"draw {start:,} of {T:,}")
            idx = order[start:start + B]
            xb = X[idx]
            c = np.argmin(bmu_distances(xb, W), axis=1)
            eta, sig = self._schedule(start + 0.5 * len(idx))
            # only the winning neurons pull: sum their rows, then spread by h
            won, inv, counts = np.unique(c, return_inverse=True, return_counts=True)
            sums = np.zeros((len(won), d))
            np.add.at(sums, inv, xb)
            h = self._h(sig, won)  # (winners, K)
            num = h.T @ sums
            den = h.T @ counts.astype(float)
            mask = den > 0
            target = num[mask] / den[mask, None]
            # as many online steps as the neuron's neighbourhood-weighted hits would
            # make: a neuron pulled by den rows moves 1 - (1 - eta)^den of the way
            rate = 1.0 - (1.0 - eta) ** den[mask]
            W[mask] += rate[:, None] * (target - W[mask])
            for step in sorted(m for m in record.marks if start < m <= start + len(idx)):
                record(step, W)

    # ----------------------------------------------------------------- use
    def _check_fitted(self) -> None:
        if not hasattr(self, "weights_"):
            raise ValueError("this map is not trained yet; call fit(X) first.")

    def _flat(self) -> np.ndarray:
        return self.weights_.reshape(-1, self.weights_.shape[-1])

    def _prepare(self, X) -> np.ndarray:
        self._check_fitted()
        X = check_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} columns; the map was trained on {self.n_features_in_}.")
        return X

    def predict(self, X) -> np.ndarray:
        """Winning neuron (row-major index, the cluster label) of each row."""
        X = self._prepare(X)
        W = self._flat()
        out = np.empty(len(X), dtype=np.int64)
        for start in range(0, len(X), 8192):
            out[start:start + 8192] = np.argmin(bmu_distances(X[start:start + 8192], W), axis=1)
        return out

    def fit_predict(self, X, y=None) -> np.ndarray:
        """Train, then return the cluster label of each training row."""
        return self.fit(X).labels_

    def _errors(self, X: np.ndarray, W: np.ndarray) -> tuple[float, float]:
        qe_sum, te_sum = 0.0, 0.0
        for start in range(0, len(X), 8192):
            d2 = bmu_distances(X[start:start + 8192], W)
            two = np.argpartition(d2, 1, axis=1)[:, :2] if d2.shape[1] > 2 else np.argsort(d2, axis=1)[:, :2]
            rows = np.arange(len(d2))
            first_is_0 = d2[rows, two[:, 0]] <= d2[rows, two[:, 1]]
            b1 = np.where(first_is_0, two[:, 0], two[:, 1])
            b2 = np.where(first_is_0, two[:, 1], two[:, 0])
            qe_sum += np.sqrt(d2[rows, b1]).sum()
            te_sum += (~self._adj[b1, b2]).sum()
        return float(qe_sum / len(X)), float(te_sum / len(X))

    def quantization_error(self, X) -> float:
        """Mean Euclidean distance from each row to its winning neuron's weights."""
        return self._errors(self._prepare(X), self._flat())[0]

    def topographic_error(self, X) -> float:
        """Share of rows whose best and second-best neurons are not grid neighbours."""
        return self._errors(self._prepare(X), self._flat())[1]

    def u_matrix(self) -> np.ndarray:
        """Mean weight distance from each neuron to its grid neighbours, shape (rows, cols).

        High values mark borders between clusters; low values the inside of a cluster.
        """
        self._check_fitted()
        W = self._flat()
        diff = W[:, None, :] - W[None, :, :]
        dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        adj = self._adj
        u = (dist * adj).sum(axis=1) / np.maximum(adj.sum(axis=1), 1)
        return u.reshape(self.rows, self.cols)

    def hit_map(self, X=None) -> np.ndarray:
        """Rows won by each neuron, shape (rows, cols); default the training rows."""
        labels = self.labels_ if X is None else self.predict(X)
        return np.bincount(labels, minlength=self.rows * self.cols).reshape(self.rows, self.cols)

    def component_plane(self, j: int) -> np.ndarray:
        """Weight of input column ``j`` at each neuron, shape (rows, cols)."""
        self._check_fitted()
        return self.weights_[:, :, j].copy()

    def component_planes(self) -> np.ndarray:
        """Every component plane, shape (d, rows, cols)."""
        self._check_fitted()
        return np.moveaxis(self.weights_, -1, 0).copy()

    def share_per_neuron(self, values, X=None) -> np.ndarray:
        """Mean of ``values`` (e.g. a 0/1 sensitive indicator) over the rows each neuron wins.

        NaN where a neuron wins no row; shape (rows, cols).
        """
        labels = self.labels_ if X is None else self.predict(X)
        values = np.asarray(values, dtype=float)
        if len(values) != len(labels):
            raise ValueError("values must have one entry per row.")
        K = self.rows * self.cols
        counts = np.bincount(labels, minlength=K)
        sums = np.bincount(labels, weights=values, minlength=K)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        return share.reshape(self.rows, self.cols)


def empty_history() -> dict[str, list]:
    """The lists of a map's ``history_``: step, quantisation and topographic error, eta, sigma."""
    return {"step": [], "quantization_error": [], "topographic_error": [], "learning_rate": [], "sigma": []}


class _Recorder:
    """Records a map's errors on a probe sample about ``track_every`` times during training."""

    def __init__(self, som: SelfOrganizingMap, probe: np.ndarray) -> None:
        self.som, self.probe = som, probe
        self.history = empty_history()
        self.marks: set[int] = set()
        if som.track_every:
            T = som.iterations
            self.marks = set(np.unique(np.linspace(0, T, som.track_every + 1).astype(int)).tolist())

    def __call__(self, step: int, W: np.ndarray) -> None:
        if step in self.marks:
            eta, sig = self.som._schedule(step)
            qe, te = self.som._errors(self.probe, W)
            for key, value in zip(self.history, (step, qe, te, float(eta), float(sig))):
                self.history[key].append(value)
