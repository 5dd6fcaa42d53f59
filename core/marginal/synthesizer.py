"""MST and AIM through OpenDP: a differentially private synthetic table from noisy marginals.

:class:`MarginalSynthesizer` releases a table the way a practitioner would with an
off-the-shelf DP synthesizer: OpenDP's ``contingency_table`` (``opendp[mbi]``) measures
noisy marginals of the table's cells (:mod:`core.marginal.domain`: from the public schema
only), fits a graphical model to them (Private-PGM), and samples rows from it. What it
measures is :func:`core.marginal.config.marginal_config`'s configuration, a function of the
schema, the number of records and epsilon only:

- **MST**: the label's star (the label's 2-way marginal with every other column, OpenDP's
  ``Fixed``), the whole budget split equally among them, no one-way marginals (every column
  is keyed from the schema). About 30-60 s for Adult's 15 columns at 10,000 rows on two
  cores, most of it Private-PGM's fit and JAX's compilation.
- **AIM** (McKenna, Mullins, Sheldon & Miklau 2022): OpenDP's AIM over the same workload,
  rounds that each choose the worst-fitted marginal and measure it, at most one round per
  column (:func:`~core.marginal.config.aim_rounds`). A few minutes.
- **MST (OpenDP defaults)** (McKenna, Miklau & Sheldon 2021): ``dp.mbi.MST()`` as it ships
  (noisy one-way marginals of every column with half the budget, a spanning tree chosen
  with a tenth of the rest and measured), the configuration before issue 37, kept as an anchor.

The guarantee is OpenDP's: the measurement's privacy map at 2 contributions
(:data:`CONTRIBUTIONS`, one record replaced, the project's relation) is checked to be at
most ``epsilon`` before any record is read. Every column's cells come from the schema, so
the release is pure epsilon-DP (delta 0, discrete Laplace noise) when no schema entry was
read from the rows. OpenDP draws its noise from the operating system's entropy: a release
cannot be repeated from a seed. Sampling rows from the fitted model is post-processing and
is seeded (``random_state`` of :meth:`MarginalSynthesizer.sample`).
"""
from __future__ import annotations

import functools
import numbers
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from core.marginal.config import ALGORITHMS, MarginalConfig, marginal_config
from core.marginal.domain import (
    DEFAULT_BINS,
    MarginalDomain,
    check_bins,
    marginal_domain,
)
from core.marginal.opendp_fix import apply as apply_opendp_fix
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, check_stop, report
from core.runtime.randomness import RandomState, check_random_state, draw_seed
from core.validation import check_choice, check_epsilon

__all__ = ["ALGORITHMS", "CONTRIBUTIONS", "NOISE", "MarginalSynthesizer", "fit_model", "marginal_ledger",
           "measure_marginals", "opendp_version"]

#: OpenDP's privacy unit: one record replaced by another changes the table by 2 in the
#: symmetric distance (one record out, one in), the project's neighbouring relation.
CONTRIBUTIONS = 2
#: How the noise is drawn, for the ledger.
NOISE = ("OpenDP's exact samplers (discrete Laplace counts, report-noisy-max choices) drawing from the "
         "operating system's entropy: not seeded, so a release cannot be repeated from a seed")
_NUMPY_LOCK = threading.Lock()


def opendp_version() -> str:
    """The installed OpenDP's version."""
    from importlib.metadata import version

    return version("opendp")


def marginal_ledger(config: MarginalConfig, epsilon: float, schema: PublicSchema) -> PrivacyLedger:
    """The ledger of one release of ``config`` (:func:`core.marginal.config.marginal_config`) at ``epsilon``.

    One spend of ``epsilon`` labelled with what the configuration measures (its workload,
    :meth:`MarginalConfig.describe`; OpenDP composes the marginals, the choices and their
    split), the schema's entries of the released columns charged (:meth:`PublicSchema.charge`:
    an entry read from the rows makes the release not DP), and what the guarantee takes from
    OpenDP.
    """
    if not isinstance(config, MarginalConfig):
        raise TypeError(f"config must be a MarginalConfig, got {type(config).__name__}.")
    eps = check_epsilon(epsilon)
    ledger = PrivacyLedger()
    ledger.spend(eps, label=f"{config.algorithm} through OpenDP {opendp_version()}: {config.describe()}", noise=NOISE)
    schema.charge(ledger, list(config.columns))
    ledger.assume(f"The split of epsilon among {config.algorithm}'s measurements and their composition are "
                  f"OpenDP's (its privacy map at {CONTRIBUTIONS} contributions, one record replaced, is checked to "
                  "be at most epsilon); the workload, the cells and the split come from the public schema alone; "
                  "sampling rows from the fitted model is post-processing.")
    return ledger


def fit_model(domain: Any, loss_fn: Any, *, potentials: Any = None) -> Any:
    """OpenDP's default model fit (Private-PGM's mirror descent), skipped where there is
    nothing to fit: with no measurement yet (AIM's first round here, every column keyed and no
    one-way marginal) the uniform model is the answer, without a thousand idle iterations.
    Post-processing of noisy marginals: same signature as ``opendp.extras.mbi.mirror_descent``."""
    from mbi.estimation import mirror_descent

    if not loss_fn:
        return mirror_descent(domain, loss_fn, potentials=potentials, iters=0)
    return mirror_descent(domain, loss_fn, potentials=potentials)


@functools.lru_cache(maxsize=16)
def _measurement(names: tuple[str, ...], sizes: tuple[int, ...], epsilon: float, config: MarginalConfig,
                 contributions: int, estimator: Any = None) -> Any:
    """OpenDP's measurement of ``config`` over codes 0..size-1 of each column (no record read).

    Built once per domain, budget, configuration and estimator in a process (OpenDP searches
    noise scales, which takes seconds): it is a function of the domain's shape, the budget,
    the configuration and the privacy unit only, and a release calls it on the records.
    ``estimator`` (None: :func:`fit_model`, OpenDP's Private-PGM mirror descent) fits the model
    from the noisy marginals: it is post-processing, and changes neither the noise nor the
    budget split.
    """
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    apply_opendp_fix()
    empty = pl.LazyFrame({c: pl.Series(c, [], dtype=pl.Int64) for c in names})
    ctx = dp.Context.compositor(data=empty, privacy_unit=dp.unit_of(contributions=contributions),
                                privacy_loss=dp.loss_of(epsilon=epsilon), split_evenly_over=1)
    # the last cell of each column is OpenDP's own null cell (it adds one to every key list
    # that lacks it): no cell is added that no record can fill
    keys = {c: pl.Series(c, [*range(k - 1), None], dtype=pl.Int64) for c, k in zip(names, sizes)}
    algo = config.opendp_algorithm(fit_model if estimator is None else estimator)
    measurement = ctx.query().select(*names).contingency_table(keys=keys, algorithm=algo).resolve()
    spent = float(measurement.map(contributions))
    if not spent <= epsilon:
        raise RuntimeError(f"OpenDP's {config.algorithm} spends {spent!r}, more than epsilon = {epsilon!r}.")
    return measurement


def measure_marginals(domain: MarginalDomain, frame: pd.DataFrame, epsilon: float, algorithm: str, *,
                      estimator: Any = None) -> Any:
    """OpenDP's MST or AIM measurement of ``frame`` over ``domain``'s cells: the step that spends the budget.

    The one function that builds and runs the measurement, for the release
    (:meth:`MarginalSynthesizer.fit`) and for its audit
    (:mod:`core.audit_cases.marginal`): the configuration is
    :func:`~core.marginal.config.marginal_config` of the domain's schema and columns,
    ``algorithm``, the number of records and ``epsilon`` (nothing else), the records are
    mapped into the schema's cells (:meth:`MarginalDomain.encode`), OpenDP's measurement is
    built for the domain's shape, ``epsilon``, the configuration and :data:`CONTRIBUTIONS`
    (cached per process) and invoked.

    Parameters
    ----------
    domain : MarginalDomain
        The cells of every released column, from the public schema.
    frame : DataFrame
        The records.
    epsilon : float
        The whole release's budget (pure DP).
    algorithm : str
        One of :data:`~core.marginal.config.ALGORITHMS`.
    estimator : callable, optional
        The model fit OpenDP runs on the noisy marginals (post-processing). None:
        :func:`fit_model` (Private-PGM's mirror descent), what a release uses. The audit passes a fit of
        no iterations, which leaves the noisy marginals and the budget split as they are.

    Returns
    -------
    opendp.extras.mbi.ContingencyTable
        OpenDP's release: ``marginals`` (the noisy measurements) and ``model``.
    """
    config = marginal_config(domain.schema, algorithm=algorithm, columns=domain.names, n=len(frame),
                             epsilon=float(epsilon))
    measurement = _measurement(tuple(domain.names), tuple(domain.sizes.values()), float(epsilon), config,
                               CONTRIBUTIONS, estimator)
    return measurement(_lazyframe(domain.encode(frame), domain.sizes))


def _lazyframe(codes: dict[str, np.ndarray], sizes: dict[str, int]) -> Any:
    """The codes as OpenDP reads them: Int64 columns, each column's last cell as null."""
    import polars as pl

    frame = pl.LazyFrame({c: pl.Series(c, v, dtype=pl.Int64) for c, v in codes.items()})
    return frame.with_columns(pl.when(pl.col(c) == sizes[c] - 1).then(None).otherwise(pl.col(c)).alias(c)
                              for c in codes)


@contextmanager
def _numpy_seeded(seed: int) -> Iterator[None]:
    """NumPy's global generator seeded with ``seed`` (Private-PGM samples from it), restored after."""
    with _NUMPY_LOCK:
        state = np.random.get_state()
        np.random.seed(seed)
        try:
            yield
        finally:
            np.random.set_state(state)


class MarginalSynthesizer(BaseEstimator):
    """MST or AIM through OpenDP, with its domain and configuration from the public schema.

    Parameters
    ----------
    algorithm : str
        One of :data:`~core.marginal.config.ALGORITHMS`: "MST" (the label's star of 2-way
        marginals, the whole budget; under a minute), "AIM" (AIM's rounds over the label's
        2-way marginals; a few minutes) or "MST (OpenDP defaults)" (OpenDP's MST as it ships).
    epsilon : float
        The whole release's budget (pure DP, delta 0; default 1): smaller means noisier marginals.
    bins : int
        Equal-width bins of a numeric column's declared range where the schema gives no
        public cuts for it (:data:`DEFAULT_BINS`).
    schema : PublicSchema
        Required before :meth:`fit` (None until set, so that scikit-learn's ``clone`` works).
        The only source of categories and bounds (a value outside them is clipped, or becomes
        OTHER, record by record). An entry read from the rows makes the release not DP.
    columns : sequence of str, optional
        The released columns (default every column of the schema but its identifiers).

    Attributes
    ----------
    domain_ : MarginalDomain
    config_ : MarginalConfig
        What was measured (:func:`~core.marginal.config.marginal_config`).
    table_ : opendp.extras.mbi.ContingencyTable
        OpenDP's release: the noisy marginals and the fitted model.
    ledger_ : PrivacyLedger
    n_rows_ : int
        Records fitted (public under the project's relation): the default rows to sample.
    seconds_ : float
        Time of OpenDP's release.
    """

    def __init__(self, *, algorithm: str = "MST", epsilon: float = 1.0, bins: int = DEFAULT_BINS,
                 schema: PublicSchema | None = None, columns: Sequence[str] | None = None) -> None:
        self.algorithm = algorithm
        self.epsilon = epsilon
        self.bins = bins
        self.schema = schema
        self.columns = columns

    def _check(self) -> tuple[str, float]:
        algorithm = check_choice(self.algorithm, ALGORITHMS, name="algorithm", kind=str)
        check_bins(self.bins)
        if self.schema is None:
            raise ValueError("schema is required: the synthesizer's categories and bounds come only from the "
                             "public schema (pass schema=PublicSchema(...)).")
        if not isinstance(self.schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema, got {type(self.schema).__name__}.")
        return algorithm, check_epsilon(self.epsilon)

    def fit(self, frame: pd.DataFrame, *, progress: Progress | None = None,
            stop: Stop | None = None) -> MarginalSynthesizer:
        """Measure the noisy marginals of ``frame`` and fit the model (spends ``epsilon``).

        ``progress`` hears before and after OpenDP's release (which cannot be interrupted);
        ``stop``, when set, raises :class:`core.runtime.progress.Stopped` before it starts.
        """
        algorithm, eps = self._check()
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if len(frame) == 0:
            raise ValueError("frame has no records: there is nothing to synthesize from.")
        check_stop(stop)
        domain = marginal_domain(self.schema, columns=self.columns, bins=self.bins)
        domain.encode(frame)  # a record the schema cannot hold is refused before OpenDP starts
        report(progress, 0.0, f"{algorithm}: measuring the noisy marginals and fitting the model (OpenDP; "
                              "cannot be stopped until it finishes)", stop=stop)
        start = time.perf_counter()
        self.table_ = measure_marginals(domain, frame, eps, algorithm)
        self.seconds_ = time.perf_counter() - start
        self.domain_ = domain
        self.n_rows_ = len(frame)
        self.config_ = marginal_config(self.schema, algorithm=algorithm, columns=domain.names, n=len(frame),
                                       epsilon=eps)
        self.ledger_ = marginal_ledger(self.config_, eps, self.schema)
        report(progress, 1.0, f"{algorithm}: released in {self.seconds_:.0f} s")
        return self

    def sample(self, n: int | None = None, *, random_state: RandomState = None) -> pd.DataFrame:
        """``n`` rows (default the number fitted) drawn from the fitted model: post-processing.

        ``random_state`` seeds the rows drawn from the model and the numbers drawn within
        each bin; the noisy marginals themselves are OpenDP's, fixed at :meth:`fit`. Rows are
        drawn as the configuration says (:attr:`MarginalConfig.sampling`: independently, or
        Private-PGM's rounding for OpenDP's defaults).
        """
        if not hasattr(self, "table_"):
            raise ValueError("fit the synthesizer before sampling from it.")
        rows = self.n_rows_ if n is None else n
        if isinstance(rows, bool) or not isinstance(rows, numbers.Integral):
            raise TypeError(f"n must be an int, got {type(rows).__name__}.")
        if rows < 1:
            raise ValueError(f"n must be at least 1 row, got {rows}.")
        rng = check_random_state(random_state)
        with _numpy_seeded(draw_seed(rng)):
            codes = self.table_.model.synthetic_data(int(rows), method=self.config_.sampling).df
        return self.domain_.decode(codes, random_state=rng)
