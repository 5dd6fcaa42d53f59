"""What the baselines of paper 003's Fig. 7 release, and the inputs they share.

:class:`BaselineResult` holds a baseline's release (rows, groups, centres, ledger) and
measures it (Eq. 22-23); :func:`table_input` accepts a :class:`core.sskm.scaled_table.ScaledTable`
(public schema bounds, or bounds read from the data that mark the ledger not DP) in place of
a matrix; :func:`release_bounds` gives the public (lo, hi) per column and :func:`group_size`
turns a number of clusters a into MDAV's group size k = n // a.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.evaluation.metrics import mse as _mse
from core.evaluation.metrics import record_linkage as _record_linkage
from core.privacy.ledger import PrivacyLedger
from core.sskm.cluster_release import cluster_release_metrics
from core.sskm.scaled_table import ScaledTable
from core.validation import check_matrix, check_positive_int

__all__ = ["BaselineResult", "group_size", "release_bounds", "table_input"]


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
        :func:`core.sskm.cluster_release.cluster_release_metrics` with ``labels``.
        """
        X = check_matrix(X)
        if self.row_counts is None:
            return _mse(X, self.published), _record_linkage(X, self.published)
        return cluster_release_metrics(X, self.labels, self.centers, self.row_counts)



def release_bounds(X: np.ndarray, bounds, *, default: str) -> tuple[np.ndarray, np.ndarray, str]:
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


def table_input(X, bounds) -> tuple[ScaledTable | None, np.ndarray, object]:
    """(table, matrix, bounds) from a ScaledTable or a plain matrix.

    A :class:`core.sskm.scaled_table.ScaledTable` is already in [0, 1] with its bounds and
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
