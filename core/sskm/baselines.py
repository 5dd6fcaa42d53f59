"""Baselines of paper 003's Fig. 7: MDAV, MDAV_DP and IDP-KMeans.

All take either the group size ``k`` or the number of clusters ``n_clusters`` (a in the
paper's figure; k = n // a) and work on a scaled matrix (attributes in [0, 1] or within
given public ``bounds``).

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
- :func:`idp_kmeans`: differentially private k-means: data-independent initial centres
  (uniform in the public bounds; ``init="canopy"`` keeps the cited method's canopy start,
  which reads the raw data and is then not DP), Lloyd iterations with Laplace noise on the
  (counts, sums) vector of all clusters calibrated to replacement (L1 sensitivity 2(m + 1)
  in [0, 1] units), the budget split evenly over iterations; the release is the final noisy
  centres, each emitting round(max(noisy count, 0)) rows, shuffled (no per-record
  assignment is published). The noise is exact discrete Laplace (:mod:`core.privacy.sampler`).

Both DP baselines take a :class:`core.sskm.publisher.ScaledTable` in place of the matrix:
built with a public schema its bounds and categories are public; built from the data, the
ledger says the release is not differentially private.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.privacy.mechanisms import PrivacyLedger
from core.privacy.sampler import laplace_on_grid
from core.evaluation.metrics import mse as _mse
from core.evaluation.metrics import record_linkage as _record_linkage
from core.sskm.publisher import ScaledTable, cluster_release_metrics, noise_generator
from core.validation import check_epsilon, check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["BaselineResult", "mdav", "mdav_dp", "mdav_release", "idp_kmeans", "microaggregate",
           "group_size", "MDAV_NOT_DP_REASON", "MDAV_DP_NOT_DP_REASON"]

MDAV_NOT_DP_REASON = (
    "Plain MDAV adds no noise: each record is published as the exact mean of its group of k "
    "(k-anonymity), so replacing one record changes the release deterministically."
)
MDAV_DP_NOT_DP_REASON = (
    "MDAV_DP's partition is MDAV run on the raw records: replacing one record can regroup "
    "others, moving their centroids by more than the noise covers, so the epsilon it names is "
    "nominal (the noise only covers one record's move within a fixed partition)."
)


@dataclass
class BaselineResult:
    """What a baseline publishes.

    Attributes
    ----------
    published : ndarray
        The released rows. Per-record releases (MDAV, MDAV_DP): shape (n, m), record i
        as its (noisy) group centre, clipped to the bounds. IDP-KMeans: the emitted rows
        (``row_counts[c]`` copies of centre c), shuffled; their number is not n.
    labels : ndarray of shape (n,)
        Group of each record (for IDP-KMeans the cluster it was in at the last iteration;
        not released, used by :meth:`metrics`).
    centers : ndarray of shape (n_groups, m)
        The released (noisy) centres (IDP-KMeans: clipped to the bounds).
    ledger : PrivacyLedger
    row_counts : ndarray of int or None
        Rows released per centre for a cluster release (IDP-KMeans); None when every record
        is published in place.
    noisy_counts, noisy_sums : ndarray or None
        IDP-KMeans: the last iteration's noisy (counts, sums), in [0, 1] units.
    noise_scale : ndarray or None
        MDAV_DP: Laplace scale of each attribute of a centroid.
    """

    published: np.ndarray
    labels: np.ndarray
    centers: np.ndarray
    ledger: PrivacyLedger = field(default_factory=PrivacyLedger)
    row_counts: np.ndarray | None = None
    noisy_counts: np.ndarray | None = None
    noisy_sums: np.ndarray | None = None
    noise_scale: np.ndarray | None = None

    def metrics(self, X) -> tuple[float, float]:
        """(MSE, RL) of the release against the original records ``X`` (Eq. 22-23).

        Per-record releases use :func:`core.evaluation.metrics.mse` and
        :func:`core.evaluation.metrics.record_linkage`; a cluster release (``row_counts`` set) uses
        :func:`core.sskm.publisher.cluster_release_metrics` with ``labels``.
        """
        X = check_matrix(X)
        if self.row_counts is None:
            return _mse(X, self.published), _record_linkage(X, self.published)
        return cluster_release_metrics(X, self.labels, self.centers, self.row_counts)


def _bounds(X: np.ndarray, bounds, *, default: str) -> tuple[np.ndarray, np.ndarray, str]:
    """Public (lo, hi) per column: given, else [0, 1] (default="unit") or the data's min/max."""
    m = X.shape[1]
    if bounds is None:
        if default == "unit":
            return np.zeros(m), np.ones(m), "unit"
        return X.min(axis=0), X.max(axis=0), "data"
    b = np.asarray(bounds, dtype=np.float64)
    if b.shape != (m, 2):
        raise ValueError(f"bounds must be an array of (lo, hi) per column, shape ({m}, 2); got {b.shape}.")
    if not np.all(np.isfinite(b)) or np.any(b[:, 0] > b[:, 1]):
        raise ValueError("bounds must be finite with lo <= hi in every column.")
    return b[:, 0].copy(), b[:, 1].copy(), "user"


def _table_input(X, bounds) -> tuple[ScaledTable | None, np.ndarray, object]:
    """(table, matrix, bounds) from a ScaledTable or a plain matrix.

    A :class:`core.sskm.publisher.ScaledTable` is already in [0, 1] with its bounds and
    categories from a public schema (or read from the data: its :meth:`ScaledTable.charge`
    then marks the ledger not DP); ``bounds`` must then be None.
    """
    if isinstance(X, ScaledTable):
        if bounds is not None:
            raise ValueError("a ScaledTable carries its own bounds (from its schema); do not pass bounds.")
        return X, X.X, np.column_stack([np.zeros(X.X.shape[1]), np.ones(X.X.shape[1])])
    return None, check_matrix(X), bounds


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
    table, X, bounds = _table_input(X, bounds)
    eps = check_epsilon(epsilon)
    n, m = X.shape
    k = group_size(n, k=k, n_clusters=n_clusters)
    rng = noise_generator(random_state, "MDAV_DP", repr(float(eps)))
    labels = mdav(X, k) if labels is None else np.asarray(labels)
    centers, _ = microaggregate(X, labels)
    lo, hi, source = _bounds(X, bounds, default="data")
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


def idp_kmeans_scale(m: int, epsilon_per_iteration: float) -> float:
    """Laplace scale of every count and sum of one IDP-KMeans iteration, in [0, 1] units.

    Replacing one record moves it between two clusters: counts change by 2 in L1 and sums
    by at most 2m, so the (counts, sums) vector has L1 sensitivity 2(m + 1).
    """
    return 2.0 * (m + 1) / epsilon_per_iteration


def _cluster_count(n: int, *, n_clusters: int | None, k: int | None) -> int:
    """a, the number of IDP-KMeans clusters: ``n_clusters``, or n // k."""
    if n_clusters is None:
        a = max(1, n // group_size(n, k=k))
    else:
        if k is not None:
            raise ValueError("give exactly one of n_clusters or k.")
        a = check_positive_int(n_clusters, name="n_clusters")
    if a > n:
        raise ValueError(f"n_clusters ({a}) cannot exceed the number of records ({n}).")
    return a


def _initial_centres(
    init, U: np.ndarray, a: int, *, lo: np.ndarray, span: np.ndarray,
    rng: np.random.Generator, ledger: PrivacyLedger,
) -> np.ndarray:
    """IDP-KMeans's a initial centres in [0, 1] units, from ``init`` (see :func:`idp_kmeans`);
    canopy centres mark ``ledger`` not DP."""
    m = U.shape[1]
    if isinstance(init, str) and init == "uniform":
        return rng.random((a, m))
    if isinstance(init, str) and init == "canopy":
        centres = _canopy_centres(U, a, rng)
        ledger.mark_not_dp("IDP-KMeans with canopy initial centres is not differentially private: the "
                           "canopies are computed on the raw records and steer every later step.")
        return centres
    if isinstance(init, str):
        raise ValueError(f"init must be 'uniform', 'canopy' or an array of centres, got {init!r}.")
    C0 = np.asarray(init, dtype=np.float64)
    if C0.shape != (a, m) or not np.all(np.isfinite(C0)):
        raise ValueError(f"init centres must be a finite array of shape ({a}, {m}).")
    return np.clip((C0 - lo) / span, 0.0, 1.0)


def _nearest_centres(U: np.ndarray, u_sq: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Index of the nearest centre (row of ``C``) to each row of ``U``, in blocks of rows."""
    n = len(U)
    out = np.empty(n, dtype=np.int64)
    c_sq = np.einsum("ij,ij->i", C, C)
    for s in range(0, n, 8192):
        d = u_sq[s:s + 8192, None] - 2 * U[s:s + 8192] @ C.T + c_sq[None, :]
        out[s:s + 8192] = np.argmin(d, axis=1)
    return out


def _noisy_lloyd(
    U: np.ndarray, centres: np.ndarray, eps_t: float, *, iterations: int,
    noise: np.random.Generator, ledger: PrivacyLedger,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """IDP-KMeans's Lloyd iterations, each spending ``eps_t`` on noisy counts and sums.

    Returns the last iteration's labels, the final centres (in [0, 1] units) and the last
    noisy counts and sums.
    """
    a, m = centres.shape
    scale = idp_kmeans_scale(m, eps_t)
    u_sq = np.einsum("ij,ij->i", U, U)
    for it in range(iterations):
        labels = _nearest_centres(U, u_sq, centres)
        counts = np.bincount(labels, minlength=a).astype(float)
        sums = np.zeros((a, m))
        np.add.at(sums, labels, U)
        # exact discrete Laplace: counts get epsilon_t / (m + 1), sums epsilon_t m / (m + 1), so
        # every coordinate has scale about 2(m + 1) / epsilon_t (:func:`idp_kmeans_scale`)
        eps_c = 2.0 / scale
        eps_s = 2.0 * m / scale
        noisy_counts, g_c = laplace_on_grid(counts, sensitivity=2.0, epsilon=eps_c, grid=1.0, on_grid=True,
                                            coordinates=2, random_state=noise)
        noisy_sums, g_s = laplace_on_grid(sums, sensitivity=2.0 * m, epsilon=eps_s, coordinates=2 * m,
                                          random_state=noise)
        centres = np.clip(noisy_sums / np.maximum(noisy_counts, 1.0)[:, None], 0.0, 1.0)
        ledger.spend(eps_c, label=(
            f"iteration {it}: noisy counts of all {a} clusters, L1 sensitivity 2 under replacement, "
            f"Laplace scale about {scale:.4g}"), noise=g_c)
        ledger.spend(eps_s, label=(
            f"iteration {it}: noisy sums of all {a} clusters, L1 sensitivity 2m = {2 * m} under replacement "
            f"(one vector with the counts: a replaced record leaves one cluster and joins another), "
            f"Laplace scale about {scale:.4g}"), noise=g_s)
    return labels, centres, noisy_counts, noisy_sums


def idp_kmeans(
    X,
    n_clusters: int | None = None,
    epsilon: float = 1.0,
    *,
    k: int | None = None,
    iterations: int = 5,
    init="uniform",
    bounds=None,
    random_state: RandomState = None,
) -> BaselineResult:
    """IDP-KMeans: DP k-means with noisy sums and counts, released as cluster rows.

    Parameters
    ----------
    X : array_like of shape (n, m) or ScaledTable
        Records, within the public ``bounds`` (values outside are clipped). Pass a
        :class:`core.sskm.publisher.ScaledTable` built with a public schema
        (``ScaledTable(frame, schema=schema)``) so that bounds and category lists are public;
        a table whose scaling was read from the data marks the ledger not DP. The release is
        then in the table's [0, 1] units (decode it with ``table.decode``).
    n_clusters : int
        a, the number of clusters (or give ``k`` and a = n // k).
    epsilon : float
        Total budget, split evenly over ``iterations`` (sequential composition). In each
        iteration the (counts, sums) vector of all a clusters gets Laplace noise of scale
        2(m + 1) / epsilon_t on every coordinate (:func:`idp_kmeans_scale`): one vector
        release, not per-cluster parallel, because a replaced record leaves one cluster and
        joins another.
    iterations : int
        Lloyd iterations.
    init : {"uniform", "canopy"} or array_like of shape (a, m)
        Initial centres: uniform draws in the public bounds (data-independent, the default),
        the cited method's canopy centres (they read the raw records: the ledger is then
        marked not DP), or centres given by the caller (public).
    bounds : array_like of shape (m, 2), optional
        Public (lo, hi) per column; default [0, 1] for every column (the caller scaled the
        attributes), noted in the ledger.
    random_state : int, Generator or None
        Initial centres, and the noise (mixed with epsilon).

    Returns
    -------
    BaselineResult
        ``published`` = the emitted rows (round(max(noisy count, 0)) per final centre,
        shuffled), ``centers`` = the final noisy centres clipped to the bounds,
        ``row_counts``, ``labels`` = each record's cluster in the last iteration (not
        released; for :meth:`BaselineResult.metrics`).
    """
    table, X, bounds = _table_input(X, bounds)
    n, m = X.shape
    a = _cluster_count(n, n_clusters=n_clusters, k=k)
    eps = check_epsilon(epsilon)
    iterations = check_positive_int(iterations, name="iterations")
    rng = check_random_state(random_state)
    lo, hi, source = _bounds(X, bounds, default="unit")
    span = np.where(hi > lo, hi - lo, 1.0)
    U = np.clip((X - lo) / span, 0.0, 1.0) * (hi > lo)  # [0, 1] units, clipped
    ledger = PrivacyLedger()
    centres = _initial_centres(init, U, a, lo=lo, span=span, rng=rng, ledger=ledger)
    noise = noise_generator(rng, "IDP-KMeans", repr(float(eps)))
    labels, centres, noisy_counts, noisy_sums = _noisy_lloyd(
        U, centres, eps / iterations, iterations=iterations, noise=noise, ledger=ledger
    )
    if table is not None:  # bounds and categories from the table: a schema, or the data (then not DP)
        table.charge(ledger)
    elif source == "unit":
        ledger.assume("Attributes are taken to lie in [0, 1] (public bounds: the caller scaled them "
                      "without reading the records); values outside are clipped.")
    else:
        ledger.assume("Attribute bounds given by the user are public; values outside are clipped.")
    row_counts = np.rint(np.maximum(noisy_counts, 0.0)).astype(np.int64)
    row_centre = np.repeat(np.arange(a), row_counts)
    row_centre = row_centre[noise.permutation(len(row_centre))]
    released = lo + centres * (hi - lo)
    return BaselineResult(released[row_centre], labels, released, ledger, row_counts=row_counts,
                          noisy_counts=noisy_counts, noisy_sums=noisy_sums)
