"""SSKM_DP: publishing through SFLA-Kohonen clusters (paper 003), in two modes.

``mode="sound"`` (the default) is a mechanism whose epsilon holds under the project's one
neighbouring relation (:data:`core.mechanisms.NEIGHBOURING_RELATION`: one record replaced
by any other, n public):

1. The rows are split at random (the estimator's generator) into a **held-out part**
   (``holdout``, 20 % by default) and a published part. The held-out part is treated as
   public and is **never published**: the self-organising map with SFLA initial weights
   (Algorithms 2-3) is fitted on it, the MIC connections (Algorithm 4) are computed on it,
   and the default bounds of numeric columns are its minima and maxima. The guarantee does
   not protect its records (they are outside the release by design).
2. Every attribute is scaled to [0, 1] with those public bounds (categoricals as codes of
   their public category list) and clipped to them.
3. Each published-part record goes to its best-matching neuron. For every neuron of the
   map (empty ones included: which neurons are empty is private) the release is a noisy
   count and noisy sums of **every** attribute. Replacing one record moves it from one
   neuron to another: the counts change by 2 in L1 and the sums by at most 2m (m
   attributes in [0, 1]), so the whole (count, sums) vector of all neurons has L1
   sensitivity 2(m + 1). Laplace noise of scale 2(m + 1) / epsilon on every coordinate
   makes that **one vector release** epsilon-DP. In ledger terms this is the split
   epsilon / (m + 1) to the counts (scale 2 / (epsilon / (m + 1))) and
   epsilon m / (m + 1) to the sums (scale 2m / (epsilon m / (m + 1))): the budget is split
   in proportion to the sensitivities, so every coordinate gets the same noise. It is not
   a per-cluster parallel release: a replaced record touches two neurons at once.
4. Post-processing (no further cost): each neuron emits round(max(noisy count, 0)) rows
   at its centre noisy sums / max(noisy count, 1) clipped to [0, 1]; the rows are
   shuffled. No row keeps an original position and the number of rows is not n.

``mode="paper"`` is the paper's algorithm, kept faithful for the reproductions and the
teaching page: min-max scaling on the data, the map fitted on all raw records, each record
replaced in place by its cluster's centre (Eq. 18), Laplace noise only on the protected
attributes (the sensitive ones and those with MIC >= CS_Tsh toward one), of scale
(range / cluster size) x (number protected) / epsilon (Eq. 19). It is **not** differentially
private (its ledger says so and keeps the nominal epsilon): the map reads the raw records,
row order, cluster sizes and unprotected attributes are published exactly.

In both modes the noise of :meth:`SSKMDP.publish` comes from a generator that mixes the
epsilon into the seed, so two releases at different epsilons with one ``random_state``
never share noise draws (nobody can subtract one from the other to cancel the noise).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from core.data.encoding import ordinal_codes
from core.mechanisms import PrivacyLedger
from core.metrics import mse as _mse
from core.metrics import record_linkage as _record_linkage
from core.progress import Progress, stage
from core.release import display_seed
from core.sskm.connection import DEFAULT_MAX_ROWS, ConnectionResult, mic_connections
from core.sskm.som import SelfOrganizingMap
from core.validation import (
    DataError,
    RandomState,
    check_epsilon,
    check_matrix,
    check_probability,
    check_random_state,
    spawn_seed,
)

__all__ = ["SSKMDP", "ScaledTable", "scale_frame", "MODES", "noise_generator", "cluster_release_metrics",
           "PAPER_NOT_DP_REASON"]

PARALLEL_GROUP = "sskm_dp clusters"
MODES = ("sound", "paper")
PAPER_NOT_DP_REASON = (
    "The paper's SSKM_DP (mode='paper') is not differentially private: the map is fitted on "
    "the raw records (the sensitive attribute included), every record keeps its row, the "
    "cluster sizes and the unprotected attributes are published exactly, and the bounds and "
    "noise scales are read from the data; the epsilon it names is nominal."
)


def noise_generator(random_state: RandomState, *keys: Any) -> np.random.Generator:
    """A generator for release noise: a seed drawn from ``random_state`` mixed with ``keys``.

    Pass what the release depends on (method, mode, epsilon) as ``keys``: one
    ``random_state`` then gives unrelated draws at epsilon 1 and 2, so nobody can combine
    the two releases to cancel the noise (e.g. 2 y(2) - y(1)). The keys are hashed with
    :func:`core.release.display_seed`, stable across processes.
    """
    seed = spawn_seed(check_random_state(random_state))
    return np.random.default_rng([seed, display_seed(0, *keys)])


def _epsilon_key(eps: float) -> str:
    return repr(float(eps))


class ScaledTable:
    """A frame as a [0, 1]-scaled matrix, with what it takes to go back.

    Parameters
    ----------
    frame : DataFrame
        The whole table: its columns, dtypes and category lists (the category lists are
        taken as public).
    reference : DataFrame, optional
        Rows treated as public (SSKM_DP's held-out part): numeric bounds, missing-value
        fills and whether a numeric column holds integers come from them. Default
        ``frame`` itself (min-max scaling on the data, the paper's way).
    bounds : dict of str to (float, float), optional
        Public (lo, hi) of numeric columns, given by the user; they override ``reference``.

    Values outside the bounds are clipped to them (scaled to 0 or 1).

    Attributes
    ----------
    X : ndarray of shape (n, m)
    columns : list of str
    lo, hi : ndarray of shape (m,)
        Column bounds before scaling (category codes 0..k-1 for categoricals).
    categories : dict of str to list
        Sorted categories of each categorical column.
    integer : set of str
        Numeric columns that held integers (published values are rounded back).
    bounds_source : dict of str to str
        For each numeric column, where its bounds came from: "user", "reference" or "data".
    """

    def __init__(self, frame: pd.DataFrame, *, reference: pd.DataFrame | None = None,
                 bounds: Mapping[str, tuple[float, float]] | None = None) -> None:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if frame.shape[1] == 0:
            raise DataError("The table has no columns to publish.")
        if len(frame) < 2:
            raise DataError("Publishing needs at least 2 rows; load more data.")
        ref = frame if reference is None else reference
        if not isinstance(ref, pd.DataFrame) or list(ref.columns) != list(frame.columns):
            raise TypeError("reference must be a DataFrame with the same columns as frame.")
        if len(ref) == 0:
            raise DataError("The reference (public) rows are empty.")
        bounds = dict(bounds or {})
        unknown = [c for c in bounds if c not in frame.columns]
        if unknown:
            raise DataError(f"bounds name column(s) {unknown} that are not in the data.")
        self.columns = list(frame.columns)
        self.categories: dict[str, list] = {}
        self.integer: set[str] = set()
        self.bounds_source: dict[str, str] = {}
        self.dtypes = frame.dtypes
        cols, lo, hi = [], [], []
        for col in self.columns:
            s = frame[col]
            r = ref[col]
            if s.isna().all():
                raise DataError(f"Column '{col}' is empty (all values missing); drop it first.")
            if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
                v = s.to_numpy(dtype=np.float64)
                rv = r.to_numpy(dtype=np.float64)
                if np.isnan(rv).all():
                    raise DataError(f"Column '{col}' has no value in the public (held-out) rows.")
                fill = float(np.nanmedian(rv))
                v = np.where(np.isnan(v), fill, v)
                rv = np.where(np.isnan(rv), fill, rv)
                if not np.all(np.isfinite(v)) or np.abs(v).max() > 1e150:
                    raise DataError(
                        f"Column '{col}' holds infinite or astronomically large values; cap or remove them."
                    )
                if pd.api.types.is_integer_dtype(s) or np.all(rv == np.round(rv)):
                    self.integer.add(col)
                if col in bounds:
                    b_lo, b_hi = _check_bound(col, bounds[col])
                    self.bounds_source[col] = "user"
                else:
                    b_lo, b_hi = float(rv.min()), float(rv.max())
                    self.bounds_source[col] = "data" if reference is None else "reference"
            else:
                if col in bounds:
                    raise DataError(f"bounds apply to numeric columns; '{col}' is categorical.")
                if s.isna().any():
                    fill = (r.mode() if r.notna().any() else s.mode()).iloc[0]
                    s = s.fillna(fill)
                codes, cats = ordinal_codes(s.astype(object))
                self.categories[col] = cats
                v = codes.astype(np.float64)
                b_lo, b_hi = 0.0, float(len(cats) - 1)
            cols.append(v)
            lo.append(b_lo)
            hi.append(b_hi)
        raw = np.column_stack(cols)
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        span = self.hi - self.lo
        self.span = np.where(span > 0, span, 1.0)
        self.X = np.clip(np.where(span > 0, (raw - self.lo) / self.span, 0.0), 0.0, 1.0)
        #: range of each attribute in scaled units: 1, or 0 for a constant column
        self.unit_range = (span > 0).astype(float)

    def decode(self, Z: np.ndarray) -> pd.DataFrame:
        """A frame with the original columns from scaled values ``Z`` (clipped to [0, 1])."""
        Z = np.clip(np.asarray(Z, dtype=np.float64).reshape(-1, len(self.columns)), 0.0, 1.0)
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


def _check_bound(col: str, bound) -> tuple[float, float]:
    try:
        b_lo, b_hi = (float(v) for v in bound)
    except (TypeError, ValueError) as exc:
        raise DataError(f"bounds['{col}'] must be a pair (lo, hi) of numbers.") from exc
    if not (np.isfinite(b_lo) and np.isfinite(b_hi)) or b_lo > b_hi:
        raise DataError(f"bounds['{col}'] must be finite with lo <= hi, got {bound!r}.")
    return b_lo, b_hi


def scale_frame(frame: pd.DataFrame) -> ScaledTable:
    """The [0, 1]-scaled matrix of ``frame`` (categoricals as codes) with its decoder."""
    return ScaledTable(frame)


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
    (``row_counts`` = cluster sizes) this equals :func:`core.metrics.mse` and
    :func:`core.metrics.record_linkage`.

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


class SSKMDP:
    """SSKM_DP publisher (paper 003): SOM clusters and Laplace noise, sound or as published.

    Parameters
    ----------
    epsilon : float
        Privacy budget of the release.
    sensitive : str or sequence of str
        Sensitive attributes (at least one). In the paper mode they (and the attributes
        linked to them) are the protected ones; the sound mode noises every attribute and
        shows the MIC connections for information only.
    cs_threshold : float
        CS_Tsh: attributes with MIC >= this toward a sensitive attribute are protected too
        (paper mode).
    mode : {"sound", "paper"}
        ``"sound"`` (default): held-out map, noisy counts and sums of every neuron, shuffled
        rows; epsilon-DP under the project's relation. ``"paper"``: the paper's algorithm,
        not DP (its ledger is marked so and keeps the nominal epsilon). See the module
        docstring.
    holdout : float
        Sound mode: share of rows held out (public, never published) to fit the map, the
        MIC step and the default bounds. In (0, 1); at least 4 rows are held out and at
        least 1 is published.
    bounds : dict of str to (float, float), optional
        Public (lo, hi) of numeric columns, given by the user; values outside are clipped.
        Unnamed numeric columns take their bounds from the held-out part (sound mode) or
        the data (paper mode).
    rows, cols : int
        SOM grid; at most rows x cols clusters.
    sigma, learning_rate, iterations, init, method, topology, batch_size, sfla_params
        Passed to :class:`core.sskm.som.SelfOrganizingMap`; ``iterations=None`` draws
        max(10,000, 2 x rows it is fitted on).
    mic_max_rows : int or None
        Row cap of the MIC step.
    n_jobs : int
        Processes for the MIC pairs.
    random_state : int, Generator or None
        One generator threads through the split, the SOM, the MIC row sample and (when
        ``publish`` gets no ``random_state``) the noise.

    Attributes (after ``fit``)
    --------------------------
    mode_ : str
    som_ : SelfOrganizingMap
        Fitted on the held-out part (sound) or on every record (paper).
    connections_ : ConnectionResult
        MIC strengths (on the held-out part in the sound mode, unless given to ``fit``).
    table_ : ScaledTable
        Every row of the fitted frame, scaled (sound: public bounds, clipped).
    labels_ : ndarray
        Neuron of each published-part record (sound: the records at ``published_index_``;
        paper: every record). Not released in the sound mode; used for the metrics.
    holdout_index_, published_index_ : ndarray
        Sound mode: row positions (in the fitted frame) of the held-out and published parts.
        Paper mode: empty and every row.
    som_index_ : ndarray
        Rows the map was trained on (``som_.labels_`` follows them): the held-out part
        (sound) or every row (paper). Use it for per-row map views (hit map, shares).
    clusters_ : ndarray
        Neurons released: every neuron of the map (sound) or the non-empty ones (paper).
    cluster_sizes_ : dict of int to int
        True number of published-part records per cluster. Private in the sound mode
        (never released); the release shows ``row_counts_`` instead.
    centres_ : ndarray of shape (n_clusters, m)
        Exact cluster centres in scaled units (Eq. 18), rows ordered as ``clusters_``
        (0 for an empty neuron). Private; not what is released.

    After ``publish``
    -----------------
    published_scaled_ : ndarray
        The released rows in scaled units (sound: shuffled emitted rows; paper: one row per
        record, in order).
    row_neuron_ : ndarray
        Cluster (index into ``clusters_``) of each released row.
    row_counts_ : ndarray of int
        Rows released per cluster (sound: rounded noisy counts; paper: true sizes).
    released_centres_ : ndarray
        Released (clipped, noisy) centre of each cluster, scaled units.
    noisy_centres_ : ndarray
        Noisy centres before clipping.
    noisy_counts_, noisy_sums_ : ndarray
        Sound mode: the epsilon-DP vector itself (everything released is computed from it).
    noise_scale_ : dict of int to float
        Laplace scale per cluster in scaled units (sound: the same on each count and sum).
    ledger_ : PrivacyLedger
    protected_ : tuple of str
        Attributes that carry noise (sound: every attribute).
    epsilon_ : float
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        sensitive=(),
        cs_threshold: float = 0.3,
        mode: str = "sound",
        holdout: float = 0.2,
        bounds: Mapping[str, tuple[float, float]] | None = None,
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
        self.mode = mode
        self.holdout = holdout
        self.bounds = bounds
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

    # ------------------------------------------------------------------ checks
    def _sensitive(self, frame: pd.DataFrame) -> tuple[str, ...]:
        sens = (self.sensitive,) if isinstance(self.sensitive, str) else tuple(self.sensitive)
        if not sens:
            raise ValueError("SSKM_DP needs at least one sensitive attribute to protect.")
        missing = [s for s in sens if s not in frame.columns]
        if missing:
            raise DataError(f"Sensitive column(s) {missing} are not in the data.")
        return sens

    def _check_mode(self) -> str:
        if self.mode not in MODES:
            raise ValueError(f"mode must be 'sound' or 'paper', got {self.mode!r}.")
        return self.mode

    def _som(self, n_rows: int) -> SelfOrganizingMap:
        iterations = self.iterations if self.iterations is not None else max(10_000, 2 * n_rows)
        return SelfOrganizingMap(
            self.rows, self.cols, sigma=self.sigma, learning_rate=self.learning_rate,
            iterations=iterations, init=self.init, method=self.method, topology=self.topology,
            batch_size=self.batch_size, sfla_params=self.sfla_params, random_state=self._rng,
        )

    def _connections(self, frame: pd.DataFrame, sens, connections: ConnectionResult | None,
                     progress: Progress | None = None) -> ConnectionResult:
        if connections is None:
            return mic_connections(
                frame, sens, threshold=self.cs_threshold, max_rows=self.mic_max_rows,
                n_jobs=self.n_jobs, random_state=self._rng, progress=progress,
            )
        if connections.threshold != self.cs_threshold:
            return connections.with_threshold(self.cs_threshold)
        return connections

    # --------------------------------------------------------------------- fit
    def fit(self, frame: pd.DataFrame, *, connections: ConnectionResult | None = None,
            holdout_index=None, progress: Progress | None = None) -> "SSKMDP":
        """Cluster the records and find the protected attributes (no noise yet).

        Parameters
        ----------
        frame : DataFrame
            The table to publish (every column is published).
        connections : ConnectionResult, optional
            MIC strengths computed before (reused, e.g. when only the threshold or epsilon
            changes). Paper mode: on this frame. Sound mode: the release does not use them
            (every attribute is noised); compute them on public rows (``holdout_frame_``)
            if you show them, or leave None to have them computed on the held-out part.
        holdout_index : array_like of int, optional
            Sound mode: row positions to hold out instead of a random ``holdout`` share
            (the caller declares those rows public).
        progress : callable(fraction, message), optional
            Told the map's training draws and the MIC step (:mod:`core.progress`).
        """
        check_epsilon(self.epsilon)
        check_probability(self.cs_threshold, name="cs_threshold")
        mode = self._check_mode()
        sens = self._sensitive(frame)
        self._rng = check_random_state(self.random_state)
        self.mode_ = mode
        self.sensitive_ = sens
        if mode == "paper":
            if holdout_index is not None:
                raise ValueError("holdout_index is for mode='sound'; the paper's mode holds nothing out.")
            return self._fit_paper(frame, sens, connections, progress)
        return self._fit_sound(frame, sens, connections, holdout_index, progress)

    def _fit_paper(self, frame, sens, connections, progress=None) -> "SSKMDP":
        self.table_ = ScaledTable(frame, bounds=self.bounds)
        X = self.table_.X
        self.holdout_index_ = np.empty(0, dtype=np.int64)
        self.published_index_ = np.arange(len(X))
        self.som_index_ = np.arange(len(X))
        self.som_ = self._som(len(X)).fit(X, progress=stage(progress, 0.0, 0.8, "Training the map"))
        self.labels_ = self.som_.labels_
        self.clusters_, inverse, counts = np.unique(self.labels_, return_inverse=True, return_counts=True)
        self._inverse = inverse.reshape(-1)
        self.cluster_sizes_ = {int(c): int(k) for c, k in zip(self.clusters_, counts)}
        sums = np.zeros((len(self.clusters_), X.shape[1]))
        np.add.at(sums, self._inverse, X)
        self.centres_ = sums / counts[:, None]  # Eq. 18
        self._counts = counts
        self.connections_ = self._connections(frame, sens, connections,
                                              stage(progress, 0.8, 1.0, "Measuring connections (MIC)"))
        return self

    def _fit_sound(self, frame, sens, connections, holdout_index, progress=None) -> "SSKMDP":
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        n = len(frame)
        if n < 5:
            raise DataError("The sound SSKM_DP needs at least 5 rows (4 held out, 1 published); load more data.")
        if holdout_index is None:
            share = check_probability(self.holdout, name="holdout", inclusive=False)
            n_hold = min(max(4, int(round(share * n))), n - 1)
            hold = np.sort(self._rng.permutation(n)[:n_hold])
        else:
            hold = np.unique(np.asarray(holdout_index, dtype=np.int64).ravel())
            if len(hold) and (hold[0] < 0 or hold[-1] >= n):
                raise ValueError(f"holdout_index must hold row positions in 0..{n - 1}.")
            if not 4 <= len(hold) <= n - 1:
                raise DataError("hold out at least 4 rows and publish at least 1.")
        mask = np.ones(n, dtype=bool)
        mask[hold] = False
        published = np.flatnonzero(mask)
        self.holdout_index_ = hold
        self.published_index_ = published
        self.som_index_ = hold
        holdout_frame = frame.iloc[hold].reset_index(drop=True)
        self.holdout_frame_ = holdout_frame
        self.table_ = ScaledTable(frame, reference=holdout_frame, bounds=self.bounds)
        X = self.table_.X
        self.som_ = self._som(len(hold)).fit(X[hold], progress=stage(progress, 0.0, 0.8, "Training the map"))
        self.labels_ = self.som_.predict(X[published])
        K = self.rows * self.cols
        self.clusters_ = np.arange(K)
        counts = np.bincount(self.labels_, minlength=K)
        sums = np.zeros((K, X.shape[1]))
        np.add.at(sums, self.labels_, X[published])
        self._counts = counts
        self._sums = sums
        self._inverse = self.labels_
        self.cluster_sizes_ = {int(c): int(k) for c, k in zip(self.clusters_, counts)}
        self.centres_ = sums / np.maximum(counts, 1)[:, None]
        self.connections_ = self._connections(holdout_frame, sens, connections,
                                              stage(progress, 0.8, 1.0, "Measuring connections (MIC)"))
        return self

    # ----------------------------------------------------------------- publish
    def _check_fitted(self) -> None:
        if not hasattr(self, "centres_"):
            raise ValueError("call fit(frame) before publish().")

    def _noise_rng(self, eps: float, random_state: RandomState) -> np.random.Generator:
        base = self._rng if random_state is None else random_state
        return noise_generator(base, "SSKM_DP", self.mode_, _epsilon_key(eps))

    def _sound_scale(self, eps: float) -> float:
        """Laplace scale of every count and sum: L1 sensitivity 2(m + 1) over epsilon."""
        return 2.0 * (self.table_.X.shape[1] + 1) / eps

    def _draw_sound(self, eps: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        b = self._sound_scale(eps)
        noisy_counts = self._counts + rng.laplace(0.0, b, size=self._counts.shape)
        noisy_sums = self._sums + rng.laplace(0.0, b, size=self._sums.shape)
        return noisy_counts, noisy_sums

    def release_aggregates(self, *, epsilon: float | None = None,
                           random_state: RandomState = None) -> tuple[np.ndarray, np.ndarray]:
        """Sound mode: the epsilon-DP vector alone, (noisy counts (K,), noisy sums (K, m)).

        Everything :meth:`publish` releases is computed from it (same draws for the same
        ``epsilon`` and ``random_state``); useful to audit the mechanism cheaply.
        """
        self._check_fitted()
        if self.mode_ != "sound":
            raise ValueError("release_aggregates is for mode='sound'.")
        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        return self._draw_sound(eps, self._noise_rng(eps, random_state))

    def publish(
        self,
        *,
        epsilon: float | None = None,
        cs_threshold: float | None = None,
        random_state: RandomState = None,
    ) -> pd.DataFrame:
        """Release the table.

        Parameters
        ----------
        epsilon : float, optional
            Budget of this release (default the estimator's ``epsilon``).
        cs_threshold : float, optional
            Another CS_Tsh for this release (the MIC strengths are reused). Changes the
            protected attributes of the paper mode; the sound mode noises every attribute.
        random_state : int, Generator or None
            Source of the noise, mixed with the mode and epsilon; default continues the
            generator of ``fit``.

        Returns
        -------
        DataFrame
            Same columns as the fitted frame. Sound mode: the emitted rows, shuffled (their
            number comes from the noisy counts). Paper mode: one row per record, in order.
        """
        self._check_fitted()
        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        conn = self.connections_
        if cs_threshold is not None:
            conn = conn.with_threshold(cs_threshold)
        rng = self._noise_rng(eps, random_state)
        if self.mode_ == "paper":
            self._publish_paper(eps, conn, rng)
        else:
            self._publish_sound(eps, rng)
        self.epsilon_ = eps
        return self.table_.decode(self.published_scaled_)

    def _publish_paper(self, eps: float, conn: ConnectionResult, rng: np.random.Generator) -> None:
        table = self.table_
        protected = list(conn.protected)
        idx = np.array([table.columns.index(c) for c in protected], dtype=np.int64)
        q = len(protected)
        # Eq. 19 with the sensitivity of a cluster mean: range / size per attribute, times q
        scale = (1.0 / self._counts) * q / eps  # per cluster, for a unit-range attribute
        noisy = self.centres_.copy()
        scales = scale[:, None] * table.unit_range[idx][None, :]
        noisy[:, idx] += rng.laplace(0.0, scales)
        self.noisy_centres_ = noisy
        self.released_centres_ = np.clip(noisy, 0.0, 1.0)
        self.row_neuron_ = self._inverse
        self.row_counts_ = self._counts.copy()
        self.published_scaled_ = self.released_centres_[self._inverse]
        ledger = PrivacyLedger()
        for c, size in zip(self.clusters_, self._counts):
            ledger.spend(
                eps,
                label=f"neuron {int(c)} ({int(size)} rows): Laplace on {q} protected attribute(s) of its centre",
                parallel_group=PARALLEL_GROUP,
            )
        ledger.mark_not_dp(PAPER_NOT_DP_REASON)
        self.noise_scale_ = dict(zip((int(c) for c in self.clusters_), scale * 1.0))
        self.ledger_ = ledger
        self.protected_ = tuple(protected)

    def _publish_sound(self, eps: float, rng: np.random.Generator) -> None:
        table = self.table_
        m = table.X.shape[1]
        K = len(self.clusters_)
        b = self._sound_scale(eps)
        noisy_counts, noisy_sums = self._draw_sound(eps, rng)
        # post-processing: centres, row counts, shuffled rows
        noisy = noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
        centres = np.clip(noisy, 0.0, 1.0)
        row_counts = np.rint(np.maximum(noisy_counts, 0.0)).astype(np.int64)
        row_neuron = np.repeat(np.arange(K), row_counts)
        row_neuron = row_neuron[rng.permutation(len(row_neuron))]
        self.noisy_counts_ = noisy_counts
        self.noisy_sums_ = noisy_sums
        self.noisy_centres_ = noisy
        self.released_centres_ = centres
        self.row_counts_ = row_counts
        self.row_neuron_ = row_neuron
        self.published_scaled_ = centres[row_neuron]
        ledger = PrivacyLedger()
        ledger.spend(eps / (m + 1), label=(
            f"noisy count of each of the {K} neurons: L1 sensitivity 2 under replacement "
            f"(a record leaves one neuron, joins another), Laplace scale {b:.4g}"))
        ledger.spend(eps * m / (m + 1), label=(
            f"noisy sums of the {m} attributes in [0, 1] of each of the {K} neurons: L1 sensitivity "
            f"2m = {2 * m}, Laplace scale {b:.4g}. Counts and sums are one vector release over all "
            "neurons (not per-cluster parallel: a replaced record moves between two neurons); rows, "
            "centres and their order are post-processing"))
        n_hold, n = len(self.holdout_index_), len(table.X)
        ledger.assume(
            f"Held-out part: {n_hold} of the {n} records, drawn at random, are treated as public and "
            "never published; the map, the MIC connections and the default bounds are fitted on them, "
            "and the guarantee does not protect them.")
        if table.categories:
            ledger.assume("The category lists of the categorical columns ("
                          + ", ".join(table.categories) + ") are public (read from the whole table).")
        user = [c for c, s in table.bounds_source.items() if s == "user"]
        ref = [c for c, s in table.bounds_source.items() if s == "reference"]
        if user:
            ledger.assume("Bounds of " + ", ".join(user) + " given by the user are public; published "
                          "records outside them are clipped.")
        if ref:
            ledger.assume("Bounds of " + ", ".join(ref) + " are the minima and maxima of the held-out "
                          "part (public); published records outside them are clipped.")
        self.noise_scale_ = {int(c): b for c in self.clusters_}
        self.ledger_ = ledger
        self.protected_ = tuple(table.columns)

    # ----------------------------------------------------------------- metrics
    def release_metrics(self) -> tuple[float, float]:
        """(MSE, RL) of the last release, in scaled units, for either mode.

        Paper mode: Eq. 22-23 on every record and its published row
        (:func:`core.metrics.mse`, :func:`core.metrics.record_linkage`). Sound mode: over
        the published-part records, with :func:`cluster_release_metrics` (distance to the
        released centre of the record's neuron; linkage to a row emitted from its neuron).
        Held-out records are never released and are left out.
        """
        if not hasattr(self, "published_scaled_"):
            raise ValueError("call publish() before release_metrics().")
        X = self.table_.X
        if self.mode_ == "paper":
            return _mse(X, self.published_scaled_), _record_linkage(X, self.published_scaled_)
        return cluster_release_metrics(X[self.published_index_], self.labels_,
                                       self.released_centres_, self.row_counts_)

    def fit_transform(self, frame: pd.DataFrame, y=None) -> pd.DataFrame:
        """Cluster, protect and publish ``frame`` in one call; returns the published frame."""
        return self.fit(frame).publish()
