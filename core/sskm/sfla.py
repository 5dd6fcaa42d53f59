"""Shuffled frog leaping search for a SOM's initial weights (Algorithm 2 of paper 003).

Each frog is a whole weight grid (rows x cols x d). Its fitness is Eq. 9,
fit = 1 / (1 + E[sum_a N(b - a) ||x - W(a)||]), read as docs/design.md section 3 says: the
neighbourhood-weighted quantisation error of the grid, averaged over a sample of rows (the
neighbourhood weights around each sample's winning neuron are normalised to sum to 1, so the
error is in the data's distance units). Frogs are sorted by fitness and dealt into
memeplexes; in each memeplex the worst frog leaps toward the memeplex's best (Eq. 10-11),
then toward the global best, and is replaced by a fresh random frog when neither leap helps;
then all frogs are shuffled together again. ``n_memeplexes=1`` is the paper's single
population.

The search reads the raw data (it is part of the clustering, which SSKM_DP does not make
private); it spends no privacy budget.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.sskm.grid import grid_coordinates, grid_sq_distances, neighbourhood
from core.validation import check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["SFLAResult", "sfla_initial_weights", "som_fitness"]


@dataclass
class SFLAResult:
    """Outcome of the frog search.

    Attributes
    ----------
    weights : ndarray of shape (rows, cols, d)
        The best frog: the SOM's initial weights.
    best_fitness, mean_fitness : ndarray of shape (iterations + 1,)
        Best and mean fitness of the population before the first shuffle (index 0) and
        after each shuffle, for a convergence chart.
    evaluations : int
        Fitness evaluations spent.
    """

    weights: np.ndarray
    best_fitness: np.ndarray
    mean_fitness: np.ndarray
    evaluations: int


def som_fitness(
    weights: np.ndarray, X: np.ndarray, h: np.ndarray, x_sq: np.ndarray | None = None
) -> float:
    """Fitness of one weight grid on the rows ``X`` (Eq. 9 of paper 003).

    Parameters
    ----------
    weights : ndarray of shape (K, d) or (rows, cols, d)
        The grid's weights, row-major.
    X : ndarray of shape (s, d)
        Sample rows.
    h : ndarray of shape (K, K)
        Neighbourhood weights between neurons, each row normalised to sum to 1.
    x_sq : ndarray of shape (s,), optional
        Squared norms of the rows of ``X`` (pass them when scoring many grids).

    Returns
    -------
    float
        1 / (1 + mean over rows of sum_a h[b, a] ||x - W_a||), in (0, 1]; higher is better.
    """
    W = weights.reshape(-1, weights.shape[-1])
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    d2 = x_sq[:, None] - 2.0 * (X @ W.T) + np.einsum("ij,ij->i", W, W)[None, :]
    np.maximum(d2, 0.0, out=d2)
    bmu = np.argmin(d2, axis=1)
    dist = np.sqrt(d2)
    err = np.einsum("ik,ik->i", h[bmu], dist)
    return float(1.0 / (1.0 + err.mean()))


def _leaps_per_memeplex(n_frogs: int, n_memeplexes: int, local_steps: int | None) -> int:
    """Leaps per memeplex per shuffle, after checking that the frogs deal into equal
    memeplexes of at least 2."""
    if n_frogs % n_memeplexes:
        raise ValueError(
            f"n_frogs ({n_frogs}) must be a multiple of n_memeplexes ({n_memeplexes}) so that "
            "every memeplex holds the same number of frogs."
        )
    q = n_frogs // n_memeplexes
    if q < 2:
        raise ValueError("each memeplex needs at least 2 frogs; lower n_memeplexes.")
    return q if local_steps is None else check_positive_int(local_steps, name="local_steps")


class _FrogSearch:
    """One frog search of :func:`sfla_initial_weights`: the fitness sample, the
    neighbourhood, the data's scale for new frogs, the random source and the count of
    fitness evaluations."""

    def __init__(
        self,
        X: np.ndarray,
        *,
        rows: int,
        cols: int,
        sample_size: int,
        sigma: float,
        max_step: float | None,
        topology: str,
        rng: np.random.Generator,
    ) -> None:
        n, d = X.shape
        self.rows, self.cols, self.d = rows, cols, d
        self.K = rows * cols
        self.rng = rng
        self.max_step = max_step
        self.sample = (
            X if n <= sample_size else X[np.sort(rng.choice(n, size=sample_size, replace=False))]
        )
        self.x_sq = np.einsum("ij,ij->i", self.sample, self.sample)
        h = neighbourhood(grid_sq_distances(grid_coordinates(rows, cols, topology)), sigma, None)
        h /= h.sum(axis=1, keepdims=True)
        self.h = h
        self.centre = X.mean(axis=0)
        self.spread = X.std(axis=0)
        self.spread[self.spread == 0] = 1e-3
        self.evaluations = 0

    def new_frog(self) -> np.ndarray:
        """A random frog (Eq. 8): standard normal draws, placed on the data's scale."""
        return self.centre + self.rng.standard_normal((self.K, self.d)) * self.spread

    def fit(self, frog: np.ndarray) -> float:
        """The frog's fitness (:func:`som_fitness` on the sample), counted."""
        self.evaluations += 1
        return som_fitness(frog, self.sample, self.h, self.x_sq)

    def leap(self, worst: np.ndarray, target: np.ndarray) -> np.ndarray:
        """The worst frog moved a random part of the way toward ``target`` (Eq. 10-11)."""
        step = self.rng.random() * (target - worst)  # Eq. 10: D = rand() (X_b - X_w)
        if self.max_step is not None:
            np.clip(step, -self.max_step, self.max_step, out=step)
        return worst + step  # Eq. 11

    def shuffle_round(
        self, frogs: np.ndarray, fitness: np.ndarray, n_memeplexes: int, steps: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """One global iteration: sort the frogs, deal them into memeplexes and, ``steps``
        times in each, replace the worst frog by a leap toward the memeplex's best, else
        toward the global best, else by a new frog."""
        order = np.argsort(-fitness, kind="stable")
        frogs, fitness = frogs[order], fitness[order]
        g = 0  # global best after sorting
        for m in range(n_memeplexes):
            members = np.arange(m, len(frogs), n_memeplexes)  # dealt like cards
            for _ in range(steps):
                local = members[np.argsort(-fitness[members], kind="stable")]
                b, w = local[0], local[-1]
                cand = self.leap(frogs[w], frogs[b])
                f_cand = self.fit(cand)
                if f_cand <= fitness[w]:
                    cand = self.leap(frogs[w], frogs[g])
                    f_cand = self.fit(cand)
                if f_cand <= fitness[w]:
                    cand = self.new_frog()
                    f_cand = self.fit(cand)
                frogs[w], fitness[w] = cand, f_cand
                if f_cand > fitness[g]:
                    g = w
        return frogs, fitness

    def run(self, *, n_frogs: int, n_memeplexes: int, steps: int, iterations: int) -> SFLAResult:
        """The search from ``n_frogs`` random frogs over ``iterations`` shuffles."""
        frogs = np.stack([self.new_frog() for _ in range(n_frogs)])
        fitness = np.array([self.fit(f) for f in frogs])
        best_hist = [fitness.max()]
        mean_hist = [fitness.mean()]
        for _ in range(iterations):
            frogs, fitness = self.shuffle_round(frogs, fitness, n_memeplexes, steps)
            best_hist.append(fitness.max())
            mean_hist.append(fitness.mean())
        best = int(np.argmax(fitness))
        return SFLAResult(
            weights=frogs[best].reshape(self.rows, self.cols, self.d).copy(),
            best_fitness=np.asarray(best_hist),
            mean_fitness=np.asarray(mean_hist),
            evaluations=self.evaluations,
        )


def sfla_initial_weights(
    X,
    *,
    rows: int,
    cols: int,
    n_frogs: int = 20,
    n_memeplexes: int = 1,
    iterations: int = 30,
    local_steps: int | None = None,
    sample_size: int = 1000,
    sigma: float = 1.0,
    max_step: float | None = None,
    topology: str = "rectangular",
    random_state: RandomState = None,
) -> SFLAResult:
    """Search for good initial SOM weights with the shuffled frog leaping algorithm.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Training data (min-max scaled in SSKM_DP). Read as it is: the search spends no
        privacy budget and is not itself private.
    rows, cols : int
        Size of the SOM grid; each frog is a rows x cols x d weight array.
    n_frogs : int
        Population size N; must be a multiple of ``n_memeplexes`` (N = p x q).
    n_memeplexes : int
        Number of memeplexes p; 1 is the paper's single population.
    iterations : int
        Shuffles (global iterations).
    local_steps : int, optional
        Leaps of the worst frog per memeplex per shuffle; default the memeplex size q.
    sample_size : int
        Rows on which fitness is computed (drawn once, without replacement), so the search
        costs the same on 3,000 or 48,000 rows.
    sigma : float
        Width of the neighbourhood N in the fitness (Eq. 9), in grid units.
    max_step : float, optional
        D_max of Eq. 6: each coordinate of a leap is clipped to [-max_step, max_step].
    topology : {"rectangular", "hexagonal"}
        Grid layout, as in the SOM that will use the weights.
    random_state : int, Generator or None
        Draws the row sample, the initial frogs (Gaussian, Eq. 8, placed on the data's
        per-column mean and spread), the leap lengths and the reset frogs.

    Returns
    -------
    SFLAResult
    """
    X = check_matrix(X)
    rows = check_positive_int(rows, name="rows")
    cols = check_positive_int(cols, name="cols")
    n_frogs = check_positive_int(n_frogs, name="n_frogs", minimum=2)
    n_memeplexes = check_positive_int(n_memeplexes, name="n_memeplexes")
    iterations = check_positive_int(iterations, name="iterations", minimum=0)
    sample_size = check_positive_int(sample_size, name="sample_size")
    steps = _leaps_per_memeplex(n_frogs, n_memeplexes, local_steps)
    if not sigma > 0:
        raise ValueError(f"sigma must be greater than 0, got {sigma}.")
    rng = check_random_state(random_state)
    search = _FrogSearch(X, rows=rows, cols=cols, sample_size=sample_size, sigma=sigma,
                         max_step=max_step, topology=topology, rng=rng)
    return search.run(n_frogs=n_frogs, n_memeplexes=n_memeplexes, steps=steps,
                      iterations=iterations)
