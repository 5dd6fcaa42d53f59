"""MDAV microaggregation and MDAV_DP, baselines of paper 003's Fig. 7 (k-anonymity, not DP).

- :func:`mdav` is sdcMicro's MDAV microaggregation (Domingo-Ferrer & Mateo-Sanz): while
  at least 3k records remain, take the record r farthest from the centroid of the
  remaining ones and the record s farthest from r, and make groups of r's k nearest and
  then s's k nearest; with 2k..3k-1 left, one more group around the record farthest from
  the centroid; the rest (k..2k-1 records) is the last group. Every group has k records
  except the last, which has k..2k-1. Exact (ties go to the lowest record index, as a
  stable sort would); vectorised over records, one distance scan reused for both the
  farthest record and the nearest group, removed records masked and compacted now and then.
  :func:`mdav_release` wraps it as a release (no noise; k-anonymity, not DP).
- :func:`mdav_dp` (Soria-Comas et al.): MDAV groups, then Laplace noise of scale
  range x m / (k x epsilon) on each attribute of each centroid: one record moves a
  centroid of at least k records by at most range / k per attribute, so m attributes
  cost m times that and the whole record costs epsilon. **Not DP** under the project's
  relation all the same: the MDAV partition reads the raw records, and replacing one record
  can regroup others (their centroids then move by more than range / k); its ledger says
  so and keeps the nominal epsilon.
"""
from __future__ import annotations

import numpy as np

from core.privacy.ledger import PrivacyLedger
from core.privacy.sampler import laplace_on_grid
from core.runtime.randomness import RandomState
from core.sskm.baseline_release import BaselineResult, group_size, release_bounds, table_input
from core.sskm.cluster_release import noise_generator
from core.validation import check_epsilon, check_matrix

__all__ = ["mdav", "mdav_dp", "mdav_release", "microaggregate", "MDAV_NOT_DP_REASON", "MDAV_DP_NOT_DP_REASON"]

MDAV_NOT_DP_REASON = (
    "Plain MDAV adds no noise: each record is published as the exact mean of its group of k "
    "(k-anonymity), so replacing one record changes the release deterministically."
)
MDAV_DP_NOT_DP_REASON = (
    "MDAV_DP's partition is MDAV run on the raw records: replacing one record can regroup "
    "others, moving their centroids by more than the noise covers, so the epsilon it names is "
    "nominal (the noise only covers one record's move within a fixed partition)."
)



class _MdavGrouping:
    """One run of :func:`mdav`: the records still to group and the groups made so far.

    Works on a compacted copy; ``ids`` maps its rows to original record indices, in
    increasing order. Distances are scanned fast as |z|^2 - 2 z.p + |p|^2 (one
    matrix-vector product), then the few records near each decision (the farthest, the
    k-th nearest) are re-measured as the plain sum of squared differences, and ties go to
    the lowest record index: the groups are exactly those of a plain MDAV.
    """

    def __init__(self, X: np.ndarray, k: int) -> None:
        n = len(X)
        self.k = k
        self.labels = np.full(n, -1, dtype=np.int64)
        self.Z = np.ascontiguousarray(X)
        self.ids = np.arange(n)
        self.z_sq = np.einsum("ij,ij->i", self.Z, self.Z)
        self.tol = 1e-9 * (1.0 + float(self.z_sq.max()))  # far above the rounding error of the scan
        self.alive = np.ones(n, dtype=bool)
        self.remaining = n
        self.group = 0

    def scan(self, p: np.ndarray) -> np.ndarray:
        """Fast squared distances of every (compacted) record to ``p``."""
        return self.z_sq - 2.0 * (self.Z @ p) + p @ p

    def exact(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Exact squared distances of ``rows`` to ``p``."""
        return ((self.Z[rows] - p) ** 2).sum(axis=1)

    def farthest(self, p: np.ndarray, d: np.ndarray) -> int:
        """The alive record farthest from ``p`` (``d``: its scanned distances)."""
        d = np.where(self.alive, d, -np.inf)
        cand = np.flatnonzero(d >= d.max() - 2 * self.tol)
        return int(cand[np.argmax(self.exact(cand, p))])

    def farthest_from_centroid(self) -> int:
        """The alive record farthest from the centroid of the alive records."""
        c = self.Z[self.alive].mean(axis=0)
        return self.farthest(c, self.scan(c))

    def take(self, p: np.ndarray, d: np.ndarray) -> None:
        """Make the k nearest alive records to ``p`` (ties to the lowest index) one group."""
        k = self.k
        if k < self.remaining:
            d = np.where(self.alive, d, np.inf)
            v = d[np.argpartition(d, k - 1)[:k]].max()
            cand = np.flatnonzero(d <= v + 2 * self.tol)
            near = cand[np.lexsort((cand, self.exact(cand, p)))[:k]]
        else:
            near = np.flatnonzero(self.alive)
        self.labels[self.ids[near]] = self.group
        self.alive[near] = False
        self.remaining -= len(near)
        self.group += 1

    def compact(self) -> None:
        """Drop the grouped records from the working copy."""
        alive = self.alive
        self.Z, self.ids, self.z_sq = self.Z[alive], self.ids[alive], self.z_sq[alive]
        self.alive = np.ones(len(self.Z), dtype=bool)

    def run(self) -> np.ndarray:
        """Group every record; the group index of each."""
        k = self.k
        while self.remaining >= 3 * k:
            if self.remaining < 0.6 * len(self.Z):
                self.compact()
            r = self.farthest_from_centroid()
            pr = self.Z[r].copy()
            dr = self.scan(pr)  # used twice: for s and for r's group
            s = self.farthest(pr, dr)
            self.take(pr, dr)
            if not self.alive[s]:  # only on exact distance ties: the farthest left from r
                s = self.farthest(pr, dr)
            ps = self.Z[s].copy()
            self.take(ps, self.scan(ps))
        if self.remaining >= 2 * k:
            r = self.farthest_from_centroid()
            pr = self.Z[r].copy()
            self.take(pr, self.scan(pr))
        if self.remaining > 0:
            self.labels[self.ids[self.alive]] = self.group
        return self.labels


def mdav(X, k: int | None = None, *, n_clusters: int | None = None) -> np.ndarray:
    """MDAV microaggregation groups (sdcMicro semantics).

    Parameters
    ----------
    X : array_like of shape (n, m)
        Records (scaled numeric attributes).
    k : int, optional
        Minimum group size: every group has k records except the last (k..2k-1); the
        k-anonymity parameter.
    n_clusters : int, optional
        Alternatively a, the number of groups wanted: k = n // a.

    Returns
    -------
    ndarray of shape (n,)
        Group index of each record, 0, 1, ... in the order the groups are formed.
    """
    X = check_matrix(X)
    k = group_size(len(X), k=k, n_clusters=n_clusters)
    return _MdavGrouping(X, k).run()


def microaggregate(X, labels) -> tuple[np.ndarray, np.ndarray]:
    """Group centroids and the table with each record replaced by its group's centroid."""
    X = check_matrix(X)
    labels = np.asarray(labels)
    uniq, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    sums = np.zeros((len(uniq), X.shape[1]))
    np.add.at(sums, inverse, X)
    centers = sums / counts[:, None]
    return centers, centers[inverse]


def mdav_release(X, k: int | None = None, *, n_clusters: int | None = None,
                 labels: np.ndarray | None = None) -> BaselineResult:
    """Plain MDAV as a release: each record replaced by its group's centroid, no noise.

    Its ledger has no spend and is marked not DP (k-anonymity is not differential privacy).
    ``labels`` reuses MDAV groups computed before with the same k.
    """
    X = check_matrix(X)
    k = group_size(len(X), k=k, n_clusters=n_clusters)
    labels = mdav(X, k) if labels is None else np.asarray(labels)
    centers, published = microaggregate(X, labels)
    ledger = PrivacyLedger()
    ledger.mark_not_dp(MDAV_NOT_DP_REASON)
    return BaselineResult(published, labels, centers, ledger)


def mdav_dp(
    X,
    k: int | None = None,
    epsilon: float = 1.0,
    *,
    n_clusters: int | None = None,
    labels: np.ndarray | None = None,
    bounds=None,
    random_state: RandomState = None,
) -> BaselineResult:
    """MDAV_DP: MDAV groups of size k, then Laplace noise on each centroid attribute.

    Parameters
    ----------
    X : array_like of shape (n, m) or ScaledTable
        Records (scaled); a ScaledTable brings its public (schema) or data-read bounds,
        and its reasons go into the ledger.
    k, n_clusters : int
        Group size, or the number of groups a (k = n // a).
    epsilon : float
        Nominal budget of the whole record: noise scale range x m / (k x epsilon) per
        attribute (one record moves a centroid of at least k records by at most range / k
        per attribute, m attributes). Groups are disjoint given the partition (parallel
        entries in the ledger). The ledger is marked not DP: the partition reads the raw
        records (see :data:`MDAV_DP_NOT_DP_REASON`).
    labels : ndarray of shape (n,), optional
        MDAV groups computed before with the same k (they are deterministic), reused.
    bounds : array_like of shape (m, 2), optional
        Public (lo, hi) per column: the range in the noise scale and the clip of the
        release. Default the data's min and max (noted in the ledger's assumptions).
    random_state : int, Generator or None
        Source of the noise (mixed with epsilon: no draw is reused across epsilons).
    """
    table, X, bounds = table_input(X, bounds)
    eps = check_epsilon(epsilon)
    n, m = X.shape
    k = group_size(n, k=k, n_clusters=n_clusters)
    rng = noise_generator(random_state, "MDAV_DP", repr(float(eps)))
    labels = mdav(X, k) if labels is None else np.asarray(labels)
    centers, _ = microaggregate(X, labels)
    lo, hi, source = release_bounds(X, bounds, default="data")
    scale = (hi - lo) * m / (k * eps)
    noisy = centers.copy()
    noise_note = "no noise (every range is 0)"
    for j in np.flatnonzero(hi > lo):  # the exact sampler, one column (one range) at a time
        noisy[:, j], grid_noise = laplace_on_grid(centers[:, j], sensitivity=float(hi[j] - lo[j]) * m / k,
                                                  epsilon=eps, coordinates=1, random_state=rng)
        noise_note = grid_noise
    ledger = PrivacyLedger()
    for g in range(len(centers)):
        ledger.spend(eps, label=f"MDAV group {g}: Laplace of scale range x {m} / ({k} x {eps:g}) on its "
                                "centroid", parallel_group="mdav_dp groups", noise=noise_note)
    ledger.mark_not_dp(MDAV_DP_NOT_DP_REASON)
    if table is not None:
        table.charge(ledger)
    elif source == "data":
        ledger.assume("Attribute ranges (noise scale and clipping) are the data's minima and maxima.")
    else:
        ledger.assume("Attribute ranges (noise scale and clipping) given by the user are public.")
    _, inverse = np.unique(labels, return_inverse=True)
    published = np.clip(noisy[inverse.reshape(-1)], lo, hi)
    return BaselineResult(published, labels, noisy, ledger, noise_scale=scale)
