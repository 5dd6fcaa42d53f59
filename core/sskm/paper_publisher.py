"""The paper's SSKM_DP (paper 003, Algorithm 1, Eq. 18-19), kept faithful: NOT differentially private.

:class:`PaperSSKMDP` is the algorithm as published, for the reproductions and the teaching
page: min-max scaling on the data, the map fitted on all raw records, each record replaced
in place by its cluster's centre (Eq. 18), Laplace noise only on the protected attributes
(the sensitive ones and those with MIC >= CS_Tsh toward one), of scale
(range / cluster size) x (number protected) / epsilon (Eq. 19). It is **not**
differentially private: the map reads the raw records, and row order, cluster sizes and
unprotected attributes are published exactly. Its ledger says so
(:data:`PAPER_NOT_DP_REASON`) and keeps the nominal epsilon. The sound mechanism is
:class:`core.sskm.sound.SSKMDP`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.evaluation.metrics import mse as _mse
from core.evaluation.metrics import record_linkage as _record_linkage
from core.privacy.ledger import PrivacyLedger
from core.privacy.sampler import laplace_on_grid
from core.runtime.progress import Progress, Stop, stage, watch
from core.sskm.connection import ConnectionResult
from core.sskm.publisher_base import PARALLEL_GROUP, SSKMPublisherBase
from core.sskm.scaled_table import ScaledTable

__all__ = ["PaperSSKMDP", "PAPER_NOT_DP_REASON"]

PAPER_NOT_DP_REASON = (
    "The paper's SSKM_DP (PaperSSKMDP) is not differentially private: the map is fitted on "
    "the raw records (the sensitive attribute included), every record keeps its row, the "
    "cluster sizes and the unprotected attributes are published exactly, and the bounds and "
    "noise scales are read from the data; the epsilon it names is nominal."
)


class PaperSSKMDP(SSKMPublisherBase):
    """The paper's SSKM_DP publisher (not differentially private): SOM clusters, Eq. 18-19.

    Parameters
    ----------
    epsilon : float
        The nominal budget of Eq. 19 (the ledger keeps it and is marked not DP).
    sensitive : str or sequence of str
        Sensitive attributes (at least one): they, and the attributes linked to them, are
        the protected ones.
    cs_threshold : float
        CS_Tsh: attributes with MIC >= this toward a sensitive attribute are protected too.
    schema : PublicSchema, optional
        Read only for its identifiers: the columns it marks identifier (row numbers, IDs,
        keys) are left out of the map, the MIC step and the release. The scaling is on the
        data, as the paper does.
    bounds : dict of str to (float, float), optional
        Public (lo, hi) of numeric columns given by the user (else min-max on the data).
    rows, cols : int
        SOM grid; the clusters are its non-empty neurons.
    sigma, learning_rate, iterations, init, method, topology, batch_size, sfla_params
        Passed to :class:`core.sskm.som.SelfOrganizingMap`; ``iterations=None`` draws
        max(10,000, 2 x the number of rows).
    mic_max_rows : int or None
        Row cap of the MIC step.
    n_jobs : int
        Processes for the MIC pairs.
    random_state : int, Generator or None
        One generator threads through the SOM, the MIC row sample and (when ``publish``
        gets no ``random_state``) the noise.

    Attributes
    ----------
    sensitive_ : tuple of str
    som_ : SelfOrganizingMap
        Fitted on every record.
    connections_ : ConnectionResult
        MIC strengths toward the sensitive attributes (they decide the protected set).
    table_ : ScaledTable
        Every row of the fitted frame, min-max scaled on the data (or the user's bounds).
    labels_ : ndarray
        Neuron of each record.
    published_index_, som_index_ : ndarray
        Every row position (kept for callers); ``holdout_index_`` is empty.
    clusters_ : ndarray
        The non-empty neurons.
    cluster_sizes_ : dict of int to int
        Records per cluster (published exactly, through the rows).
    centres_ : ndarray of shape (n_clusters, m)
        Exact cluster centres in scaled units (Eq. 18).
    published_scaled_, row_neuron_, row_counts_, released_centres_, noisy_centres_ : ndarray
        After ``publish``: one row per record, in order, at its cluster's noisy centre.
    noise_scale_ : dict of int to float
        Laplace scale per cluster for a unit-range attribute.
    ledger_ : PrivacyLedger
        Marked not DP (:data:`PAPER_NOT_DP_REASON`).
    protected_ : tuple of str
    epsilon_ : float
    """

    variant = "paper"

    def fit(self, frame: pd.DataFrame, *, connections: ConnectionResult | None = None,
            progress: Progress | None = None, stop: Stop | None = None) -> "PaperSSKMDP":
        """Scale the records on the data, fit the map on all of them and measure MIC.

        Parameters
        ----------
        frame : DataFrame
            The table to publish (identifiers of the schema are dropped).
        connections : ConnectionResult, optional
            MIC strengths computed before (reused, e.g. when only the threshold changes).
        progress : callable(fraction, message), optional
            Told the map's training and the MIC step (:mod:`core.runtime.progress`).
        stop : threading.Event, optional
            When set, the work ends at its next progress report and raises
            :class:`core.runtime.progress.Stopped`.
        """
        progress = watch(progress, stop)
        frame, sens = self._start_fit(frame)
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

    def _release(self, eps: float, conn: ConnectionResult, rng: np.random.Generator) -> None:
        """Eq. 19: Laplace noise on the protected attributes of each cluster centre; every
        record published in place as its cluster's noisy centre."""
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
                # the exact sampler here too (the paper's publisher claims nothing, but one sampler)
                noisy[c, idx], noise_note = laplace_on_grid(
                    self.centres_[c, idx], sensitivity=q / float(self._counts[c]), epsilon=eps,
                    coordinates=len(idx), random_state=rng)
        self.noisy_centres_ = noisy
        self.released_centres_ = np.clip(noisy, 0.0, 1.0)
        self.row_neuron_ = self._inverse
        self.row_counts_ = self._counts.copy()
        self.published_scaled_ = self.released_centres_[self._inverse]
        self.ledger_ = self._ledger(eps, q, noise_note)
        self.noise_scale_ = dict(zip((int(c) for c in self.clusters_), scale * 1.0))
        self.protected_ = tuple(protected)

    def _ledger(self, eps: float, q: int, noise_note) -> PrivacyLedger:
        """One parallel entry per cluster at the nominal ``eps``, marked not DP."""
        ledger = PrivacyLedger()
        for c, size in zip(self.clusters_, self._counts):
            ledger.spend(
                eps,
                label=f"neuron {int(c)} ({int(size)} rows): Laplace on {q} protected attribute(s) of its centre",
                parallel_group=PARALLEL_GROUP, noise=noise_note if noise_note is not None else "no noise",
            )
        ledger.mark_not_dp(PAPER_NOT_DP_REASON)
        return ledger

    def release_metrics(self) -> tuple[float, float]:
        """(MSE, RL) of the last release, in scaled units: Eq. 22-23 on every record and its
        published row (:func:`core.evaluation.metrics.mse`,
        :func:`core.evaluation.metrics.record_linkage`), evaluated on the private records."""
        self._check_published()
        X = self.table_.X
        return _mse(X, self.published_scaled_), _record_linkage(X, self.published_scaled_)
