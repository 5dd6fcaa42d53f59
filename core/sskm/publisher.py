"""SSKM_DP: differentially private publishing through SFLA-Kohonen clusters (paper 003).

1. Every attribute is made numeric (categoricals as sorted-category codes) and min-max
   scaled to [0, 1]; missing cells are filled (median / most common value).
2. A self-organising map with SFLA initial weights clusters the records (Algorithms 2-3);
   the clusters are its non-empty neurons.
3. MIC connection strengths (Algorithm 4) name the protected attributes: the sensitive
   ones and those at or above CS_Tsh toward a sensitive one.
4. Every record is replaced by its cluster's centre (Eq. 18); each protected attribute of
   each centre gets Laplace noise (Eq. 19) of scale
   (attribute range / cluster size) x (number of protected attributes) / epsilon:
   one record moves a cluster mean by at most range / size per attribute, so the L1
   sensitivity of the protected part of a centre is that times the number of protected
   attributes. Clusters are disjoint, so by parallel composition the release costs epsilon
   overall (one ledger entry per cluster, all in one parallel group).
5. The noisy values are clipped to each attribute's range (post-processing) and decoded
   back to the original columns (codes rounded to the nearest category).

Limit of the guarantee (stated in the UI): the clustering and the MIC step read the raw
data, and the cluster sizes used in the noise scale are not noised, as in the paper; the
epsilon covers the released centres given the partition.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.data.encoding import ordinal_codes
from core.mechanisms import PrivacyLedger
from core.sskm.connection import DEFAULT_MAX_ROWS, ConnectionResult, mic_connections
from core.sskm.som import SelfOrganizingMap
from core.validation import DataError, RandomState, check_epsilon, check_probability, check_random_state

__all__ = ["SSKMDP", "ScaledTable", "scale_frame"]

PARALLEL_GROUP = "sskm_dp clusters"


class ScaledTable:
    """A frame as a [0, 1]-scaled matrix, with what it takes to go back.

    Attributes
    ----------
    X : ndarray of shape (n, m)
    columns : list of str
    lo, hi : ndarray of shape (m,)
        Column minimum and maximum before scaling (category codes for categoricals).
    categories : dict of str to list
        Sorted categories of each categorical column.
    integer : set of str
        Numeric columns that held integers (published values are rounded back).
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if frame.shape[1] == 0:
            raise DataError("The table has no columns to publish.")
        if len(frame) < 2:
            raise DataError("Publishing needs at least 2 rows; load more data.")
        self.columns = list(frame.columns)
        self.categories: dict[str, list] = {}
        self.integer: set[str] = set()
        self.dtypes = frame.dtypes
        cols = []
        for col in self.columns:
            s = frame[col]
            if s.isna().all():
                raise DataError(f"Column '{col}' is empty (all values missing); drop it first.")
            if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
                v = s.to_numpy(dtype=np.float64)
                if np.isnan(v).any():
                    v = np.where(np.isnan(v), np.nanmedian(v), v)
                if not np.all(np.isfinite(v)) or np.abs(v).max() > 1e150:
                    raise DataError(
                        f"Column '{col}' holds infinite or astronomically large values; cap or remove them."
                    )
                if pd.api.types.is_integer_dtype(s) or np.all(v == np.round(v)):
                    self.integer.add(col)
            else:
                filled = s.fillna(s.mode().iloc[0]) if s.isna().any() else s
                codes, cats = ordinal_codes(filled.astype(object))
                self.categories[col] = cats
                v = codes.astype(np.float64)
            cols.append(v)
        raw = np.column_stack(cols)
        self.lo = raw.min(axis=0)
        self.hi = raw.max(axis=0)
        span = self.hi - self.lo
        self.span = np.where(span > 0, span, 1.0)
        self.X = np.where(span > 0, (raw - self.lo) / self.span, 0.0)
        #: range of each attribute in scaled units: 1, or 0 for a constant column
        self.unit_range = (span > 0).astype(float)

    def decode(self, Z: np.ndarray) -> pd.DataFrame:
        """A frame with the original columns from scaled values ``Z`` (clipped to [0, 1])."""
        Z = np.clip(Z, 0.0, 1.0)
        out = {}
        for j, col in enumerate(self.columns):
            raw = self.lo[j] + Z[:, j] * (self.hi[j] - self.lo[j])
            if col in self.categories:
                cats = self.categories[col]
                codes = np.clip(np.rint(raw), 0, len(cats) - 1).astype(np.int64)
                arr = np.empty(len(cats), dtype=object)
                arr[:] = cats
                out[col] = arr[codes]
            elif col in self.integer:
                out[col] = np.rint(raw).astype(np.int64)
            else:
                out[col] = raw
        return pd.DataFrame(out, columns=self.columns)

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Scale another frame with the same columns on this table's ranges and codes."""
        cols = []
        for j, col in enumerate(self.columns):
            s = frame[col]
            if col in self.categories:
                index = {c: i for i, c in enumerate(self.categories[col])}
                v = s.map(index).to_numpy(dtype=np.float64)
            else:
                v = s.to_numpy(dtype=np.float64)
            cols.append((v - self.lo[j]) / self.span[j])
        return np.column_stack(cols)


def scale_frame(frame: pd.DataFrame) -> ScaledTable:
    """The [0, 1]-scaled matrix of ``frame`` (categoricals as codes) with its decoder."""
    return ScaledTable(frame)


class SSKMDP:
    """SSKM_DP publisher (paper 003): SOM clusters, MIC-protected attributes, Laplace centres.

    Parameters
    ----------
    epsilon : float
        Privacy budget of the release. Each protected attribute of a cluster centre gets
        Laplace noise of scale (range / cluster size) x (number protected) / epsilon.
    sensitive : str or sequence of str
        Sensitive attributes (at least one); always protected.
    cs_threshold : float
        CS_Tsh: attributes with MIC >= this toward a sensitive attribute are protected too.
    rows, cols : int
        SOM grid; the number of clusters is at most rows x cols.
    sigma, learning_rate, iterations, init, method, topology, batch_size, sfla_params
        Passed to :class:`core.sskm.som.SelfOrganizingMap`; ``iterations=None`` draws
        max(10,000, 2n) rows.
    mic_max_rows : int or None
        Row cap of the MIC step.
    n_jobs : int
        Processes for the MIC pairs.
    random_state : int, Generator or None
        One generator threads through the SOM, the MIC row sample and the noise.

    Attributes (after ``fit``)
    --------------------------
    som_ : SelfOrganizingMap
    connections_ : ConnectionResult
    labels_ : ndarray of shape (n,)
        Cluster (neuron) of each record.
    cluster_sizes_ : dict of int to int
    table_ : ScaledTable
    centres_ : ndarray of shape (n_clusters, m)
        Exact cluster centres in scaled units (Eq. 18), rows ordered as ``clusters_``.
    clusters_ : ndarray
        Neuron index of each non-empty cluster.
    After ``publish``: ``noise_scale_`` (per cluster, scaled units), ``noisy_centres_``
    (before clipping), ``published_scaled_``
    (clipped noisy release, scaled), ``ledger_`` (PrivacyLedger), ``protected_``.
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        sensitive=(),
        cs_threshold: float = 0.3,
        rows: int = 10,
        cols: int = 10,
        sigma: float | None = None,
        learning_rate: float = 0.5,
        iterations: int | None = None,
        init: str = "sfla",
        method: str = "batch",
        topology: str = "rectangular",
        batch_size: int = 64,
        sfla_params: dict | None = None,
        mic_max_rows: int | None = DEFAULT_MAX_ROWS,
        n_jobs: int = 1,
        random_state: RandomState = None,
    ) -> None:
        self.epsilon = epsilon
        self.sensitive = sensitive
        self.cs_threshold = cs_threshold
        self.rows = rows
        self.cols = cols
        self.sigma = sigma
        self.learning_rate = learning_rate
        self.iterations = iterations
        self.init = init
        self.method = method
        self.topology = topology
        self.batch_size = batch_size
        self.sfla_params = sfla_params
        self.mic_max_rows = mic_max_rows
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _sensitive(self, frame: pd.DataFrame) -> tuple[str, ...]:
        sens = (self.sensitive,) if isinstance(self.sensitive, str) else tuple(self.sensitive)
        if not sens:
            raise ValueError("SSKM_DP needs at least one sensitive attribute to protect.")
        missing = [s for s in sens if s not in frame.columns]
        if missing:
            raise DataError(f"Sensitive column(s) {missing} are not in the data.")
        return sens

    def fit(self, frame: pd.DataFrame, *, connections: ConnectionResult | None = None) -> "SSKMDP":
        """Cluster the records and find the protected attributes (no noise yet).

        Parameters
        ----------
        frame : DataFrame
            The table to publish (every column is published).
        connections : ConnectionResult, optional
            MIC strengths computed before on this frame (reused, e.g. when only the
            threshold or epsilon changes).
        """
        check_epsilon(self.epsilon)
        check_probability(self.cs_threshold, name="cs_threshold")
        sens = self._sensitive(frame)
        self._rng = check_random_state(self.random_state)
        self.table_ = ScaledTable(frame)
        X = self.table_.X
        n = len(X)
        iterations = self.iterations if self.iterations is not None else max(10_000, 2 * n)
        self.som_ = SelfOrganizingMap(
            self.rows, self.cols, sigma=self.sigma, learning_rate=self.learning_rate,
            iterations=iterations, init=self.init, method=self.method, topology=self.topology,
            batch_size=self.batch_size, sfla_params=self.sfla_params, random_state=self._rng,
        ).fit(X)
        self.labels_ = self.som_.labels_
        self.clusters_, inverse, counts = np.unique(self.labels_, return_inverse=True, return_counts=True)
        self._inverse = inverse
        self.cluster_sizes_ = {int(c): int(k) for c, k in zip(self.clusters_, counts)}
        sums = np.zeros((len(self.clusters_), X.shape[1]))
        np.add.at(sums, inverse, X)
        self.centres_ = sums / counts[:, None]  # Eq. 18
        self._counts = counts
        if connections is None:
            connections = mic_connections(
                frame, sens, threshold=self.cs_threshold, max_rows=self.mic_max_rows,
                n_jobs=self.n_jobs, random_state=self._rng,
            )
        elif connections.threshold != self.cs_threshold:
            connections = connections.with_threshold(self.cs_threshold)
        self.connections_ = connections
        self.sensitive_ = sens
        return self

    def publish(
        self,
        *,
        epsilon: float | None = None,
        cs_threshold: float | None = None,
        random_state: RandomState = None,
    ) -> pd.DataFrame:
        """Release the table: centres with Laplace noise on the protected attributes.

        Parameters
        ----------
        epsilon : float, optional
            Budget of this release (default the estimator's ``epsilon``).
        cs_threshold : float, optional
            Another CS_Tsh for this release (the MIC strengths are reused).
        random_state : int, Generator or None
            Source of the noise; default continues the generator of ``fit``.

        Returns
        -------
        DataFrame
            Same columns as the fitted frame, one row per record.
        """
        if not hasattr(self, "centres_"):
            raise ValueError("call fit(frame) before publish().")
        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        conn = self.connections_
        if cs_threshold is not None:
            conn = conn.with_threshold(cs_threshold)
        rng = self._rng if random_state is None else check_random_state(random_state)
        table = self.table_
        protected = list(conn.protected)
        idx = np.array([table.columns.index(c) for c in protected], dtype=np.int64)
        q = len(protected)
        # Eq. 19 with the sensitivity of a cluster mean: range / size per attribute, times q
        scale = (1.0 / self._counts) * q / eps  # per cluster, for a unit-range attribute
        noisy = self.centres_.copy()
        rngs = table.unit_range[idx]
        noise = rng.laplace(0.0, 1.0, size=(len(self.clusters_), q)) * scale[:, None] * rngs[None, :]
        noisy[:, idx] += noise
        self.noisy_centres_ = noisy
        release = np.clip(noisy[self._inverse], 0.0, 1.0)
        ledger = PrivacyLedger()
        for c, size in zip(self.clusters_, self._counts):
            ledger.spend(
                eps,
                label=f"neuron {int(c)} ({int(size)} rows): Laplace on {q} protected attribute(s) of its centre",
                parallel_group=PARALLEL_GROUP,
            )
        self.noise_scale_ = dict(zip((int(c) for c in self.clusters_), scale * 1.0))
        self.published_scaled_ = release
        self.ledger_ = ledger
        self.protected_ = tuple(protected)
        self.epsilon_ = eps
        return table.decode(release)

    def fit_transform(self, frame: pd.DataFrame, y=None) -> pd.DataFrame:
        """Cluster, protect and publish ``frame`` in one call; returns the published frame."""
        return self.fit(frame).publish()
