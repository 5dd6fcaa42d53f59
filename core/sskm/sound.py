"""SSKM_DP (paper 003) as a sound mechanism: SOM clusters released through paid noise.

:class:`SSKMDP` is a mechanism whose epsilon holds under the project's one
neighbouring relation (:data:`core.privacy.ledger.NEIGHBOURING_RELATION`: one record replaced
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
   (:func:`core.sskm.noisy_som.noisy_batch_som`); the map is drawn again for every release, with
   its noise. ``"reference"``: the paper's SOM (SFLA start) fitted on a public reference
   table the user provides; the ledger states that it is public.
   The old held-out 20 % is gone: it set the bounds and fitted the map and the MIC without
   noise, so one record in it changed the release outside the budget (an age above the
   neighbour's maximum appeared in 45 % of the releases). The MIC step is shown for
   information only (computed on the reference when given, else on the private rows and
   labelled so): the release noises every attribute.
3. Each record goes to its best-matching neuron. For every neuron of the map (empty ones
   included: which neurons are empty is private) the release is a noisy count and noisy
   statistics of **every** attribute. ``release="cells"`` (default,
   :mod:`core.sskm.histogram_release`): the noisy counts of each column's cells (a
   category's declared list plus ``(other)``; a number's equal bins of its declared range).
   When the schema names a categorical label of the table, the noisy map is split by the
   label's categories (each neuron holds records of one category, ``stratify``), so the label
   needs no cells: its rows carry their neuron's category. The map's size comes from n, m
   and the publisher's epsilon (:func:`core.sskm.histogram_release.cluster_count`, at most
   rows x cols; one size for every release of a fit).
   ``release="centres"``: noisy sums of every attribute (the former release). Replacing
   one record moves it from one neuron to another: the counts change by 2 in L1 and each
   column's sums or cells by at most 2, so the whole vector of all neurons has L1
   sensitivity 2(m + 1) for m released columns. The release's epsilon is split
   epsilon / (m + 1) to the counts and epsilon m / (m + 1) to the rest: every coordinate
   gets noise of about 2(m + 1) / epsilon. The noise is exact discrete Laplace on a grid
   (:func:`core.privacy.sampler.laplace_on_grid`; counts on the integers), and the ledger
   entries carry the grid. It is not a per-cluster parallel release: a replaced record
   touches two neurons at once.
4. Post-processing (no further cost). Cells: exactly n rows (n is public under the
   project's relation), shared among the neurons whose noisy count clears two noise scales
   in proportion to their noisy counts (:func:`core.sskm.histogram_release.apportion_rows`),
   each column drawn from its noisy cells projected onto the simplex
   (:func:`core.sskm.histogram_release.emit_rows`). Centres: each neuron emits
   round(max(noisy count, 0)) rows at its centre noisy sums / max(noisy count, 1) clipped
   to [0, 1], so their number is not n. Either way the rows are shuffled: no row keeps an
   original position. Rows at the centres lose the label's relation (a
   category decoded from the mean of its codes, the label rounded to the neuron's
   majority, a hundred distinct rows): on Adult a classifier trained on them stays at the
   constant guess, one trained on the drawn rows does not (``benchmarks/bench_cluster_utility.py``).

The ledger's total is epsilon: map share plus release share (noisy map), or all of it on
the release (reference map).

The noise of :meth:`SSKMDP.publish` comes from a generator that mixes the epsilon into
the seed, so two releases at different epsilons with one ``random_state`` never share
noise draws (nobody can subtract one from the other to cancel the noise). The paper's
own algorithm, not differentially private, is :class:`core.sskm.paper_publisher.PaperSSKMDP`.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, report, stage, watch
from core.runtime.randomness import RandomState
from core.sskm.cluster_release import cluster_release_metrics
from core.sskm.connection import DEFAULT_MAX_ROWS, ConnectionResult
from core.sskm.histogram_release import (
    cell_layout,
    emit_rows,
    exact_cells,
    noisy_cells,
    record_cells,
    record_strata,
)
from core.sskm.noisy_som import noisy_batch_som, noisy_counts_sums
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.scaled_table import ScaledTable
from core.sskm.sound_ledger import MIN_NEURONS, NO_SCHEMA_REASON, map_grid, sound_ledger
from core.sskm.som import SelfOrganizingMap
from core.validation import (
    DataError,
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
)

__all__ = [
    "DEFAULT_MAP_ITERATIONS",
    "DEFAULT_MAP_SHARE",
    "MAP_FITS",
    "MIN_NEURONS",
    "NO_SCHEMA_REASON",
    "RELEASES",
    "SSKMDP",
    "map_grid",
]

#: where the sound publisher's map comes from
MAP_FITS = ("noisy", "reference")
#: what each neuron releases: noisy cell counts of every column (rows drawn from them), or
#: noisy sums (rows at the centres, the former release)
RELEASES = ("cells", "centres")
#: share of epsilon the noisy map spends, and its noisy batch steps
DEFAULT_MAP_SHARE = 0.3
DEFAULT_MAP_ITERATIONS = 3


class SSKMDP(SSKMPublisherBase):
    """SSKM_DP publisher (paper 003), sound: SOM clusters, noisy counts and sums of every neuron.

    Parameters
    ----------
    epsilon : float
        Privacy budget of the release (map and release together).
    sensitive : str or sequence of str
        Sensitive attributes (at least one). The release noises every attribute; the MIC
        connections toward these are shown for information only.
    cs_threshold : float
        CS_Tsh of the MIC step (shown for information; the paper's publisher,
        :class:`core.sskm.paper_publisher.PaperSSKMDP`, protects by it).
    schema : PublicSchema, optional
        The bounds and category lists of the published columns. Required for a DP claim:
        without it (or where it has entries "read from data" for a published column) the
        release says it is not differentially private, with the reason. The columns it
        marks identifier (row numbers, IDs, keys) are left out of the map, the MIC step and
        the release.
    bounds : dict of str to (float, float), optional
        Without a schema: public (lo, hi) of numeric columns given by the user. With a
        schema, give bounds in the schema instead.
    rows, cols : int
        SOM grid; at most rows x cols clusters.
    sigma, learning_rate, iterations, init, method, topology, batch_size, sfla_params
        Passed to :class:`core.sskm.som.SelfOrganizingMap` (the reference map);
        ``iterations=None`` draws max(10,000, 2 x rows it is fitted on). ``sigma`` and
        ``topology`` also shape the noisy map.
    mic_max_rows : int or None
        Row cap of the MIC step.
    n_jobs : int
        Processes for the MIC pairs.
    random_state : int, Generator or None
        One generator threads through the map, the MIC row sample and (when ``publish``
        gets no ``random_state``) the noise.
    map_fit : {"noisy", "reference"}
        Where the map comes from. ``"noisy"`` (default): a data-independent start and a
        batch SOM fitted through noisy per-neuron counts and sums
        (:func:`core.sskm.noisy_som.noisy_batch_som`) with ``map_share`` of epsilon.
        ``"reference"``: the paper's SOM (``init``, SFLA by default) fitted on a public
        reference table given to :meth:`fit` (``reference=``); the whole epsilon goes to
        the release and the ledger states that the reference is public.
    map_share : float
        Share of epsilon the noisy map spends, in (0, 1); the release gets the rest.
    map_iterations : int
        Noisy batch steps of the map (each costs map_share x epsilon / map_iterations).
    release : {"cells", "centres"}
        What each neuron releases. ``"cells"`` (default): noisy counts of every column's
        cells, the map split by the schema's label and sized from n, m and the publisher's
        ``epsilon`` (at most ``rows`` x ``cols``, :func:`map_grid`; one size for every release
        of a fit, so releases at several epsilons and the audit compare like with like), rows drawn from the cells. ``"centres"``:
        noisy sums on the ``rows`` x ``cols`` map, rows at the noisy centres (the former
        release, kept for the paper's MSE and RL figures and as the reference it is
        measured against).

    Attributes
    ----------
    sensitive_ : tuple of str
    som_ : SelfOrganizingMap
        The reference map, or a noisy map drawn at the estimator's epsilon with the fit's
        generator (for display: every release draws its own, ``release_som_``). Its
        ``labels_``, ``history_`` and hit map are evaluated on the private rows: shown for
        information, never released.
    connections_ : ConnectionResult
        MIC strengths on the reference table if given, else on the private rows, for
        information only.
    table_ : ScaledTable
        Every row of the fitted frame, scaled (with a schema: public bounds, clipped).
    labels_ : ndarray
        Neuron of each record under ``som_`` (after a release: under ``release_som_``).
        Not released; used for the metrics.
    published_index_, som_index_ : ndarray
        Every row position (kept for callers); ``holdout_index_`` is empty (the old
        held-out part set the bounds and the map without noise, which leaked).
    reference_rows_ : int
        Rows of the reference table (0 for the noisy map); ``reference_frame_`` keeps it.
    clusters_ : ndarray
        Every neuron of the map (empty ones included: which are empty is private).
    cluster_sizes_ : dict of int to int
        True number of records per neuron. Private (never released).
    centres_ : ndarray of shape (n_clusters, m)
        Exact neuron centres in scaled units. Private; not what is released.
    published_scaled_, row_neuron_, row_counts_, released_centres_, noisy_centres_ : ndarray
        After ``publish``: the released rows in scaled units and how they were made.
    noisy_counts_, noisy_sums_ : ndarray
        The release's noisy vector (the rows are computed from it): with cells,
        ``noisy_sums_`` holds the noisy cell counts (K, cells).
    layout_ : CellLayout or None
        The cells each neuron releases (``release="cells"``).
    release_som_ : SelfOrganizingMap
        The map behind the last release (drawn with it, or the reference map).
    noise_scale_ : dict of int to float
        Laplace scale per neuron in scaled units.
    ledger_ : PrivacyLedger
    protected_ : tuple of str
        Every column (all are noised).
    epsilon_ : float
    """

    variant = "sound"

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        sensitive=(),
        cs_threshold: float = 0.3,
        schema: PublicSchema | None = None,
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
        map_fit: str = "noisy",
        map_share: float = DEFAULT_MAP_SHARE,
        map_iterations: int = DEFAULT_MAP_ITERATIONS,
        release: str = "cells",
    ) -> None:
        super().__init__(
            epsilon=epsilon, sensitive=sensitive, cs_threshold=cs_threshold, schema=schema, bounds=bounds,
            rows=rows, cols=cols, sigma=sigma, learning_rate=learning_rate, iterations=iterations, init=init,
            method=method, topology=topology, batch_size=batch_size, sfla_params=sfla_params,
            mic_max_rows=mic_max_rows, n_jobs=n_jobs, random_state=random_state,
        )
        self.map_fit = map_fit
        self.map_share = map_share
        self.map_iterations = map_iterations
        self.release = release

    # ------------------------------------------------------------------ checks
    def _check_map(self) -> None:
        check_choice(self.map_fit, MAP_FITS, name="map_fit", kind=str)
        check_probability(self.map_share, name="map_share", inclusive=False)
        check_positive_int(self.map_iterations, name="map_iterations")
        check_choice(self.release, RELEASES, name="release", kind=str)
        if self.schema is not None and not isinstance(self.schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema or None, got {type(self.schema).__name__}.")
        if self.schema is not None and self.bounds:
            raise ValueError("with a schema, give the bounds in the schema, not in bounds=.")

    def _sound_table(self, frame: pd.DataFrame) -> ScaledTable:
        """The scaling: from the schema, else from the data (then not DP)."""
        if self.schema is not None:
            return ScaledTable(frame, schema=self.schema)
        return ScaledTable(frame, bounds=self.bounds)

    # --------------------------------------------------------------------- fit
    def fit(self, frame: pd.DataFrame, *, connections: ConnectionResult | None = None,
            reference: pd.DataFrame | None = None, progress: Progress | None = None,
            stop: Stop | None = None) -> SSKMDP:
        """Scale the records, prepare the map and the MIC step (no release noise yet).

        Parameters
        ----------
        frame : DataFrame
            The table to publish (every column is published; identifiers of the schema are
            dropped).
        connections : ConnectionResult, optional
            MIC strengths computed before (reused); shown for information only (the release
            noises every attribute).
        reference : DataFrame, optional
            With ``map_fit="reference"``: a public table (same columns) the user provides;
            the map is fitted on it (conformed to the schema) and the MIC is computed on it.
            Its records are not protected: the ledger says it is public.
        progress : callable(fraction, message), optional
            Told the map's training and the MIC step (:mod:`core.runtime.progress`).
        stop : threading.Event, optional
            When set, the work ends at its next progress report and raises
            :class:`core.runtime.progress.Stopped`.
        """
        progress = watch(progress, stop)
        frame, sens = self._start_fit(frame)
        self._check_map()
        self.table_ = self._sound_table(frame)
        self._set_layout()
        n = len(self.table_.X)
        self.holdout_index_ = np.empty(0, dtype=np.int64)
        self.published_index_ = np.arange(n)
        self.som_index_ = np.arange(n)
        self.reference_rows_ = 0
        self.reference_frame_ = None
        if self.map_fit == "reference":
            mic_frame = self._fit_reference_map(frame, reference, progress)
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

    def _fit_reference_map(self, frame: pd.DataFrame, reference: pd.DataFrame | None,
                           progress: Progress | None) -> pd.DataFrame:
        """Fit the paper's SOM on the public ``reference`` table (conformed to this table's
        scaling); returns the frame the MIC step reads (the reference's columns)."""
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
        som.labels_ = som.predict(self.table_.X)  # for display: evaluated on the private rows, not released
        self.som_ = som
        self._map_spends: list = []
        return reference[list(frame.columns)].reset_index(drop=True)

    def _set_layout(self) -> None:
        """The cells of a cell release (split by the label with the noisy map only: a
        reference map has no strata) and each record's cells and stratum."""
        self.layout_ = None
        if self.release == "cells":
            self.layout_ = cell_layout(self.table_, stratify=self.map_fit == "noisy")
            self._cells = record_cells(self.table_, self.layout_)
            self._strata = record_strata(self.table_, self.layout_)

    def _noisy_map(self, epsilon: float, rng: np.random.Generator, *, track: bool = True):
        X = self.table_.X
        if self.release == "centres":
            self._neuron_strata = np.zeros(self.rows * self.cols, dtype=np.int64)
            return noisy_batch_som(X, self.rows, self.cols, epsilon=epsilon * self.map_share,
                                   iterations=self.map_iterations, sigma=self.sigma, topology=self.topology,
                                   random_state=rng, track=track)
        layout = self.layout_
        # sized at the publisher's epsilon: every release of one fit has one map size
        rows, cols, strata, width = map_grid(len(X), layout, self._release_epsilon(check_epsilon(self.epsilon)),
                                             rows=self.rows, cols=self.cols)
        self._neuron_strata = strata
        if layout.label is None:
            return noisy_batch_som(X, rows, cols, epsilon=epsilon * self.map_share, iterations=self.map_iterations,
                                   sigma=self.sigma or width, topology=self.topology, random_state=rng, track=track)
        keep = [j for j in range(X.shape[1]) if j != layout.label]
        som, spends = noisy_batch_som(X[:, keep], rows, cols, epsilon=epsilon * self.map_share,
                                      iterations=self.map_iterations, sigma=self.sigma or width,
                                      topology=self.topology, random_state=rng, track=track,
                                      strata=self._strata, neuron_strata=strata)
        # the label's coordinate of each neuron is its stratum (public): the map in the table's units
        W = np.zeros((rows * cols, X.shape[1]))
        W[:, keep] = som.weights_.reshape(rows * cols, -1)
        W[:, layout.label] = strata / max(layout.strata - 1, 1)
        som.weights_ = W.reshape(rows, cols, X.shape[1])
        som.n_features_in_ = X.shape[1]
        return som, spends

    def _assign(self, som: SelfOrganizingMap) -> None:
        """Every record to its nearest neuron; the exact (private) counts and sums per neuron
        (with cells, ``_sums`` holds the exact cell counts: what the release noises)."""
        X = self.table_.X
        self.labels_ = som.labels_ if len(som.labels_) == len(X) else som.predict(X)
        K = som.rows * som.cols
        self.clusters_ = np.arange(K)
        counts = np.bincount(self.labels_, minlength=K)
        sums = np.zeros((K, X.shape[1]))
        np.add.at(sums, self.labels_, X)
        self._counts = counts
        self._sums = sums
        if self.layout_ is not None:
            self._sums = exact_cells(self._cells, self.labels_, K, self.layout_.width)[1]
        self._inverse = self.labels_
        self.cluster_sizes_ = {int(c): int(k) for c, k in zip(self.clusters_, counts)}
        self.centres_ = sums / np.maximum(counts, 1)[:, None]

    # ----------------------------------------------------------------- publish
    def _release_epsilon(self, eps: float) -> float:
        """The part of ``eps`` the release's counts and sums spend (the rest paid for the map)."""
        return eps if self.map_fit == "reference" else eps * (1.0 - self.map_share)

    def _sound_scale(self, eps: float) -> float:
        """Laplace scale of every release count and sum (or cell): L1 sensitivity 2(m + 1)
        over the release's epsilon, m the released columns."""
        if self.layout_ is not None:
            return self.layout_.sensitivity / self._release_epsilon(eps)
        return 2.0 * (self.table_.X.shape[1] + 1) / self._release_epsilon(eps)

    def _draw_sound(self, eps: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The noisy map for ``eps`` (noisy map), then the release's noisy counts and sums."""
        if self.map_fit == "noisy":
            som, spends = self._noisy_map(eps, rng, track=False)
            self.release_som_, self._map_spends = som, spends
            self._assign(som)
        else:
            self.release_som_ = self.som_
            self._neuron_strata = np.zeros(len(self.clusters_), dtype=np.int64)
        m = self.table_.X.shape[1]
        K = len(self.clusters_)
        if self.layout_ is not None:
            noisy_counts, noisy_sums, parts = noisy_cells(self._cells, self.labels_, K, self.layout_,
                                                          self._release_epsilon(eps), rng)
        else:
            noisy_counts, noisy_sums, parts = noisy_counts_sums(
                self.table_.X, self.labels_, K, self._release_epsilon(eps), rng)
        self._release_spends = parts
        self._release_m = m
        return noisy_counts, noisy_sums

    def release_aggregates(self, *, epsilon: float | None = None,
                           random_state: RandomState = None) -> tuple[np.ndarray, np.ndarray]:
        """The release's noisy vector alone, (noisy counts (K,), noisy sums (K, m)), with
        cells (noisy counts (K,), noisy cell counts (K, cells)).

        Everything :meth:`publish` releases is computed from it (same draws for the same
        ``epsilon`` and ``random_state``). With the noisy map, the map is drawn again first
        from the same generator (it decides which neuron each record is counted in).
        """
        self._check_fitted()
        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        return self._draw_sound(eps, self._noise_rng(eps, random_state))

    def _release(self, eps: float, conn: ConnectionResult, rng: np.random.Generator) -> None:
        """Noisy counts and sums of every neuron; rows emitted at the noisy centres, shuffled
        (post-processing). ``conn`` is not read: every attribute is noised."""
        table = self.table_
        noisy_counts, noisy_sums = self._draw_sound(eps, rng)
        m = table.X.shape[1]
        K = len(self.clusters_)
        b = self._sound_scale(eps)
        self.noisy_counts_ = noisy_counts
        self.noisy_sums_ = noisy_sums
        if self.layout_ is not None:  # post-processing: rows drawn from each neuron's noisy cells
            rows = emit_rows(self.layout_, noisy_counts, noisy_sums, self._neuron_strata, n=len(table.X), scale=b,
                             random_state=rng)
            self.noisy_centres_ = rows.centres
            self.released_centres_ = rows.centres
            self.row_counts_ = rows.row_counts
            self.row_neuron_ = rows.row_cluster
            self.published_scaled_ = rows.rows
        else:  # post-processing: centres, row counts, shuffled rows
            noisy = noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
            centres = np.clip(noisy, 0.0, 1.0)
            row_counts = np.rint(np.maximum(noisy_counts, 0.0)).astype(np.int64)
            row_neuron = np.repeat(np.arange(K), row_counts)
            row_neuron = row_neuron[rng.permutation(len(row_neuron))]
            self.noisy_centres_ = noisy
            self.released_centres_ = centres
            self.row_counts_ = row_counts
            self.row_neuron_ = row_neuron
            self.published_scaled_ = centres[row_neuron]
        self.ledger_ = self._sound_ledger(eps, K, m, b)
        self.noise_scale_ = {int(c): b for c in self.clusters_}
        self.protected_ = tuple(table.columns)

    def _sound_ledger(self, eps: float, K: int, m: int, b: float) -> PrivacyLedger:
        return sound_ledger(self, K=K, m=m, b=b)

    # ----------------------------------------------------------------- metrics
    def release_metrics(self) -> tuple[float, float]:
        """(MSE, RL) of the last release, in scaled units (:func:`core.sskm.cluster_release.
        cluster_release_metrics`: distance to the released centre of the record's neuron;
        linkage to a row emitted from its neuron), evaluated on the private records (never
        released)."""
        self._check_published()
        return cluster_release_metrics(self.table_.X, self.labels_, self.released_centres_, self.row_counts_)
