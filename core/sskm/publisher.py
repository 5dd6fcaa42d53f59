"""SSKM_DP: publishing through SFLA-Kohonen clusters (paper 003), in two modes.

``mode="sound"`` (the default) is a mechanism whose epsilon holds under the project's one
neighbouring relation (:data:`core.privacy.mechanisms.NEIGHBOURING_RELATION`: one record replaced
by any other, n public). It reads the private rows only through noise its ledger pays for:

1. **Public scaling.** Bounds and category lists come from the ``schema``
   (:class:`core.privacy.schema.PublicSchema`): each record is conformed on its own (numbers
   clipped to the declared bounds, unknown categories to ``(other)``), numbers are scaled
   by the declared bounds, categories coded over the declared list plus ``(other)``. A
   record can neither add a category nor stretch a range. Without a schema (or with
   entries "read from data") the scaling reads the rows and the ledger says the release is
   not differentially private, with the reason.
2. **The map** (``map_fit``). ``"noisy"`` (default): a data-independent start (uniform
   weights in [0, 1]^m from the seed, not SFLA, which reads the rows) and a batch SOM fitted
   in ``map_iterations`` steps, each through noisy per-neuron counts and sums (the same
   replace-one sensitivities as the release), spending ``map_share`` of epsilon
   (:func:`core.sskm.som.noisy_batch_som`); the map is drawn again for every release, with
   its noise. ``"reference"``: the paper's SOM (SFLA start) fitted on a public reference
   table the user provides; the ledger states that it is public.
   The old held-out 20 % is gone: it set the bounds and fitted the map and the MIC without
   noise, so one record in it changed the release outside the budget (an age above the
   neighbour's maximum appeared in 45 % of the releases). The MIC step is shown for
   information only (computed on the reference when given, else on the private rows and
   labelled so): the release noises every attribute.
3. Each record goes to its best-matching neuron. For every neuron of the map (empty ones
   included: which neurons are empty is private) the release is a noisy count and noisy
   sums of **every** attribute. Replacing one record moves it from one neuron to another:
   the counts change by 2 in L1 and the sums by at most 2m (m attributes in [0, 1]), so the
   whole (count, sums) vector of all neurons has L1 sensitivity 2(m + 1). The release's
   epsilon is split epsilon / (m + 1) to the counts and epsilon m / (m + 1) to the sums:
   every coordinate gets noise of about 2(m + 1) / epsilon. The noise is exact discrete
   Laplace on a grid (:func:`core.privacy.sampler.laplace_on_grid`; counts on the integers), and
   the ledger entries carry the grid. It is not a per-cluster parallel release: a replaced
   record touches two neurons at once.
4. Post-processing (no further cost): each neuron emits round(max(noisy count, 0)) rows
   at its centre noisy sums / max(noisy count, 1) clipped to [0, 1]; the rows are
   shuffled. No row keeps an original position and the number of rows is not n.

The ledger's total is epsilon: map share plus release share (noisy map), or all of it on
the release (reference map).

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
from core.privacy.schema import PublicSchema
from core.privacy.mechanisms import PrivacyLedger
from core.evaluation.metrics import mse as _mse
from core.evaluation.metrics import record_linkage as _record_linkage
from core.runtime.progress import Progress, report, stage
from core.runtime.randomness import display_seed
from core.sskm.connection import DEFAULT_MAX_ROWS, ConnectionResult, mic_connections
from core.privacy.sampler import laplace_on_grid
from core.sskm.som import SelfOrganizingMap, _noisy_counts_sums, noisy_batch_som
from core.validation import (
    DataError, check_epsilon, check_matrix, check_positive_int, check_probability,
)
from core.runtime.randomness import RandomState, check_random_state, spawn_seed

__all__ = ["SSKMDP", "ScaledTable", "scale_frame", "MODES", "MAP_FITS", "noise_generator",
           "cluster_release_metrics", "PAPER_NOT_DP_REASON", "NO_SCHEMA_REASON"]

PARALLEL_GROUP = "sskm_dp clusters"
MODES = ("sound", "paper")
#: where the sound mode's map comes from
MAP_FITS = ("noisy", "reference")
#: share of epsilon the sound mode's noisy map spends, and its noisy batch steps
DEFAULT_MAP_SHARE = 0.3
DEFAULT_MAP_ITERATIONS = 3
NO_SCHEMA_REASON = ("No public schema was given: the bounds and category lists are read from your data.")
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
    :func:`core.runtime.randomness.display_seed`, stable across processes.
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
        The table (private rows).
    schema : PublicSchema, optional
        Where bounds and category lists come from (the only way to a DP release): each
        record is mapped into the schema's domain on its own (:meth:`PublicSchema.conform`:
        numbers clipped to the declared bounds, a missing number to the middle of the range,
        an unknown or missing category to :data:`core.privacy.schema.OTHER`), numbers are
        scaled by the declared bounds, categories coded over :attr:`ColumnSchema.domain`
        (the declared list, then OTHER). Identifier columns are dropped. Nothing about the
        scaling depends on the rows, so one replaced record changes one row of ``X``.
        Entries the schema marks "read from data" are listed in :attr:`read_from_data`.
    reference : DataFrame, optional
        Without a schema: rows whose minima, maxima, medians and integer-ness give the
        numeric bounds and fills (default ``frame`` itself: min-max scaling on the data,
        the paper's way). Either way they are read from data (:attr:`read_from_data`).
    bounds : dict of str to (float, float), optional
        Without a schema: public (lo, hi) of numeric columns given by the user; they
        override ``reference``.

    Without a schema the category lists are always read from ``frame`` and numeric bounds
    from the data unless given: a release built on such a table is not differentially
    private, and :attr:`not_dp_reason` says why in one sentence.

    Values outside the bounds are clipped to them (scaled to 0 or 1).

    Attributes
    ----------
    X : ndarray of shape (n, m)
    columns : list of str
    lo, hi : ndarray of shape (m,)
        Column bounds before scaling (category codes 0..k-1 for categoricals).
    categories : dict of str to list
        The category list of each categorical column (with a schema: its domain, OTHER
        last; without: the sorted values found in ``frame``).
    integer : set of str
        Numeric columns of whole numbers (published values are rounded back).
    bounds_source : dict of str to str
        Where each column's bounds or categories came from: a schema source ("declared",
        "built-in", "private estimate", "read from data") or, without a schema, "user",
        "reference" or "data".
    read_from_data : list of str
        Columns whose bounds or categories were read from the private rows.
    schema : PublicSchema or None
    """

    def __init__(self, frame: pd.DataFrame, *, schema: PublicSchema | None = None,
                 reference: pd.DataFrame | None = None,
                 bounds: Mapping[str, tuple[float, float]] | None = None) -> None:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if frame.shape[1] == 0:
            raise DataError("The table has no columns to publish.")
        if len(frame) < 2:
            raise DataError("Publishing needs at least 2 rows; load more data.")
        self.schema = schema
        if schema is not None:
            if not isinstance(schema, PublicSchema):
                raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
            if reference is not None or bounds:
                raise ValueError("with a schema, bounds and categories come from it; do not pass "
                                 "reference or bounds as well (edit the schema instead).")
            self._from_schema(frame, schema)
        else:
            self._from_data(frame, reference, bounds)
        self._scale()

    # ------------------------------------------------------------------ building
    def _from_schema(self, frame: pd.DataFrame, schema: PublicSchema) -> None:
        unknown = [c for c in frame.columns if c not in schema]
        if unknown:
            raise DataError(f"The public schema does not list column(s) {unknown}; add them to the "
                            "schema (Data page) or leave them out.")
        self.columns = [c for c in frame.columns if schema[c].kind != "identifier"]
        if not self.columns:
            raise DataError("Every column is an identifier in the schema: nothing to publish.")
        conformed = schema.conform(frame, self.columns)
        self.dtypes = frame[self.columns].dtypes
        self.categories: dict[str, list] = {}
        self.integer: set[str] = set()
        self.bounds_source: dict[str, str] = {}
        raw, lo, hi = [], [], []
        for col in self.columns:
            spec = schema[col]
            self.bounds_source[col] = spec.source
            if spec.kind == "numeric":
                raw.append(conformed[col].to_numpy(dtype=np.float64))
                lo.append(spec.lower)
                hi.append(spec.upper)
                if spec.integer:
                    self.integer.add(col)
            else:
                domain = list(spec.domain)
                self.categories[col] = domain
                raw.append(schema.codes(conformed, col).astype(np.float64))
                lo.append(0.0)
                hi.append(float(len(domain) - 1))
        self._raw = np.column_stack(raw)
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        self.read_from_data = schema.read_from_data(self.columns)

    def _from_data(self, frame: pd.DataFrame, reference: pd.DataFrame | None,
                   bounds: Mapping[str, tuple[float, float]] | None) -> None:
        ref = frame if reference is None else reference
        if not isinstance(ref, pd.DataFrame) or list(ref.columns) != list(frame.columns):
            raise TypeError("reference must be a DataFrame with the same columns as frame.")
        if len(ref) == 0:
            raise DataError("The reference rows are empty.")
        bounds = dict(bounds or {})
        unknown = [c for c in bounds if c not in frame.columns]
        if unknown:
            raise DataError(f"bounds name column(s) {unknown} that are not in the data.")
        self.columns = list(frame.columns)
        self.categories = {}
        self.integer = set()
        self.bounds_source = {}
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
                    raise DataError(f"Column '{col}' has no value in the reference rows.")
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
                self.bounds_source[col] = "data"
                v = codes.astype(np.float64)
                b_lo, b_hi = 0.0, float(len(cats) - 1)
            cols.append(v)
            lo.append(b_lo)
            hi.append(b_hi)
        self._raw = np.column_stack(cols)
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        self.read_from_data = [c for c in self.columns if self.bounds_source[c] in ("data", "reference")]

    def _scale(self) -> None:
        span = self.hi - self.lo
        self.span = np.where(span > 0, span, 1.0)
        self.X = np.clip(np.where(span > 0, (self._raw - self.lo) / self.span, 0.0), 0.0, 1.0)
        del self._raw
        #: range of each attribute in scaled units: 1, or 0 for a constant column
        self.unit_range = (span > 0).astype(float)

    # ------------------------------------------------------------------ privacy
    @property
    def is_public(self) -> bool:
        """True when no bound or category list was read from the rows."""
        return not self.read_from_data

    @property
    def not_dp_reason(self) -> str | None:
        """One sentence when a bound or category list was read from the rows, else None."""
        if not self.read_from_data:
            return None
        if self.schema is not None:
            return self.schema.not_dp_reason(self.columns)
        shown = ", ".join(f"'{c}'" for c in self.read_from_data[:6])
        more = f" and {len(self.read_from_data) - 6} more" if len(self.read_from_data) > 6 else ""
        return (f"Bounds or categories read from your data ({shown}{more}): no public schema was given, "
                "so the scaling depends on the records themselves.")

    def charge(self, ledger: PrivacyLedger) -> PrivacyLedger:
        """Put what this scaling means into ``ledger``: not DP when read from the rows,
        the schema's estimate spends and assumptions otherwise (returned, for chaining)."""
        if self.schema is not None:
            return self.schema.charge(ledger, self.columns)
        reason = self.not_dp_reason
        if reason:
            ledger.mark_not_dp(reason)
        user = [c for c, s in self.bounds_source.items() if s == "user"]
        if user:
            ledger.assume("Bounds of " + ", ".join(user) + " given by the user are public; records "
                          "outside them are clipped.")
        return ledger

    # ------------------------------------------------------------------ use
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
        """Scale another frame with the same columns on this table's ranges and codes.

        With a schema the frame is conformed first (clipped, unknown categories to OTHER),
        so the result lies in [0, 1]; without one, values outside the ranges fall outside
        [0, 1] and unknown categories are NaN.
        """
        if self.schema is not None:
            conformed = self.schema.conform(frame, self.columns)
            cols = []
            for j, col in enumerate(self.columns):
                if col in self.categories:
                    v = self.schema.codes(conformed, col).astype(np.float64)
                else:
                    v = conformed[col].to_numpy(dtype=np.float64)
                cols.append((v - self.lo[j]) / self.span[j] * self.unit_range[j])
            return np.column_stack(cols)
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


class SSKMDP:
    """SSKM_DP publisher (paper 003): SOM clusters and Laplace noise, sound or as published.

    Parameters
    ----------
    epsilon : float
        Privacy budget of the release (sound mode: map and release together).
    sensitive : str or sequence of str
        Sensitive attributes (at least one). In the paper mode they (and the attributes
        linked to them) are the protected ones; the sound mode noises every attribute and
        shows the MIC connections for information only.
    cs_threshold : float
        CS_Tsh: attributes with MIC >= this toward a sensitive attribute are protected too
        (paper mode).
    mode : {"sound", "paper"}
        ``"sound"`` (default): public scaling from ``schema``, a map that reads the rows only
        through paid noise (or a public reference table), noisy counts and sums of every
        neuron, shuffled rows. ``"paper"``: the paper's algorithm, not DP (its ledger is
        marked so and keeps the nominal epsilon). See the module docstring.
    schema : PublicSchema, optional
        Sound mode: the bounds and category lists of the published columns. Required for a
        DP claim: without it (or where it has entries "read from data" for a published
        column) the release says it is not differentially private, with the reason. The
        paper mode scales on the data, as the paper does, and reads the schema only for its
        identifiers. In both modes the columns the schema marks identifier (row numbers,
        IDs, keys) are left out of the map, the MIC step and the release.
    map_fit : {"noisy", "reference"}
        Sound mode: where the map comes from. ``"noisy"`` (default): a data-independent
        start and a batch SOM fitted through noisy per-neuron counts and sums
        (:func:`core.sskm.som.noisy_batch_som`) with ``map_share`` of epsilon.
        ``"reference"``: the paper's SOM (``init``, SFLA by default) fitted on a public
        reference table given to :meth:`fit` (``reference=``); the whole epsilon goes to
        the release and the ledger states that the reference is public.
    map_share : float
        Share of epsilon the noisy map spends, in (0, 1); the release gets the rest.
    map_iterations : int
        Noisy batch steps of the map (each costs map_share x epsilon / map_iterations).
    bounds : dict of str to (float, float), optional
        Without a schema: public (lo, hi) of numeric columns given by the user. With a
        schema, give bounds in the schema instead.
    rows, cols : int
        SOM grid; at most rows x cols clusters.
    sigma, learning_rate, iterations, init, method, topology, batch_size, sfla_params
        Passed to :class:`core.sskm.som.SelfOrganizingMap` (the paper mode and the
        reference map); ``iterations=None`` draws max(10,000, 2 x rows it is fitted on).
        ``sigma`` and ``topology`` also shape the noisy map.
    mic_max_rows : int or None
        Row cap of the MIC step.
    n_jobs : int
        Processes for the MIC pairs.
    random_state : int, Generator or None
        One generator threads through the SOM, the MIC row sample and (when ``publish``
        gets no ``random_state``) the noise.

    Attributes (after ``fit``)
    --------------------------
    mode_ : str
    som_ : SelfOrganizingMap
        Paper: fitted on every record. Sound: the reference map, or a noisy map drawn at
        the estimator's epsilon with the fit's generator (for display: every release draws
        its own, ``release_som_``). Its ``labels_``, ``history_`` and hit map are evaluated
        on the private rows: shown for information, never released.
    connections_ : ConnectionResult
        MIC strengths (sound: on the reference table if given, else on the private rows,
        for information only: the sound release noises every attribute).
    table_ : ScaledTable
        Every row of the fitted frame, scaled (sound with a schema: public bounds, clipped).
    labels_ : ndarray
        Neuron of each record under ``som_`` (after a sound release: under
        ``release_som_``). Not released; used for the metrics.
    published_index_ : ndarray
        Row positions of the records behind the release: every row (kept for callers).
    holdout_index_ : ndarray
        Empty: no record is held out any more (the old sound mode's held-out part set the
        bounds and the map without noise, which leaked).
    som_index_ : ndarray
        Rows ``som_.labels_`` follows: every row of the fitted frame.
    clusters_ : ndarray
        Neurons released: every neuron of the map (sound) or the non-empty ones (paper).
    cluster_sizes_ : dict of int to int
        True number of records per cluster. Private in the sound mode (never released).
    centres_ : ndarray of shape (n_clusters, m)
        Exact cluster centres in scaled units (Eq. 18). Private; not what is released.

    After ``publish``
    -----------------
    published_scaled_, row_neuron_, row_counts_, released_centres_, noisy_centres_ : ndarray
        The released rows in scaled units and how they were made.
    noisy_counts_, noisy_sums_ : ndarray
        Sound mode: the release's noisy vector (the rows are computed from it).
    release_som_ : SelfOrganizingMap
        Sound mode: the map behind the last release (drawn with it, or the reference map).
    noise_scale_ : dict of int to float
        Laplace scale per cluster in scaled units.
    ledger_ : PrivacyLedger
    protected_ : tuple of str
    epsilon_ : float
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        sensitive=(),
        cs_threshold: float = 0.3,
        mode: str = "sound",
        schema: PublicSchema | None = None,
        map_fit: str = "noisy",
        map_share: float = DEFAULT_MAP_SHARE,
        map_iterations: int = DEFAULT_MAP_ITERATIONS,
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
        self.schema = schema
        self.map_fit = map_fit
        self.map_share = map_share
        self.map_iterations = map_iterations
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
    def _without_identifiers(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` without the columns the schema marks identifier (both modes): a row
        number or key is never clustered, measured or published."""
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if self.schema is None:
            return frame
        if not isinstance(self.schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema, got {type(self.schema).__name__}.")
        ids = [c for c in frame.columns if c in set(self.schema.identifiers)]
        if not ids:
            return frame
        sens = (self.sensitive,) if isinstance(self.sensitive, str) else tuple(self.sensitive)
        marked = [s for s in sens if s in ids]
        if marked:
            raise ValueError(f"The sensitive attribute(s) {marked} are identifiers in the public schema; an "
                             "identifier is never published. Change its role on the Data page.")
        rest = frame.drop(columns=ids)
        if rest.shape[1] == 0:
            raise DataError("Every column is an identifier in the schema: nothing to publish.")
        return rest

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

    def _check_map(self) -> None:
        if self.map_fit not in MAP_FITS:
            raise ValueError(f"map_fit must be one of {MAP_FITS}, got {self.map_fit!r}.")
        check_probability(self.map_share, name="map_share", inclusive=False)
        check_positive_int(self.map_iterations, name="map_iterations")
        if self.schema is not None and not isinstance(self.schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema or None, got {type(self.schema).__name__}.")
        if self.schema is not None and self.bounds:
            raise ValueError("with a schema, give the bounds in the schema, not in bounds=.")

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

    def _sound_table(self, frame: pd.DataFrame) -> ScaledTable:
        """The sound mode's scaling: from the schema, else from the data (then not DP)."""
        if self.schema is not None:
            return ScaledTable(frame, schema=self.schema)
        return ScaledTable(frame, bounds=self.bounds)

    # --------------------------------------------------------------------- fit
    def fit(self, frame: pd.DataFrame, *, connections: ConnectionResult | None = None,
            reference: pd.DataFrame | None = None, progress: Progress | None = None) -> "SSKMDP":
        """Scale the records, prepare the map and the MIC step (no release noise yet).

        Parameters
        ----------
        frame : DataFrame
            The table to publish (every column is published; identifiers of the schema are
            dropped).
        connections : ConnectionResult, optional
            MIC strengths computed before (reused, e.g. when only the threshold changes).
            Sound mode: shown for information only (the release noises every attribute).
        reference : DataFrame, optional
            Sound mode with ``map_fit="reference"``: a public table (same columns) the user
            provides; the map is fitted on it (conformed to the schema) and the MIC is
            computed on it. Its records are not protected: the ledger says it is public.
        progress : callable(fraction, message), optional
            Told the map's training and the MIC step (:mod:`core.runtime.progress`).
        """
        check_epsilon(self.epsilon)
        check_probability(self.cs_threshold, name="cs_threshold")
        mode = self._check_mode()
        frame = self._without_identifiers(frame)
        sens = self._sensitive(frame)
        self._rng = check_random_state(self.random_state)
        self.mode_ = mode
        self.sensitive_ = sens
        if mode == "paper":
            if reference is not None:
                raise ValueError("reference is for mode='sound'; the paper's mode fits the map on the records.")
            return self._fit_paper(frame, sens, connections, progress)
        return self._fit_sound(frame, sens, connections, reference, progress)

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

    def _fit_sound(self, frame, sens, connections, reference, progress=None) -> "SSKMDP":
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        self._check_map()
        self.table_ = self._sound_table(frame)
        X = self.table_.X
        n = len(X)
        self.holdout_index_ = np.empty(0, dtype=np.int64)
        self.published_index_ = np.arange(n)
        self.som_index_ = np.arange(n)
        self.reference_rows_ = 0
        self.reference_frame_ = None
        if self.map_fit == "reference":
            if reference is None:
                raise ValueError("map_fit='reference' needs a public reference table: fit(frame, reference=...).")
            if not isinstance(reference, pd.DataFrame):
                raise TypeError(f"reference must be a DataFrame, got {type(reference).__name__}.")
            missing = [c for c in frame.columns if c not in reference.columns]
            if missing:
                raise DataError(f"The reference table lacks column(s) {missing}.")
            if len(reference) < 2:
                raise DataError("The reference table needs at least 2 rows.")
            R = np.clip(np.nan_to_num(self.table_.encode(reference[list(frame.columns)]), nan=0.0), 0.0, 1.0)
            self.reference_rows_ = len(R)
            self.reference_frame_ = reference  # public, kept so an audit can refit the same map
            som = self._som(len(R)).fit(R, progress=stage(progress, 0.0, 0.8, "Training the map on the reference"))
            som.labels_ = som.predict(X)  # for display: evaluated on the private rows, not released
            self.som_ = som
            self._map_spends: list = []
            mic_frame = reference[list(frame.columns)].reset_index(drop=True)
        elif reference is not None:
            raise ValueError("reference is used with map_fit='reference'.")
        else:
            eps = check_epsilon(self.epsilon)
            told = stage(progress, 0.0, 0.8, "Training the map")
            report(told, 0.0, f"{self.map_iterations} noisy batch steps")
            self.som_, self._map_spends = self._noisy_map(eps, self._rng)
            report(told, 1.0, "noisy map drawn")
            mic_frame = frame
        self._assign(self.som_)
        self.connections_ = self._connections(mic_frame, sens, connections,
                                              stage(progress, 0.8, 1.0, "Measuring connections (MIC)"))
        return self

    def _noisy_map(self, epsilon: float, rng: np.random.Generator, *, track: bool = True):
        return noisy_batch_som(self.table_.X, self.rows, self.cols, epsilon=epsilon * self.map_share,
                               iterations=self.map_iterations, sigma=self.sigma, topology=self.topology,
                               random_state=rng, track=track)

    def _assign(self, som: SelfOrganizingMap) -> None:
        """Every record to its nearest neuron; the exact (private) counts and sums per neuron."""
        X = self.table_.X
        self.labels_ = som.labels_ if len(som.labels_) == len(X) else som.predict(X)
        K = self.rows * self.cols
        self.clusters_ = np.arange(K)
        counts = np.bincount(self.labels_, minlength=K)
        sums = np.zeros((K, X.shape[1]))
        np.add.at(sums, self.labels_, X)
        self._counts = counts
        self._sums = sums
        self._inverse = self.labels_
        self.cluster_sizes_ = {int(c): int(k) for c, k in zip(self.clusters_, counts)}
        self.centres_ = sums / np.maximum(counts, 1)[:, None]

    # ----------------------------------------------------------------- publish
    def _check_fitted(self) -> None:
        if not hasattr(self, "centres_"):
            raise ValueError("call fit(frame) before publish().")

    def _noise_rng(self, eps: float, random_state: RandomState) -> np.random.Generator:
        base = self._rng if random_state is None else random_state
        return noise_generator(base, "SSKM_DP", self.mode_, _epsilon_key(eps))

    def _release_epsilon(self, eps: float) -> float:
        """The part of ``eps`` the release's counts and sums spend (the rest paid for the map)."""
        return eps if self.map_fit == "reference" else eps * (1.0 - self.map_share)

    def _sound_scale(self, eps: float) -> float:
        """Laplace scale of every release count and sum: L1 sensitivity 2(m + 1) over the
        release's epsilon."""
        return 2.0 * (self.table_.X.shape[1] + 1) / self._release_epsilon(eps)

    def _draw_sound(self, eps: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The noisy map for ``eps`` (noisy mode), then the release's noisy counts and sums."""
        if self.map_fit == "noisy":
            som, spends = self._noisy_map(eps, rng, track=False)
            self.release_som_, self._map_spends = som, spends
            self._assign(som)
        else:
            self.release_som_ = self.som_
        m = self.table_.X.shape[1]
        K = len(self.clusters_)
        noisy_counts, noisy_sums, parts = _noisy_counts_sums(
            self.table_.X, self.labels_, K, self._release_epsilon(eps), rng)
        self._release_spends = parts
        self._release_m = m
        return noisy_counts, noisy_sums

    def release_aggregates(self, *, epsilon: float | None = None,
                           random_state: RandomState = None) -> tuple[np.ndarray, np.ndarray]:
        """Sound mode: the release's noisy vector alone, (noisy counts (K,), noisy sums (K, m)).

        Everything :meth:`publish` releases is computed from it (same draws for the same
        ``epsilon`` and ``random_state``). With the noisy map, the map is drawn again first
        from the same generator (it decides which neuron each record is counted in).
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
            Budget of this release (default the estimator's ``epsilon``); sound mode with the
            noisy map: the map (``map_share``) and the counts and sums together.
        cs_threshold : float, optional
            Another CS_Tsh for this release (the MIC strengths are reused). Changes the
            protected attributes of the paper mode; the sound mode noises every attribute.
        random_state : int, Generator or None
            Source of the noise (and of the noisy map's start), mixed with the mode and
            epsilon; default continues the generator of ``fit``.

        Returns
        -------
        DataFrame
            Same columns as the scaled table. Sound mode: the emitted rows, shuffled (their
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
        idx = idx[table.unit_range[idx] > 0]  # a constant column has nothing to noise
        q = len(protected)
        # Eq. 19 with the sensitivity of a cluster mean: range / size per attribute, times q
        scale = (1.0 / self._counts) * q / eps  # per cluster, for a unit-range attribute
        noisy = self.centres_.copy()
        noise_note = None
        if len(idx):
            for c in range(len(self.clusters_)):
                # the exact sampler here too (the paper's mode claims nothing, but one sampler)
                noisy[c, idx], noise_note = laplace_on_grid(
                    self.centres_[c, idx], sensitivity=q / float(self._counts[c]), epsilon=eps,
                    coordinates=len(idx), random_state=rng)
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
                parallel_group=PARALLEL_GROUP, noise=noise_note if noise_note is not None else "no noise",
            )
        ledger.mark_not_dp(PAPER_NOT_DP_REASON)
        self.noise_scale_ = dict(zip((int(c) for c in self.clusters_), scale * 1.0))
        self.ledger_ = ledger
        self.protected_ = tuple(protected)

    def _publish_sound(self, eps: float, rng: np.random.Generator) -> None:
        table = self.table_
        noisy_counts, noisy_sums = self._draw_sound(eps, rng)
        m = table.X.shape[1]
        K = len(self.clusters_)
        b = self._sound_scale(eps)
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
        self.ledger_ = self._sound_ledger(eps, K, m, b)
        self.noise_scale_ = {int(c): b for c in self.clusters_}
        self.protected_ = tuple(table.columns)

    def _sound_ledger(self, eps: float, K: int, m: int, b: float) -> PrivacyLedger:
        ledger = PrivacyLedger()
        if self.map_fit == "noisy":
            for e, noise, label in self._map_spends:
                ledger.spend(e, label=label + " (data-independent start; the weights are post-processing)",
                             noise=noise)
        else:
            ledger.assume(f"The map was fitted on a reference table of {self.reference_rows_} rows that you "
                          "provided and declared public; its records are not protected by this release.")
        (e_c, g_c), (e_s, g_s) = self._release_spends
        ledger.spend(e_c, label=(
            f"release: noisy count of each of the {K} neurons: L1 sensitivity 2 under replacement "
            f"(a record leaves one neuron, joins another), Laplace scale about {b:.4g}"), noise=g_c)
        ledger.spend(e_s, label=(
            f"release: noisy sums of the {m} attributes in [0, 1] of each of the {K} neurons: L1 sensitivity "
            f"2m = {2 * m}, Laplace scale about {b:.4g}. Counts and sums are one vector release over all "
            "neurons (not per-cluster parallel: a replaced record moves between two neurons); rows, "
            "centres and their order are post-processing"), noise=g_s)
        if self.schema is None:  # a DP claim needs the schema: without it, the data set the scaling
            self.table_.charge(ledger)
            ledger.mark_not_dp(self.table_.not_dp_reason or NO_SCHEMA_REASON)
        else:
            self.table_.charge(ledger)
        return ledger

    # ----------------------------------------------------------------- metrics
    def release_metrics(self) -> tuple[float, float]:
        """(MSE, RL) of the last release, in scaled units, for either mode.

        Evaluated on the private records (never released). Paper mode: Eq. 22-23 on every
        record and its published row (:func:`core.evaluation.metrics.mse`,
        :func:`core.evaluation.metrics.record_linkage`). Sound mode: :func:`cluster_release_metrics`
        (distance to the released centre of the record's neuron; linkage to a row emitted
        from its neuron).
        """
        if not hasattr(self, "published_scaled_"):
            raise ValueError("call publish() before release_metrics().")
        X = self.table_.X
        if self.mode_ == "paper":
            return _mse(X, self.published_scaled_), _record_linkage(X, self.published_scaled_)
        return cluster_release_metrics(X, self.labels_, self.released_centres_, self.row_counts_)

    def fit_transform(self, frame: pd.DataFrame, y=None) -> pd.DataFrame:
        """Scale, map and publish ``frame`` in one call; returns the published frame."""
        return self.fit(frame).publish()
