"""IDP-KMeans, the differentially private k-means baseline of paper 003's Fig. 7.

:func:`idp_kmeans`: data-independent initial centres (uniform in the public bounds;
``init="canopy"`` keeps the cited method's canopy start, which reads the raw data and is
then not DP), Lloyd iterations with Laplace noise on the (counts, sums) vector of all
clusters calibrated to replacement (L1 sensitivity 2(m + 1) in [0, 1] units,
:func:`idp_kmeans_scale`), the budget split evenly over iterations; the release is the final
noisy centres, each emitting round(max(noisy count, 0)) rows, shuffled (no per-record
assignment is published). The noise is exact discrete Laplace (:mod:`core.privacy.sampler`).
Given a :class:`core.sskm.scaled_table.ScaledTable` built with a public schema, its bounds
and categories are public; built from the data, the ledger says the release is not
differentially private.

``release="cells"`` (what the Compare page runs) keeps the columns' distributions and the
label's relation instead (:mod:`core.sskm.histogram_release`): the Lloyd iterations spend
``lloyd_share`` of epsilon, within the schema label's categories (each cluster holds records
of one category), on a number of clusters sized from n, m and epsilon (at most
``n_clusters``); the rest buys noisy counts of every column's cells in every cluster, and
exactly n rows (n is public) are drawn from them
(:func:`core.sskm.histogram_release.apportion_rows`). Rows at the centres lose the label's relation: on Adult a
classifier trained on them stays near the constant guess
(``benchmarks/bench_cluster_utility.py``).
"""
from __future__ import annotations

import numpy as np

from core.privacy.ledger import PrivacyLedger
from core.privacy.sampler import laplace_on_grid
from core.runtime.randomness import RandomState, check_random_state
from core.sskm.baseline_release import (
    BaselineResult,
    group_size,
    release_bounds,
    table_input,
)
from core.sskm.cluster_release import noise_generator
from core.sskm.histogram_release import (
    cell_layout,
    cluster_count,
    emit_rows,
    noisy_cells,
    record_cells,
    record_strata,
    stratum_clusters,
)
from core.sskm.noisy_som import stratified_bmu
from core.sskm.scaled_table import ScaledTable
from core.validation import (
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
)

__all__ = ["DEFAULT_LLOYD_SHARE", "RELEASES", "idp_kmeans", "idp_kmeans_scale"]

#: what IDP-KMeans releases: rows at the noisy centres (the cited method) or rows drawn from
#: noisy cell counts of every column (:mod:`core.sskm.histogram_release`)
RELEASES = ("centres", "cells")
#: with ``release="cells"``: the share of epsilon the Lloyd iterations spend
DEFAULT_LLOYD_SHARE = 0.3


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
        check_choice(init, ("uniform", "canopy"), name="init (or an array of centres)", kind=str)
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
    strata: np.ndarray | None = None, cluster_strata: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """IDP-KMeans's Lloyd iterations, each spending ``eps_t`` on noisy counts and sums.

    With ``strata`` (each record's, a function of the record alone) and ``cluster_strata``
    (each cluster's), a record goes to the nearest cluster of its own stratum.
    Returns the last iteration's labels, the final centres (in [0, 1] units) and the last
    noisy counts and sums.
    """
    a, m = centres.shape
    scale = idp_kmeans_scale(m, eps_t)
    u_sq = np.einsum("ij,ij->i", U, U)
    for it in range(iterations):
        if strata is None:
            labels = _nearest_centres(U, u_sq, centres)
        else:
            labels = stratified_bmu(U, centres, strata, cluster_strata)
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
    release: str = "centres",
    lloyd_share: float = DEFAULT_LLOYD_SHARE,
    random_state: RandomState = None,
) -> BaselineResult:
    """IDP-KMeans: DP k-means with noisy sums and counts, released as cluster rows.

    Parameters
    ----------
    X : array_like of shape (n, m) or ScaledTable
        Records, within the public ``bounds`` (values outside are clipped). Pass a
        :class:`core.sskm.scaled_table.ScaledTable` built with a public schema
        (``ScaledTable(frame, schema=schema)``) so that bounds and category lists are public;
        a table whose scaling was read from the data marks the ledger not DP. The release is
        then in the table's [0, 1] units (decode it with ``table.decode``).
    n_clusters : int
        a, the number of clusters (or give ``k`` and a = n // k); with ``release="cells"``
        the most clusters (fewer when n x epsilon is small,
        :func:`core.sskm.histogram_release.cluster_count`).
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
    release : {"centres", "cells"}
        ``"centres"``: the cited method, rows at the final noisy centres. ``"cells"``: the
        Lloyd iterations spend ``lloyd_share`` of epsilon within the schema label's
        categories; the rest buys noisy counts of every column's cells per cluster and the
        rows are drawn from them (``X`` must be a ScaledTable, ``init`` "uniform").
    lloyd_share : float
        With ``release="cells"``: the share of epsilon the Lloyd iterations spend, in (0, 1).
    random_state : int, Generator or None
        Initial centres, and the noise (mixed with epsilon).

    Returns
    -------
    BaselineResult
        ``published`` = the emitted rows (round(max(noisy count, 0)) per final centre,
        shuffled; with ``release="cells"`` exactly n rows drawn from the cells), ``centers`` = the final noisy centres clipped to the bounds,
        ``row_counts``, ``labels`` = each record's cluster in the last iteration (not
        released; for :meth:`BaselineResult.metrics`).
    """
    check_choice(release, RELEASES, name="release", kind=str)
    if release == "cells":
        return _idp_cells(X, n_clusters=n_clusters, epsilon=epsilon, k=k, iterations=iterations, init=init,
                          bounds=bounds, lloyd_share=lloyd_share, random_state=random_state)
    table, X, bounds = table_input(X, bounds)
    n = X.shape[0]
    a = _cluster_count(n, n_clusters=n_clusters, k=k)
    eps = check_epsilon(epsilon)
    iterations = check_positive_int(iterations, name="iterations")
    rng = check_random_state(random_state)
    lo, hi, source = release_bounds(X, bounds, default="unit")
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


def _idp_cells(X, *, n_clusters, epsilon, k, iterations, init, bounds, lloyd_share,
               random_state: RandomState) -> BaselineResult:
    """IDP-KMeans with ``release="cells"`` (see :func:`idp_kmeans`)."""
    if not isinstance(X, ScaledTable):
        raise TypeError("release='cells' needs a ScaledTable: its schema's categories and bounds give the cells.")
    if bounds is not None:
        raise ValueError("a ScaledTable carries its own bounds (from its schema); do not pass bounds.")
    if not (isinstance(init, str) and init == "uniform"):
        raise ValueError("release='cells' starts from uniform centres (init='uniform').")
    table = X
    U = table.X
    n = len(U)
    a_max = _cluster_count(n, n_clusters=n_clusters, k=k)
    eps = check_epsilon(epsilon)
    iterations = check_positive_int(iterations, name="iterations")
    share = check_probability(lloyd_share, name="lloyd_share", inclusive=False)
    rng = check_random_state(random_state)
    layout = cell_layout(table, stratify=True)
    eps_release = eps * (1.0 - share)
    per = stratum_clusters(cluster_count(n, layout, eps_release, max_clusters=a_max), layout)
    cluster_strata = np.repeat(np.arange(len(per)), per)
    a = len(cluster_strata)
    strata = record_strata(table, layout) if layout.label is not None else None
    keep = [j for j in range(U.shape[1]) if j != layout.label]
    F = U[:, keep]
    ledger = PrivacyLedger()
    centres = rng.random((a, F.shape[1]))  # data-independent start
    noise = noise_generator(rng, "IDP-KMeans", "cells", repr(float(eps)))
    _, centres, _, _ = _noisy_lloyd(F, centres, eps * share / iterations, iterations=iterations, noise=noise,
                                    ledger=ledger, strata=strata,
                                    cluster_strata=cluster_strata if strata is not None else None)
    labels = stratified_bmu(F, centres, strata, cluster_strata if strata is not None else None)
    counts, cells, parts = noisy_cells(record_cells(table, layout), labels, a, layout, eps_release, noise)
    scale = layout.sensitivity / eps_release
    counted = len(layout.counted)
    ledger.spend(parts[0][0], label=(
        f"release: noisy count of each of the {a} clusters (under the final public centres): L1 sensitivity 2 "
        f"under replacement, Laplace scale about {scale:.4g}"), noise=parts[0][1])
    split = ("" if layout.label is None else
             f" The clusters are split by the label '{layout.columns[layout.label]}' (its role and categories are "
             "the schema's): each holds one category, so the label has no cells and its rows carry it.")
    for e_s, g_s in parts[1:]:
        ledger.spend(e_s, label=(
            f"release: noisy counts of the {layout.width} cells of the {counted} counted columns (categories over "
            f"the schema's list plus (other), numbers in equal bins of the declared range) of each cluster: L1 "
            f"sensitivity 2m = {2 * counted}, Laplace scale about {scale:.4g}; rows drawn from the cells are "
            "post-processing." + split), noise=g_s)
    table.charge(ledger)
    rows = emit_rows(layout, counts, cells, cluster_strata, n=n, scale=scale, random_state=noise)
    return BaselineResult(rows.rows, labels, rows.centres, ledger, row_counts=rows.row_counts,
                          noisy_counts=counts, noisy_sums=cells)
