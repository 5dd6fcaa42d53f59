"""Baselines of paper 003's Fig. 7: MDAV, MDAV_DP and IDP-KMeans.

All take either the group size ``k`` or the number of clusters ``n_clusters`` (a in the
paper's figure; k = n // a) and work on a [0, 1]-scaled matrix (attribute range 1).

- :func:`mdav` is sdcMicro's MDAV microaggregation (Domingo-Ferrer & Mateo-Sanz): while
  at least 3k records remain, take the record r farthest from the centroid of the
  remaining ones and the record s farthest from r, and make groups of r's k nearest and
  then s's k nearest; with 2k..3k-1 left, one more group around the record farthest from
  the centroid; the rest (k..2k-1 records) is the last group. Every group has k records
  except the last, which has k..2k-1. Exact (ties go to the lowest record index, as a
  stable sort would); vectorised over records, one distance scan reused for both the
  farthest record and the nearest group, removed records masked and compacted now and then.
- :func:`mdav_dp` (Soria-Comas et al.): MDAV groups, then Laplace noise of scale
  range / (k x epsilon) on each attribute of each centroid, as DESIGN.md reads it.
- :func:`idp_kmeans`: differentially private k-means (Lloyd iterations with Laplace noise
  on each cluster's sum and count, the budget split evenly over iterations) started from
  canopy centres.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.mechanisms import PrivacyLedger
from core.sskm.sfla import _check_matrix
from core.validation import RandomState, check_epsilon, check_positive_int, check_random_state

__all__ = ["BaselineResult", "mdav", "mdav_dp", "idp_kmeans", "microaggregate", "group_size"]


@dataclass
class BaselineResult:
    """What a baseline publishes.

    Attributes
    ----------
    published : ndarray of shape (n, m)
        Each record replaced by its (noisy) group centre, clipped to [0, 1].
    labels : ndarray of shape (n,)
        Group of each record.
    centers : ndarray of shape (n_groups, m)
        The released (noisy) centres.
    ledger : PrivacyLedger
    """

    published: np.ndarray
    labels: np.ndarray
    centers: np.ndarray
    ledger: PrivacyLedger = field(default_factory=PrivacyLedger)


def group_size(n: int, *, k: int | None = None, n_clusters: int | None = None) -> int:
    """Group size k from ``k`` or from a number of clusters a (k = n // a)."""
    if (k is None) == (n_clusters is None):
        raise ValueError("give exactly one of k (group size) or n_clusters (a; k = n // a).")
    if k is None:
        a = check_positive_int(n_clusters, name="n_clusters")
        if a > n:
            raise ValueError(f"n_clusters ({a}) cannot exceed the number of records ({n}).")
        k = max(1, n // a)
    k = check_positive_int(k, name="k")
    if k > n:
        raise ValueError(f"k ({k}) cannot exceed the number of records ({n}).")
    return k


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
    X = _check_matrix(X)
    n = len(X)
    k = group_size(n, k=k, n_clusters=n_clusters)
    labels = np.full(n, -1, dtype=np.int64)
    # Work on a compacted copy; `ids` maps its rows to original record indices, in
    # increasing order. Distances are scanned fast as |z|^2 - 2 z.p + |p|^2 (one
    # matrix-vector product), then the few records near each decision (the farthest, the
    # k-th nearest) are re-measured as the plain sum of squared differences, and ties
    # go to the lowest record index: the groups are exactly those of a plain MDAV.
    Z = np.ascontiguousarray(X)
    ids = np.arange(n)
    z_sq = np.einsum("ij,ij->i", Z, Z)
    tol = 1e-9 * (1.0 + float(z_sq.max()))  # far above the rounding error of the scan
    alive = np.ones(n, dtype=bool)
    remaining = n
    group = 0

    def scan(p: np.ndarray) -> np.ndarray:
        return z_sq - 2.0 * (Z @ p) + p @ p

    def exact(rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        return ((Z[rows] - p) ** 2).sum(axis=1)

    def farthest(p: np.ndarray, d: np.ndarray) -> int:
        d = np.where(alive, d, -np.inf)
        cand = np.flatnonzero(d >= d.max() - 2 * tol)
        return int(cand[np.argmax(exact(cand, p))])

    def take(p: np.ndarray, d: np.ndarray) -> None:
        # the k nearest alive records (ties to the lowest index) become one group
        nonlocal remaining, group
        if k < remaining:
            d = np.where(alive, d, np.inf)
            v = d[np.argpartition(d, k - 1)[:k]].max()
            cand = np.flatnonzero(d <= v + 2 * tol)
            near = cand[np.lexsort((cand, exact(cand, p)))[:k]]
        else:
            near = np.flatnonzero(alive)
        labels[ids[near]] = group
        alive[near] = False
        remaining -= len(near)
        group += 1

    def compact() -> None:
        nonlocal Z, ids, alive, z_sq
        Z, ids, z_sq = Z[alive], ids[alive], z_sq[alive]
        alive = np.ones(len(Z), dtype=bool)

    while remaining >= 3 * k:
        if remaining < 0.6 * len(Z):
            compact()
        c = Z[alive].mean(axis=0)
        r = farthest(c, scan(c))
        pr = Z[r].copy()
        dr = scan(pr)  # used twice: for s and for r's group
        s = farthest(pr, dr)
        take(pr, dr)
        if not alive[s]:  # only on exact distance ties: the farthest left from r
            s = farthest(pr, dr)
        ps = Z[s].copy()
        take(ps, scan(ps))
    if remaining >= 2 * k:
        c = Z[alive].mean(axis=0)
        r = farthest(c, scan(c))
        pr = Z[r].copy()
        take(pr, scan(pr))
    if remaining > 0:
        labels[ids[alive]] = group
    return labels


def microaggregate(X, labels) -> tuple[np.ndarray, np.ndarray]:
    """Group centroids and the table with each record replaced by its group's centroid."""
    X = _check_matrix(X)
    labels = np.asarray(labels)
    uniq, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    sums = np.zeros((len(uniq), X.shape[1]))
    np.add.at(sums, inverse, X)
    centers = sums / counts[:, None]
    return centers, centers[inverse]


def mdav_dp(
    X,
    k: int | None = None,
    epsilon: float = 1.0,
    *,
    n_clusters: int | None = None,
    labels: np.ndarray | None = None,
    random_state: RandomState = None,
) -> BaselineResult:
    """MDAV_DP: MDAV groups of size k, then Laplace noise on each centroid attribute.

    Parameters
    ----------
    X : array_like of shape (n, m)
        Records scaled to [0, 1] (each attribute's range is taken as its max - min).
    k, n_clusters : int
        Group size, or the number of groups a (k = n // a).
    epsilon : float
        Budget; noise scale range / (k x epsilon) per attribute (one record moves a
        centroid of k records by at most range / k). Groups are disjoint: parallel
        composition.
    labels : ndarray of shape (n,), optional
        MDAV groups computed before with the same k (they are deterministic), reused.
    random_state : int, Generator or None
        Source of the noise.
    """
    X = _check_matrix(X)
    eps = check_epsilon(epsilon)
    k = group_size(len(X), k=k, n_clusters=n_clusters)
    rng = check_random_state(random_state)
    labels = mdav(X, k) if labels is None else np.asarray(labels)
    centers, _ = microaggregate(X, labels)
    span = X.max(axis=0) - X.min(axis=0)
    noisy = centers + rng.laplace(0.0, 1.0, size=centers.shape) * (span / (k * eps))[None, :]
    ledger = PrivacyLedger()
    for g in range(len(centers)):
        ledger.spend(eps, label=f"MDAV group {g}: Laplace on its centroid", parallel_group="mdav_dp groups")
    published = np.clip(noisy[labels], X.min(axis=0), X.max(axis=0))
    return BaselineResult(published, labels, noisy, ledger)


def _canopy_centres(X: np.ndarray, a: int, rng: np.random.Generator, sample: int = 1000) -> np.ndarray:
    """a initial centres by canopy clustering (loose T1 = 2 T2, tight T2 tuned to give about a)."""
    S = X if len(X) <= sample else X[rng.choice(len(X), sample, replace=False)]
    order = rng.permutation(len(S))
    S = S[order]
    s_sq = np.einsum("ij,ij->i", S, S)

    def canopies(t2: float) -> list[tuple[int, np.ndarray]]:
        free = np.ones(len(S), dtype=bool)
        out = []
        for i in range(len(S)):
            if not free[i]:
                continue
            d = np.sqrt(np.maximum(s_sq - 2 * S @ S[i] + s_sq[i], 0))
            members = d <= 2 * t2
            out.append((i, members))
            free &= d > t2
        return out

    lo, hi = 0.0, float(np.sqrt(S.shape[1]))
    best = canopies(hi)
    for _ in range(20):
        mid = 0.5 * (lo + hi)
        found = canopies(mid)
        if len(found) >= a:
            best, lo = found, mid
        else:
            hi = mid
        if len(found) == a:
            best = found
            break
    best = sorted(best, key=lambda t: -int(t[1].sum()))[:a]
    centres = [S[members].mean(axis=0) for _, members in best]
    while len(centres) < a:  # too few canopies (tiny samples): fill with random points
        centres.append(S[rng.integers(len(S))])
    return np.asarray(centres)


def idp_kmeans(
    X,
    n_clusters: int | None = None,
    epsilon: float = 1.0,
    *,
    k: int | None = None,
    iterations: int = 5,
    random_state: RandomState = None,
) -> BaselineResult:
    """IDP-KMeans: DP k-means with canopy initial centres and noisy sums and counts.

    Parameters
    ----------
    X : array_like of shape (n, m)
        Records scaled to [0, 1].
    n_clusters : int
        a, the number of clusters (or give ``k`` and a = n // k).
    epsilon : float
        Total budget, split evenly over ``iterations`` (sequential composition). In each
        iteration each cluster's (sum, count) vector gets Laplace noise of scale
        (m + 1) / epsilon_t: one record changes one cluster's sum by at most 1 per
        attribute and its count by 1. Clusters within an iteration are disjoint (parallel).
    iterations : int
        Lloyd iterations.
    random_state : int, Generator or None
        Canopy sample and order, and the noise.

    Notes
    -----
    The canopy step reads the raw data, as in the cited method; the final assignment of
    records to the noisy centres is published as each record's centre.
    """
    X = _check_matrix(X)
    n, m = X.shape
    if n_clusters is None:
        a = max(1, n // group_size(n, k=k))
    else:
        if k is not None:
            raise ValueError("give exactly one of n_clusters or k.")
        a = check_positive_int(n_clusters, name="n_clusters")
    if a > n:
        raise ValueError(f"n_clusters ({a}) cannot exceed the number of records ({n}).")
    eps = check_epsilon(epsilon)
    iterations = check_positive_int(iterations, name="iterations")
    rng = check_random_state(random_state)
    lo, hi = X.min(axis=0), X.max(axis=0)
    centres = _canopy_centres(X, a, rng)
    eps_t = eps / iterations
    ledger = PrivacyLedger()
    x_sq = np.einsum("ij,ij->i", X, X)

    def assign(C: np.ndarray) -> np.ndarray:
        out = np.empty(n, dtype=np.int64)
        c_sq = np.einsum("ij,ij->i", C, C)
        for s in range(0, n, 8192):
            d = x_sq[s:s + 8192, None] - 2 * X[s:s + 8192] @ C.T + c_sq[None, :]
            out[s:s + 8192] = np.argmin(d, axis=1)
        return out

    for it in range(iterations):
        labels = assign(centres)
        counts = np.bincount(labels, minlength=a).astype(float)
        sums = np.zeros((a, m))
        np.add.at(sums, labels, X)
        scale = (m + 1) / eps_t
        noisy_sums = sums + rng.laplace(0.0, scale, size=sums.shape)
        noisy_counts = counts + rng.laplace(0.0, scale, size=a)
        new = noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
        centres = np.clip(new, lo, hi)
        for c in range(a):
            ledger.spend(eps_t, label=f"iteration {it}, cluster {c}: Laplace on sum and count",
                         parallel_group=f"idp_kmeans iteration {it}")
    labels = assign(centres)
    return BaselineResult(centres[labels].copy(), labels, centres, ledger)
