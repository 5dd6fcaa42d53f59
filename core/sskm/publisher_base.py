"""What both SSKM_DP publishers of paper 003 share: parameters, the SOM, the SFLA start and MIC.

:class:`SSKMPublisherBase` is a scikit-learn estimator (``get_params``, ``clone``): its
``__init__`` stores every parameter unchanged and :meth:`~SSKMPublisherBase.fit` validates
them. It holds what the two publishers have in common: leaving the schema's identifier
columns out, the sensitive attributes, the paper's SOM (:class:`core.sskm.som.SelfOrganizingMap`
with its SFLA start), the MIC connection strengths (:func:`core.sskm.connection.mic_connections`)
and :meth:`~SSKMPublisherBase.publish`, which draws the release's noise from a generator keyed
on the publisher's :attr:`~SSKMPublisherBase.variant` and the epsilon. The two publishers are
:class:`core.sskm.sound.SSKMDP` (epsilon-DP) and :class:`core.sskm.paper_publisher.PaperSSKMDP`
(the paper's algorithm, not differentially private).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress
from core.runtime.randomness import RandomState, check_random_state
from core.sskm.cluster_release import epsilon_key, noise_generator
from core.sskm.connection import DEFAULT_MAX_ROWS, ConnectionResult, mic_connections
from core.sskm.som import SelfOrganizingMap
from core.validation import DataError, check_epsilon, check_probability

__all__ = ["SSKMPublisherBase", "PARALLEL_GROUP"]

#: the ledger's parallel group of the paper's per-cluster spends
PARALLEL_GROUP = "sskm_dp clusters"


class SSKMPublisherBase(BaseEstimator):
    """The shared part of :class:`core.sskm.sound.SSKMDP` and
    :class:`core.sskm.paper_publisher.PaperSSKMDP` (see their docstrings for the parameters).

    Subclasses set :attr:`variant` (the name in :data:`core.sskm.variants.SSKM_VARIANTS`, also
    mixed into the noise's seed) and implement ``fit``, ``_release`` and ``release_metrics``.
    """

    #: the publisher's name among the variants ("sound" or "paper"); a key of its noise
    variant: str = ""

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
    ) -> None:
        self.epsilon = epsilon
        self.sensitive = sensitive
        self.cs_threshold = cs_threshold
        self.schema = schema
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
        """``frame`` without the columns the schema marks identifier (both publishers): a row
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

    def _start_fit(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, tuple[str, ...]]:
        """Validate the shared parameters, drop the identifiers, find the sensitive
        attributes and start the fit's generator (``_rng``); returns (frame, sensitive)."""
        check_epsilon(self.epsilon)
        check_probability(self.cs_threshold, name="cs_threshold")
        frame = self._without_identifiers(frame)
        sens = self._sensitive(frame)
        self._rng = check_random_state(self.random_state)
        self.sensitive_ = sens
        return frame, sens

    def _som(self, n_rows: int) -> SelfOrganizingMap:
        """The paper's SOM (SFLA start by default) for ``n_rows`` training rows, drawing from
        the fit's generator; ``iterations=None`` draws max(10,000, 2 x n_rows) rows."""
        iterations = self.iterations if self.iterations is not None else max(10_000, 2 * n_rows)
        return SelfOrganizingMap(
            self.rows, self.cols, sigma=self.sigma, learning_rate=self.learning_rate,
            iterations=iterations, init=self.init, method=self.method, topology=self.topology,
            batch_size=self.batch_size, sfla_params=self.sfla_params, random_state=self._rng,
        )

    def _connections(self, frame: pd.DataFrame, sens, connections: ConnectionResult | None,
                     progress: Progress | None = None) -> ConnectionResult:
        """The MIC strengths toward the sensitive attributes: ``connections`` if given (at this
        CS_Tsh), else measured on ``frame`` with the fit's generator."""
        if connections is None:
            return mic_connections(
                frame, sens, threshold=self.cs_threshold, max_rows=self.mic_max_rows,
                n_jobs=self.n_jobs, random_state=self._rng, progress=progress,
            )
        if connections.threshold != self.cs_threshold:
            return connections.with_threshold(self.cs_threshold)
        return connections

    # ----------------------------------------------------------------- publish
    def _check_fitted(self) -> None:
        if not hasattr(self, "centres_"):
            raise ValueError("call fit(frame) before publish().")

    def _noise_rng(self, eps: float, random_state: RandomState) -> np.random.Generator:
        base = self._rng if random_state is None else random_state
        return noise_generator(base, "SSKM_DP", self.variant, epsilon_key(eps))

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
            Budget of this release (default the estimator's ``epsilon``); the sound
            publisher with the noisy map: the map (``map_share``) and the counts and sums
            together.
        cs_threshold : float, optional
            Another CS_Tsh for this release (the MIC strengths are reused). Changes the
            protected attributes of the paper's publisher; the sound one noises every
            attribute.
        random_state : int, Generator or None
            Source of the noise (and of the noisy map's start), mixed with the variant and
            epsilon; default continues the generator of ``fit``.

        Returns
        -------
        DataFrame
            Same columns as the scaled table. Sound: the emitted rows, shuffled; exactly n
            of them with the default cell release (n is public; the "centres" release emits
            its rounded noisy counts). Paper: one row per record, in order.
        """
        self._check_fitted()
        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        conn = self.connections_
        if cs_threshold is not None:
            conn = conn.with_threshold(cs_threshold)
        rng = self._noise_rng(eps, random_state)
        self._release(eps, conn, rng)
        self.epsilon_ = eps
        return self.table_.decode(self.published_scaled_)

    def _release(self, eps: float, conn: ConnectionResult, rng: np.random.Generator) -> None:
        raise NotImplementedError

    def _check_published(self) -> None:
        if not hasattr(self, "published_scaled_"):
            raise ValueError("call publish() before release_metrics().")

    def fit_transform(self, frame: pd.DataFrame, y=None) -> pd.DataFrame:
        """Scale, map and publish ``frame`` in one call; returns the published frame."""
        return self.fit(frame).publish()
