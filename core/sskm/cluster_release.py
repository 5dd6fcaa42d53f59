"""What a release of cluster rows shares: its noise generator and its MSE and record linkage.

SSKM_DP and the DP baselines (MDAV_DP, IDP-KMeans) release noisy cluster centres.
:func:`noise_generator` gives each release a generator keyed on what it depends on (method,
variant, epsilon), so two releases at different epsilons never share noise draws;
:func:`cluster_release_metrics` measures a release made of cluster rows against the private
records (Eq. 22-23 of paper 003).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from core.runtime.randomness import RandomState, check_random_state, rng_from_keys, spawn_seed
from core.validation import check_matrix

__all__ = ["noise_generator", "epsilon_key", "cluster_release_metrics"]


def noise_generator(random_state: RandomState, *keys: Any) -> np.random.Generator:
    """A generator for release noise: a seed drawn from ``random_state`` mixed with ``keys``.

    Pass what the release depends on (method, variant, epsilon) as ``keys``: one
    ``random_state`` then gives unrelated draws at epsilon 1 and 2, so nobody can combine
    the two releases to cancel the noise (e.g. 2 y(2) - y(1)). The keys are hashed as in
    :func:`core.runtime.randomness.display_seed`, stable across processes
    (:func:`core.runtime.randomness.rng_from_keys`).
    """
    return rng_from_keys(spawn_seed(check_random_state(random_state)), *keys)


def epsilon_key(eps: float) -> str:
    """How an epsilon enters the keys of :func:`noise_generator`."""
    return repr(float(eps))


def cluster_release_metrics(original, labels, centres, row_counts) -> tuple[float, float]:
    """MSE and record linkage (Eq. 22-23 of paper 003) of a release made of cluster rows.

    The release is ``row_counts[c]`` identical rows at ``centres[c]`` for each cluster c
    (in any order); record i of ``original`` belongs to cluster ``labels[i]``.

    - MSE = mean over records of the squared distance to their own cluster's released
      centre (whether or not that cluster emitted a row).
    - RL: the attacker links each record u to one of its nearest released rows G at random
      (every emitted row counts, duplicates included). As in Eq. 23, with a row of u's own
      cluster standing for u's published version: Pr(u) = 1 / |G| when G holds a row of u's
      cluster, else 0 (none when u's cluster emitted no row). RL is the mean of Pr(u).

    For a release where every record is published in place as its cluster's centre
    (``row_counts`` = cluster sizes) this equals :func:`core.evaluation.metrics.mse` and
    :func:`core.evaluation.metrics.record_linkage`.

    Parameters
    ----------
    original : array_like of shape (n, m)
    labels : array_like of int, shape (n,)
        Row of ``centres`` for each record.
    centres : array_like of shape (c, m)
    row_counts : array_like of int, shape (c,)
    """
    A = check_matrix(original, name="original", finite=False, min_columns=0)
    C = check_matrix(centres, name="centres", finite=False, min_rows=0, min_columns=0)
    labels = np.asarray(labels, dtype=np.int64).ravel()
    counts = np.asarray(row_counts, dtype=np.float64).ravel()
    if A.shape[1] != C.shape[1]:
        raise ValueError("original (n, m) and centres (c, m) must have the same m.")
    if len(labels) != len(A) or len(counts) != len(C):
        raise ValueError("labels need one entry per record and row_counts one per centre.")
    if len(labels) and (labels.min() < 0 or labels.max() >= len(C)):
        raise ValueError("labels must index rows of centres.")
    diff = A - C[labels]
    mse_value = float(np.einsum("ij,ij->i", diff, diff).mean())
    emitting = np.flatnonzero(counts > 0)
    if len(emitting) == 0:
        return mse_value, 0.0
    # distinct emitted points, so equal centres give exactly equal distances (ties)
    uniq, inverse = np.unique(C[emitting], axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    uniq_counts = np.bincount(inverse, weights=counts[emitting], minlength=len(uniq))
    own = np.full(len(C), -1, dtype=np.int64)
    own[emitting] = inverse
    own_row = own[labels]
    u_sq = np.einsum("ij,ij->i", uniq, uniq)
    total = 0.0
    block = max(1, 4_000_000 // max(1, len(uniq)))
    for start in range(0, len(A), block):
        a = A[start:start + block]
        o = own_row[start:start + block]
        d = np.einsum("ij,ij->i", a, a)[:, None] - 2.0 * (a @ uniq.T) + u_sq[None, :]
        dmin = d.min(axis=1)
        rows = np.arange(len(a))
        hit = (o >= 0) & (d[rows, np.maximum(o, 0)] <= dmin)
        tied = (d <= dmin[:, None]) @ uniq_counts
        total += float(np.sum(np.where(hit, 1.0 / tied, 0.0)))
    return mse_value, total / len(A)
